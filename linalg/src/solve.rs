//! Blocked factorizations and solves on square matrices with square blocks:
//! Cholesky (right-looking tiles), triangular solves (block substitution), LU
//! with partial pivoting over whole columns (right-looking column panels), and
//! `solve`/`inv` on top of LU.
//!
//! Each algorithm is one staged "work" layer whose blocks are indexed by
//! (step, block...) and read blocks of earlier steps of the same layer, plus
//! output layers that pick the finished blocks (sharing them, no copy). Only
//! the tasks the outputs need are built, and each block is released after its
//! last reader, as everywhere else.

use std::sync::Arc;

use chunked_array::custom::{block_array, block_value, Deps, Layer, LayerOp};
use chunked_array::{Array, Block, ChunkSpec, Chunks, DType};
use faer::reborrow::Reborrow;
use faer::{Mat, MatRef, Par};
use ndarray::ArrayD;

use crate::kernels::{self, gemm, intermediate_block, mat_bytes, row_major_block, view};
use crate::{numerical, Error, Result, Scalar};

/// The block lengths of a square matrix with square blocks (the same list on
/// both axes).
fn square_blocks<T: Scalar>(a: &Array<T>, routine: &str) -> Result<Vec<usize>> {
    a.check()?;
    let shape = a.shape();
    let l = a.chunks().lengths();
    if shape.len() != 2 || shape[0] != shape[1] {
        return Err(Error::BadInput { routine: routine.into(), needs: "a square 2-d matrix".into(), shape });
    }
    if l[0] != l[1] {
        return Err(Error::BadInput {
            routine: routine.into(),
            needs: format!("square blocks, the same chunks on both axes (got rows {:?}, columns {:?}; rechunk first)", l[0], l[1]),
            shape,
        });
    }
    Ok(l[0].clone())
}

fn zeros_block<T: Scalar>(m: usize, n: usize) -> Block {
    Arc::new(ArrayD::<T>::zeros(ndarray::IxDyn(&[m, n])))
}

fn mat_of<T: Scalar>(b: &Block) -> chunked_array::Result<MatRef<'_, T>> {
    Ok(view(block_array::<T>(b)?).expect("2-d block"))
}

// ---------------------------------------------------------------- Cholesky

/// Work blocks (p, i, j), j <= i: p >= 1 is A^(p)_ij = A^(p-1)_ij - L_i,p-1 L_j,p-1ᵀ
/// (A^(0) the input); p = 0 is the finished L_ij.
struct CholeskyWork<T> {
    /// Block lengths (the same on both axes).
    lens: Vec<usize>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for CholeskyWork<T> {
    fn wire(&self) -> Option<chunked_array::Wire> {
        Some(chunked_array::Wire::elements::<T>())
    }
    fn output_bytes(&self, idx: &[usize]) -> Option<usize> {
        Some(self.lens[idx[1]] * self.lens[idx[2]] * std::mem::size_of::<T>())
    }
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        let (p, i, j) = (idx[0], idx[1], idx[2]);
        if p >= 1 {
            if p == 1 { deps.push(0, &[i, j]) } else { deps.push_self(&[p - 1, i, j]) }
            deps.push_self(&[0, i, p - 1]);
            deps.push_self(&[0, j, p - 1]);
        } else {
            if j == 0 { deps.push(0, &[i, j]) } else { deps.push_self(&[j, i, j]) }
            if i > j {
                deps.push_self(&[0, j, j]);
            }
        }
    }
    fn run(&self, idx: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let (p, i, j) = (idx[0], idx[1], idx[2]);
        let a = mat_of::<T>(inputs[0])?;
        if p >= 1 {
            let (li, lj) = (mat_of::<T>(inputs[1])?, mat_of::<T>(inputs[2])?);
            return Ok(row_major_block::<T>(a.nrows(), a.ncols(), |mut dst| {
                dst.copy_from(a);
                gemm(dst, true, li, lj.transpose(), -T::ONE, Par::Seq);
            }));
        }
        if i == j {
            let l = kernels::cholesky(a, Par::Seq).map_err(|pivot| {
                numerical("cholesky", &format!("diagonal block ({j}, {j})"), format!("the matrix is not positive definite (pivot {pivot} of this block is not positive)"))
            })?;
            return Ok(row_major_block::<T>(l.nrows(), l.ncols(), |mut dst| dst.copy_from(&l)));
        }
        let ljj = mat_of::<T>(inputs[1])?;
        Ok(row_major_block::<T>(a.nrows(), a.ncols(), |mut dst| {
            dst.copy_from(a);
            kernels::solve_right_lower_transpose_in_place(ljj, dst, Par::Seq);
        }))
    }
}

