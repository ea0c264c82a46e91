//! Matrix products: `matmul` (NumPy's `@`, stacks of matrices included), `dot`
//! and `tensordot`.
//!
//! Output block (i, j) multiplies row band i of `a` by column band j of `b` with
//! the gemm kernel of `kernels` (faer's, or the system BLAS where that is faster;
//! BENCHMARKS.md). The contracted axis is split into
//! groups small enough that one task's inputs stay under the block-size limit;
//! with more than one group, the partial products are added up by a tree of
//! `AddPartials` layers, [`DEFAULT_SPLIT_EVERY`] at a time (dask sums them with
//! its reduction tree for `tensordot`; a plain elementwise add is one pass over
//! each partial, where the general reducer folds a length-1 axis element by element).
//!
//! Stacks of matrices (operands of more than two axes) broadcast their leading
//! batch axes as NumPy does; a block then holds several matrices of the stack and
//! its task multiplies each of them, a stretched (length-1) batch axis reading
//! its one matrix for all.
//!
//! On a device the products are cuBLAS gemms (on an emulated device, faer on
//! its host memory), one task per output block over the whole contracted axis;
//! stacks on a CUDA device are multiplied on the host and the results uploaded.

use std::sync::Arc;

use faer::{MatMut, MatRef};
use ndarray::{ArrayD, IxDyn};

use crate::array::Array;
use crate::block::Block;
use crate::block::device::to_device_block;
use crate::chunks::{Chunks, DEFAULT_AUTO_BYTES, refine};
use crate::element::{Element, Number};
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node};
use crate::ops::reduce::DEFAULT_SPLIT_EVERY;

mod product;
use product::{HostMatrix, Piece, Product};

/// Options of [`Array::matmul_with`].
///
/// ```
/// use chunked_array::{Array, MatmulOptions, ndarray::Array2};
/// assert_eq!(MatmulOptions::default().panel_limit, 256 << 20);
/// let a = Array::<f64>::ones(&[2, 8], 2).unwrap();
/// let b = Array::<f64>::ones(&[8, 2], 2).unwrap();
/// // At most 64 bytes of a and b per product task: one 2 x 2 block of each,
/// // so the 4 products along the contracted axis are summed by a tree.
/// let c = a.matmul_with(&b, &MatmulOptions { panel_limit: 64 }).unwrap();
/// assert_eq!(c.compute().unwrap(), Array2::from_elem((2, 2), 8.0).into_dyn());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatmulOptions {
    /// Most bytes of `a` and `b` one product task may read (default 256 MiB);
    /// a longer contracted axis is split into groups whose products are summed
    /// by a reduction tree.
    pub panel_limit: usize,
}

impl Default for MatmulOptions {
    fn default() -> Self {
        MatmulOptions { panel_limit: 2 * DEFAULT_AUTO_BYTES }
    }
}

/// The types faer multiplies, whose sums stay in the same type: `f32`, `f64`
/// and the complex types (on a CUDA device cuBLAS multiplies the real ones;
/// complex products run on the host).
///
/// ```
/// use chunked_array::{Array, Gemm, Result, ndarray::array};
/// // The element types of matmul, tensordot and einsum.
/// fn gram<T: Gemm>(x: &Array<T>) -> Result<Array<T>> {
///     x.t().matmul(x)
/// }
/// let x = Array::from_slice(&[2, 2], &[1.0f32, 2.0, 3.0, 4.0], 1).unwrap();
/// // NumPy: x.T @ x
/// assert_eq!(gram(&x).unwrap().compute().unwrap(), array![[10.0f32, 14.0], [14.0, 20.0]].into_dyn());
/// ```
pub trait Gemm: Number + Element<Sum = Self> + crate::kernels::KernelElement {
    /// `c (+)= a · b` for row-major `c`.
    ///
    /// ```
    /// use chunked_array::Gemm;
    /// use faer::MatRef;
    /// let a = [1.0, 2.0, 3.0, 4.0]; // [[1, 2], [3, 4]], row-major
    /// let b = [1.0, 0.0, 0.0, 1.0]; // the identity
    /// let (ma, mb) = (MatRef::from_row_major_slice(&a, 2, 2), MatRef::from_row_major_slice(&b, 2, 2));
    /// let mut c = [9.0; 4];
    /// f64::gemm(&mut c, 2, 2, ma, mb, false); // c = a · b
    /// assert_eq!(c, a);
    /// f64::gemm(&mut c, 2, 2, ma, mb, true); // c += a · b
    /// assert_eq!(c, [2.0, 4.0, 6.0, 8.0]);
    /// ```
    fn gemm(c: &mut [Self], rows: usize, cols: usize, a: MatRef<'_, Self>, b: MatRef<'_, Self>, accumulate: bool);
}

