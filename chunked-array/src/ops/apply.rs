//! User functions over parts of an array beyond whole blocks:
//! `apply_along_axis` (one call per lane) and dask's `coarsen` (one call per
//! window of a fixed size).

use ndarray::{ArrayD, ArrayView1, ArrayViewD, Axis, IxDyn};

use crate::array::Array;
use crate::chunks::{AxisChunks, ChunkSpec};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::reduce::normalize_axes;
use crate::ops::slicing::Idx;

impl<T: Element> Array<T> {
    /// `f` of every lane along `axis` (NumPy's `np.apply_along_axis(f, axis,
    /// x)`): each call returns an array of `out_shape` (`[]` for one value),
    /// which takes the axis's place in the result. The axis is made whole in
    /// each block.
    ///
    /// ```
    /// use chunked_array::Array;
    /// use chunked_array::ndarray::{arr1, ArrayD};
    /// let x = Array::<f64>::from_vec(&[2, 3], vec![1.0, 5.0, 2.0, 0.0, 4.0, 8.0], 1).unwrap();
    /// // Each row's first and last value, as a pair.
    /// let ends = x.apply_along_axis(1, &[2], |lane| arr1(&[lane[0], lane[lane.len() - 1]]).into_dyn()).unwrap();
    /// assert_eq!(ends.compute().unwrap().as_slice().unwrap(), &[1.0, 2.0, 0.0, 8.0]);
    /// let spread = x.apply_along_axis(0, &[], |lane| ArrayD::from_elem(vec![], lane[1] - lane[0])).unwrap();
    /// assert_eq!(spread.compute().unwrap().as_slice().unwrap(), &[-1.0, -1.0, 6.0]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`]; at compute time, [`Error::ShapeMismatch`] naming
    /// a result of another shape than `out_shape`.
    pub fn apply_along_axis<U: Element>(
        &self,
        axis: isize,
        out_shape: &[usize],
        f: impl Fn(ArrayView1<'_, T>) -> ArrayD<U> + Send + Sync + 'static,
    ) -> Result<Array<U>> {
        let axis = normalize_axes(&[axis], self.ndim())?[0];
        let mut spec = vec![AxisChunks::Auto; self.ndim()];
        spec[axis] = AxisChunks::Whole;
        let lanes = self.rechunk(ChunkSpec::per_axis(spec))?;
        let lengths = lanes.chunks().lengths();
        let out_chunks: Vec<Vec<usize>> = lengths[..axis]
            .iter()
            .cloned()
            .chain(out_shape.iter().map(|&d| vec![d]))
            .chain(lengths[axis + 1..].iter().cloned())
            .collect();
        let out_shape = out_shape.to_vec();
        lanes.try_map_blocks(move |block, _| lane_results(block, axis, &out_shape, &f), Some(out_chunks.into()))
    }
}

/// `f` of every lane of `block` along `axis`, the results in the axis's place.
fn lane_results<T: Element, U: Element>(
    block: ArrayViewD<'_, T>,
    axis: usize,
    out_shape: &[usize],
    f: &impl Fn(ArrayView1<'_, T>) -> ArrayD<U>,
) -> Result<ArrayD<U>> {
    let nd = block.ndim();
    let mut last: Vec<usize> = (0..nd).filter(|&a| a != axis).collect();
    last.push(axis);
    let moved = block.permuted_axes(last);
    let mut data = Vec::new();
    for lane in moved.lanes(Axis(nd - 1)) {
        let r = f(lane);
        if r.shape() != out_shape {
            return Err(Error::shape("apply_along_axis result (declared, returned)", out_shape, r.shape()));
        }
        data.extend(r.iter().copied());
    }
    // Axes now: the others in order, then the result's; put those at `axis`.
    let mut shape = moved.shape()[..nd - 1].to_vec();
    shape.extend_from_slice(out_shape);
    let out = ArrayD::from_shape_vec(IxDyn(&shape), data).expect("one result per lane");
    let k = out_shape.len();
    let perm: Vec<usize> = (0..axis).chain(nd - 1..nd - 1 + k).chain(axis..nd - 1).collect();
    Ok(out.permuted_axes(perm).as_standard_layout().into_owned())
}

impl<T: Element> Array<T> {
    /// `reduce` of every window of `factors[axis]` elements along each axis
    /// (dask's `coarsen(reduction, x, axes, trim_excess)`; a factor of 1
    /// leaves an axis alone): the result is this array's shape divided by
    /// the factors. Blocks are rechunked to whole windows.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::arange(0, 12, 1, 5).unwrap().reshape(&[2, 6]).unwrap();
    /// let sums = x.coarsen(&[1, 3], |w| w.sum(), false).unwrap();
    /// assert_eq!(sums.compute().unwrap().as_slice().unwrap(), &[3, 12, 21, 30]);
    /// let x = Array::<i64>::arange(0, 7, 1, 3).unwrap();
    /// let maxima = x.coarsen(&[2], |w| *w.iter().max().unwrap(), true).unwrap(); // 6 is trimmed
    /// assert_eq!(maxima.compute().unwrap().as_slice().unwrap(), &[1, 3, 5]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a factor list of the wrong length, a
    /// factor of 0, or (without `trim_excess`) an axis the factor does not
    /// divide.
    pub fn coarsen<U: Element>(
        &self,
        factors: &[usize],
        reduce: impl Fn(ArrayViewD<'_, T>) -> U + Send + Sync + 'static,
        trim_excess: bool,
    ) -> Result<Array<U>> {
        let shape = self.shape();
        if factors.len() != shape.len() || factors.contains(&0) {
            return Err(Error::invalid(
                "factors",
                factors,
                format!("coarsen needs one factor > 0 per axis ({})", shape.len()),
            ));
        }
        if let Some(a) = (0..shape.len()).find(|&a| !shape[a].is_multiple_of(factors[a]))
            && !trim_excess
        {
            return Err(Error::invalid(
                "factors",
                factors,
                format!(
                    "factor {} does not divide axis {a} of length {} (trim_excess drops the rest)",
                    factors[a], shape[a]
                ),
            ));
        }
        let whole: Vec<Idx> =
            (0..shape.len()).map(|a| Idx::range(0, (shape[a] - shape[a] % factors[a]) as isize)).collect();
        let trimmed = self.slice(&whole)?;
        let windows: Vec<Vec<usize>> =
            (0..shape.len()).map(|a| window_chunks(trimmed.chunks().boundaries(a), factors[a])).collect();
        let aligned = trimmed.rechunk(windows.clone())?;
        let out_chunks: Vec<Vec<usize>> =
            windows.iter().zip(factors).map(|(l, f)| l.iter().map(|n| n / f).collect()).collect();
        let window = factors.to_vec();
        aligned.map_blocks(
            move |block, _| {
                let out_shape: Vec<usize> = block.shape().iter().zip(&window).map(|(n, f)| n / f).collect();
                let values: Vec<U> = block.exact_chunks(IxDyn(&window)).into_iter().map(&reduce).collect();
                ArrayD::from_shape_vec(IxDyn(&out_shape), values).expect("one value per window")
            },
            Some(out_chunks.into()),
        )
    }
}

/// Block lengths that are whole multiples of `factor`, each boundary of
/// `boundaries` moved down to one (the last is a multiple already).
fn window_chunks(boundaries: &[usize], factor: usize) -> Vec<usize> {
    let mut cuts: Vec<usize> = boundaries.iter().map(|b| b / factor * factor).collect();
    cuts.dedup();
    let lengths: Vec<usize> = cuts.windows(2).map(|w| w[1] - w[0]).collect();
    if lengths.is_empty() { vec![0] } else { lengths }
}
