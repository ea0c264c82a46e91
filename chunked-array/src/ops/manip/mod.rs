//! Array manipulation: axis permutation, new and removed length-1 axes,
//! concatenate and stack, flip and roll (slicing lives in `slicing`).

use std::sync::Arc;

use ndarray::{ArrayView2, Ix2, IxDyn};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};

mod join;
pub use join::{Nested, block, concatenate, dstack, hstack, stack, vstack};

struct Permute<T> {
    perm: Vec<usize>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for Permute<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let mut src = vec![0; idx.len()];
        for (a, &p) in self.perm.iter().enumerate() {
            src[p] = idx[a];
        }
        out.push((0, node.inputs[0].chunks.linear(&src)));
    }

    fn run(&self, node: &Node, _: &[usize], inputs: &[&Block]) -> Result<Block> {
        let a = block_as::<T>(inputs[0], node, "permute")?;
        let view = a.view().permuted_axes(IxDyn(&self.perm));
        if let (Ok(v2), true) = (view.clone().into_dimensionality::<Ix2>(), a.is_standard_layout()) {
            return Ok(Arc::new(transpose_tiled(v2).into_dyn()));
        }
        Ok(Arc::new(crate::block::alloc::owned_block(view)))
    }

    fn as_permutation(&self) -> Option<&[usize]> {
        Some(&self.perm)
    }
}

/// Copies a 2-d view into C order in 32 x 32 tiles, so that both the reads and the
/// writes stay within a few cache lines per tile.
fn transpose_tiled<T: Element>(v: ArrayView2<'_, T>) -> ndarray::Array2<T> {
    const B: usize = 32;
    let (rows, cols) = v.dim();
    let (rs, cs) = (v.strides()[0], v.strides()[1]);
    // The view is a permutation of a standard-layout block: reach its memory
    // through the (positive) strides.
    let base = v.as_ptr();
    let mut out: Vec<T> = crate::block::alloc::block_vec(rows * cols);
    let dst = out.spare_capacity_mut();
    for i0 in (0..rows).step_by(B) {
        for j0 in (0..cols).step_by(B) {
            for i in i0..(i0 + B).min(rows) {
                for j in j0..(j0 + B).min(cols) {
                    // SAFETY: (i, j) is inside the view, so the offset is inside its block.
                    let x = unsafe { *base.offset(i as isize * rs + j as isize * cs) };
                    dst[i * cols + j].write(x);
                }
            }
        }
    }
    // SAFETY: every element of 0..rows*cols was written above.
    unsafe { out.set_len(rows * cols) };
    ndarray::Array2::from_shape_vec((rows, cols), out).expect("length matches shape")
}

impl<T: Element> Array<T> {
    /// Reorders the axes: axis `a` of the result is axis `perm[a]` of `self`.
    ///
    /// ```
    /// use chunked_array::{Array, ndarray};
    /// let a = ndarray::Array::from_shape_fn((2, 3, 4), |(i, j, k)| (100 * i + 10 * j + k) as i64);
    /// let x = Array::from_ndarray(a.clone(), [1, 2, 2]).unwrap();
    /// // NumPy: np.transpose(x, (2, 0, 1))
    /// let y = x.permute_axes(&[2, 0, 1]).unwrap();
    /// assert_eq!(y.shape(), vec![4, 2, 3]);
    /// assert_eq!(y.compute().unwrap(), a.permuted_axes([2, 0, 1]).into_dyn());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `perm` is not a permutation of `0..ndim`.
    pub fn permute_axes(&self, perm: &[usize]) -> Result<Array<T>> {
        self.check()?;
        let ndim = self.ndim();
        let mut seen = vec![false; ndim];
        if perm.len() != ndim || perm.iter().any(|&p| p >= ndim || std::mem::replace(&mut seen[p], true)) {
            return Err(Error::invalid("perm", perm, format!("is not a permutation of 0..{ndim}")));
        }
        let lengths = perm.iter().map(|&p| self.chunks().lengths()[p].clone()).collect();
        let node = Node::new(
            "transpose",
            T::DTYPE,
            Chunks::from_lengths(lengths),
            vec![self.node.clone()],
            Permute::<T> { perm: perm.to_vec(), _t: std::marker::PhantomData },
        );
        Array::built(node)
    }

