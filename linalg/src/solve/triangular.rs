//! Triangular solves by block substitution.

use chunked_array::custom::{Deps, Layer, LayerOp};
use chunked_array::runtime::Block;
use chunked_array::{Array, DType};
use faer::Par;

use super::blocks::{Pick, cube, mat_of, rhs, square_blocks};
use crate::kernels::{self, gemm, row_major_block};
use crate::{Error, Result, Scalar};

/// Work blocks (p, t, c) of block substitution, where step t handles block row
/// `row(t)` (t for lower, nb-1-t for upper): p >= 1 is B^(p) = B^(p-1) -
/// A[row(t), row(p-1)] X[row(p-1)], p = 0 the solved X[row(t)].
struct SubstitutionWork<T> {
    lower: bool,
    nb: usize,
    /// Row and column block lengths of the right-hand side.
    rows: Vec<usize>,
    cols: Vec<usize>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T> SubstitutionWork<T> {
    fn row(&self, t: usize) -> usize {
        if self.lower { t } else { self.nb - 1 - t }
    }
}

impl<T: Scalar> LayerOp for SubstitutionWork<T> {
    fn wire(&self) -> Option<chunked_array::runtime::Wire> {
        Some(chunked_array::runtime::Wire::elements::<T>())
    }
    fn output_bytes(&self, idx: &[usize]) -> Option<usize> {
        // A block of b: row block row(t), column block c.
        Some(self.rows[self.row(idx[1])] * self.cols[idx[2]] * std::mem::size_of::<T>())
    }
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        let (p, t, c) = (idx[0], idx[1], idx[2]);
        let r = self.row(t);
        if p >= 1 {
            if p == 1 {
                deps.push(1, &[r, c])
            } else {
                deps.push_self(&[p - 1, t, c])
            }
            deps.push(0, &[r, self.row(p - 1)]);
            deps.push_self(&[0, p - 1, c]);
        } else {
            if t == 0 {
                deps.push(1, &[r, c])
            } else {
                deps.push_self(&[t, t, c])
            }
            deps.push(0, &[r, r]);
        }
    }
    fn run(&self, idx: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let b = mat_of::<T>(inputs[0])?;
        let a = mat_of::<T>(inputs[1])?;
        if idx[0] >= 1 {
            let x = mat_of::<T>(inputs[2])?;
            return Ok(row_major_block::<T>(b.nrows(), b.ncols(), |mut dst| {
                dst.copy_from(b);
                gemm(dst, true, a, x, -T::ONE, Par::Seq);
            }));
        }
        let singular = (0..a.nrows()).find(|&i| a[(i, i)] == T::ZERO);
        if let Some(i) = singular {
            let r = self.row(idx[1]);
            return Err(Error::Singular {
                routine: "solve_triangular".into(),
                block: format!("diagonal block ({r}, {r})"),
                axis: "row".into(),
                index: i,
            });
        }
        Ok(row_major_block::<T>(b.nrows(), b.ncols(), |mut dst| {
            dst.copy_from(b);
            kernels::solve_triangular_in_place(a, self.lower, dst, Par::Seq);
        }))
    }
}

/// Solves `a · x = b` for a triangular `a` (the lower or the upper triangle of
/// `a` is read) with square blocks, by block substitution. `b` is 1-d or 2-d
/// with n rows (rechunked along its rows to `a`'s blocks).
///
/// ```
/// use chunked_array::Array;
/// let a = Array::<f64>::from_fn(&[4, 4], 2, |i| if i[0] >= i[1] { 1.0 + i[0] as f64 } else { 0.0 }).unwrap();
/// let b = Array::<f64>::ones(&[4], 2).unwrap();
/// let x = chunked_linalg::solve_triangular(&a, &b, true).unwrap();
/// let back = a.matmul(&x).unwrap().compute().unwrap();
/// assert!(back.iter().all(|v| (v - 1.0).abs() < 1e-14));
/// ```
///
/// # Errors
/// [`Error::BadInput`] for a matrix that is not square with square blocks or a
/// `b` of another row count; at compute time, an error naming the diagonal
/// block that holds a zero pivot.
pub fn solve_triangular<T: Scalar>(a: &Array<T>, b: &Array<T>, lower: bool) -> Result<Array<T>> {
    let lens = square_blocks(a, "solve_triangular")?;
    let nb = lens.len();
    let (b2, one_d) = rhs(b, a.shape()[0], &lens, "solve_triangular")?;
    let col_blocks = b2.chunks().grid()[1];
    let op = SubstitutionWork::<T> {
        lower,
        nb,
        rows: b2.chunks().lengths()[0].clone(),
        cols: b2.chunks().lengths()[1].clone(),
        _t: std::marker::PhantomData,
    };
    let work =
        Layer::new("substitution-work", DType::Intermediate, cube(nb, 0, col_blocks), &[a.layer(), b2.layer()], op);
    let x_chunks = b2.chunks().clone();
    let op = Pick::<T, _> {
        at: move |i: usize, c: usize| Some(vec![0, if lower { i } else { nb - 1 - i }, c]),
        chunks: x_chunks.clone(),
        _t: std::marker::PhantomData,
    };
    let x: Array<T> = Layer::new("solve_triangular", T::DTYPE, x_chunks, &[work], op).into_array()?;
    Ok(if one_d { x.squeeze(Some(&[1]))? } else { x })
}
