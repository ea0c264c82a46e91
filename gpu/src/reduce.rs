//! Block reductions on a CUDA device (sum, nansum, prod, max, min over any
//! axes of a C-order block), as two generated kernels:
//!
//! 1. `chunked_reduce_pieces`: each output element's reduced elements are
//!    dealt out to `pieces` threads in turn (thread `p` takes elements `p`,
//!    `p + pieces`, ...), so that neighbouring threads read neighbouring
//!    elements and the whole device is busy even for a full reduction;
//! 2. `chunked_reduce_merge`, as often as it takes: the pieces of each output
//!    element dealt out again, [`MERGE_FAN`] to a thread, until at most
//!    [`FINISH_PIECES`] are left (a full sum of a block starts from about
//!    2^17 pieces, which one thread would take milliseconds to walk);
//! 3. `chunked_reduce_finish`: one thread per output element merges what is
//!    left in order.
//!
//! No shared memory and no atomics: the result is the same on every run, and
//! the sources are plain C++ that a host compiler can build and run (chunked's
//! tests do, against the CPU reductions).

use std::fmt::Write;

use cudarc::driver::PushKernelArg;

use crate::buffer::DeviceBuffer;
use crate::cuda::grid_stride;
use crate::element::DeviceElement;
use crate::kernels::KernelInput;
use crate::{Result, cuda_error};

/// Entry point of the first kernel.
pub const PIECES_ENTRY: &str = "chunked_reduce_pieces";
/// Entry point of the merging kernel.
pub const MERGE_ENTRY: &str = "chunked_reduce_merge";
/// Entry point of the finishing kernel.
pub const FINISH_ENTRY: &str = "chunked_reduce_finish";
/// Most pieces the finishing kernel's thread merges one after another.
pub const FINISH_PIECES: usize = 128;
/// Pieces one thread of a merge pass takes.
pub const MERGE_FAN: usize = 64;
/// Threads of the first kernel, all output elements together: enough to keep
/// a large GPU's memory busy (an H100 or H200 holds about 2^18 threads at once).
const FIRST_PASS_THREADS: usize = 1 << 18;
/// Fewest input elements per thread of the first kernel, so that a small
/// reduction needs no merge pass.
const MIN_PER_THREAD: usize = 8;

/// What a block reduction computes.
///
/// ```
/// use chunked_gpu::reduce::{source, ReduceOp};
/// let max = source::<f64>(ReduceOp::Max, "double");
/// assert!(max.contains("max_nan(a, v)")); // NaN propagates
/// assert!(source::<f64>(ReduceOp::NanSum, "double").contains("isnan(v) ? a : a + v"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduceOp {
    /// Sum.
    Sum,
    /// Sum skipping NaNs.
    NanSum,
    /// Product.
    Prod,
    /// Maximum; NaN propagates.
    Max,
    /// Minimum; NaN propagates.
    Min,
}

/// A block's axes as the kernels walk them: adjacent axes of the same kind
/// (kept or reduced) merged, length-1 axes dropped, each group with its
/// element stride in the C-order block.
///
/// ```
/// use chunked_gpu::reduce::ReduceLayout;
/// // (4, 1, 5, 6) summed over its last two axes: the length-1 axis goes.
/// let l = ReduceLayout::new(&[4, 1, 5, 6], &[false, false, true, true]);
/// assert_eq!((l.kept, l.reduced), (vec![(4, 30)], vec![(30, 1)]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReduceLayout {
    /// Kept groups (length, stride), outer first: output elements in C order.
    pub kept: Vec<(usize, usize)>,
    /// Reduced groups (length, stride), outer first.
    pub reduced: Vec<(usize, usize)>,
}

impl ReduceLayout {
    /// The layout of a C-order block of `shape` reduced over the axes marked in `reduced`.
    ///
    /// ```
    /// use chunked_gpu::reduce::ReduceLayout;
    /// // (3, 4, 5) over axis 1: kept groups around the reduced one.
    /// let l = ReduceLayout::new(&[3, 4, 5], &[false, true, false]);
    /// assert_eq!((l.kept, l.reduced), (vec![(3, 20), (5, 1)], vec![(4, 5)]));
    /// ```
    pub fn new(shape: &[usize], reduced: &[bool]) -> ReduceLayout {
        let mut layout = ReduceLayout { kept: Vec::new(), reduced: Vec::new() };
        let mut stride = 1usize;
        // From the innermost axis out, so strides are known as groups grow.
        let mut groups: Vec<(usize, usize, bool)> = Vec::new();
        for (&len, &red) in shape.iter().zip(reduced).rev() {
            if len != 1 {
                match groups.last_mut() {
                    Some((l, _, kind)) if *kind == red => *l *= len,
                    _ => groups.push((len, stride, red)),
                }
            }
            stride *= len;
        }
        for (len, stride, red) in groups.into_iter().rev() {
            if red {
                layout.reduced.push((len, stride));
            } else {
                layout.kept.push((len, stride));
            }
        }
        layout
    }