    /// Exchanges two axes (NumPy's `swapaxes`).
    ///
    /// ```
    /// use chunked_array::{Array, ndarray::array};
    /// let x = Array::from_vec(&[2, 3], vec![1, 2, 3, 4, 5, 6], [1, 2]).unwrap();
    /// // NumPy: np.swapaxes(x, 0, -1)
    /// let y = x.swapaxes(0, -1).unwrap();
    /// assert_eq!(y.compute().unwrap(), array![[1, 4], [2, 5], [3, 6]].into_dyn());
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`].
    pub fn swapaxes(&self, a: isize, b: isize) -> Result<Array<T>> {
        self.check()?;
        let ab = crate::ops::reduce::normalize_axes(&[a], self.ndim())?[0];
        let bb = crate::ops::reduce::normalize_axes(&[b], self.ndim())?[0];
        let mut perm: Vec<usize> = (0..self.ndim()).collect();
        perm.swap(ab, bb);
        self.permute_axes(&perm)
    }

    /// Reverses the axes (NumPy's `.T`).
    ///
    /// ```
    /// use chunked_array::{Array, ndarray::array};
    /// let x = Array::from_vec(&[2, 3], vec![1, 2, 3, 4, 5, 6], [1, 2]).unwrap();
    /// // NumPy: x.T
    /// assert_eq!(x.t().compute().unwrap(), array![[1, 4], [2, 5], [3, 6]].into_dyn());
    /// ```
    pub fn t(&self) -> Array<T> {
        let perm: Vec<usize> = (0..self.ndim()).rev().collect();
        Array::from_result(self.permute_axes(&perm))
    }
}

/// The region `start..start + shape` of a block, shared without a copy when it
/// is the whole block.
fn region<T: Element>(block: &Block, node: &Node, start: &[usize], shape: &[usize]) -> Result<Block> {
    let a = block_as::<T>(block, node, "region")?;
    if start.iter().all(|&s| s == 0) && a.shape() == shape {
        return Ok(block.clone());
    }
    let view = a.slice_each_axis(|ax| {
        let i = ax.axis.index();
        ndarray::Slice::from(start[i]..start[i] + shape[i])
    });
    Ok(Arc::new(crate::block::alloc::owned_block(view)))
}

/// Inserts or removes length-1 axes: the block's data is unchanged.
struct Reshape1<T> {
    /// For each output axis, the input axis it is (None: a new length-1 axis).
    from: Vec<Option<usize>>,
    ndim_in: usize,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for Reshape1<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let mut src = vec![0; self.ndim_in];
        for (a, f) in self.from.iter().enumerate() {
            if let Some(i) = f {
                src[*i] = idx[a];
            }
        }
        out.push((0, node.inputs[0].chunks.linear(&src)));
    }
    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let a = block_as::<T>(inputs[0], node, "reshape")?;
        let shape = node.chunks.block_shape(idx);
        let out = crate::block::alloc::owned_block(a.view())
            .into_shape_with_order(IxDyn(&shape))
            .map_err(|e| Error::invalid("shape", &shape, e.to_string()))?;
        Ok(Arc::new(out))
    }
}

impl<T: Element> Array<T> {
    /// Inserts a length-1 axis at `axis` (NumPy's `expand_dims`; negative counts
    /// from the end of the result).
    ///
    /// ```
    /// use chunked_array::{Array, ndarray::array};
    /// let x = Array::from_vec(&[3], vec![1, 2, 3], 2).unwrap();
    /// // NumPy: np.expand_dims(x, 0) and np.expand_dims(x, -1)
    /// assert_eq!(x.expand_dims(0).unwrap().compute().unwrap(), array![[1, 2, 3]].into_dyn());
    /// assert_eq!(x.expand_dims(-1).unwrap().shape(), vec![3, 1]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`] for `axis` outside `-(ndim+1)..=ndim`.
    pub fn expand_dims(&self, axis: isize) -> Result<Array<T>> {
        self.expand_dims_axes(&[axis])
    }

