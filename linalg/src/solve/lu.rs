//! LU with partial pivoting over whole columns, by right-looking column
//! panels.

use std::sync::Arc;

use chunked_array::custom::{Deps, Layer, LayerOp, block_value};
use chunked_array::runtime::Block;
use chunked_array::{Array, Chunks, DType};
use faer::reborrow::Reborrow;
use faer::{Mat, Par};

use super::blocks::{mat_of, square_blocks, zeros_block};
use crate::kernels::{self, gemm, intermediate_block, mat_bytes, row_major_block};
use crate::{Error, Result, Scalar};

/// A column panel of the LU work (n × b_j, column-major), with the pivot order
/// of its stage when it is the factored panel.
struct Panel<T: Scalar> {
    data: Mat<T>,
    /// For a factored panel of stage s: row i (local to rows off_s..) of the
    /// pivoted panel is row `perm[i]` before pivoting.
    perm: Vec<usize>,
}

/// Indices as bytes (little-endian u64s), after whatever `out` holds.
fn put_indices(indices: &[usize], out: &mut Vec<u8>) {
    indices.iter().for_each(|&i| out.extend_from_slice(&(i as u64).to_le_bytes()));
}

/// The indices [`put_indices`] wrote; `None` when the bytes are not whole u64s.
fn get_indices(bytes: &[u8]) -> Option<Vec<usize>> {
    if !bytes.len().is_multiple_of(8) {
        return None;
    }
    bytes.chunks_exact(8).map(|w| usize::try_from(u64::from_le_bytes(w.try_into().ok()?)).ok()).collect()
}

// Panels spill to disk and travel between MPI ranks as their matrix (with its
// shape) followed by the pivot order.
intermediate_block!(impl<T: Scalar> for Panel<T>, |p| mat_bytes(&p.data) + p.perm.len() * std::mem::size_of::<usize>(), image);

impl<T: Scalar> Panel<T> {
    fn spill_bytes(&self) -> Vec<u8> {
        let mut bytes = kernels::mats_to_bytes(&[self.data.as_ref()]);
        put_indices(&self.perm, &mut bytes);
        bytes
    }

    fn from_bytes(bytes: &[u8]) -> Option<Block> {
        let (rows, cols) = (
            u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?) as usize,
            u64::from_le_bytes(bytes.get(8..16)?.try_into().ok()?) as usize,
        );
        let mat_len = rows.checked_mul(cols)?.checked_mul(std::mem::size_of::<T>())?.checked_add(16)?;
        let [data]: [Mat<T>; 1] = kernels::mats_from_bytes::<T>(bytes.get(..mat_len)?)?.try_into().ok()?;
        Some(Arc::new(Panel { data, perm: get_indices(&bytes[mat_len..])? }))
    }
}

/// Rows `off..` of `m` reordered by `perm` (local indices).
fn permute_rows<T: Scalar>(m: &mut Mat<T>, off: usize, perm: &[usize]) {
    let old = m.as_ref().get(off.., ..).to_owned();
    for (i, &p) in perm.iter().enumerate() {
        m.as_mut().row_mut(off + i).copy_from(old.row(p));
    }
}

/// LU work, grid (nb + 2) × nb:
/// - (s, s): column s after stages < s, rows off_s.. factored with partial
///   pivoting over the whole remaining column (and its pivot order);
/// - (s, j), j > s: column j after stage s: rows off_s.. pivoted, U_sj solved,
///   the rows below updated with L_·s U_sj;
/// - (nb, s): the pivot order of stage s alone (small);
/// - (nb + 1, s): column s's L, rows reordered by the pivots of later stages.
struct LuWork<T> {
    offsets: Vec<usize>,
    nb: usize,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LuWork<T> {
    /// Column j as it enters stage s (input blocks for s = 0).
    fn column_before(&self, s: usize, j: usize, inputs: &[&Block]) -> chunked_array::Result<Mat<T>> {
        if s > 0 {
            return Ok(block_value::<Panel<T>>(inputs[0])?.data.clone());
        }
        let n = *self.offsets.last().expect("offsets");
        let w = self.offsets[j + 1] - self.offsets[j];
        let mut m = Mat::<T>::zeros(n, w);
        for (i, input) in inputs.iter().take(self.nb).enumerate() {
            let blk = mat_of::<T>(input)?;
            m.as_mut().get_mut(self.offsets[i]..self.offsets[i + 1], ..).copy_from(blk);
        }
        Ok(m)
    }
}

impl<T: Scalar> LayerOp for LuWork<T> {
    fn wire(&self) -> Option<chunked_array::runtime::Wire> {
        Some(Panel::<T>::wire())
    }
    fn output_bytes(&self, idx: &[usize]) -> Option<usize> {
        let n = *self.offsets.last().expect("offsets");
        let width = |j: usize| self.offsets[j + 1] - self.offsets[j];
        let index = std::mem::size_of::<usize>();
        // At most a whole column panel (n x b_j) and its pivot order; row nb
        // holds a pivot order alone.
        Some(if idx[0] == self.nb { n * index } else { n * width(idx[1]) * std::mem::size_of::<T>() + n * index })
    }
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        let (s, j) = (idx[0], idx[1]);
        if s == self.nb {
            deps.push_self(&[j, j]);
            return;
        }
        if s == self.nb + 1 {
            deps.push_self(&[j, j]);
            for t in j + 1..self.nb {
                deps.push_self(&[self.nb, t]);
            }
            return;
        }
        if s == 0 {
            for i in 0..self.nb {
                deps.push(0, &[i, j]);
            }
        } else {
            deps.push_self(&[s - 1, j]);
        }
        if j > s {
            deps.push_self(&[s, s]);
        }
    }

