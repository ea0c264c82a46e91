//! One output block of a matrix product: the sum over its contracted pieces of
//! row band times column band, by faer on the host or cuBLAS on a device.

use std::sync::Arc;

use chunked_gpu::{Device, Operand};
use faer::MatRef;
use ndarray::{ArrayD, IxDyn};

use crate::block::Block;
use crate::block::device::to_device_block;
use crate::device::DeviceBlock;
use crate::element::{Complex32, Complex64, DType, Element, Number};
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};

use super::Gemm;

/// One piece of the contracted axis: where it sits in `a`'s column blocks and in
/// `b`'s row blocks.
#[derive(Debug, Clone, Copy)]
pub(super) struct Piece {
    pub(super) a_block: usize,
    pub(super) a_offset: usize,
    pub(super) b_block: usize,
    pub(super) b_offset: usize,
    pub(super) len: usize,
}

/// Products of row band i and column band j over group g of pieces; the output
/// grid is (batch axes.., rows of a, columns of b, groups) with one block per
/// group.
pub(super) struct Product<T> {
    pub(super) groups: Vec<Vec<Piece>>,
    /// Whether the output drops the group axis (a single group).
    pub(super) single: bool,
    /// Per operand (a, b), per batch axis: whether it is stretched (length 1
    /// against a longer axis of the other operand), so read at index 0.
    pub(super) stretched: [Vec<bool>; 2],
    /// Whether the products go to a 2-D grid of ranks (see [`ranks_grid`]).
    pub(super) on_rank_grid: bool,
    pub(super) _t: std::marker::PhantomData<fn() -> T>,
}

/// The grid of ranks a matmul's block products are laid out on over
/// `processes` ranks: `rows` x `processes / rows` with `rows` the largest
/// divisor of `processes` at most its square root, `None` when that is 1 (a
/// prime count, whose products keep the placement's own rules).
pub(super) fn ranks_grid(processes: usize) -> Option<(usize, usize)> {
    let rows = (1..=processes.isqrt()).rev().find(|r| processes.is_multiple_of(*r))?;
    (rows > 1).then_some((rows, processes / rows))
}

impl<T: Gemm> Product<T> {
    fn batch_axes(&self) -> usize {
        self.stretched[0].len()
    }

    fn group(&self, idx: &[usize]) -> &[Piece] {
        &self.groups[if self.single { 0 } else { idx[self.batch_axes() + 2] }]
    }

    /// Operand `which`'s block or element index along the batch axes for the
    /// output's `batch` index.
    fn operand_batch<'a>(&'a self, which: usize, batch: &'a [usize]) -> impl Iterator<Item = usize> + 'a {
        self.stretched[which].iter().zip(batch).map(|(&s, &i)| if s { 0 } else { i })
    }
}

