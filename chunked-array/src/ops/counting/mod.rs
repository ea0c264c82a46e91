//! Counting: `histogram` (NumPy's bin rules), `bincount`, `digitize`, `isin`
//! and `count_nonzero`. A histogram is a tree reduction: each block counts into
//! the bins, and the per-block counts are summed.

use ndarray::{ArrayD, ArrayViewD, IxDyn};

use crate::array::Array;
use crate::element::{Element, Integer, Number, Real};
use crate::error::{Error, Result};
use crate::ops::manip::stack;

mod multidim;
mod uniform;
pub use multidim::{HistogramDdOptions, histogram2d};
use uniform::Uniform;

/// The bins of [`Array::histogram`]: a count of equal bins over a range, or
/// the edges (increasing; the last bin includes its right edge).
///
/// ```
/// use chunked_array::Bins;
/// assert_eq!(Bins::from(4), Bins::Count(4));
/// assert_eq!(Bins::from(vec![0.0, 1.0, 10.0]), Bins::Edges(vec![0.0, 1.0, 10.0]));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Bins {
    /// This many equal bins over the range.
    Count(usize),
    /// The bin edges.
    Edges(Vec<f64>),
}

impl From<usize> for Bins {
    fn from(n: usize) -> Bins {
        Bins::Count(n)
    }
}

impl From<Vec<f64>> for Bins {
    fn from(edges: Vec<f64>) -> Bins {
        Bins::Edges(edges)
    }
}

impl From<&[f64]> for Bins {
    fn from(edges: &[f64]) -> Bins {
        Bins::Edges(edges.to_vec())
    }
}

/// Options of [`Array::histogram_with`].
///
/// ```
/// use chunked_array::{Array, HistogramOptions};
/// let x = Array::<f64>::from_vec(&[4], vec![0.5, 1.5, 1.5, 3.0], 2).unwrap();
/// let w = Array::<f64>::from_vec(&[4], vec![1.0, 2.0, 0.5, 4.0], 2).unwrap();
/// let opts = HistogramOptions { range: Some((0.0, 4.0)), weights: Some(&w), density: false };
/// let (h, edges) = x.histogram_with(2, &opts).unwrap();
/// assert_eq!(h.compute().unwrap().as_slice().unwrap(), &[3.5, 4.0]);
/// assert_eq!(edges, [0.0, 2.0, 4.0]);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct HistogramOptions<'a> {
    /// The range of equal bins (values outside are not counted); needed
    /// with a count of bins, since the data's own range would take a pass
    /// before the graph is built (dask asks for it too).
    pub range: Option<(f64, f64)>,
    /// A weight per element (same shape), summed instead of counting ones.
    pub weights: Option<&'a Array<f64>>,
    /// Divide by the total and the bin widths, so that the histogram
    /// integrates to 1 over the range.
    pub density: bool,
}

/// Where values fall: the edges and, for equal bins, NumPy's fast index.
#[derive(Clone)]
pub(super) struct Binning {
    pub(super) edges: Vec<f64>,
    /// Equal bins, found from the scaled offset.
    uniform: Option<Uniform>,
}

impl Binning {
    /// The edges of `bins` over `range`, checked as NumPy checks them.
    pub(super) fn new(bins: Bins, range: Option<(f64, f64)>) -> Result<Binning> {
        match bins {
            Bins::Count(0) => Err(Error::invalid("bins", 0, "a histogram needs at least one bin")),
            Bins::Count(n) => {
                let (mut lo, mut hi) = range
                    .ok_or_else(|| Error::invalid("range", "None", "a count of bins needs the range to divide"))?;
                if !(lo.is_finite() && hi.is_finite()) || lo > hi {
                    return Err(Error::invalid("range", (lo, hi), "must be finite with min <= max"));
                }
                if lo == hi {
                    (lo, hi) = (lo - 0.5, hi + 0.5); // NumPy widens an empty range
                }
                // NumPy's `linspace(lo, hi, n + 1)`: lo + i * step, the last edge exact.
                let step = (hi - lo) / n as f64;
                if !step.is_finite() {
                    return Err(Error::invalid("range", (lo, hi), "its width overflows f64"));
                }
                let mut edges: Vec<f64> = (0..=n).map(|i| lo + i as f64 * step).collect();
                edges[n] = hi;
                let uniform = Uniform { lo, hi, step, scale: n as f64 / (hi - lo), n };
                Ok(Binning { edges, uniform: Some(uniform) })
            }
            Bins::Edges(edges) => {
                if edges.len() < 2 {
                    return Err(Error::invalid("bins", &edges, "at least two edges are needed"));
                }
                if !increasing(&edges) {
                    return Err(Error::invalid("bins", &edges, "bins must increase monotonically"));
                }
                Ok(Binning { edges, uniform: None })
            }
        }
    }