    /// Inserts length-1 axes at `axes`, positions in the result (NumPy's
    /// `expand_dims` with a tuple): `(3, 4)` with axes `[0, -1]` becomes
    /// `(1, 3, 4, 1)`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::zeros(&[3, 4], 2).unwrap();
    /// assert_eq!(x.expand_dims_axes(&[0, -1]).unwrap().shape(), vec![1, 3, 4, 1]);
    /// assert_eq!(x.expand_dims_axes(&[1, 2]).unwrap().shape(), vec![3, 1, 1, 4]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`] for an axis outside the result's axes or given twice.
    pub fn expand_dims_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        self.check()?;
        let out_nd = self.ndim() + axes.len();
        let new = crate::ops::reduce::normalize_axes(axes, out_nd)?;
        let mut next = 0;
        let from = (0..out_nd)
            .map(|i| {
                if new.contains(&i) {
                    None
                } else {
                    next += 1;
                    Some(next - 1)
                }
            })
            .collect();
        self.reshape1("expand_dims", from)
    }

    /// Removes length-1 axes: the given ones, or all for `None` (NumPy's `squeeze`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::ones(&[1, 3, 1], [1, 2, 1]).unwrap();
    /// // NumPy: np.squeeze(x) and np.squeeze(x, axis=0)
    /// assert_eq!(x.squeeze(None).unwrap().shape(), vec![3]);
    /// assert_eq!(x.squeeze(Some(&[0])).unwrap().shape(), vec![3, 1]);
    /// assert!(x.squeeze(Some(&[1])).is_err()); // axis 1 has length 3
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`]; [`Error::InvalidArgument`] for an axis whose length is not 1.
    pub fn squeeze(&self, axes: Option<&[isize]>) -> Result<Array<T>> {
        self.check()?;
        let shape = self.shape();
        let drop: Vec<usize> = match axes {
            Some(a) => crate::ops::reduce::normalize_axes(a, shape.len())?,
            None => (0..shape.len()).filter(|&i| shape[i] == 1).collect(),
        };
        if let Some(&bad) = drop.iter().find(|&&i| shape[i] != 1) {
            return Err(Error::invalid(
                "axis",
                bad,
                format!("has length {}, only length-1 axes can be squeezed", shape[bad]),
            ));
        }
        let from = (0..shape.len()).filter(|i| !drop.contains(i)).map(Some).collect();
        self.reshape1("squeeze", from)
    }

    fn reshape1(&self, name: &str, from: Vec<Option<usize>>) -> Result<Array<T>> {
        let lengths = from.iter().map(|f| f.map_or_else(|| vec![1], |i| self.chunks().lengths()[i].clone())).collect();
        let op = Reshape1::<T> { from, ndim_in: self.ndim(), _t: std::marker::PhantomData };
        Array::built(Node::new(name, T::DTYPE, Chunks::from_lengths(lengths), vec![self.node.clone()], op))
    }

    /// Reverses the order of the elements along `axis` (NumPy's `flip`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[3], vec![1, 2, 3], 2).unwrap();
    /// // NumPy: np.flip(x, 0), or x[::-1]
    /// assert_eq!(x.flip(0).unwrap().compute().unwrap().as_slice().unwrap(), &[3, 2, 1]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`].
    pub fn flip(&self, axis: isize) -> Result<Array<T>> {
        self.check()?;
        let a = crate::ops::reduce::normalize_axes(&[axis], self.ndim())?[0];
        let mut index = vec![crate::ops::slicing::Idx::FULL; self.ndim()];
        index[a] = crate::ops::slicing::Idx::stepped(None, None, -1);
        self.slice(&index)
    }

    /// Positions `start..stop` along `axis` (the other axes whole).
    pub(crate) fn span(&self, axis: usize, start: usize, stop: usize) -> Result<Array<T>> {
        let mut index = vec![crate::ops::slicing::Idx::FULL; self.ndim()];
        index[axis] = crate::ops::slicing::Idx::range(start as isize, stop as isize);
        self.slice(&index)
    }

    /// Shifts elements by `shift` along `axis`, wrapping around (NumPy's `roll`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[5], vec![1, 2, 3, 4, 5], 2).unwrap();
    /// // NumPy: np.roll(x, 2, axis=0)
    /// assert_eq!(x.roll(2, 0).unwrap().compute().unwrap().as_slice().unwrap(), &[4, 5, 1, 2, 3]);
    /// assert_eq!(x.roll(-1, 0).unwrap().compute().unwrap().as_slice().unwrap(), &[2, 3, 4, 5, 1]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`].
    pub fn roll(&self, shift: isize, axis: isize) -> Result<Array<T>> {
        self.check()?;
        let a = crate::ops::reduce::normalize_axes(&[axis], self.ndim())?[0];
        let n = self.shape()[a];
        if n == 0 {
            return Ok(self.clone());
        }
        let cut = n - shift.rem_euclid(n as isize) as usize;
        if cut == n {
            return Ok(self.clone());
        }
        concatenate(&[&self.span(a, cut, n)?, &self.span(a, 0, cut)?], a as isize)
    }

    /// Shifts along several axes at once (NumPy's `roll` with tuples): shift
    /// `shifts[i]` along `axes[i]`, a single shift or axis standing for all,
    /// and the shifts of an axis given twice added up.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::arange(0, 6, 1, 2).unwrap().reshape(&[2, 3]).unwrap();
    /// let y = x.roll_axes(&[1, -1], &[0, 1]).unwrap().compute().unwrap();
    /// assert_eq!(y.iter().copied().collect::<Vec<_>>(), vec![4, 5, 3, 1, 2, 0]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`]; [`Error::InvalidArgument`] when the lists differ in
    /// length and neither has one element.
    pub fn roll_axes(&self, shifts: &[isize], axes: &[isize]) -> Result<Array<T>> {
        self.check()?;
        let pairs = match (shifts.len(), axes.len()) {
            (s, a) if s == a => s,
            (1, a) => a,
            (s, 1) => s,
            _ => {
                return Err(Error::invalid(
                    "roll shifts and axes",
                    (shifts.len(), axes.len()),
                    "need the same length, or one of them a single value",
                ));
            }
        };
        let nd = self.ndim();
        // Per axis, the total shift modulo the axis length (no overflow however many).
        let mut total = vec![0usize; nd];
        for i in 0..pairs {
            let shift = shifts[if shifts.len() == 1 { 0 } else { i }];
            let a = crate::ops::reduce::normalize_axes(&[axes[if axes.len() == 1 { 0 } else { i }]], nd)?[0];
            let n = self.shape()[a];
            if n > 0 {
                total[a] = (total[a] + shift.rem_euclid(n as isize) as usize) % n;
            }
        }
        let mut out = self.clone();
        for (a, &shift) in total.iter().enumerate() {
            out = out.roll(shift as isize, a as isize)?;
        }
        Ok(out)
    }

    /// Shifts the elements in C order, as if the array were flat, wrapping
    /// around (NumPy's `roll` without an axis): a reshape to 1-d, a roll, and
    /// a reshape back (blocks rechunked as [`Array::reshape`] needs).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::arange(0, 6, 1, 2).unwrap().reshape(&[2, 3]).unwrap();
    /// let y = x.roll_flat(2).unwrap().compute().unwrap();
    /// assert_eq!(y.iter().copied().collect::<Vec<_>>(), vec![4, 5, 0, 1, 2, 3]);
    /// ```
    ///
    /// # Errors
    /// Only an earlier error carried by `self`.
    pub fn roll_flat(&self, shift: isize) -> Result<Array<T>> {
        self.check()?;
        if self.ndim() <= 1 {
            return if self.ndim() == 0 { Ok(self.clone()) } else { self.roll(shift, 0) };
        }
        let shape: Vec<isize> = self.shape().iter().map(|&n| n as isize).collect();
        self.ravel()?.roll(shift, 0)?.reshape(&shape)
    }
}

