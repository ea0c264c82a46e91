//! Joining arrays: concatenate and stack (NumPy's and dask's), and the
//! hstack/vstack/dstack shorthands.

use crate::array::Array;
use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node};

use super::region;

/// Blocks of several arrays side by side along one axis.
struct Concat<T> {
    axis: usize,
    /// Per output block along `axis`: (input, block of that input along `axis`).
    along: Vec<(usize, usize)>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> Concat<T> {
    /// The input, its block holding output block `idx`, and where the output
    /// block starts inside it.
    fn source(&self, node: &Node, idx: &[usize]) -> (usize, Vec<usize>, Vec<usize>) {
        let (k, b) = self.along[idx[self.axis]];
        let input = &node.inputs[k];
        let out_start = node.chunks.block_start(idx);
        let mut block = Vec::with_capacity(idx.len());
        let mut local = Vec::with_capacity(idx.len());
        for (a, &s) in out_start.iter().enumerate() {
            let ib = if a == self.axis { b } else { input.chunks.block_of(a, s) };
            block.push(ib);
            local.push(if a == self.axis { 0 } else { s - input.chunks.offset(a, ib) });
        }
        (k, block, local)
    }
}

impl<T: Element> BlockOp for Concat<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let (k, block, _) = self.source(node, idx);
        out.push((k, node.inputs[k].chunks.linear(&block)));
    }
    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let (_, _, local) = self.source(node, idx);
        region::<T>(inputs[0], node, &local, &node.chunks.block_shape(idx))
    }
}

/// Joins arrays along an existing axis (NumPy's `concatenate`). The other axes
/// must agree; their chunks are unified by common refinement.
///
/// ```
/// use chunked_array::{concatenate, Array};
/// let a = Array::<i64>::arange(0, 3, 1, 2).unwrap();
/// let b = Array::<i64>::arange(10, 12, 1, 1).unwrap();
/// let c = concatenate(&[&a, &b], 0).unwrap();
/// assert_eq!(c.compute().unwrap().iter().cloned().collect::<Vec<_>>(), vec![0, 1, 2, 10, 11]);
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for no arrays; [`Error::BadAxis`];
/// [`Error::ShapeMismatch`] naming two shapes that differ off the axis.
pub fn concatenate<T: Element>(arrays: &[&Array<T>], axis: isize) -> Result<Array<T>> {
    let first = arrays.first().ok_or_else(|| Error::invalid("arrays", "[]", "concatenate needs at least one array"))?;
    for a in arrays {
        a.check()?;
    }
    let ndim = first.ndim();
    let axis = crate::ops::reduce::normalize_axes(&[axis], ndim)?[0];
    let shape0 = first.shape();
    for a in arrays {
        let s = a.shape();
        if s.len() != ndim || (0..ndim).any(|i| i != axis && s[i] != shape0[i]) {
            return Err(Error::shape("concatenate", &shape0, &s));
        }
    }
    let mut lengths = Vec::with_capacity(ndim);
    let mut along = Vec::new();
    for a in 0..ndim {
        if a == axis {
            let mut l = Vec::new();
            for (k, x) in arrays.iter().enumerate() {
                for (b, &len) in x.chunks().lengths()[a].iter().enumerate() {
                    if len > 0 {
                        l.push(len);
                        along.push((k, b));
                    }
                }
            }
            if l.is_empty() {
                l.push(0);
                along.push((0, 0));
            }
            lengths.push(l);
        } else {
            let bounds: Vec<&[usize]> = arrays.iter().map(|x| x.chunks().boundaries(a)).collect();
            lengths.push(crate::chunks::refine(&bounds));
        }
    }
    let inputs = arrays.iter().map(|x| x.node.clone()).collect();
    let op = Concat::<T> { axis, along, _t: std::marker::PhantomData };
    Array::built(Node::new("concatenate", T::DTYPE, Chunks::from_lengths(lengths), inputs, op))
}

