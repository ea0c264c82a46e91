//! Coordinate grids: `meshgrid`, `indices` and `tri`.

use crate::array::Array;
use crate::chunks::ChunkSpec;
use crate::element::{Element, Number};
use crate::error::{Error, Result};

/// The axis order of [`meshgrid`]'s outputs (NumPy's `indexing`).
///
/// ```
/// use chunked_array::Indexing;
/// assert_eq!(Indexing::default(), Indexing::Xy);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Indexing {
    /// Cartesian: the first two axes swapped (`x` varies along columns).
    #[default]
    Xy,
    /// Matrix: output axis `k` follows input `k`.
    Ij,
}

/// Coordinate arrays from 1-D coordinate vectors (NumPy's `np.meshgrid(*xs,
/// indexing=...)`): output `k` holds `xs[k]` repeated over the other axes,
/// each axis chunked as the input it follows.
///
/// ```
/// use chunked_array::{Array, Indexing, meshgrid};
/// let x = Array::<f64>::arange(0.0, 3.0, 1.0, 2).unwrap();
/// let y = Array::<f64>::arange(10.0, 12.0, 1.0, 1).unwrap();
/// let g = meshgrid(&[&x, &y], Indexing::Xy).unwrap();
/// assert_eq!(g[0].shape(), vec![2, 3]);
/// assert_eq!(g[0].compute().unwrap().as_slice().unwrap(), &[0.0, 1.0, 2.0, 0.0, 1.0, 2.0]);
/// assert_eq!(g[1].compute().unwrap().as_slice().unwrap(), &[10.0, 10.0, 10.0, 11.0, 11.0, 11.0]);
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for an input that is not 1-D.
pub fn meshgrid<T: Element>(xs: &[&Array<T>], indexing: Indexing) -> Result<Vec<Array<T>>> {
    if let Some(bad) = xs.iter().find(|x| x.ndim() != 1) {
        return Err(Error::invalid("coordinate shape", bad.shape(), "meshgrid takes 1-D coordinate vectors"));
    }
    // Output axis of input k.
    let axis_of = |k: usize| match (indexing, k) {
        (Indexing::Xy, 0) if xs.len() > 1 => 1,
        (Indexing::Xy, 1) => 0,
        _ => k,
    };
    let mut shape = vec![0; xs.len()];
    let mut chunks = vec![None; xs.len()];
    for (k, x) in xs.iter().enumerate() {
        shape[axis_of(k)] = x.shape()[0];
        chunks[axis_of(k)] = Some(x.chunks().lengths()[0].clone());
    }
    xs.iter()
        .enumerate()
        .map(|(k, x)| {
            let mut along: Vec<isize> = vec![1; xs.len()];
            along[axis_of(k)] = -1;
            let mut others = chunks.clone();
            others[axis_of(k)] = None;
            x.reshape(&along)?.broadcast_to_chunks(&shape, &others)
        })
        .collect()
}

impl Array<i64> {
    /// The index of each position along each axis (NumPy's
    /// `np.indices(dimensions)`): shape `[ndim, *dimensions]`, chunked by
    /// `chunks` over `dimensions` (the first axis one block).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let i = Array::indices(&[2, 3], 2).unwrap();
    /// assert_eq!(i.shape(), vec![2, 2, 3]);
    /// assert_eq!(i.compute().unwrap().as_slice().unwrap(), &[0, 0, 0, 1, 1, 1, 0, 1, 2, 0, 1, 2]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadChunks`] when `chunks` does not fit `dimensions`.
    pub fn indices(dimensions: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<i64>> {
        let grid = chunks.into().resolve(dimensions, crate::element::DType::I64)?;
        let mut lengths = vec![vec![dimensions.len()]];
        lengths.extend(grid.lengths().iter().cloned());
        let mut shape = vec![dimensions.len()];
        shape.extend_from_slice(dimensions);
        Array::from_fn(&shape, lengths, |i| i[1 + i[0]] as i64)
    }
}

impl<T: Number> Array<T> {
    /// Ones at and below diagonal `k`, zeros above (NumPy's `np.tri(n, m,
    /// k)`; `m` defaults to `n`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let t = Array::<i32>::tri(3, Some(4), 0, 2).unwrap();
    /// assert_eq!(t.compute().unwrap().as_slice().unwrap(), &[1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadChunks`] when `chunks` does not fit the shape.
    pub fn tri(n: usize, m: Option<usize>, k: isize, chunks: impl Into<ChunkSpec>) -> Result<Array<T>> {
        let m = m.unwrap_or(n);
        Array::from_fn(&[n, m], chunks, move |i| if i[1] as isize <= i[0] as isize + k { T::ONE } else { T::ZERO })
    }
}
