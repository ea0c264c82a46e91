//! Histograms of samples in several dimensions: `histogramdd` (an `[N, D]`
//! array of N points) and `histogram2d` (two coordinate arrays). Each block
//! of rows counts into the flattened `D`-dimensional bins, and the blocks'
//! counts are summed, as for the 1-D histogram.

use ndarray::ArrayViewD;

use super::{Binning, Bins, bin_blocks};
use crate::array::Array;
use crate::chunks::ChunkSpec;
use crate::element::{Number, Real};
use crate::error::{Error, Result};
use crate::ops::manip::{concatenate, stack};

/// Options of [`Array::histogramdd_with`] and [`histogram2d`].
///
/// ```
/// use chunked_array::{Array, HistogramDdOptions};
/// let points = Array::<f64>::from_vec(&[3, 2], vec![0.5, 0.5, 1.5, 0.5, 1.5, 1.5], 2).unwrap();
/// let opts = HistogramDdOptions { ranges: Some(vec![(0.0, 2.0), (0.0, 2.0)]), ..Default::default() };
/// let (h, _) = points.histogramdd_with(&[2.into(), 2.into()], &opts).unwrap();
/// assert_eq!(h.compute().unwrap().as_slice().unwrap(), &[1.0, 0.0, 1.0, 1.0]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct HistogramDdOptions<'a> {
    /// The range of each dimension's equal bins (needed with counts of bins).
    pub ranges: Option<Vec<(f64, f64)>>,
    /// A weight per point, summed instead of counting ones.
    pub weights: Option<&'a Array<f64>>,
    /// Divide by the total and the bins' volumes.
    pub density: bool,
}

impl<T: Real> Array<T> {
    /// The counts of the points of an `[N, D]` array in `D`-dimensional
    /// bins (NumPy's `np.histogramdd(sample, bins, range)`), with each
    /// dimension's edges. A point outside any dimension's edges, or with a
    /// NaN, is not counted.
    ///
    /// ```
    /// use chunked_array::{Array, Bins};
    /// let points = Array::<f64>::from_vec(&[4, 2], vec![0.1, 0.1, 0.9, 0.2, 0.8, 0.9, 2.0, 0.5], 3).unwrap();
    /// let bins = [Bins::Count(2), Bins::Edges(vec![0.0, 0.5, 1.0])];
    /// let (h, edges) = points.histogramdd(&bins, Some(&[(0.0, 1.0), (0.0, 1.0)])).unwrap();
    /// assert_eq!(h.compute().unwrap().as_slice().unwrap(), &[1, 0, 1, 1]); // (2.0, 0.5) is outside
    /// assert_eq!(edges[0], [0.0, 0.5, 1.0]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an array that is not 2-D, a bins or
    /// ranges list whose length is not `D`, or bins as
    /// [`Array::histogram`] refuses them.
    pub fn histogramdd(&self, bins: &[Bins], ranges: Option<&[(f64, f64)]>) -> Result<(Array<i64>, Vec<Vec<f64>>)> {
        let binnings = binnings(self, bins, ranges)?;
        let edges = binnings.iter().map(|b| b.edges.clone()).collect();
        Ok((dd_counts(&self.astype::<f64>(), binnings)?, edges))
    }

    /// [`Array::histogramdd`] with weights and density (`f64` sums).
    ///
    /// ```
    /// use chunked_array::{Array, HistogramDdOptions};
    /// let points = Array::<f64>::from_vec(&[2, 2], vec![0.2, 0.2, 0.7, 0.7], 1).unwrap();
    /// let w = Array::<f64>::from_vec(&[2], vec![3.0, 1.0], 2).unwrap();
    /// let opts = HistogramDdOptions { ranges: Some(vec![(0.0, 1.0); 2]), weights: Some(&w), density: true };
    /// let (d, _) = points.histogramdd_with(&[2.into(), 2.into()], &opts).unwrap();
    /// assert_eq!(d.compute().unwrap().as_slice().unwrap(), &[3.0, 0.0, 0.0, 1.0]); // 4 in all, cells of 1/4
    /// ```
    ///
    /// # Errors
    /// As [`Array::histogramdd`], and [`Error::ShapeMismatch`] for weights
    /// that are not one per point.
    pub fn histogramdd_with(
        &self,
        bins: &[Bins],
        opts: &HistogramDdOptions<'_>,
    ) -> Result<(Array<f64>, Vec<Vec<f64>>)> {
        let binnings = binnings(self, bins, opts.ranges.as_deref())?;
        let edges: Vec<Vec<f64>> = binnings.iter().map(|b| b.edges.clone()).collect();
        let points = self.astype::<f64>();
        let sums = match opts.weights {
            None => dd_counts(&points, binnings)?.astype::<f64>(),
            Some(w) => {
                if w.shape() != [self.shape()[0]] {
                    return Err(Error::shape("histogramdd weights (points, weights)", &[self.shape()[0]], &w.shape()));
                }
                let with_weights = concatenate(&[&points, &w.expand_dims(1)?], 1)?;
                dd_sums(&with_weights, binnings)?
            }
        };
        if !opts.density {
            return Ok((sums, edges));
        }
        let volumes = cell_volumes(&edges);
        let volumes = Array::from_vec(&sums.shape(), volumes, ChunkSpec::from(sums.chunks().lengths().to_vec()))?;
        Ok((&(&sums / &volumes) / &sums.sum(None)?, edges))
    }
}