macro_rules! gemm_impl {
    ($t:ty) => {
        impl Gemm for $t {
            fn gemm(
                c: &mut [Self],
                rows: usize,
                cols: usize,
                a: MatRef<'_, Self>,
                b: MatRef<'_, Self>,
                accumulate: bool,
            ) {
                let dst = MatMut::from_row_major_slice_mut(c, rows, cols);
                // On the calling thread: the scheduler runs blocks in parallel.
                crate::kernels::gemm(dst, accumulate, a, b, <$t as Number>::ONE);
            }
        }
    };
}
gemm_impl!(f32);
gemm_impl!(f64);
gemm_impl!(crate::element::Complex32);
gemm_impl!(crate::element::Complex64);

impl<T: Gemm> Array<T> {
    /// Matrix product (NumPy's `a @ b`). Two-axis operands are matrices; a 1-d
    /// operand is a row (left) or column (right) vector whose axis is dropped
    /// from the result; operands of more axes are stacks of matrices in their
    /// last two axes, and the leading (batch) axes broadcast against each other.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let a = Array::<f64>::from_fn(&[3, 4], [2, 3], |i| (i[0] + i[1]) as f64).unwrap();
    /// let e = Array::<f64>::eye(4, None, 0, 2).unwrap();
    /// assert_eq!(a.matmul(&e).unwrap().compute().unwrap(), a.compute().unwrap());
    /// // A stack of 5 matrices times one matrix: (5, 3, 4) @ (4, 2) -> (5, 3, 2).
    /// let s = Array::<f64>::ones(&[5, 3, 4], 2).unwrap();
    /// let m = Array::<f64>::ones(&[4, 2], 2).unwrap();
    /// assert_eq!(s.matmul(&m).unwrap().shape(), vec![5, 3, 2]);
    /// ```
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the contracted lengths differ or the batch
    /// axes do not broadcast; [`Error::InvalidArgument`] for a 0-d operand.
    pub fn matmul(&self, other: &Array<T>) -> Result<Array<T>> {
        self.matmul_with(other, &MatmulOptions::default())
    }

    /// [`Array::matmul`] with options (see [`MatmulOptions`]).
    ///
    /// ```
    /// use chunked_array::{Array, MatmulOptions};
    /// let a = Array::<f64>::ones(&[4, 64], [4, 8]).unwrap();
    /// let b = Array::<f64>::ones(&[64, 4], [8, 4]).unwrap();
    /// let narrow = a.matmul_with(&b, &MatmulOptions { panel_limit: 1024 }).unwrap();
    /// assert_eq!(narrow.compute().unwrap(), a.matmul(&b).unwrap().compute().unwrap());
    /// ```
    ///
    /// # Errors
    /// As [`Array::matmul`].
    pub fn matmul_with(&self, other: &Array<T>, options: &MatmulOptions) -> Result<Array<T>> {
        let panel_limit = options.panel_limit;
        self.check()?;
        other.check()?;
        let (nd_a, nd_b) = (self.ndim(), other.ndim());
        if nd_a == 0 || nd_b == 0 {
            return Err(Error::invalid(
                "ndim",
                (nd_a, nd_b),
                "matmul takes operands of at least one axis (NumPy's rule; use * for scalars)",
            ));
        }
        let a = if nd_a == 1 { self.expand_dims(0)? } else { self.clone() };
        let b = if nd_b == 1 { other.expand_dims(1)? } else { other.clone() };
        let mut c = matmul_stacks(&a, &b, panel_limit)?;
        if nd_b == 1 {
            c = c.squeeze(Some(&[-1]))?;
        }
        if nd_a == 1 {
            c = c.squeeze(Some(&[if nd_b == 1 { -1 } else { -2 }]))?;
        }
        Ok(c)
    }