    fn run(&self, idx: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let (s, j) = (idx[0], idx[1]);
        if s == self.nb {
            let f = block_value::<Panel<T>>(inputs[0])?;
            return Ok(Arc::new(Panel { data: Mat::<T>::zeros(0, 0), perm: f.perm.clone() }));
        }
        if s == self.nb + 1 {
            let f = block_value::<Panel<T>>(inputs[0])?;
            let mut l = f.data.clone();
            for (t, input) in (j + 1..self.nb).zip(&inputs[1..]) {
                permute_rows(&mut l, self.offsets[t], &block_value::<Panel<T>>(input)?.perm);
            }
            return Ok(Arc::new(Panel { data: l, perm: Vec::new() }));
        }
        let off = self.offsets[s];
        let reads = if s == 0 { self.nb } else { 1 };
        let mut col = self.column_before(s, j, inputs)?;
        if j == s {
            let perm = kernels::lu_partial_pivoting(col.as_mut().get_mut(off.., ..), Par::Seq);
            let w = col.ncols();
            if let Some(d) = (0..w).find(|&d| col[(off + d, d)] == T::ZERO) {
                return Err(Error::Singular {
                    routine: "lu".into(),
                    block: format!("column block {s}"),
                    axis: "column".into(),
                    index: off + d,
                });
            }
            return Ok(Arc::new(Panel { data: col, perm }));
        }
        let f = block_value::<Panel<T>>(inputs[reads])?;
        let w = self.offsets[s + 1] - off;
        permute_rows(&mut col, off, &f.perm);
        let lss = f.data.as_ref().get(off..off + w, ..);
        faer::linalg::triangular_solve::solve_unit_lower_triangular_in_place(
            lss,
            col.as_mut().get_mut(off..off + w, ..),
            Par::Seq,
        );
        let (top, below) = col.as_mut().get_mut(off.., ..).split_at_row_mut(w);
        gemm(below, true, f.data.as_ref().get(off + w.., ..), top.rb(), -T::ONE, Par::Seq);
        Ok(Arc::new(Panel { data: col, perm: Vec::new() }))
    }
}

/// The whole row order: row r of L·U is row `order[r]` of a.
struct LuOrder<T> {
    offsets: Vec<usize>,
    _t: std::marker::PhantomData<fn() -> T>,
}

pub(super) struct Order(pub(super) Vec<usize>);

// Orders spill and travel as their indices.
intermediate_block!(impl for Order, |o| o.0.len() * std::mem::size_of::<usize>(), image);

impl Order {
    fn spill_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(8 * self.0.len());
        put_indices(&self.0, &mut bytes);
        bytes
    }

    fn from_bytes(bytes: &[u8]) -> Option<Block> {
        Some(Arc::new(Order(get_indices(bytes)?)))
    }
}

impl<T: Scalar> LayerOp for LuOrder<T> {
    fn wire(&self) -> Option<chunked_array::runtime::Wire> {
        Some(Order::wire())
    }
    fn output_bytes(&self, _: &[usize]) -> Option<usize> {
        Some(*self.offsets.last().expect("offsets") * std::mem::size_of::<usize>())
    }
    fn deps(&self, _: &[usize], deps: &mut Deps<'_>) {
        let nb = self.offsets.len() - 1;
        for s in 0..nb {
            deps.push(0, &[nb, s]);
        }
    }
    fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let n = *self.offsets.last().expect("offsets");
        let mut order: Vec<usize> = (0..n).collect();
        for (s, input) in inputs.iter().enumerate() {
            let perm = &block_value::<Panel<T>>(input)?.perm;
            let off = self.offsets[s];
            let old = order[off..].to_vec();
            for (i, &p) in perm.iter().enumerate() {
                order[off + i] = old[p];
            }
        }
        Ok(Arc::new(Order(order)))
    }
}

