//! Axis permutation (the rest of array manipulation lives with slicing and
//! rechunking).

use std::sync::Arc;

use ndarray::{ArrayView2, Ix2, IxDyn};

use crate::array::Array;
use crate::chunks::Chunks;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{block_as, Block, BlockOp, Node};

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
        Ok(Arc::new(view.as_standard_layout().into_owned()))
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
    let mut out: Vec<T> = Vec::with_capacity(rows * cols);
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
        Ok(Array::from_node(node))
    }

    /// Reverses the axes (NumPy's `.T`).
    pub fn t(&self) -> Array<T> {
        let perm: Vec<usize> = (0..self.ndim()).rev().collect();
        Array::from_result(self.permute_axes(&perm))
    }
}