    /// Sums products over pairs of axes (NumPy's `tensordot`): `axes.0[k]` of
    /// `self` against `axes.1[k]` of `other`. The result's axes are `self`'s free
    /// axes then `other`'s. Built as permute + reshape + [`Array::matmul`] + reshape.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let a = Array::<f64>::ones(&[2, 3, 4], 2).unwrap();
    /// let b = Array::<f64>::ones(&[4, 3, 5], 2).unwrap();
    /// let c = a.tensordot(&b, (&[1, 2], &[1, 0])).unwrap();
    /// assert_eq!(c.shape(), vec![2, 5]);
    /// assert_eq!(c.sum(None).unwrap().compute_scalar().unwrap(), 2.0 * 5.0 * 12.0);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`]; [`Error::ShapeMismatch`] when paired axes differ in
    /// length or the pair lists differ in length.
    pub fn tensordot(&self, other: &Array<T>, axes: (&[isize], &[isize])) -> Result<Array<T>> {
        self.check()?;
        other.check()?;
        let (sa, sb) = (self.shape(), other.shape());
        let ca = crate::ops::reduce::normalize_axes(axes.0, sa.len())?;
        let cb = crate::ops::reduce::normalize_axes(axes.1, sb.len())?;
        if ca.len() != cb.len() || ca.iter().zip(&cb).any(|(&i, &j)| sa[i] != sb[j]) {
            let pick = |s: &[usize], ax: &[usize]| ax.iter().map(|&i| s[i]).collect::<Vec<_>>();
            return Err(Error::shape("tensordot (paired axes)", &pick(&sa, &ca), &pick(&sb, &cb)));
        }
        let fa: Vec<usize> = (0..sa.len()).filter(|i| !ca.contains(i)).collect();
        let fb: Vec<usize> = (0..sb.len()).filter(|i| !cb.contains(i)).collect();
        let k: usize = ca.iter().map(|&i| sa[i]).product();
        let m: usize = fa.iter().map(|&i| sa[i]).product();
        let n: usize = fb.iter().map(|&i| sb[i]).product();
        let perm_a: Vec<usize> = fa.iter().chain(&ca).copied().collect();
        let perm_b: Vec<usize> = cb.iter().chain(&fb).copied().collect();
        let a2 = self.permute_axes(&perm_a)?.reshape(&[m as isize, k as isize])?;
        let b2 = other.permute_axes(&perm_b)?.reshape(&[k as isize, n as isize])?;
        let out: Vec<isize> = fa.iter().map(|&i| sa[i] as isize).chain(fb.iter().map(|&i| sb[i] as isize)).collect();
        a2.matmul(&b2)?.reshape(&out)
    }

    /// NumPy's `dot`: [`Array::matmul`] for 1-d and 2-d operands; with more
    /// axes, the sum over the last axis of `self` and the second-to-last of
    /// `other` (the last if `other` is 1-d), every other axis kept: `self`'s
    /// then `other`'s ([`Array::tensordot`], unlike matmul's broadcasting). A
    /// 0-d operand multiplies the other elementwise, as in NumPy.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::arange(0.0, 4.0, 1.0, 2).unwrap();
    /// let three = Array::<f64>::full(&[], 3.0, 1).unwrap();
    /// assert_eq!(three.dot(&x).unwrap().compute().unwrap().iter().copied().collect::<Vec<_>>(), vec![0.0, 3.0, 6.0, 9.0]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::matmul`] and [`Array::tensordot`].
    pub fn dot(&self, other: &Array<T>) -> Result<Array<T>> {
        self.check()?;
        other.check()?;
        let (nd_a, nd_b) = (self.ndim(), other.ndim());
        if nd_a == 0 || nd_b == 0 {
            let product = self * other;
            product.check()?;
            return Ok(product);
        }
        if nd_a <= 2 && nd_b <= 2 {
            return self.matmul(other);
        }
        let axis_b = if nd_b == 1 { 0 } else { -2 };
        self.tensordot(other, (&[-1], &[axis_b]))
    }
}