    /// Output elements.
    ///
    /// ```
    /// let l = chunked_gpu::reduce::ReduceLayout::new(&[3, 4, 5], &[false, true, false]);
    /// assert_eq!(l.outputs(), 15);
    /// ```
    pub fn outputs(&self) -> usize {
        self.kept.iter().map(|g| g.0).product()
    }

    /// Reduced elements per output element.
    ///
    /// ```
    /// let l = chunked_gpu::reduce::ReduceLayout::new(&[3, 4, 5], &[false, true, true]);
    /// assert_eq!(l.reduced_len(), 20);
    /// ```
    pub fn reduced_len(&self) -> usize {
        self.reduced.iter().map(|g| g.0).product()
    }

    /// Whether the innermost axis is reduced (then a thread's pieces of one
    /// output are neighbours, otherwise the threads of one piece are).
    ///
    /// ```
    /// use chunked_gpu::reduce::ReduceLayout;
    /// assert!(ReduceLayout::new(&[3, 4], &[false, true]).reduced_inner());
    /// assert!(!ReduceLayout::new(&[3, 4], &[true, false]).reduced_inner());
    /// ```
    pub fn reduced_inner(&self) -> bool {
        self.reduced.last().is_some_and(|g| g.1 == 1)
    }

    /// Threads of the first kernel per output element: about 2^18 threads in
    /// all, each taking at least 8 reduced elements.
    ///
    /// ```
    /// use chunked_gpu::reduce::ReduceLayout;
    /// assert_eq!(ReduceLayout::new(&[7, 8], &[true, true]).pieces(), 7); // 56 elements, 8 a thread
    /// assert_eq!(ReduceLayout::new(&[1 << 24], &[true]).pieces(), 1 << 18);
    /// assert_eq!(ReduceLayout::new(&[1 << 18, 16], &[false, true]).pieces(), 1); // outputs enough
    /// ```
    pub fn pieces(&self) -> usize {
        (FIRST_PASS_THREADS / self.outputs().max(1)).clamp(1, self.reduced_len().div_ceil(MIN_PER_THREAD).max(1))
    }

    /// Pieces per output element after each merge pass, from [`Self::pieces`]
    /// down by [`MERGE_FAN`] until at most [`FINISH_PIECES`] remain; empty
    /// when the finishing kernel can merge the first kernel's pieces itself.
    ///
    /// ```
    /// use chunked_gpu::reduce::ReduceLayout;
    /// assert_eq!(ReduceLayout::new(&[1 << 24], &[true]).merge_passes(), vec![4096, 64]);
    /// assert!(ReduceLayout::new(&[1000, 1000], &[false, true]).merge_passes().is_empty());
    /// ```
    pub fn merge_passes(&self) -> Vec<usize> {
        let mut passes = Vec::new();
        let mut pieces = self.pieces();
        while pieces > FINISH_PIECES {
            pieces = pieces.div_ceil(MERGE_FAN);
            passes.push(pieces);
        }
        passes
    }

    /// The kernels' `meta`: kept lengths, kept strides, reduced lengths,
    /// reduced strides.
    ///
    /// ```
    /// let l = chunked_gpu::reduce::ReduceLayout::new(&[3, 4, 5], &[false, true, false]);
    /// assert_eq!(l.meta(), vec![3, 5, 20, 1, 4, 5]);
    /// ```
    pub fn meta(&self) -> Vec<i64> {
        let k = self.kept.iter();
        let r = self.reduced.iter();
        k.clone()
            .map(|g| g.0 as i64)
            .chain(k.map(|g| g.1 as i64))
            .chain(r.clone().map(|g| g.0 as i64))
            .chain(r.map(|g| g.1 as i64))
            .collect()
    }
}