/// Joins arrays along a new axis (NumPy's `stack`); the shapes must be equal.
///
/// ```
/// use chunked_array::{stack, Array, ndarray::array};
/// let a = Array::from_vec(&[2], vec![1, 2], 1).unwrap();
/// let b = Array::from_vec(&[2], vec![3, 4], 1).unwrap();
/// // NumPy: np.stack([a, b], axis=1)
/// let s = stack(&[&a, &b], 1).unwrap();
/// assert_eq!(s.compute().unwrap(), array![[1, 3], [2, 4]].into_dyn());
/// ```
///
/// # Errors
/// As [`concatenate`], and [`Error::BadAxis`] for `axis` outside `-(ndim+1)..=ndim`.
pub fn stack<T: Element>(arrays: &[&Array<T>], axis: isize) -> Result<Array<T>> {
    let first = arrays.first().ok_or_else(|| Error::invalid("arrays", "[]", "stack needs at least one array"))?;
    for a in arrays {
        a.check()?;
    }
    let shape0 = first.shape();
    for a in arrays {
        if a.shape() != shape0 {
            return Err(Error::shape("stack", &shape0, &a.shape()));
        }
    }
    let expanded: Vec<Array<T>> = arrays.iter().map(|a| a.expand_dims(axis)).collect::<Result<_>>()?;
    let refs: Vec<&Array<T>> = expanded.iter().collect();
    concatenate(&refs, axis)
}

/// Joins along the second axis, or the first for 1-d arrays (NumPy's `hstack`).
///
/// ```
/// use chunked_array::{hstack, Array, ndarray::array};
/// let a = Array::from_vec(&[2, 1], vec![1, 2], 1).unwrap();
/// let b = Array::from_vec(&[2, 2], vec![3, 4, 5, 6], 1).unwrap();
/// // NumPy: np.hstack([a, b])
/// assert_eq!(hstack(&[&a, &b]).unwrap().compute().unwrap(), array![[1, 3, 4], [2, 5, 6]].into_dyn());
/// ```
///
/// # Errors
/// As [`concatenate`].
pub fn hstack<T: Element>(arrays: &[&Array<T>]) -> Result<Array<T>> {
    let arrays: Vec<Array<T>> = arrays.iter().map(|a| a.atleast_1d()).collect::<Result<_>>()?;
    let axis = if arrays.first().is_some_and(|a| a.ndim() == 1) { 0 } else { 1 };
    concatenate(&arrays.iter().collect::<Vec<_>>(), axis)
}

/// Joins along the first axis after [`Array::atleast_2d`] (NumPy's `vstack`:
/// 1-d arrays become rows).
///
/// ```
/// use chunked_array::{vstack, Array, ndarray::array};
/// let a = Array::from_vec(&[2], vec![1, 2], 1).unwrap();
/// let b = Array::from_vec(&[2], vec![3, 4], 2).unwrap();
/// // NumPy: np.vstack([a, b])
/// assert_eq!(vstack(&[&a, &b]).unwrap().compute().unwrap(), array![[1, 2], [3, 4]].into_dyn());
/// ```
///
/// # Errors
/// As [`concatenate`].
pub fn vstack<T: Element>(arrays: &[&Array<T>]) -> Result<Array<T>> {
    let arrays: Vec<Array<T>> = arrays.iter().map(|a| a.atleast_2d()).collect::<Result<_>>()?;
    concatenate(&arrays.iter().collect::<Vec<_>>(), 0)
}

/// Joins along the third axis after [`Array::atleast_3d`] (NumPy's `dstack`).
///
/// ```
/// use chunked_array::{dstack, Array, ndarray::array};
/// let a = Array::from_vec(&[2], vec![1, 2], 1).unwrap();
/// let b = Array::from_vec(&[2], vec![3, 4], 1).unwrap();
/// // NumPy: np.dstack([a, b]), shape (1, 2, 2)
/// assert_eq!(dstack(&[&a, &b]).unwrap().compute().unwrap(), array![[[1, 3], [2, 4]]].into_dyn());
/// ```
///
/// # Errors
/// As [`concatenate`].
pub fn dstack<T: Element>(arrays: &[&Array<T>]) -> Result<Array<T>> {
    let arrays: Vec<Array<T>> = arrays.iter().map(|a| a.atleast_3d()).collect::<Result<_>>()?;
    concatenate(&arrays.iter().collect::<Vec<_>>(), 2)
}