/// Picks finished blocks out of a work layer: (i, j) -> work block `at(i, j)`,
/// or zeros where `at` gives None.
struct Pick<T, F> {
    at: F,
    chunks: Chunks,
    _t: std::marker::PhantomData<fn() -> T>,
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

fn pick<T: Scalar>(name: &str, work: &Layer, chunks: &Chunks, at: impl Fn(usize, usize) -> Option<Vec<usize>> + Send + Sync + 'static) -> Result<Array<T>> {
    let op = Pick::<T, _> { at, chunks: chunks.clone(), _t: std::marker::PhantomData };
    Ok(Layer::new(name, T::DTYPE, chunks.clone(), std::slice::from_ref(work), op).into_array()?)
}

fn cube(nb: usize, extra_planes: usize, cols: usize) -> Chunks {
    Chunks::from_lengths(vec![vec![1; nb + extra_planes], vec![1; nb], vec![1; cols]])
}

/// Cholesky factor of a symmetric positive definite matrix with square blocks:
/// `a = l · lᵀ` with `l` lower triangular (or `u = lᵀ` upper with
/// `lower = false`, dask's default). Only the lower triangle of `a` is read.
///
/// ```
/// use chunked_array::Array;
/// let a = Array::<f64>::from_fn(&[6, 6], 2, |i| if i[0] == i[1] { 4.0 } else { 1.0 }).unwrap();
/// let l = chunked_linalg::cholesky(&a, true).unwrap();
/// let back = l.matmul(&l.t()).unwrap();
/// assert!((&back - &a).abs().max(None).unwrap().compute_scalar().unwrap() < 1e-12);
/// ```
///
/// # Errors
/// [`Error::BadInput`] for a matrix that is not square with square blocks; at
/// compute time, an error naming the diagonal block where the matrix turned out
/// not positive definite.
pub fn cholesky<T: Scalar>(a: &Array<T>, lower: bool) -> Result<Array<T>> {
    let lens = square_blocks(a, "cholesky")?;
    let nb = lens.len();
    let work = Layer::new("cholesky-work", DType::Intermediate, Chunks::from_lengths(vec![vec![1; nb], vec![1; nb], vec![1; nb]]), &[a.layer()], CholeskyWork::<T> { lens: lens.clone(), _t: std::marker::PhantomData });
    let l = pick::<T>("cholesky", &work, a.chunks(), |i, j| (i >= j).then(|| vec![0, i, j]))?;
    Ok(if lower { l } else { l.t() })
}

// ------------------------------------------------------ triangular solves

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
    fn wire(&self) -> Option<chunked_array::Wire> {
        Some(chunked_array::Wire::elements::<T>())
    }
    fn output_bytes(&self, idx: &[usize]) -> Option<usize> {
        // A block of b: row block row(t), column block c.
        Some(self.rows[self.row(idx[1])] * self.cols[idx[2]] * std::mem::size_of::<T>())
    }
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        let (p, t, c) = (idx[0], idx[1], idx[2]);
        let r = self.row(t);
        if p >= 1 {
            if p == 1 { deps.push(1, &[r, c]) } else { deps.push_self(&[p - 1, t, c]) }
            deps.push(0, &[r, self.row(p - 1)]);
            deps.push_self(&[0, p - 1, c]);
        } else {
            if t == 0 { deps.push(1, &[r, c]) } else { deps.push_self(&[t, t, c]) }
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
            return Err(numerical("solve_triangular", &format!("diagonal block ({r}, {r})"), format!("the matrix is singular (zero on the diagonal at row {i} of this block)")));
        }
        Ok(row_major_block::<T>(b.nrows(), b.ncols(), |mut dst| {
            dst.copy_from(b);
            kernels::solve_triangular_in_place(a, self.lower, dst, Par::Seq);
        }))
    }
}