    pub(super) fn bins(&self) -> usize {
        self.edges.len() - 1
    }

    /// The bin of `v`, or `None` outside the edges (NaN included).
    pub(super) fn bin(&self, v: f64) -> Option<usize> {
        let (first, last, n) = (self.edges[0], self.edges[self.bins()], self.bins());
        if !(v >= first && v <= last) {
            return None;
        }
        if let Some(uniform) = &self.uniform {
            // A guess from the scaled offset, then moved by one where rounding
            // put it on the wrong side of an edge (as NumPy does): the bin is
            // decided by the edges alone.
            let mut i = (((v - first) * uniform.scale) as usize).min(n - 1);
            if v < self.edges[i] {
                i -= 1;
            } else if i + 1 < n && v >= self.edges[i + 1] {
                i += 1;
            }
            return Some(i);
        }
        // Bin i holds edges[i] <= v < edges[i + 1]; the last also v == edge.
        let i = self.edges.partition_point(|&e| e <= v);
        Some(i.saturating_sub(1).min(n - 1))
    }
}

/// Whether `edges` never decrease (and hold no NaN).
fn increasing(edges: &[f64]) -> bool {
    edges
        .windows(2)
        .all(|w| matches!(w[0].partial_cmp(&w[1]), Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)))
}

impl<T: Real> Array<T> {
    /// The counts of values in `bins` over `range` (NumPy's
    /// `np.histogram(x, bins, range)`), lazily, with the bin edges. Values
    /// outside the edges, and NaN, are not counted.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[6], vec![0.0, 0.5, 1.0, 2.5, 3.0, 7.0], 4).unwrap();
    /// let (counts, edges) = x.histogram(3, Some((0.0, 3.0))).unwrap();
    /// assert_eq!(counts.compute().unwrap().as_slice().unwrap(), &[2, 1, 2]); // 3.0 in the last bin
    /// assert_eq!(edges, [0.0, 1.0, 2.0, 3.0]);
    /// let (counts, _) = x.histogram(vec![0.0, 1.0, 10.0], None).unwrap();
    /// assert_eq!(counts.compute().unwrap().as_slice().unwrap(), &[2, 4]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no bins, a count of bins without a
    /// range, a range that is not finite or has min > max, or edges that do
    /// not increase.
    pub fn histogram(&self, bins: impl Into<Bins>, range: Option<(f64, f64)>) -> Result<(Array<i64>, Vec<f64>)> {
        let binning = Binning::new(bins.into(), range)?;
        let edges = binning.edges.clone();
        Ok((self.counts(binning)?, edges))
    }