/// `a @ b` for operands of at least two axes: batch axes broadcast, then the
/// block products (a tree of [`AddPartials`] when the contracted axis is split).
fn matmul_stacks<T: Gemm>(a: &Array<T>, b: &Array<T>, panel_limit: usize) -> Result<Array<T>> {
    let (sa, sb) = (a.shape(), b.shape());
    let (ra, rb) = (sa.len(), sb.len());
    if sa[ra - 1] != sb[rb - 2] {
        return Err(Error::shape("matmul (contracted axis)", &sa, &sb));
    }
    // Batch axes, right-aligned as NumPy broadcasts them; missing ones are
    // length-1 axes in front.
    let nb = ra.max(rb) - 2;
    let a = (ra - 2..nb).try_fold(a.clone(), |x, _| x.expand_dims(0))?;
    let b = (rb - 2..nb).try_fold(b.clone(), |x, _| x.expand_dims(0))?;
    let (sa, sb) = (a.shape(), b.shape());
    let mut stretched = [vec![false; nb], vec![false; nb]];
    let (mut lead_a, mut lead_b) = (a.chunks().lengths().to_vec(), b.chunks().lengths().to_vec());
    let mut batch_lengths = Vec::with_capacity(nb);
    for t in 0..nb {
        let (la, lb) = (sa[t], sb[t]);
        if la == lb {
            // One grid for both: the common refinement of theirs.
            let common = refine(&[a.chunks().boundaries(t), b.chunks().boundaries(t)]);
            lead_a[t] = common.clone();
            lead_b[t] = common.clone();
            batch_lengths.push(common);
        } else if la == 1 {
            stretched[0][t] = true;
            batch_lengths.push(lead_b[t].clone());
        } else if lb == 1 {
            stretched[1][t] = true;
            batch_lengths.push(lead_a[t].clone());
        } else {
            return Err(Error::shape("matmul (batch axes do not broadcast)", &sa[..nb], &sb[..nb]));
        }
    }
    let a = a.rechunk(lead_a)?;
    let b = b.rechunk(lead_b)?;
    let (ca, cb) = (a.chunks(), b.chunks());
    // On a device one task takes every piece: cuBLAS accumulates into its
    // output, and the panels are blocks the device holds anyway.
    let panel_limit = if a.node.device.is_some() || b.node.device.is_some() { usize::MAX } else { panel_limit };
    let groups = contracted_groups::<T>(ca, cb, nb, panel_limit);
    // The output grid before the group axis: batch, rows of a, columns of b.
    let mut lead = batch_lengths;
    lead.push(ca.lengths()[nb].clone());
    lead.push(cb.lengths()[nb + 1].clone());
    let with_groups = |n: usize| lead.iter().cloned().chain([vec![1; n]]).collect::<Vec<_>>();
    let inputs = vec![a.node.clone(), b.node.clone()];
    let mut n = groups.len();
    let on_rank_grid = nb == 0 && rank_grid_moves_less(ca, cb, std::mem::size_of::<T>());
    let op = Product::<T> { groups, single: n == 1, stretched, on_rank_grid, _t: std::marker::PhantomData };
    if n == 1 {
        return Array::built(Node::new("matmul", T::DTYPE, Chunks::from_lengths(lead), inputs, op));
    }
    let mut partial = Node::new("matmul-partial", T::DTYPE, Chunks::from_lengths(with_groups(n)), inputs, op);
    // Partial products added up, DEFAULT_SPLIT_EVERY at a time, until one is left.
    while n > 1 {
        let fan = DEFAULT_SPLIT_EVERY;
        let next = n.div_ceil(fan);
        let single = next == 1;
        let chunks = if single { lead.clone() } else { with_groups(next) };
        let op = AddPartials::<T> { fan, inputs: n, single, _t: std::marker::PhantomData };
        partial = Node::new(
            if single { "matmul" } else { "matmul-sum" },
            T::DTYPE,
            Chunks::from_lengths(chunks),
            vec![partial],
            op,
        );
        n = next;
    }
    Array::built(partial)
}

/// Whether a 2-D matmul over the graph's ranks ([`crate::runtime::process_count`])
/// moves fewer bytes per rank with its block products on a grid of ranks
/// (each rank reads a band of `a`'s rows and one of `b`'s columns) than with
/// each product where most of its inputs are (each rank reads about all of
/// the smaller operand): both operands large against the rank count, in
/// blocks (two per rank along each axis of the grid) and in bytes.
fn rank_grid_moves_less(ca: &Chunks, cb: &Chunks, itemsize: usize) -> bool {
    let processes = crate::schedule::spread::process_count();
    let Some((rows, cols)) = product::ranks_grid(processes) else { return false };
    let bytes = |c: &Chunks| c.shape().iter().product::<usize>() as f64 * itemsize as f64;
    let (a, b) = (bytes(ca), bytes(cb));
    // At least 2 x 2 output blocks per rank: with fewer, the placement by
    // input bytes already spreads each panel's products over few ranks.
    let enough_blocks = ca.grid()[0] >= 2 * rows && cb.grid()[1] >= 2 * cols;
    let on_grid = a / rows as f64 + b / cols as f64;
    enough_blocks && on_grid < a.min(b) * (1.0 - 1.0 / processes as f64)
}