impl<T: Element> Array<T> {
    /// Moves axes `source` to positions `destination`, the others keeping their
    /// order (NumPy's `moveaxis`).
    ///
    /// ```
    /// use chunked_array::{Array, ndarray};
    /// let a = ndarray::Array::from_shape_fn((2, 3, 4), |(i, j, k)| (100 * i + 10 * j + k) as i64);
    /// let x = Array::from_ndarray(a.clone(), 2).unwrap();
    /// // NumPy: np.moveaxis(x, 0, -1)
    /// let y = x.moveaxis(&[0], &[-1]).unwrap();
    /// assert_eq!(y.shape(), vec![3, 4, 2]);
    /// assert_eq!(y.compute().unwrap(), a.permuted_axes([1, 2, 0]).into_dyn());
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`] for an axis out of range or given twice;
    /// [`Error::InvalidArgument`] when the two lists differ in length.
    pub fn moveaxis(&self, source: &[isize], destination: &[isize]) -> Result<Array<T>> {
        self.check()?;
        let nd = self.ndim();
        if source.len() != destination.len() {
            return Err(Error::invalid(
                "moveaxis (source, destination)",
                (source, destination),
                "need as many destinations as sources",
            ));
        }
        let src = crate::ops::reduce::normalize_axes(source, nd)?;
        let dst = crate::ops::reduce::normalize_axes(destination, nd)?;
        let mut perm: Vec<usize> = (0..nd).filter(|a| !src.contains(a)).collect();
        let mut moves: Vec<(usize, usize)> = dst.into_iter().zip(src).collect();
        moves.sort_unstable();
        for (d, s) in moves {
            perm.insert(d, s);
        }
        self.permute_axes(&perm)
    }

    /// The elements in C order as a 1-d array (NumPy's `ravel`; a reshape, so
    /// the blocks are rechunked as [`Array::reshape`] needs).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[2, 2], vec![1, 2, 3, 4], 1).unwrap();
    /// // NumPy: np.ravel(x)
    /// assert_eq!(x.ravel().unwrap().compute().unwrap().as_slice().unwrap(), &[1, 2, 3, 4]);
    /// ```
    ///
    /// # Errors
    /// Only an earlier error carried by `self`.
    pub fn ravel(&self) -> Result<Array<T>> {
        self.reshape(&[-1])
    }

