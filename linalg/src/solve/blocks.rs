//! What the solvers share: the checks of a square matrix with square blocks
//! and of a right-hand side, and picking the finished blocks out of a staged
//! work layer.

use std::sync::Arc;

use chunked_array::custom::{Deps, Layer, LayerOp, block_array};
use chunked_array::runtime::Block;
use chunked_array::{Array, ChunkSpec, Chunks};
use faer::MatRef;
use ndarray::ArrayD;

use crate::kernels::view;
use crate::{Error, Result, Scalar};

/// The block lengths of a square matrix with square blocks (the same list on
/// both axes).
pub(super) fn square_blocks<T: Scalar>(a: &Array<T>, routine: &str) -> Result<Vec<usize>> {
    a.check()?;
    let shape = a.shape();
    let l = a.chunks().lengths();
    if shape.len() != 2 || shape[0] != shape[1] {
        return Err(Error::BadInput { routine: routine.into(), needs: "a square 2-d matrix".into(), shape });
    }
    if l[0] != l[1] {
        return Err(Error::BadInput {
            routine: routine.into(),
            needs: format!(
                "square blocks, the same chunks on both axes (got rows {:?}, columns {:?}; rechunk first)",
                l[0], l[1]
            ),
            shape,
        });
    }
    Ok(l[0].clone())
}

pub(super) fn zeros_block<T: Scalar>(m: usize, n: usize) -> Block {
    Arc::new(ArrayD::<T>::from_elem(ndarray::IxDyn(&[m, n]), T::ZERO))
}

pub(super) fn mat_of<T: Scalar>(b: &Block) -> chunked_array::Result<MatRef<'_, T>> {
    Ok(view(block_array::<T>(b)?).expect("2-d block"))
}

/// Picks finished blocks out of a work layer: (i, j) -> work block `at(i, j)`,
/// or zeros where `at` gives None.
pub(super) struct Pick<T, F> {
    pub(super) at: F,
    pub(super) chunks: Chunks,
    pub(super) _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar, F: Fn(usize, usize) -> Option<Vec<usize>> + Send + Sync + 'static> LayerOp for Pick<T, F> {
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        if let Some(w) = (self.at)(idx[0], idx[1]) {
            deps.push(0, &w);
        }
    }
    fn run(&self, idx: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        match inputs.first() {
            Some(b) => Ok((*b).clone()),
            None => {
                let s = self.chunks.block_shape(idx);
                Ok(zeros_block::<T>(s[0], s[1]))
            }
        }
    }
}

pub(super) fn pick<T: Scalar>(
    name: &str,
    work: &Layer,
    chunks: &Chunks,
    at: impl Fn(usize, usize) -> Option<Vec<usize>> + Send + Sync + 'static,
) -> Result<Array<T>> {
    let op = Pick::<T, _> { at, chunks: chunks.clone(), _t: std::marker::PhantomData };
    Layer::new(name, T::DTYPE, chunks.clone(), std::slice::from_ref(work), op).into_array()
}

pub(super) fn cube(nb: usize, extra_planes: usize, cols: usize) -> Chunks {
    Chunks::from_lengths(vec![vec![1; nb + extra_planes], vec![1; nb], vec![1; cols]])
}

/// `b` as a 2-d matrix with `rows` row blocks (1-d `b` becomes a column).
pub(super) fn rhs<T: Scalar>(b: &Array<T>, n: usize, rows: &[usize], routine: &str) -> Result<(Array<T>, bool)> {
    b.check()?;
    let s = b.shape();
    if !(1..=2).contains(&s.len()) || s[0] != n {
        return Err(Error::BadInput { routine: routine.into(), needs: format!("b of {n} rows, 1-d or 2-d"), shape: s });
    }
    let one_d = s.len() == 1;
    let b2 = if one_d { b.expand_dims(1)? } else { b.clone() };
    let cols = b2.chunks().lengths()[1].clone();
    let b2 =
        if b2.chunks().lengths()[0] == rows { b2 } else { b2.rechunk(ChunkSpec::from(vec![rows.to_vec(), cols]))? };
    Ok((b2, one_d))
}