    /// The count of values in each bin of `binning`.
    fn counts(&self, binning: Binning) -> Result<Array<i64>> {
        let n = binning.bins();
        bin_blocks(&self.ravel()?, binning, n, |binning, block: ArrayViewD<'_, T>, counts: &mut [i64]| {
            if let (Some(uniform), Some(values)) = (&binning.uniform, block.as_slice_memory_order())
                && uniform.n < u32::MAX as usize
            {
                return uniform.count(values, counts);
            }
            let add = |v: &T| {
                if let Some(i) = binning.bin(v.cast()) {
                    counts[i] += 1;
                }
            };
            match block.as_slice() {
                Some(values) => values.iter().for_each(add),
                None => block.iter().for_each(add),
            }
        })
    }

    /// [`Array::histogram`] with weights and density (NumPy's `weights=`,
    /// `density=`): the sums of the weights in each bin, as `f64`.
    ///
    /// ```
    /// use chunked_array::{Array, HistogramOptions};
    /// let x = Array::<i32>::from_vec(&[5], vec![1, 2, 2, 3, 9], 2).unwrap();
    /// let opts = HistogramOptions { range: Some((0.0, 4.0)), density: true, ..Default::default() };
    /// let (d, _) = x.histogram_with(2, &opts).unwrap();
    /// assert_eq!(d.compute().unwrap().as_slice().unwrap(), &[0.125, 0.375]); // 9 is outside
    /// ```
    ///
    /// # Errors
    /// As [`Array::histogram`], and [`Error::ShapeMismatch`] for weights of
    /// another shape.
    pub fn histogram_with(&self, bins: impl Into<Bins>, opts: &HistogramOptions<'_>) -> Result<(Array<f64>, Vec<f64>)> {
        let binning = Binning::new(bins.into(), opts.range)?;
        let edges = binning.edges.clone();
        let sums = match opts.weights {
            None => self.counts(binning)?.astype::<f64>(),
            Some(w) => {
                if w.shape() != self.shape() {
                    return Err(Error::shape("histogram weights", &self.shape(), &w.shape()));
                }
                let pairs = values_and_weights(&self.astype::<f64>(), w)?;
                let n = binning.bins();
                bin_blocks(&pairs, binning, n, |binning, block: ArrayViewD<'_, f64>, sums: &mut [f64]| {
                    for pair in block.rows() {
                        if let Some(i) = binning.bin(pair[0]) {
                            sums[i] += pair[1];
                        }
                    }
                })?
            }
        };
        if !opts.density {
            return Ok((sums, edges));
        }
        // NumPy's n / db / n.sum().
        let widths: Vec<f64> = edges.windows(2).map(|w| w[1] - w[0]).collect();
        let widths = Array::from_vec(&[widths.len()], widths, edges.len())?;
        Ok((&(&sums / &widths) / &sums.sum(None)?, edges))
    }
}

/// Counts into the `n` bins of `binning` per block of `x` (one block per row
/// block: `x` is 1-D, or 2-D with the columns in one block), then sums the
/// blocks' counts.
pub(super) fn bin_blocks<T: Element, C: Number<Sum = C>, B: Send + Sync + 'static>(
    x: &Array<T>,
    binning: B,
    n: usize,
    count: fn(&B, ArrayViewD<'_, T>, &mut [C]),
) -> Result<Array<C>> {
    let blocks = x.chunks().grid()[0];
    let mut out_chunks = vec![vec![n; blocks]];
    out_chunks.extend((1..x.ndim()).map(|_| vec![1]));
    let out_shape = out_chunks.iter().map(|l| l[0]).collect::<Vec<_>>();
    let per_block = x.map_blocks(
        move |block: ArrayViewD<'_, T>, _| {
            let mut counts = vec![C::ZERO; n];
            count(&binning, block, &mut counts);
            ArrayD::from_shape_vec(IxDyn(&out_shape), counts).expect("n counts")
        },
        Some(out_chunks.into()),
    )?;
    per_block.reshape(&[blocks as isize, n as isize])?.sum(0)
}

/// Values and weights side by side, shape `[len, 2]`, each row block one
/// block (the weights rechunked like the values).
fn values_and_weights(values: &Array<f64>, weights: &Array<f64>) -> Result<Array<f64>> {
    let v = values.ravel()?;
    let w = weights.ravel()?.rechunk(v.chunks())?;
    stack(&[&v, &w], 1)?.rechunk(vec![v.chunks().lengths()[0].clone(), vec![2]])
}