/// A nested list of arrays for [`block`]: an array, or a list of nested
/// lists (every array at the same depth).
///
/// ```
/// use chunked_array::{Array, Nested};
/// let a = Array::<f64>::ones(&[2], 2).unwrap();
/// let row: Nested<'_, f64> = vec![&a, &a].into();
/// assert!(matches!(row, Nested::List(ref items) if items.len() == 2));
/// ```
#[derive(Debug, Clone)]
pub enum Nested<'a, T: Element> {
    /// One array.
    Array(&'a Array<T>),
    /// A list, joined along the axis its depth names.
    List(Vec<Nested<'a, T>>),
}

impl<'a, T: Element> From<&'a Array<T>> for Nested<'a, T> {
    fn from(a: &'a Array<T>) -> Self {
        Nested::Array(a)
    }
}

impl<'a, T: Element> From<Vec<&'a Array<T>>> for Nested<'a, T> {
    fn from(list: Vec<&'a Array<T>>) -> Self {
        Nested::List(list.into_iter().map(Nested::Array).collect())
    }
}

impl<'a, T: Element> From<Vec<Vec<&'a Array<T>>>> for Nested<'a, T> {
    fn from(rows: Vec<Vec<&'a Array<T>>>) -> Self {
        Nested::List(rows.into_iter().map(Nested::from).collect())
    }
}

impl<'a, T: Element> From<Vec<Nested<'a, T>>> for Nested<'a, T> {
    fn from(list: Vec<Nested<'a, T>>) -> Self {
        Nested::List(list)
    }
}

/// An array assembled from nested lists of blocks (NumPy's and dask's
/// `block`): the innermost lists are joined along the last axis, the next
/// along the one before, and so on; arrays with fewer axes than the nesting
/// depth gain leading axes of length 1.
///
/// ```
/// use chunked_array::{Array, block};
/// let a = Array::<i64>::full(&[2, 2], 1, 2).unwrap();
/// let b = Array::<i64>::full(&[2, 1], 2, 2).unwrap();
/// let c = Array::<i64>::full(&[1, 3], 3, 3).unwrap();
/// let m = block(vec![vec![&a, &b], vec![&c]]).unwrap(); // [[a, b], [c]]
/// assert_eq!(m.compute().unwrap().as_slice().unwrap(), &[1, 1, 2, 1, 1, 2, 3, 3, 3]);
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for an empty list or lists nested to
/// different depths; [`Error::ShapeMismatch`] for blocks that do not fit.
pub fn block<'a, T: Element>(arrays: impl Into<Nested<'a, T>>) -> Result<Array<T>> {
    let arrays = arrays.into();
    let depth = nested_depth(&arrays)?;
    let ndim = depth.max(max_ndim(&arrays));
    join_nested(&arrays, depth, 0, ndim)
}

/// The nesting depth, checked equal for every array.
fn nested_depth<T: Element>(n: &Nested<'_, T>) -> Result<usize> {
    match n {
        Nested::Array(_) => Ok(0),
        Nested::List(items) if items.is_empty() => Err(Error::invalid("arrays", "[]", "block lists must not be empty")),
        Nested::List(items) => {
            let depths = items.iter().map(nested_depth).collect::<Result<Vec<_>>>()?;
            if depths.iter().any(|&d| d != depths[0]) {
                return Err(Error::invalid("list depths", &depths, "block needs every array at the same depth"));
            }
            Ok(depths[0] + 1)
        }
    }
}

fn max_ndim<T: Element>(n: &Nested<'_, T>) -> usize {
    match n {
        Nested::Array(a) => a.ndim(),
        Nested::List(items) => items.iter().map(max_ndim).max().unwrap_or(0),
    }
}

/// The list at `level` (0 outermost) joined along axis `level - depth`.
fn join_nested<T: Element>(n: &Nested<'_, T>, depth: usize, level: usize, ndim: usize) -> Result<Array<T>> {
    match n {
        Nested::Array(a) => {
            let mut shape: Vec<isize> = vec![1; ndim - a.ndim()];
            shape.extend(a.shape().iter().map(|&s| s as isize));
            a.reshape(&shape)
        }
        Nested::List(items) => {
            let parts = items.iter().map(|i| join_nested(i, depth, level + 1, ndim)).collect::<Result<Vec<_>>>()?;
            concatenate(&parts.iter().collect::<Vec<_>>(), level as isize - depth as isize)
        }
    }
}