impl<T: Gemm> BlockOp for Product<T> {
    /// SUMMA's layout: output block (i, j) on the rank of its cell in a 2-D
    /// grid of ranks, the row blocks cut into contiguous bands over the grid's
    /// rows and the column blocks over its columns. A rank then reads the row
    /// panel of `a` for its band and the column panel of `b` for its band:
    /// n²/rows + n²/columns elements, where one rank per row panel would read
    /// all of `b`.
    fn process_of(&self, node: &Node, idx: &[usize], processes: usize) -> Option<usize> {
        if !self.on_rank_grid {
            return None;
        }
        let (rows, cols) = ranks_grid(processes)?;
        let grid = node.chunks.grid();
        let nb = self.batch_axes();
        let owner = crate::schedule::spread::owner_of;
        Some(owner(idx[nb], grid[nb], rows) * cols + owner(idx[nb + 1], grid[nb + 1], cols))
    }

    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let (a, b) = (&node.inputs[0].chunks, &node.inputs[1].chunks);
        let nb = self.batch_axes();
        let (batch, i, j) = (&idx[..nb], idx[nb], idx[nb + 1]);
        let mut at: Vec<usize> = self.operand_batch(0, batch).chain([i, 0]).collect();
        let mut bt: Vec<usize> = self.operand_batch(1, batch).chain([0, j]).collect();
        for p in self.group(idx) {
            at[nb + 1] = p.a_block;
            bt[nb] = p.b_block;
            out.push((0, a.linear(&at)));
            out.push((1, b.linear(&bt)));
        }
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let shape = node.chunks.block_shape(idx);
        let nb = self.batch_axes();
        if let Some(device) = node.device_at(idx)
            && !device.is_emulated()
            && nb == 0
        {
            // cuBLAS multiplies the floats and complex numbers (gemm, zgemm).
            let pieces = self.group(idx);
            match T::DTYPE {
                DType::F64 => return cuda_product::<f64>(pieces, node, idx, inputs, device),
                DType::F32 => return cuda_product::<f32>(pieces, node, idx, inputs, device),
                DType::Complex128 => return cuda_product::<Complex64>(pieces, node, idx, inputs, device),
                DType::Complex64 => return cuda_product::<Complex32>(pieces, node, idx, inputs, device),
                _ => {}
            }
        }
        let (rows, cols) = (shape[nb], shape[nb + 1]);
        let len: usize = shape.iter().product();
        let mut c = crate::block::alloc::block_vec(len);
        c.resize(len, T::ZERO);
        let operands = inputs
            .iter()
            .enumerate()
            .map(|(k, b)| HostMatrix::<T>::of(b, node, if k % 2 == 0 { "matmul lhs" } else { "matmul rhs" }))
            .collect::<Result<Vec<_>>>()?;
        // Each matrix of the output block's stack, in C order (none when a
        // batch axis is empty).
        let mut e = 0;
        let mut each_matrix = |batch: &[usize]| {
            let out = &mut c[e * rows * cols..(e + 1) * rows * cols];
            e += 1;
            for (k, p) in self.group(idx).iter().enumerate() {
                // On an emulated device the blocks' memory is the host's: faer
                // multiplies it in place, as a device kernel would.
                let (a, b) = (&operands[2 * k], &operands[2 * k + 1]);
                let am = a.matrix(self.operand_batch(0, batch)).submatrix(0, p.a_offset, a.rows(), p.len);
                let bm = b.matrix(self.operand_batch(1, batch)).submatrix(p.b_offset, 0, p.len, b.cols());
                T::gemm(out, rows, cols, am, bm, k > 0);
            }
        };
        if !shape[..nb].contains(&0) {
            crate::chunks::for_each_in_box(&vec![0; nb], &shape[..nb], &mut each_matrix);
        }
        let out = ArrayD::from_shape_vec(IxDyn(&shape), c).map_err(|e| Error::invalid("block", idx, e.to_string()))?;
        match node.device_at(idx) {
            Some(device) => to_device_block(Arc::new(out), device),
            None => Ok(Arc::new(out)),
        }
    }

    fn has_device_kernel(&self, _node: &Node) -> bool {
        true
    }
}

/// The block product by cuBLAS: one gemm per piece of the contracted axis,
/// accumulating into the output (beta = 1 after the first).
fn cuda_product<T: Number + chunked_gpu::DeviceElement>(
    pieces: &[Piece],
    node: &Node,
    idx: &[usize],
    inputs: &[&Block],
    device: &Device,
) -> Result<Block> {
    let shape = node.chunks.block_shape(idx);
    let (rows, cols) = (shape[0], shape[1]);
    let mut c = device.zeros::<T>(rows * cols)?;
    for (k, p) in pieces.iter().enumerate() {
        let a = to_device_block(inputs[2 * k].clone(), device)?;
        let b = to_device_block(inputs[2 * k + 1].clone(), device)?;
        let (Some(a), Some(b)) =
            (a.as_any().downcast_ref::<DeviceBlock<T>>(), b.as_any().downcast_ref::<DeviceBlock<T>>())
        else {
            return Err(Error::DtypeMismatch {
                key: format!("matmul input of {}", node.label()),
                expected: T::DTYPE.to_string(),
                found: "another type".into(),
            });
        };
        // Two-axis blocks only (stacks are multiplied on the host).
        let a_op = Operand::columns(&a.buffer, a.shape[1], p.a_offset);
        let b_op = Operand::rows(&b.buffer, b.shape[1], p.b_offset);
        let beta = if k > 0 { T::ONE } else { T::ZERO };
        device.gemm((rows, cols, p.len), T::ONE, a_op, b_op, beta, &mut c)?;
    }
    Ok(Arc::new(DeviceBlock { buffer: c, shape }))
}