/// The kernels' source for `op` over input elements of C type `input_c`
/// (`"double"`, `"int"`, ...) accumulating in `A`, after
/// [`crate::kernels::ELEMENTWISE_HELPERS`]. Complex elements accumulate in
/// their own type, and have no order: their `Max` and `Min` sources name an
/// undefined identifier, so that NVRTC refuses them.
///
/// ```
/// use chunked_gpu::kernels::ELEMENTWISE_HELPERS;
/// use chunked_gpu::reduce::{source, ReduceOp, FINISH_ENTRY, PIECES_ENTRY};
/// let s = source::<i64>(ReduceOp::Sum, "int"); // i32 elements summed in i64
/// assert!(s.starts_with(ELEMENTWISE_HELPERS) && s.contains("typedef long long acc_t;"));
/// assert!(s.contains(PIECES_ENTRY) && s.contains(FINISH_ENTRY));
/// let z = source::<num_complex::Complex<f64>>(ReduceOp::NanSum, "c128");
/// assert!(z.contains("mk_c128(0, 0)") && z.contains("isnan_of(v) ? a : a + v"));
/// ```
pub fn source<A: DeviceElement>(op: ReduceOp, input_c: &str) -> String {
    let acc = A::C_TYPE;
    let float = matches!(A::C_NAME, "f64" | "f32");
    let (lowest, highest) = (A::C_LOWEST, A::C_HIGHEST);
    // Complex accumulators start from a constructed struct; C casts the
    // numbers' literals.
    let (zero, one) = match A::IS_COMPLEX {
        true => (format!("mk_{acc}(0, 0)"), format!("mk_{acc}(1, 0)")),
        false => ("0".to_string(), "1".to_string()),
    };
    let (identity, step, merge) = match (op, float) {
        (ReduceOp::NanSum, _) if A::IS_COMPLEX => (zero, "isnan_of(v) ? a : a + v", "a + b"),
        (ReduceOp::Sum, _) | (ReduceOp::NanSum, false) => (zero, "a + v", "a + b"),
        (ReduceOp::NanSum, true) => (zero, "isnan(v) ? a : a + v", "a + b"),
        (ReduceOp::Prod, _) => (one, "a * v", "a * b"),
        (ReduceOp::Max, true) => (lowest.to_string(), "max_nan(a, v)", "max_nan(a, b)"),
        (ReduceOp::Min, true) => (highest.to_string(), "min_nan(a, v)", "min_nan(a, b)"),
        (ReduceOp::Max, false) => (lowest.to_string(), "v > a ? v : a", "b > a ? b : a"),
        (ReduceOp::Min, false) => (highest.to_string(), "v < a ? v : a", "b < a ? b : a"),
    };
    let mut s = String::from(crate::kernels::ELEMENTWISE_HELPERS);
    let _ = write!(
        s,
        r#"
typedef {input_c} in_t;
typedef {acc} acc_t;
__device__ inline acc_t op_identity() {{ return (acc_t)({identity}); }}
__device__ inline acc_t op_step(acc_t a, acc_t v) {{ return {step}; }}
__device__ inline acc_t op_merge(acc_t a, acc_t b) {{ return {merge}; }}
__device__ inline long long offset_of(unsigned long long i, int groups, const long long* lens, const long long* strides) {{
    long long off = 0;
    for (int g = groups - 1; g >= 0; g--) {{
        off += (long long)(i % (unsigned long long)lens[g]) * strides[g];
        i /= (unsigned long long)lens[g];
    }}
    return off;
}}
extern "C" __global__ void {PIECES_ENTRY}(const in_t* x, acc_t* partial, unsigned long long n_out, unsigned long long n_red,
                                          unsigned long long pieces, int nk, int nr, const long long* meta, int reduced_inner) {{
    const long long* kept_len = meta;
    const long long* kept_stride = meta + nk;
    const long long* red_len = meta + 2 * nk;
    const long long* red_stride = meta + 2 * nk + nr;
    unsigned long long total = n_out * pieces;
    unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += step) {{
        unsigned long long o = reduced_inner ? t / pieces : t % n_out;
        unsigned long long p = reduced_inner ? t % pieces : t / n_out;
        long long base = offset_of(o, nk, kept_len, kept_stride);
        acc_t a = op_identity();
        for (unsigned long long r = p; r < n_red; r += pieces) {{
            // One reduced group (the usual case) needs no division.
            long long off = nr == 1 ? (long long)r * red_stride[0] : offset_of(r, nr, red_len, red_stride);
            acc_t v = (acc_t)x[base + off];
            a = op_step(a, v);
        }}
        partial[o * pieces + p] = a;
    }}
}}
extern "C" __global__ void {MERGE_ENTRY}(const acc_t* partial, acc_t* next, unsigned long long n_out,
                                         unsigned long long pieces, unsigned long long next_pieces) {{
    unsigned long long total = n_out * next_pieces;
    unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += step) {{
        unsigned long long o = t / next_pieces, q = t % next_pieces;
        acc_t a = op_identity();
        for (unsigned long long p = q; p < pieces; p += next_pieces) {{
            acc_t b = partial[o * pieces + p];
            a = op_merge(a, b);
        }}
        next[o * next_pieces + q] = a;
    }}
}}
extern "C" __global__ void {FINISH_ENTRY}(const acc_t* partial, acc_t* out, unsigned long long n_out, unsigned long long pieces) {{
    unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long o = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; o < n_out; o += step) {{
        acc_t a = op_identity();
        for (unsigned long long p = 0; p < pieces; p++) {{
            acc_t b = partial[o * pieces + p];
            a = op_merge(a, b);
        }}
        out[o] = a;
    }}
}}
"#
    );
    s
}

