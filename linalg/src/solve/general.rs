//! Solves and inverses of general square matrices, through LU.

use chunked_array::custom::{Deps, Layer, LayerOp, block_value};
use chunked_array::runtime::Block;
use chunked_array::{Array, ChunkSpec};
use faer::MatRef;

use super::blocks::{mat_of, rhs, square_blocks};
use super::lu::{LuLayers, Order};
use super::triangular::solve_triangular;
use crate::kernels::row_major_block;
use crate::{Result, Scalar};

/// Rows of `b` in the pivot order: block (i, c) of Pᵀ b gathers rows
/// order[r0..r1] from column c of `b`.
struct PermuteRows<T> {
    offsets: Vec<usize>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for PermuteRows<T> {
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[0]);
        for i in 0..self.offsets.len() - 1 {
            deps.push(1, &[i, idx[1]]);
        }
    }
    fn run(&self, idx: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let order = &block_value::<Order>(inputs[0])?.0;
        let (r0, r1) = (self.offsets[idx[0]], self.offsets[idx[0] + 1]);
        let blocks: Vec<MatRef<'_, T>> =
            inputs[1..].iter().map(|b| mat_of::<T>(b)).collect::<chunked_array::Result<_>>()?;
        let w = blocks.first().map_or(0, |b| b.ncols());
        Ok(row_major_block::<T>(r1 - r0, w, |mut dst| {
            for (r, &src) in (r0..r1).zip(&order[r0..r1]) {
                let i = self.offsets.partition_point(|&o| o <= src) - 1;
                dst.as_mut().row_mut(r - r0).copy_from(blocks[i].row(src - self.offsets[i]));
            }
        }))
    }
}

/// Solves `a · x = b` for a square `a` with square blocks through [`lu`](crate::lu):
/// `x = u⁻¹ l⁻¹ pᵀ b`. `b` is 1-d or 2-d with n rows.
///
/// ```
/// use chunked_array::Array;
/// let a = Array::<f64>::from_fn(&[5, 5], 2, |i| if i[0] == i[1] { 3.0 } else { (i[0] + 2 * i[1]) as f64 * 0.1 }).unwrap();
/// let b = Array::<f64>::ones(&[5], 2).unwrap();
/// let x = chunked_linalg::solve(&a, &b).unwrap();
/// let r = (&a.matmul(&x).unwrap() - &b).abs().max(None).unwrap().compute_scalar().unwrap();
/// assert!(r < 1e-13);
/// ```
///
/// # Errors
/// As [`lu`](crate::lu) and [`solve_triangular`].
pub fn solve<T: Scalar>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let f = LuLayers::new(a, "solve")?;
    let lens = a.chunks().lengths()[0].clone();
    let (b2, one_d) = rhs(b, a.shape()[0], &lens, "solve")?;
    let op = PermuteRows::<T> { offsets: f.offsets.clone(), _t: std::marker::PhantomData };
    let ptb: Array<T> =
        Layer::new("lu-permute", T::DTYPE, b2.chunks().clone(), &[f.order.clone(), b2.layer()], op).into_array()?;
    let y = solve_triangular(&f.part("lu-l", 'L')?, &ptb, true)?;
    let x = solve_triangular(&f.part("lu-u", 'U')?, &y, false)?;
    Ok(if one_d { x.squeeze(Some(&[1]))? } else { x })
}

/// The inverse of a square matrix with square blocks, as `solve(a, I)`.
///
/// ```
/// use chunked_array::Array;
/// let a = Array::<f64>::from_vec(&[2, 2], vec![4.0, 7.0, 2.0, 6.0], 1).unwrap();
/// let ai = chunked_linalg::inv(&a).unwrap().compute().unwrap();
/// let want = [0.6, -0.7, -0.2, 0.4]; // [[6, -7], [-2, 4]] / det 10
/// assert!(ai.iter().zip(want).all(|(x, w)| (x - w).abs() < 1e-12));
/// ```
///
/// # Errors
/// As [`solve`].
pub fn inv<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    let lens = square_blocks(a, "inv")?;
    let eye = Array::<T>::eye(a.shape()[0], None, 0, ChunkSpec::from(vec![lens.clone(), lens]))?;
    solve(a, &eye)
}