/// The elements of a device or pinned block of `U` (which is `T`: the
/// caller matched their dtypes) and its shape, borrowed where the memory is
/// the host's; `None` for other blocks.
type Elements<'a, T> = Option<(std::borrow::Cow<'a, [T]>, Vec<usize>)>;

fn device_elements<'a, U: chunked_gpu::DeviceElement + Element, T: Element>(
    block: &'a Block,
) -> Result<Elements<'a, T>> {
    assert_eq!(U::DTYPE, T::DTYPE, "device_elements is called with T's own device type");
    // SAFETY: equal dtypes are the same Rust type (`Element` is sealed, one
    // type per dtype), so the slice is reinterpreted as itself.
    let same = |s: &'a [U]| unsafe { std::slice::from_raw_parts(s.as_ptr() as *const T, s.len()) };
    if let Some(d) = block.as_any().downcast_ref::<DeviceBlock<U>>() {
        let data = match d.buffer.host() {
            Some(s) => std::borrow::Cow::Borrowed(same(s)),
            None => std::borrow::Cow::Owned(d.buffer.download()?.into_iter().map(|x| x.cast::<T>()).collect()),
        };
        return Ok(Some((data, d.shape.clone())));
    }
    if let Some(p) = block.as_any().downcast_ref::<crate::device::PinnedBlock<U>>() {
        return Ok(Some((std::borrow::Cow::Borrowed(same(p.buffer.as_slice()?)), p.shape.clone())));
    }
    Ok(None)
}

/// A block's elements in host memory, row-major: borrowed from a host array in
/// standard layout or from an emulated device's buffer, else copied. Its last
/// two axes are the matrices' rows and columns, any before them a stack.
pub(super) struct HostMatrix<'a, T: Gemm> {
    data: std::borrow::Cow<'a, [T]>,
    pub(super) shape: Vec<usize>,
}

impl<'a, T: Gemm> HostMatrix<'a, T> {
    pub(super) fn of(block: &'a Block, node: &Node, what: &str) -> Result<Self> {
        let on_device = match T::DTYPE {
            DType::F64 => device_elements::<f64, T>(block)?,
            DType::F32 => device_elements::<f32, T>(block)?,
            DType::Complex128 => device_elements::<Complex64, T>(block)?,
            DType::Complex64 => device_elements::<Complex32, T>(block)?,
            _ => None,
        };
        if let Some((data, shape)) = on_device {
            return HostMatrix::new(data, shape, node, what);
        }
        let a = block_as::<T>(block, node, what)?;
        let data = match a.as_slice() {
            Some(s) => std::borrow::Cow::Borrowed(s),
            None => std::borrow::Cow::Owned(a.iter().copied().collect()),
        };
        HostMatrix::new(data, a.shape().to_vec(), node, what)
    }

    fn new(data: std::borrow::Cow<'a, [T]>, shape: Vec<usize>, node: &Node, what: &str) -> Result<Self> {
        if shape.len() < 2 || data.len() != shape.iter().product::<usize>() {
            return Err(Error::Task {
                key: node.label(),
                message: format!(
                    "{what}: a block of shape {shape:?} holding {} elements is not a stack of matrices",
                    data.len()
                ),
            });
        }
        Ok(HostMatrix { data, shape })
    }

    pub(super) fn rows(&self) -> usize {
        self.shape[self.shape.len() - 2]
    }

    pub(super) fn cols(&self) -> usize {
        self.shape[self.shape.len() - 1]
    }

    pub(super) fn data(&self) -> &[T] {
        &self.data
    }

    /// The matrix at `batch` (one index per axis before the last two).
    pub(super) fn matrix(&self, batch: impl Iterator<Item = usize>) -> MatRef<'_, T> {
        let nb = self.shape.len() - 2;
        let e = batch.zip(&self.shape[..nb]).fold(0, |e, (i, &n)| e * n + i);
        let size = self.rows() * self.cols();
        MatRef::from_row_major_slice(&self.data[e * size..(e + 1) * size], self.rows(), self.cols())
    }
}