/// Reduces the C-order block in `input` as `layout` says into `out` (one
/// element per output element, C order), by the kernels of `source` (from
/// [`source`] for `out`'s element type).
///
/// ```
/// use chunked_gpu::reduce::{launch_reduce, source, ReduceLayout, ReduceOp};
/// use chunked_gpu::{Device, Error};
/// # fn main() -> chunked_gpu::Result<()> {
/// let dev = Device::cuda(0).unwrap_or_else(|_| Device::emulated(1 << 20)); // emulated: no NVRTC
/// let x = dev.upload(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0])?; // 2 x 3
/// let layout = ReduceLayout::new(&[2, 3], &[false, true]); // row sums
/// let mut out = dev.zeros::<f64>(2)?;
/// match launch_reduce(&source::<f64>(ReduceOp::Sum, "double"), &x, &layout, &mut out) {
///     Ok(()) => assert_eq!(out.download()?, vec![6.0, 15.0]),
///     Err(e) => assert!(dev.is_emulated() && matches!(e, Error::Unsupported { .. }), "{e}"),
/// }
/// # Ok(()) }
/// ```
///
/// # Errors
/// [`crate::Error::Unsupported`] on an emulated device, for an input on
/// another device or an output of the wrong length; [`crate::Error::OutOfMemory`]
/// for the pieces' buffer; [`crate::Error::NoDevice`] without NVRTC;
/// [`crate::Error::Cuda`].
pub fn launch_reduce<A: DeviceElement>(
    source: &str,
    input: &dyn KernelInput,
    layout: &ReduceLayout,
    out: &mut DeviceBuffer<A>,
) -> Result<()> {
    let device = out.device().clone();
    if !input.device().same(&device) || out.len() != layout.outputs() {
        return Err(device.unsupported(format!(
            "a reduction on {} of a block on {} into {} elements (expected {})",
            device.describe(),
            input.device().describe(),
            out.len(),
            layout.outputs()
        )));
    }
    let state = device.cuda_state("reduction kernel")?;
    if out.is_empty() {
        return Ok(());
    }
    let finish_fn = state.function("reduction", source, FINISH_ENTRY)?;
    let (n_out, n_red) = (layout.outputs() as u64, layout.reduced_len() as u64);
    if n_red == 0 {
        // Nothing to reduce (an empty input, which holds no device memory to
        // pass): merging no pieces writes the identity.
        let nothing = device.zeros::<A>(1)?;
        let zero = 0u64;
        let mut launch = state.stream.launch_builder(&finish_fn);
        launch
            .arg(nothing.cuda().expect("CUDA buffer"))
            .arg(out.cuda_mut().expect("CUDA buffer"))
            .arg(&n_out)
            .arg(&zero);
        // SAFETY: with no pieces the kernel reads nothing and writes n_out elements of `out`.
        unsafe { launch.launch(grid_stride(n_out)) }.map_err(cuda_error("cuLaunchKernel reduction finish"))?;
        return Ok(());
    }
    let mut partial = launch_pieces::<A>(state, source, input, layout)?;
    let mut pieces = layout.pieces() as u64;
    if !layout.merge_passes().is_empty() {
        let merge_fn = state.function("reduction", source, MERGE_ENTRY)?;
        for next_pieces in layout.merge_passes() {
            let next_pieces = next_pieces as u64;
            let mut next = device.zeros::<A>((n_out * next_pieces) as usize)?;
            let mut launch = state.stream.launch_builder(&merge_fn);
            launch
                .arg(partial.cuda().expect("CUDA buffer"))
                .arg(next.cuda_mut().expect("CUDA buffer"))
                .arg(&n_out)
                .arg(&pieces)
                .arg(&next_pieces);
            // SAFETY: reads n_out * pieces elements of `partial`, writes
            // n_out * next_pieces of `next`.
            unsafe { launch.launch(grid_stride(n_out * next_pieces)) }
                .map_err(cuda_error("cuLaunchKernel reduction merge"))?;
            (partial, pieces) = (next, next_pieces);
        }
    }
    let mut launch = state.stream.launch_builder(&finish_fn);
    launch.arg(partial.cuda().expect("CUDA buffer")).arg(out.cuda_mut().expect("CUDA buffer")).arg(&n_out).arg(&pieces);
    // SAFETY: reads n_out * pieces elements of `partial`, writes n_out of `out`.
    unsafe { launch.launch(grid_stride(n_out)) }.map_err(cuda_error("cuLaunchKernel reduction finish"))?;
    Ok(())
}

