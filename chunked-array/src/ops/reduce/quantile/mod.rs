//! Order statistics: `quantile`, `percentile`, `median` and their NaN-skipping
//! variants, exact, with NumPy's methods.
//!
//! Along an axis the array is rechunked so that the axis is whole in every
//! block (dask's `da.median` asks the user to do it), the other axes chunked
//! to the automatic block size; each lane then gives its order statistics by
//! selection (`select_nth_unstable`, linear time) with NumPy's virtual index
//! and interpolation, so the values equal NumPy's bit for bit. Over all axes,
//! an array of at most [`ONE_BLOCK_BYTES`] is one lane in one block; a larger
//! one goes through a radix selection ([`radix`]): a few counting passes
//! over the blocks (4 for f64, 2 for f32) whose memory is bounded by the
//! block size whatever the array's size, with the same exact values.

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn};

use crate::array::Array;
use crate::chunks::{AxisChunks, ChunkSpec};
use crate::element::{Element, Float};
use crate::error::{Error, Result};
use crate::ops::reduce::normalize_axes;

mod radix;

/// The largest array whose quantiles over all axes are taken in one block
/// (one selection); larger ones take the radix selection's passes.
const ONE_BLOCK_BYTES: usize = 16 << 20;

/// How a quantile between two data points is chosen (NumPy's `method`).
///
/// ```
/// use chunked_array::{Array, QuantileMethod, QuantileOptions};
/// let x = Array::<f64>::from_vec(&[4], vec![1.0, 2.0, 3.0, 4.0], 2).unwrap();
/// let at = |method| {
///     let opts = QuantileOptions { method, ..Default::default() };
///     x.quantile_with(&[0.5], &opts).unwrap().compute().unwrap()[[0]]
/// };
/// assert_eq!(at(QuantileMethod::Linear), 2.5);
/// assert_eq!(at(QuantileMethod::Lower), 2.0);
/// assert_eq!(at(QuantileMethod::Higher), 3.0);
/// assert_eq!(at(QuantileMethod::Nearest), 3.0); // index 1.5 rounds half to even: 2
/// assert_eq!(at(QuantileMethod::Midpoint), 2.5);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QuantileMethod {
    /// Interpolates linearly at index `(n - 1) q` (the default).
    #[default]
    Linear,
    /// The point below: index `floor((n - 1) q)`.
    Lower,
    /// The point above: index `ceil((n - 1) q)`.
    Higher,
    /// The nearest point, index `(n - 1) q` rounded half to even.
    Nearest,
    /// Halfway between the points below and above.
    Midpoint,
}

/// Options of [`Array::quantile_with`] and [`Array::percentile_with`].
///
/// ```
/// use chunked_array::{Array, QuantileOptions};
/// let x = Array::<f64>::from_vec(&[2, 3], vec![1.0, f64::NAN, 3.0, 4.0, 5.0, 6.0], 1).unwrap();
/// let opts = QuantileOptions { axis: Some(1), skip_nan: true, ..Default::default() };
/// let q = x.quantile_with(&[0.0, 1.0], &opts).unwrap().compute().unwrap(); // shape [2, 2]: q, then rows
/// assert_eq!(q.as_slice().unwrap(), &[1.0, 4.0, 3.0, 6.0]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QuantileOptions {
    /// The axis along which to take them (negative from the end); `None`: all.
    pub axis: Option<isize>,
    /// How to choose between data points.
    pub method: QuantileMethod,
    /// Ignore NaN (NumPy's `nanquantile`); otherwise a lane with a NaN gives NaN.
    pub skip_nan: bool,
}

impl<T: Float> Array<T> {
    /// The `q`-th quantile (`q` in [0, 1]) along `axis` (`None`: of all
    /// elements), interpolated linearly as NumPy's default (`np.quantile`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::arange(0.0, 11.0, 1.0, 4).unwrap();
    /// assert_eq!(x.quantile(0.25, None).unwrap().compute_scalar().unwrap(), 2.5);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `q` outside [0, 1] or an axis out of range.
    pub fn quantile(&self, q: f64, axis: Option<isize>) -> Result<Array<T>> {
        self.quantile_with(&[q], &QuantileOptions { axis, ..Default::default() })?.squeeze(Some(&[0]))
    }