/// The counts of the 2-D points `(x[i], y[i])` (NumPy's `np.histogram2d(x,
/// y, bins, range, weights, density)`), as `f64` sums, with the edges of
/// `x`'s and `y`'s bins.
///
/// ```
/// use chunked_array::{Array, HistogramDdOptions, histogram2d};
/// let x = Array::<f64>::from_vec(&[3], vec![0.1, 0.6, 0.7], 2).unwrap();
/// let y = Array::<f64>::from_vec(&[3], vec![0.9, 0.1, 0.2], 2).unwrap();
/// let opts = HistogramDdOptions { ranges: Some(vec![(0.0, 1.0), (0.0, 1.0)]), ..Default::default() };
/// let (h, _) = histogram2d(&x, &y, &[2.into(), 2.into()], &opts).unwrap();
/// assert_eq!(h.compute().unwrap().as_slice().unwrap(), &[0.0, 1.0, 2.0, 0.0]);
/// ```
///
/// # Errors
/// [`Error::ShapeMismatch`] for `x` and `y` of other shapes or not 1-D; as
/// [`Array::histogramdd_with`].
pub fn histogram2d<T: Real>(
    x: &Array<T>,
    y: &Array<T>,
    bins: &[Bins],
    opts: &HistogramDdOptions<'_>,
) -> Result<(Array<f64>, Vec<Vec<f64>>)> {
    if x.ndim() != 1 || x.shape() != y.shape() {
        return Err(Error::shape("histogram2d (x, y)", &x.shape(), &y.shape()));
    }
    stack(&[x, y], 1)?.histogramdd_with(bins, opts)
}

/// Each dimension's binning, checked against the sample's shape.
fn binnings<T: Real>(sample: &Array<T>, bins: &[Bins], ranges: Option<&[(f64, f64)]>) -> Result<Vec<Binning>> {
    if sample.ndim() != 2 {
        return Err(Error::invalid("sample shape", sample.shape(), "histogramdd takes an [N, D] array of N points"));
    }
    let d = sample.shape()[1];
    if bins.len() != d || ranges.is_some_and(|r| r.len() != d) {
        return Err(Error::invalid(
            "bins and ranges",
            (bins.len(), ranges.map(<[_]>::len)),
            format!("histogramdd needs one per dimension ({d})"),
        ));
    }
    let binnings: Vec<Binning> =
        bins.iter().enumerate().map(|(k, b)| Binning::new(b.clone(), ranges.map(|r| r[k]))).collect::<Result<_>>()?;
    // Each block's counts are one vector over all cells: far below a block.
    let cells = binnings.iter().try_fold(1_usize, |n, b| n.checked_mul(b.bins()));
    if cells.is_none_or(|n| n > MAX_CELLS) {
        let counts: Vec<usize> = binnings.iter().map(Binning::bins).collect();
        return Err(Error::invalid("bins", counts, format!("histogramdd makes at most {MAX_CELLS} cells")));
    }
    Ok(binnings)
}

/// The most cells a histogram in several dimensions makes.
const MAX_CELLS: usize = 1 << 24;

/// The flat cell of a point (C order over the dimensions), if inside.
fn cell(binnings: &[Binning], point: impl Iterator<Item = f64>) -> Option<usize> {
    let mut flat = 0;
    for (b, v) in binnings.iter().zip(point) {
        flat = flat * b.bins() + b.bin(v)?;
    }
    Some(flat)
}

/// Counts of the rows of `points` (`[N, D]`), shaped as the bins.
fn dd_counts(points: &Array<f64>, binnings: Vec<Binning>) -> Result<Array<i64>> {
    dd_bins(points, binnings, |binnings, block, counts: &mut [i64]| {
        for row in block.rows() {
            if let Some(c) = cell(binnings, row.iter().copied()) {
                counts[c] += 1;
            }
        }
    })
}

/// Sums of the last column of `points` (`[N, D + 1]`) by the cell of the others.
fn dd_sums(points: &Array<f64>, binnings: Vec<Binning>) -> Result<Array<f64>> {
    dd_bins(points, binnings, |binnings, block, sums: &mut [f64]| {
        for row in block.rows() {
            let d = row.len() - 1;
            if let Some(c) = cell(binnings, row.iter().take(d).copied()) {
                sums[c] += row[d];
            }
        }
    })
}

/// `add` of each block of rows of `points` into the flattened cells, summed
/// over the blocks and shaped as the bins.
fn dd_bins<C: Number<Sum = C>>(
    points: &Array<f64>,
    binnings: Vec<Binning>,
    add: fn(&Vec<Binning>, ArrayViewD<'_, f64>, &mut [C]),
) -> Result<Array<C>> {
    let shape: Vec<isize> = binnings.iter().map(|b| b.bins() as isize).collect();
    let cells = shape.iter().product::<isize>() as usize;
    let rows = points.rechunk(vec![points.chunks().lengths()[0].clone(), vec![points.shape()[1]]])?;
    bin_blocks(&rows, binnings, cells, add)?.reshape(&shape)
}

/// The volume of every cell, in C order.
fn cell_volumes(edges: &[Vec<f64>]) -> Vec<f64> {
    edges.iter().fold(vec![1.0], |volumes, e| {
        let widths: Vec<f64> = e.windows(2).map(|w| w[1] - w[0]).collect();
        volumes.iter().flat_map(|v| widths.iter().map(move |w| v * w)).collect()
    })
}