impl<T: Real> Array<T> {
    /// The index of the bin of each value (NumPy's `np.digitize(x, bins,
    /// right)`): for increasing `bins`, `i` with `bins[i-1] <= x < bins[i]`
    /// (`right`: `bins[i-1] < x <= bins[i]`); 0 below, `len` above; NaN
    /// beyond every edge.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[5], vec![-1.0, 0.0, 0.5, 1.0, 9.0], 2).unwrap();
    /// let i = x.digitize(&[0.0, 1.0, 2.0], false).unwrap();
    /// assert_eq!(i.compute().unwrap().as_slice().unwrap(), &[0, 1, 1, 2, 3]);
    /// let i = x.digitize(&[0.0, 1.0, 2.0], true).unwrap();
    /// assert_eq!(i.compute().unwrap().as_slice().unwrap(), &[0, 0, 1, 1, 3]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for bins that are not increasing (NumPy
    /// also takes decreasing bins; reverse them and subtract from the count).
    pub fn digitize(&self, bins: &[f64], right: bool) -> Result<Array<i64>> {
        if !increasing(bins) {
            return Err(Error::invalid("bins", bins, "bins must increase monotonically"));
        }
        let bins = bins.to_vec();
        self.map_blocks(
            move |block: ArrayViewD<'_, T>, _| {
                block.mapv(|v| {
                    let v: f64 = v.cast();
                    if v.is_nan() {
                        return bins.len() as i64;
                    }
                    let i = if right { bins.partition_point(|&e| e < v) } else { bins.partition_point(|&e| e <= v) };
                    i as i64
                })
            },
            None,
        )
    }

    /// Whether each value is among `test` (NumPy's `np.isin`; `==`, so NaN is
    /// never found and -0.0 finds 0.0).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::from_vec(&[5], vec![1, 2, 3, 4, 5], 2).unwrap();
    /// let found = x.isin(&[2, 5, 7]).unwrap();
    /// assert_eq!(found.compute().unwrap().as_slice().unwrap(), &[false, true, false, false, true]);
    /// ```
    ///
    /// # Errors
    /// Deferred errors of `self`.
    pub fn isin(&self, test: &[T]) -> Result<Array<bool>> {
        let mut sorted: Vec<T> = test.iter().copied().filter(|v| v.partial_cmp(v).is_some()).collect();
        sorted.sort_by(|a, b| a.partial_cmp(b).expect("NaN removed"));
        self.map_blocks(
            move |block: ArrayViewD<'_, T>, _| {
                block.mapv(|v| {
                    sorted.binary_search_by(|t| t.partial_cmp(&v).unwrap_or(std::cmp::Ordering::Less)).is_ok()
                })
            },
            None,
        )
    }
}

/// The most bins [`Array::bincount`] makes: each block's counts are a
/// vector of that length, which must stay far below a block.
const MAX_BINCOUNT_BINS: usize = 1 << 24;