    /// The quantiles `qs` (each in [0, 1]) with `opts`: an array of shape
    /// `[qs.len()]` followed by the shape without the reduced axis (NumPy's
    /// `np.quantile(x, qs, axis, method=...)`, or `np.nanquantile`).
    ///
    /// ```
    /// use chunked_array::{Array, QuantileOptions};
    /// let x = Array::<f32>::from_vec(&[5], vec![5.0, 1.0, 4.0, 2.0, 3.0], 2).unwrap();
    /// let q = x.quantile_with(&[0.0, 0.5, 1.0], &QuantileOptions::default()).unwrap();
    /// assert_eq!(q.compute().unwrap().as_slice().unwrap(), &[1.0, 3.0, 5.0]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a `q` outside [0, 1] (or NaN), no `q`,
    /// or an axis out of range.
    pub fn quantile_with(&self, qs: &[f64], opts: &QuantileOptions) -> Result<Array<T>> {
        if qs.is_empty() {
            return Err(Error::invalid("q", qs, "at least one quantile is needed"));
        }
        if let Some(bad) = qs.iter().find(|q| !(0.0..=1.0).contains(*q)) {
            return Err(Error::invalid("q", bad, "quantiles must be in the range [0, 1]"));
        }
        self.check()?;
        let (lanes, axis) = match opts.axis {
            Some(axis) => (self.clone(), normalize_axes(&[axis], self.ndim())?[0]),
            None if self.nbytes() > ONE_BLOCK_BYTES => return radix::radix_quantiles(self, qs, opts),
            None => (self.reshape(&[-1])?, 0),
        };
        let mut whole = vec![AxisChunks::Auto; lanes.ndim()];
        whole[axis] = AxisChunks::Whole;
        let lanes = lanes.rechunk(ChunkSpec::per_axis(whole))?;
        let mut out_chunks = lanes.chunks().lengths().to_vec();
        out_chunks[axis] = vec![qs.len()];
        let (qs, opts) = (qs.to_vec(), *opts);
        let stats = lanes.map_blocks(
            move |block, _| lane_quantiles(block, axis, &qs, opts.method, opts.skip_nan),
            Some(out_chunks.into()),
        )?;
        stats.moveaxis(&[axis as isize], &[0])
    }

    /// The `q`-th percentile (`q` in [0, 100]) along `axis` (`np.percentile`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::arange(1.0, 5.0, 1.0, 2).unwrap();
    /// assert_eq!(x.percentile(50.0, None).unwrap().compute_scalar().unwrap(), 2.5);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `q` outside [0, 100] or an axis out of range.
    pub fn percentile(&self, q: f64, axis: Option<isize>) -> Result<Array<T>> {
        self.percentile_with(&[q], &QuantileOptions { axis, ..Default::default() })?.squeeze(Some(&[0]))
    }

    /// The percentiles `qs` (each in [0, 100]) with `opts` (see
    /// [`Array::quantile_with`]; NumPy's `np.percentile` and `np.nanpercentile`).
    ///
    /// ```
    /// use chunked_array::{Array, QuantileMethod, QuantileOptions};
    /// let x = Array::<f64>::arange(0.0, 10.0, 1.0, 3).unwrap();
    /// let opts = QuantileOptions { method: QuantileMethod::Lower, ..Default::default() };
    /// let p = x.percentile_with(&[25.0, 75.0], &opts).unwrap().compute().unwrap();
    /// assert_eq!(p.as_slice().unwrap(), &[2.0, 6.0]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming a `q` outside [0, 100].
    pub fn percentile_with(&self, qs: &[f64], opts: &QuantileOptions) -> Result<Array<T>> {
        if let Some(bad) = qs.iter().find(|q| !(0.0..=100.0).contains(*q)) {
            return Err(Error::invalid("q", bad, "percentiles must be in the range [0, 100]"));
        }
        // NumPy divides by 100 before it computes the index.
        self.quantile_with(&qs.iter().map(|q| q / 100.0).collect::<Vec<_>>(), opts)
    }

    /// The median along `axis` (`None`: of all elements), `np.median`: NaN
    /// where a lane holds a NaN.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[2, 3], vec![3.0, 1.0, 2.0, 9.0, 7.0, 8.0], 1).unwrap();
    /// assert_eq!(x.median(Some(1)).unwrap().compute().unwrap().as_slice().unwrap(), &[2.0, 8.0]);
    /// assert_eq!(x.median(None).unwrap().compute_scalar().unwrap(), 5.0);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an axis out of range.
    pub fn median(&self, axis: Option<isize>) -> Result<Array<T>> {
        self.quantile(0.5, axis)
    }

    /// The median ignoring NaN (`np.nanmedian`; NaN where a lane is all NaN).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[4], vec![f64::NAN, 1.0, 3.0, 2.0], 2).unwrap();
    /// assert_eq!(x.nanmedian(None).unwrap().compute_scalar().unwrap(), 2.0);
    /// assert!(x.median(None).unwrap().compute_scalar().unwrap().is_nan());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an axis out of range.
    pub fn nanmedian(&self, axis: Option<isize>) -> Result<Array<T>> {
        self.nanquantile(0.5, axis)
    }