/// Blocks of L (unit lower), U or P out of the LU work.
struct LuPart<T> {
    part: char,
    offsets: Vec<usize>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for LuPart<T> {
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        let (i, j) = (idx[0], idx[1]);
        let nb = self.offsets.len() - 1;
        match self.part {
            'L' if i >= j => deps.push(0, &[nb + 1, j]),
            'U' if i <= j => deps.push(0, &[j, j]),
            'P' => deps.push(1, &[0]),
            _ => {}
        }
    }
    fn run(&self, idx: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let (i, j) = (idx[0], idx[1]);
        let (r0, r1) = (self.offsets[i], self.offsets[i + 1]);
        let (c0, c1) = (self.offsets[j], self.offsets[j + 1]);
        let Some(input) = inputs.first() else {
            return Ok(zeros_block::<T>(r1 - r0, c1 - c0));
        };
        if self.part == 'P' {
            // a = P L U: P[order[r], r] = 1.
            let order = &block_value::<Order>(input)?.0;
            return Ok(row_major_block::<T>(r1 - r0, c1 - c0, |mut dst| {
                for c in c0..c1 {
                    if (r0..r1).contains(&order[c]) {
                        dst[(order[c] - r0, c - c0)] = T::ONE;
                    }
                }
            }));
        }
        let panel = &block_value::<Panel<T>>(input)?.data;
        let rows = panel.as_ref().get(r0..r1, ..);
        let lower = self.part == 'L';
        Ok(row_major_block::<T>(r1 - r0, c1 - c0, |mut dst| {
            for r in 0..r1 - r0 {
                for c in 0..c1 - c0 {
                    let (gr, gc) = (r0 + r, c0 + c);
                    dst[(r, c)] = match (lower, gr.cmp(&gc)) {
                        (true, std::cmp::Ordering::Greater)
                        | (false, std::cmp::Ordering::Less)
                        | (false, std::cmp::Ordering::Equal) => rows[(r, c)],
                        (true, std::cmp::Ordering::Equal) => T::ONE,
                        _ => T::ZERO,
                    };
                }
            }
        }))
    }
}

/// The LU factorization `a = p · l · u` of a square matrix with square blocks
/// (SciPy's convention): `p` a permutation matrix, `l` unit lower triangular,
/// `u` upper triangular, all chunked like `a`.
///
/// Pivoting: partial pivoting over the whole remaining column, as LAPACK's
/// `getrf` does (not only within the diagonal block, as dask does). The work is
/// organized in column panels: stage s factors the whole column of blocks s
/// (rows s.. of it, one task holding n × b values), then updates every later
/// column panel with the pivots, a unit-lower solve and one matrix product.
///
/// ```
/// use chunked_array::Array;
/// let a = Array::<f64>::from_fn(&[6, 6], 3, |i| ((i[0] * 7 + i[1] * 3) % 5) as f64 + if i[0] == i[1] { 0.5 } else { 0.0 }).unwrap();
/// let (p, l, u) = chunked_linalg::lu(&a).unwrap();
/// let back = p.matmul(&l.matmul(&u).unwrap()).unwrap();
/// assert!((&back - &a).abs().max(None).unwrap().compute_scalar().unwrap() < 1e-12);
/// ```
///
/// # Errors
/// [`Error::BadInput`] for a matrix that is not square with square blocks; at
/// compute time, an error naming the column where the matrix is singular.
pub fn lu<T: Scalar>(a: &Array<T>) -> Result<(Array<T>, Array<T>, Array<T>)> {
    let f = LuLayers::new(a, "lu")?;
    Ok((f.part("lu-p", 'P')?, f.part("lu-l", 'L')?, f.part("lu-u", 'U')?))
}

/// The LU work and pivot-order layers of `a`, and the parts picked from them.
pub(super) struct LuLayers {
    pub(super) work: Layer,
    pub(super) order: Layer,
    /// Block boundaries along both axes (0, ..., n).
    pub(super) offsets: Vec<usize>,
    chunks: Chunks,
}

impl LuLayers {
    pub(super) fn new<T: Scalar>(a: &Array<T>, routine: &str) -> Result<Self> {
        let nb = square_blocks(a, routine)?.len();
        let offsets = a.chunks().boundaries(0).to_vec();
        let op = LuWork::<T> { offsets: offsets.clone(), nb, _t: std::marker::PhantomData };
        let work = Layer::new(
            "lu-work",
            DType::Intermediate,
            Chunks::from_lengths(vec![vec![1; nb + 2], vec![1; nb]]),
            &[a.layer()],
            op,
        );
        let op = LuOrder::<T> { offsets: offsets.clone(), _t: std::marker::PhantomData };
        let order = Layer::new(
            "lu-order",
            DType::Intermediate,
            Chunks::from_lengths(vec![vec![1]]),
            std::slice::from_ref(&work),
            op,
        );
        Ok(LuLayers { work, order, offsets, chunks: a.chunks().clone() })
    }

    /// P, L or U, chunked like `a`.
    pub(super) fn part<T: Scalar>(&self, name: &str, part: char) -> Result<Array<T>> {
        let op = LuPart::<T> { part, offsets: self.offsets.clone(), _t: std::marker::PhantomData };
        Layer::new(name, T::DTYPE, self.chunks.clone(), &[self.work.clone(), self.order.clone()], op).into_array()
    }
}