    /// Rotates by 90 degrees `k` times in the plane of `axes`, from the first
    /// axis towards the second (NumPy's `rot90`).
    ///
    /// ```
    /// use chunked_array::{Array, ndarray::array};
    /// let x = Array::from_vec(&[2, 2], vec![1, 2, 3, 4], 1).unwrap();
    /// // NumPy: np.rot90(x, 1, axes=(0, 1))
    /// let y = x.rot90(1, (0, 1)).unwrap();
    /// assert_eq!(y.compute().unwrap(), array![[2, 4], [1, 3]].into_dyn());
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`] for an axis out of range or the same axis twice.
    pub fn rot90(&self, k: isize, axes: (isize, isize)) -> Result<Array<T>> {
        self.check()?;
        let ax = crate::ops::reduce::normalize_axes(&[axes.0, axes.1], self.ndim())?;
        let mut perm: Vec<usize> = (0..self.ndim()).collect();
        perm.swap(ax[0], ax[1]);
        match k.rem_euclid(4) {
            0 => Ok(self.clone()),
            1 => self.flip(ax[1] as isize)?.permute_axes(&perm),
            2 => self.flip(ax[0] as isize)?.flip(ax[1] as isize),
            _ => self.permute_axes(&perm)?.flip(ax[1] as isize),
        }
    }

    /// At least one axis: a 0-d array becomes shape `(1,)` (NumPy's `atleast_1d`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let total = Array::from_slice(&[2], &[1.0, 2.0], 1).unwrap().sum(None).unwrap();
    /// assert_eq!(total.ndim(), 0);
    /// let v = total.atleast_1d().unwrap();
    /// assert_eq!(v.compute().unwrap().as_slice().unwrap(), &[3.0]);
    /// ```
    ///
    /// # Errors
    /// Only an earlier error carried by `self`.
    pub fn atleast_1d(&self) -> Result<Array<T>> {
        self.check()?;
        if self.ndim() == 0 { self.expand_dims(0) } else { Ok(self.clone()) }
    }

    /// At least two axes, new ones in front: `(n,)` becomes `(1, n)` (NumPy's
    /// `atleast_2d`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[3], vec![1, 2, 3], 2).unwrap();
    /// // NumPy: np.atleast_2d(x).shape == (1, 3)
    /// assert_eq!(x.atleast_2d().unwrap().shape(), vec![1, 3]);
    /// ```
    ///
    /// # Errors
    /// Only an earlier error carried by `self`.
    pub fn atleast_2d(&self) -> Result<Array<T>> {
        let mut a = self.atleast_1d()?;
        if a.ndim() == 1 {
            a = a.expand_dims(0)?;
        }
        Ok(a)
    }

    /// At least three axes as NumPy's `atleast_3d` adds them: `(n,)` becomes
    /// `(1, n, 1)` and `(m, n)` becomes `(m, n, 1)`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let v = Array::from_vec(&[3], vec![1, 2, 3], 2).unwrap();
    /// let m = Array::from_vec(&[2, 2], vec![1, 2, 3, 4], 1).unwrap();
    /// // NumPy: np.atleast_3d(v).shape == (1, 3, 1), np.atleast_3d(m).shape == (2, 2, 1)
    /// assert_eq!(v.atleast_3d().unwrap().shape(), vec![1, 3, 1]);
    /// assert_eq!(m.atleast_3d().unwrap().shape(), vec![2, 2, 1]);
    /// ```
    ///
    /// # Errors
    /// Only an earlier error carried by `self`.
    pub fn atleast_3d(&self) -> Result<Array<T>> {
        let a = self.atleast_2d()?;
        if a.ndim() == 2 { a.expand_dims(2) } else { Ok(a) }
    }
}