    /// The `q`-th quantile ignoring NaN (`np.nanquantile`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[5], vec![1.0, f64::NAN, 2.0, 3.0, 4.0], 2).unwrap();
    /// assert_eq!(x.nanquantile(1.0 / 3.0, None).unwrap().compute_scalar().unwrap(), 2.0);
    /// ```
    ///
    /// # Errors
    /// As [`Array::quantile`].
    pub fn nanquantile(&self, q: f64, axis: Option<isize>) -> Result<Array<T>> {
        let opts = QuantileOptions { axis, skip_nan: true, ..Default::default() };
        self.quantile_with(&[q], &opts)?.squeeze(Some(&[0]))
    }

    /// The `q`-th percentile ignoring NaN (`np.nanpercentile`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[3], vec![f64::NAN, 10.0, 20.0], 3).unwrap();
    /// assert_eq!(x.nanpercentile(50.0, None).unwrap().compute_scalar().unwrap(), 15.0);
    /// ```
    ///
    /// # Errors
    /// As [`Array::percentile`].
    pub fn nanpercentile(&self, q: f64, axis: Option<isize>) -> Result<Array<T>> {
        let opts = QuantileOptions { axis, skip_nan: true, ..Default::default() };
        self.percentile_with(&[q], &opts)?.squeeze(Some(&[0]))
    }
}

/// The quantiles of every lane of `block` along `axis`, as a block with that
/// axis of length `qs.len()`.
fn lane_quantiles<T: Float>(
    block: ArrayViewD<'_, T>,
    axis: usize,
    qs: &[f64],
    method: QuantileMethod,
    skip_nan: bool,
) -> ArrayD<T> {
    let mut shape = block.shape().to_vec();
    shape[axis] = qs.len();
    let mut out = ArrayD::from_elem(IxDyn(&shape), T::NAN);
    let mut values: Vec<T> = Vec::with_capacity(block.shape()[axis]);
    for (lane, mut dest) in block.lanes(Axis(axis)).into_iter().zip(out.lanes_mut(Axis(axis))) {
        values.clear();
        values.extend(lane.iter().copied().filter(|v| !skip_nan || !is_nan(*v)));
        if values.is_empty() || (!skip_nan && values.iter().any(|v| is_nan(*v))) {
            continue; // NaN, as NumPy: a lane with a NaN, or nothing left
        }
        for (d, &q) in dest.iter_mut().zip(qs) {
            *d = order_statistic(&mut values, q, method);
        }
    }
    out
}

/// Which order statistics a quantile takes, among `n` (> 0) sorted values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Pick {
    /// The value of rank `k`.
    At(usize),
    /// Interpolated between ranks `k` and `k + 1` (`k` itself at the last
    /// rank) with weight `gamma`.
    Between(usize, f64),
}

/// NumPy's rule for the `q`-th quantile of `n` values by `method`.
pub(crate) fn pick(n: usize, q: f64, method: QuantileMethod) -> Pick {
    let last = n - 1;
    let index = last as f64 * q;
    let (below, gamma) = match method {
        QuantileMethod::Lower => return Pick::At(index.floor() as usize),
        QuantileMethod::Higher => return Pick::At(index.ceil() as usize),
        QuantileMethod::Nearest => return Pick::At(index.round_ties_even() as usize),
        QuantileMethod::Linear => (index.floor(), index - index.floor()),
        QuantileMethod::Midpoint => (index.floor(), if index.fract() == 0.0 { 0.0 } else { 0.5 }),
    };
    // NumPy interpolates even at the last point (with itself), so that an
    // infinite end gives NaN there as it does in NumPy.
    Pick::Between((below as usize).min(last), gamma)
}

/// The `q`-th quantile of `values` (no NaN) by NumPy's rules, reordering them.
pub(crate) fn order_statistic<T: Float>(values: &mut [T], q: f64, method: QuantileMethod) -> T {
    let at = |values: &mut [T], k: usize| -> T { *values.select_nth_unstable_by(k, order).1 };
    match pick(values.len(), q, method) {
        Pick::At(k) => at(values, k),
        Pick::Between(k, gamma) => {
            let a = at(values, k);
            // After the selection, the next order statistic is the least value above.
            let b = values[k + 1..].iter().copied().reduce(|m, v| if v < m { v } else { m }).unwrap_or(a);
            lerp(a, b, gamma)
        }
    }
}

fn is_nan<T: Float>(v: T) -> bool {
    v.partial_cmp(&v).is_none()
}

/// The order of values without NaN (equal values in any order).
fn order<T: Float>(a: &T, b: &T) -> std::cmp::Ordering {
    a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal)
}

/// NumPy's `_lerp`: `a + (b - a) t`, computed from `b`'s side for `t >= 0.5`
/// so that `t = 1` gives `b` exactly.
fn lerp<T: Float>(a: T, b: T, t: f64) -> T {
    let diff = b.sub(a);
    if t >= 0.5 { b.sub(diff.mul(Element::cast(1.0 - t))) } else { a.add(diff.mul(Element::cast(t))) }
}