impl<T: Integer> Array<T> {
    /// How many times each value `0..len` occurs (NumPy's `np.bincount(x,
    /// minlength)`): `len` is the largest value plus one, at least
    /// `minlength`. The values' range is computed when called (dask leaves
    /// the length unknown instead), with the default context.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::from_vec(&[6], vec![0, 1, 1, 3, 1, 0], 4).unwrap();
    /// assert_eq!(x.bincount(0).unwrap().compute().unwrap().as_slice().unwrap(), &[2, 3, 0, 1]);
    /// assert_eq!(x.bincount(6).unwrap().shape(), vec![6]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a negative value or more than 2^24
    /// bins; the compute errors of `self`.
    pub fn bincount(&self, minlength: usize) -> Result<Array<i64>> {
        let len = self.bincount_len(minlength)?;
        bin_blocks(&self.ravel()?, (), len, |_, block: ArrayViewD<'_, T>, counts: &mut [i64]| {
            block.iter().for_each(|v| counts[v.cast::<i64>() as usize] += 1);
        })
    }

    /// The sums of `weights` per value (NumPy's `np.bincount(x, weights,
    /// minlength)`), as `f64`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<u8>::from_vec(&[4], vec![2, 0, 2, 2], 3).unwrap();
    /// let w = Array::<f64>::from_vec(&[4], vec![0.5, 1.0, 0.25, 2.0], 2).unwrap();
    /// assert_eq!(x.bincount_weighted(&w, 0).unwrap().compute().unwrap().as_slice().unwrap(), &[1.0, 0.0, 2.75]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::bincount`], and [`Error::ShapeMismatch`] for weights of
    /// another shape.
    pub fn bincount_weighted(&self, weights: &Array<f64>, minlength: usize) -> Result<Array<f64>> {
        if weights.shape() != self.shape() {
            return Err(Error::shape("bincount weights", &self.shape(), &weights.shape()));
        }
        let len = self.bincount_len(minlength)?;
        let pairs = values_and_weights(&self.astype::<f64>(), weights)?;
        bin_blocks(&pairs, (), len, |_, block: ArrayViewD<'_, f64>, sums: &mut [f64]| {
            block.rows().into_iter().for_each(|pair| sums[pair[0] as usize] += pair[1]);
        })
    }

    /// The bins of a bincount: the largest value plus one, at least
    /// `minlength`, the values checked non-negative.
    fn bincount_len(&self, minlength: usize) -> Result<usize> {
        let len = if self.is_empty() {
            minlength
        } else {
            let (lo, hi) = crate::array::compute((&self.min(None)?, &self.max(None)?))?;
            let (lo, hi): (f64, f64) = (lo[[]].cast(), hi[[]].cast());
            if lo < 0.0 {
                return Err(Error::invalid("x", lo, "bincount counts non-negative integers"));
            }
            // Checked before the cast, so that no value wraps.
            if hi >= MAX_BINCOUNT_BINS as f64 {
                return Err(Error::invalid(
                    "bins",
                    hi + 1.0,
                    format!("bincount makes at most {MAX_BINCOUNT_BINS} bins"),
                ));
            }
            minlength.max(hi as usize + 1)
        };
        if len > MAX_BINCOUNT_BINS {
            return Err(Error::invalid("bins", len, format!("bincount makes at most {MAX_BINCOUNT_BINS} bins")));
        }
        Ok(len)
    }
}

impl<T: Element> Array<T> {
    /// The count of values that are not zero (`false`, `0`, `0.0`, `-0.0`)
    /// along `axes` (NumPy's `np.count_nonzero`; NaN counts).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[2, 3], vec![0.0, 1.0, f64::NAN, -0.0, 2.0, 0.0], 1).unwrap();
    /// assert_eq!(x.count_nonzero(None).unwrap().compute_scalar().unwrap(), 3);
    /// assert_eq!(x.count_nonzero(1).unwrap().compute().unwrap().as_slice().unwrap(), &[2, 1]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`] for an axis out of range.
    pub fn count_nonzero(&self, axes: impl Into<crate::ops::reduce::ReduceOptions>) -> Result<Array<i64>> {
        let zero = T::default();
        let ones = self.map_blocks(move |block: ArrayViewD<'_, T>, _| block.mapv(|v| i64::from(v != zero)), None)?;
        ones.sum(axes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_bin_rules() {
        let b = Binning::new(Bins::Count(10), Some((0.0, 1.0))).unwrap();
        // Edge 3 is 3 * 0.1 = 0.30000000000000004, above 0.3.
        assert_eq!((b.bin(0.3), b.bin(0.30000000000000004)), (Some(2), Some(3)));
        assert_eq!(b.bin(1.0), Some(9));
        assert_eq!((b.bin(-0.0), b.bin(1.0 + 1e-16), b.bin(f64::NAN)), (Some(0), Some(9), None));
        assert_eq!(b.bin(1.0000001), None);
        // A range whose width is past f64 (NumPy's edges would be NaN).
        assert!(Binning::new(Bins::Count(2), Some((-1e308, 1e308))).is_err());
        let e = Binning::new(Bins::Edges(vec![0.0, 1.0, 1.0, 4.0]), None).unwrap();
        assert_eq!((e.bin(1.0), e.bin(4.0), e.bin(0.999)), (Some(2), Some(2), Some(0)));
    }
}