/// The contracted axis cut into pieces (the common refinement of both grids),
/// grouped so that one task's row and column panels of `a` and `b` stay under
/// `panel_limit` bytes; one empty group when the axis is empty.
fn contracted_groups<T: Gemm>(ca: &Chunks, cb: &Chunks, nb: usize, panel_limit: usize) -> Vec<Vec<Piece>> {
    // Pieces of the contracted axis: the common refinement of both grids.
    let lengths = refine(&[ca.boundaries(nb + 1), cb.boundaries(nb)]);
    let mut pieces = Vec::new();
    let mut pos = 0;
    for len in lengths {
        if len == 0 {
            continue;
        }
        let (ab, bb) = (ca.block_of(nb + 1, pos), cb.block_of(nb, pos));
        pieces.push(Piece {
            a_block: ab,
            a_offset: pos - ca.offset(nb + 1, ab),
            b_block: bb,
            b_offset: pos - cb.offset(nb, bb),
            len,
        });
        pos += len;
    }
    // Group pieces so that one task's row and column panels stay under the limit.
    let band = |p: &Piece| {
        (ca.max_block_elems() / ca.lengths()[nb + 1][p.a_block].max(1)
            + cb.max_block_elems() / cb.lengths()[nb][p.b_block].max(1))
            * p.len
    };
    let mut groups: Vec<Vec<Piece>> = Vec::new();
    let mut bytes = 0usize;
    for p in pieces {
        let size = band(&p) * std::mem::size_of::<T>();
        match groups.last_mut() {
            Some(g) if bytes + size <= panel_limit => g.push(p),
            _ => {
                groups.push(vec![p]);
                bytes = 0;
            }
        }
        bytes += size;
    }
    if groups.is_empty() {
        // An empty contracted axis: one group with no pieces gives zeros.
        groups.push(Vec::new());
    }
    groups
}

/// Adds up partial products: block (.., i, j, h) of the output (or (.., i, j)
/// for the last layer) is the sum of blocks (.., i, j, h·fan ..) of the input,
/// `fan` at most; the group axis is the last.
struct AddPartials<T> {
    fan: usize,
    /// Blocks along the input's group axis.
    inputs: usize,
    /// Whether the output drops the group axis (one block per (i, j) left).
    single: bool,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Gemm> AddPartials<T> {
    fn range(&self, idx: &[usize]) -> std::ops::Range<usize> {
        let h = if self.single { 0 } else { idx[idx.len() - 1] };
        h * self.fan..((h + 1) * self.fan).min(self.inputs)
    }
}

impl<T: Gemm> BlockOp for AddPartials<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let input = &node.inputs[0].chunks;
        let lead = if self.single { idx } else { &idx[..idx.len() - 1] };
        let mut at: Vec<usize> = lead.iter().copied().chain([0]).collect();
        for g in self.range(idx) {
            *at.last_mut().expect("the group axis") = g;
            out.push((0, input.linear(&at)));
        }
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let shape = node.chunks.block_shape(idx);
        let parts =
            inputs.iter().map(|b| HostMatrix::<T>::of(b, node, "partial product")).collect::<Result<Vec<_>>>()?;
        let len: usize = shape.iter().product();
        if let Some(p) = parts.iter().find(|p| p.data().len() != len) {
            return Err(Error::shape("matmul partial product", &p.shape, &shape));
        }
        // One pass writes the sum of the first two; the rest are added in place.
        let mut sum: Vec<T> = crate::block::alloc::block_vec(len);
        match &parts[..] {
            [a] => sum.extend_from_slice(a.data()),
            [a, b, ..] => sum.extend(a.data().iter().zip(b.data()).map(|(&x, &y)| Number::add(x, y))),
            [] => sum.resize(len, T::ZERO),
        }
        for p in parts.iter().skip(2) {
            for (s, &x) in sum.iter_mut().zip(p.data()) {
                *s = Number::add(*s, x);
            }
        }
        let out =
            ArrayD::from_shape_vec(IxDyn(&shape), sum).map_err(|e| Error::invalid("block", idx, e.to_string()))?;
        match node.device_at(idx) {
            Some(device) => to_device_block(Arc::new(out), device),
            None => Ok(Arc::new(out)),
        }
    }
}