/// The first kernel over a non-empty input: `layout.pieces()` partial
/// results per output element.
fn launch_pieces<A: DeviceElement>(
    state: &crate::cuda::CudaState,
    source: &str,
    input: &dyn KernelInput,
    layout: &ReduceLayout,
) -> Result<DeviceBuffer<A>> {
    let pieces_fn = state.function("reduction", source, PIECES_ENTRY)?;
    let (n_out, n_red, pieces) = (layout.outputs() as u64, layout.reduced_len() as u64, layout.pieces() as u64);
    let mut partial = input.device().zeros::<A>((n_out * pieces) as usize)?;
    // The driver refuses empty allocations: a block whose axes are all kept
    // or of length 1 still gets one (unused) value.
    let mut meta = layout.meta();
    if meta.is_empty() {
        meta.push(0);
    }
    let meta = state.upload(&meta)?;
    let (nk, nr, inner) = (layout.kept.len() as i32, layout.reduced.len() as i32, layout.reduced_inner() as i32);
    let mut launch = state.stream.launch_builder(&pieces_fn);
    input.push(&mut launch);
    launch
        .arg(partial.cuda_mut().expect("CUDA buffer"))
        .arg(&n_out)
        .arg(&n_red)
        .arg(&pieces)
        .arg(&nk)
        .arg(&nr)
        .arg(&meta)
        .arg(&inner);
    // SAFETY: the kernel reads the input at offsets within its block (the
    // layout came from the block's shape) and writes n_out * pieces elements
    // of `partial`.
    unsafe { launch.launch(grid_stride(n_out * pieces)) }.map_err(cuda_error("cuLaunchKernel reduction pieces"))?;
    Ok(partial)
}

#[cfg(test)]
mod tests {
    use super::ReduceLayout;

    #[test]
    fn layouts_merge_neighbouring_axes_of_a_kind_and_drop_length_one_axes() {
        // (4, 1, 5, 6) reducing axes 1 to 3: kept 4 (stride 30), reduced 30 (stride 1).
        let l = ReduceLayout::new(&[4, 1, 5, 6], &[false, true, true, true]);
        assert_eq!((l.kept.clone(), l.reduced.clone()), (vec![(4, 30)], vec![(30, 1)]));
        assert!(l.reduced_inner());
        // (3, 4, 5) reducing axis 1: two kept groups around one reduced.
        let l = ReduceLayout::new(&[3, 4, 5], &[false, true, false]);
        assert_eq!((l.kept.clone(), l.reduced.clone()), (vec![(3, 20), (5, 1)], vec![(4, 5)]));
        assert!(!l.reduced_inner());
        assert_eq!((l.outputs(), l.reduced_len()), (15, 4));
        assert_eq!(l.meta(), vec![3, 5, 20, 1, 4, 5]);
        // Everything reduced: one output, eight elements to a thread.
        let l = ReduceLayout::new(&[7, 8], &[true, true]);
        assert_eq!((l.outputs(), l.reduced_len(), l.pieces()), (1, 56, 7));
        assert!(l.merge_passes().is_empty());
        // A long full reduction: 2^18 pieces merged in two passes, 64 a thread.
        let l = ReduceLayout::new(&[1 << 12, 1 << 12], &[true, true]);
        assert_eq!((l.pieces(), l.merge_passes()), (1 << 18, vec![4096, 64]));
        // Many outputs: fewer pieces each, no merge pass.
        let l = ReduceLayout::new(&[1000, 1000], &[true, false]);
        assert_eq!((l.pieces(), l.merge_passes()), (125, vec![]));
    }
}