/// `b` as a 2-d matrix with `rows` row blocks (1-d `b` becomes a column).
fn rhs<T: Scalar>(b: &Array<T>, n: usize, rows: &[usize], routine: &str) -> Result<(Array<T>, bool)> {
    b.check()?;
    let s = b.shape();
    if !(1..=2).contains(&s.len()) || s[0] != n {
        return Err(Error::BadInput { routine: routine.into(), needs: format!("b of {n} rows, 1-d or 2-d"), shape: s });
    }
    let one_d = s.len() == 1;
    let b2 = if one_d { b.expand_dims(1)? } else { b.clone() };
    let cols = b2.chunks().lengths()[1].clone();
    let b2 = if b2.chunks().lengths()[0] == rows { b2 } else { b2.rechunk(ChunkSpec::from(vec![rows.to_vec(), cols]))? };
    Ok((b2, one_d))
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
    let op = SubstitutionWork::<T> { lower, nb, rows: b2.chunks().lengths()[0].clone(), cols: b2.chunks().lengths()[1].clone(), _t: std::marker::PhantomData };
    let work = Layer::new("substitution-work", DType::Intermediate, cube(nb, 0, col_blocks), &[a.layer(), b2.layer()], op);
    let x_chunks = b2.chunks().clone();
    let op = Pick::<T, _> { at: move |i: usize, c: usize| Some(vec![0, if lower { i } else { nb - 1 - i }, c]), chunks: x_chunks.clone(), _t: std::marker::PhantomData };
    let x: Array<T> = Layer::new("solve_triangular", T::DTYPE, x_chunks, &[work], op).into_array()?;
    Ok(if one_d { x.squeeze(Some(&[1]))? } else { x })
}

// ------------------------------------------------------------------- LU

/// A column panel of the LU work (n × b_j, column-major), with the pivot order
/// of its stage when it is the factored panel.
struct Panel<T: Scalar> {
    data: Mat<T>,
    /// For a factored panel of stage s: row i (local to rows off_s..) of the
    /// pivoted panel is row perm[i] before pivoting.
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
        let (rows, cols) = (u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?) as usize, u64::from_le_bytes(bytes.get(8..16)?.try_into().ok()?) as usize);
        let mat_len = 16 + rows.checked_mul(cols)?.checked_mul(std::mem::size_of::<T>())?;
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
    fn wire(&self) -> Option<chunked_array::Wire> {
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
                return Err(numerical("lu", &format!("column block {s}"), format!("the matrix is singular (no non-zero pivot for column {})", off + d)));
            }
            return Ok(Arc::new(Panel { data: col, perm }));
        }
        let f = block_value::<Panel<T>>(inputs[reads])?;
        let w = self.offsets[s + 1] - off;
        permute_rows(&mut col, off, &f.perm);
        let lss = f.data.as_ref().get(off..off + w, ..);
        faer::linalg::triangular_solve::solve_unit_lower_triangular_in_place(lss, col.as_mut().get_mut(off..off + w, ..), Par::Seq);
        let (top, below) = col.as_mut().get_mut(off.., ..).split_at_row_mut(w);
        gemm(below, true, f.data.as_ref().get(off + w.., ..), top.rb(), -T::ONE, Par::Seq);
        Ok(Arc::new(Panel { data: col, perm: Vec::new() }))
    }
}


/// The whole row order: row r of L·U is row order[r] of a.
struct LuOrder<T> {
    offsets: Vec<usize>,
    _t: std::marker::PhantomData<fn() -> T>,
}

struct Order(Vec<usize>);

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
    fn wire(&self) -> Option<chunked_array::Wire> {
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
                        (true, std::cmp::Ordering::Greater) | (false, std::cmp::Ordering::Less) | (false, std::cmp::Ordering::Equal) => rows[(r, c)],
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
struct LuLayers {
    work: Layer,
    order: Layer,
    /// Block boundaries along both axes (0, ..., n).
    offsets: Vec<usize>,
    chunks: Chunks,
}

impl LuLayers {
    fn new<T: Scalar>(a: &Array<T>, routine: &str) -> Result<Self> {
        let nb = square_blocks(a, routine)?.len();
        let offsets = a.chunks().boundaries(0).to_vec();
        let op = LuWork::<T> { offsets: offsets.clone(), nb, _t: std::marker::PhantomData };
        let work = Layer::new("lu-work", DType::Intermediate, Chunks::from_lengths(vec![vec![1; nb + 2], vec![1; nb]]), &[a.layer()], op);
        let op = LuOrder::<T> { offsets: offsets.clone(), _t: std::marker::PhantomData };
        let order = Layer::new("lu-order", DType::Intermediate, Chunks::from_lengths(vec![vec![1]]), std::slice::from_ref(&work), op);
        Ok(LuLayers { work, order, offsets, chunks: a.chunks().clone() })
    }

    /// P, L or U, chunked like `a`.
    fn part<T: Scalar>(&self, name: &str, part: char) -> Result<Array<T>> {
        let op = LuPart::<T> { part, offsets: self.offsets.clone(), _t: std::marker::PhantomData };
        Ok(Layer::new(name, T::DTYPE, self.chunks.clone(), &[self.work.clone(), self.order.clone()], op).into_array()?)
    }
}

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
        let blocks: Vec<MatRef<'_, T>> = inputs[1..].iter().map(|b| mat_of::<T>(b)).collect::<chunked_array::Result<_>>()?;
        let w = blocks.first().map_or(0, |b| b.ncols());
        Ok(row_major_block::<T>(r1 - r0, w, |mut dst| {
            for (r, &src) in (r0..r1).zip(&order[r0..r1]) {
                let i = self.offsets.partition_point(|&o| o <= src) - 1;
                dst.as_mut().row_mut(r - r0).copy_from(blocks[i].row(src - self.offsets[i]));
            }
        }))
    }
}

/// Solves `a · x = b` for a square `a` with square blocks through [`lu`]:
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
/// As [`lu`] and [`solve_triangular`].
pub fn solve<T: Scalar>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let f = LuLayers::new(a, "solve")?;
    let lens = a.chunks().lengths()[0].clone();
    let (b2, one_d) = rhs(b, a.shape()[0], &lens, "solve")?;
    let op = PermuteRows::<T> { offsets: f.offsets.clone(), _t: std::marker::PhantomData };
    let ptb: Array<T> = Layer::new("lu-permute", T::DTYPE, b2.chunks().clone(), &[f.order.clone(), b2.layer()], op).into_array()?;
    let y = solve_triangular(&f.part("lu-l", 'L')?, &ptb, true)?;
    let x = solve_triangular(&f.part("lu-u", 'U')?, &y, false)?;
    Ok(if one_d { x.squeeze(Some(&[1]))? } else { x })
}

/// The inverse of a square matrix with square blocks, as `solve(a, I)`.
///
/// # Errors
/// As [`solve`].
pub fn inv<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    let lens = square_blocks(a, "inv")?;
    let eye = Array::<T>::eye(a.shape()[0], None, 0, ChunkSpec::from(vec![lens.clone(), lens]))?;
    solve(a, &eye)
}
