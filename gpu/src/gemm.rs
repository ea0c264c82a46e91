//! Matrix products on a device: [`Device::gemm`] over [`Operand`]s, row-major
//! matrices inside device buffers, by cuBLAS.

use std::any::Any;

use cudarc::cublas::{Gemm, GemmConfig, sys, sys::cublasOperation_t};
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use num_complex::Complex;

use crate::buffer::DeviceBuffer;
use crate::cuda::CudaState;
use crate::device::Device;
use crate::element::{ComplexBits, DeviceElement};
use crate::{Error, Result, cuda_error};

impl Device {
    /// `c = alpha * op(a) @ op(b) + beta * c` on row-major matrices by cuBLAS:
    /// `c` is `m x n` (the whole buffer), the inner dimension is `k`, and each
    /// operand is a matrix inside its buffer ([`Operand`]): `a` is `m x k`
    /// (`k x m` stored when transposed), `b` `k x n` (`n x k` when transposed).
    ///
    /// ```
    /// use chunked_gpu::{Device, Error, Operand};
    /// # fn main() -> chunked_gpu::Result<()> {
    /// // A CUDA device where there is one; an emulated device has no cuBLAS and refuses.
    /// let dev = Device::cuda(0).unwrap_or_else(|_| Device::emulated(1 << 20));
    /// let a = dev.upload(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0])?; // 2 x 3
    /// let b = dev.upload(&[1.0f64, 0.0, 0.0, 1.0, 1.0, 1.0])?; // 3 x 2
    /// let mut c = dev.zeros::<f64>(4)?;
    /// match dev.gemm((2, 2, 3), 1.0, Operand::whole(&a, 3), Operand::whole(&b, 2), 0.0, &mut c) {
    ///     Ok(()) => assert_eq!(c.download()?, vec![4.0, 5.0, 10.0, 11.0]),
    ///     Err(e) => assert!(dev.is_emulated() && matches!(e, Error::Unsupported { .. }), "{e}"),
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] on an emulated device, for an element type cuBLAS
    /// has no gemm for, for buffers of another device or operands that do not
    /// fit their buffers; [`Error::Cuda`].
    pub fn gemm<T: DeviceElement>(
        &self,
        (m, n, k): (usize, usize, usize),
        alpha: T,
        a: Operand<'_, T>,
        b: Operand<'_, T>,
        beta: T,
        c: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        let extent = |o: &Operand<'_, T>, rows: usize, cols: usize| {
            let (r, c) = if o.transpose { (cols, rows) } else { (rows, cols) };
            if r == 0 || c == 0 { 0 } else { o.offset + (r - 1) * o.ld + c }
        };
        for (name, o, rows, cols) in [("a", &a, m, k), ("b", &b, k, n)] {
            let stored_cols = if o.transpose { rows } else { cols };
            if !o.buffer.device.same(self) || extent(o, rows, cols) > o.buffer.len || o.ld < stored_cols {
                return Err(self.unsupported(format!(
                    "gemm ({m}x{k} @ {k}x{n}): operand {name} (offset {}, leading dimension {}, transposed {}) does not fit its {} elements on {}",
                    o.offset,
                    o.ld,
                    o.transpose,
                    o.buffer.len,
                    o.buffer.device.describe()
                )));
            }
        }
        if !c.device.same(self) || c.len != m * n {
            return Err(self.unsupported(format!(
                "gemm ({m}x{k} @ {k}x{n}): the output has {} elements on {}, expected {}",
                c.len,
                c.device.describe(),
                m * n
            )));
        }
        cublas_gemm(self.cuda_state("gemm")?, self, (m, n, k), alpha, a, b, beta, c)
    }
}

/// A row-major matrix inside a device buffer, for [`Device::gemm`]: element
/// `(i, j)` of the stored matrix is at `offset + i * ld + j`.
///
/// ```
/// use chunked_gpu::{Device, Operand};
/// let dev = Device::emulated(1 << 10);
/// let buf = dev.upload(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap(); // 2 x 3
/// let row1 = Operand::rows(&buf, 3, 1);
/// assert_eq!(buf.host().unwrap()[row1.offset + 2], 6.0); // (1, 2)
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Operand<'a, T: DeviceElement> {
    /// The buffer holding it.
    pub buffer: &'a DeviceBuffer<T>,
    /// Where its first element is.
    pub offset: usize,
    /// Elements from one stored row to the next.
    pub ld: usize,
    /// Whether the product reads it transposed.
    pub transpose: bool,
}

impl<'a, T: DeviceElement> Operand<'a, T> {
    /// The whole buffer as a matrix of `cols` columns.
    ///
    /// ```
    /// use chunked_gpu::{Device, Operand};
    /// let buf = Device::emulated(1 << 10).zeros::<f64>(6).unwrap();
    /// let op = Operand::whole(&buf, 3);
    /// assert_eq!((op.offset, op.ld, op.transpose), (0, 3, false));
    /// ```
    pub fn whole(buffer: &'a DeviceBuffer<T>, cols: usize) -> Self {
        Operand { buffer, offset: 0, ld: cols, transpose: false }
    }

    /// The columns `first..` of a matrix of `cols` columns stored in `buffer`.
    ///
    /// ```
    /// use chunked_gpu::{Device, Operand};
    /// let buf = Device::emulated(1 << 10).zeros::<f64>(8).unwrap(); // 2 x 4
    /// let op = Operand::columns(&buf, 4, 1); // columns 1..
    /// assert_eq!((op.offset, op.ld), (1, 4));
    /// ```
    pub fn columns(buffer: &'a DeviceBuffer<T>, cols: usize, first: usize) -> Self {
        Operand { buffer, offset: first, ld: cols, transpose: false }
    }

    /// The rows `first..` of a matrix of `cols` columns stored in `buffer`.
    ///
    /// ```
    /// use chunked_gpu::{Device, Operand};
    /// let buf = Device::emulated(1 << 10).zeros::<f64>(12).unwrap(); // 4 x 3
    /// let op = Operand::rows(&buf, 3, 2); // rows 2..
    /// assert_eq!((op.offset, op.ld), (6, 3));
    /// ```
    pub fn rows(buffer: &'a DeviceBuffer<T>, cols: usize, first: usize) -> Self {
        Operand { buffer, offset: first * cols, ld: cols, transpose: false }
    }

    /// The same matrix, read transposed.
    ///
    /// ```
    /// use chunked_gpu::{Device, Operand};
    /// let buf = Device::emulated(1 << 10).zeros::<f64>(6).unwrap();
    /// let t = Operand::whole(&buf, 3).transposed();
    /// assert!(t.transpose && !t.transposed().transpose);
    /// ```
    pub fn transposed(self) -> Self {
        Operand { transpose: !self.transpose, ..self }
    }
}

/// Row-major `c = alpha op(a) op(b) + beta c` as cuBLAS's column-major
/// `c^T = op(b)^T op(a)^T`: a row-major matrix is its transpose in column
/// major, so the operands swap and keep their own transpose flags.
#[allow(clippy::too_many_arguments)]
fn cublas_gemm<T: DeviceElement>(
    state: &CudaState,
    device: &Device,
    (m, n, k): (usize, usize, usize),
    alpha: T,
    a: Operand<'_, T>,
    b: Operand<'_, T>,
    beta: T,
    c: &mut DeviceBuffer<T>,
) -> Result<()> {
    let int = |x: usize| {
        i32::try_from(x).map_err(|_| device.unsupported(format!("gemm size {x} exceeds cuBLAS's 32-bit sizes")))
    };
    let op = |t: bool| {
        if t { cublasOperation_t::CUBLAS_OP_T } else { cublasOperation_t::CUBLAS_OP_N }
    };
    let (mi, ni, ki, lda, ldb) = (int(m)?, int(n)?, int(k)?, int(b.ld)?, int(a.ld)?);
    if m == 0 || n == 0 {
        return Ok(());
    }
    if k == 0 {
        // An empty sum: c = beta c, for the betas used (0 and 1).
        if beta == T::default() {
            let c = c.cuda_mut().expect("CUDA buffer on a CUDA device");
            state.stream.memset_zeros(c).map_err(cuda_error("cuMemsetD8"))?;
        } else if beta != T::MUL_IDENTITY {
            return Err(device
                .unsupported(format!("gemm with an empty inner dimension and beta {beta:?} (only 0 and 1 scale c)")));
        }
        return Ok(());
    }
    let blas = state.blas()?;
    let a_slice = a.buffer.cuda().expect("CUDA buffer on a CUDA device");
    let b_slice = b.buffer.cuda().expect("CUDA buffer on a CUDA device");
    let c = c.cuda_mut().expect("CUDA buffer on a CUDA device");
    let failed =
        |e: cudarc::cublas::result::CublasError| Error::Cuda { call: "cublas gemm".into(), message: format!("{e:?}") };
    macro_rules! call {
        ($t:ty) => {
            if let (Some(a_all), Some(b_all), Some(c), Some(&alpha), Some(&beta)) = (
                (a_slice as &dyn Any).downcast_ref::<CudaSlice<$t>>(),
                (b_slice as &dyn Any).downcast_ref::<CudaSlice<$t>>(),
                (c as &mut dyn Any).downcast_mut::<CudaSlice<$t>>(),
                (&alpha as &dyn Any).downcast_ref::<$t>(),
                (&beta as &dyn Any).downcast_ref::<$t>(),
            ) {
                let cfg = GemmConfig {
                    transa: op(b.transpose),
                    transb: op(a.transpose),
                    m: ni,
                    n: mi,
                    k: ki,
                    alpha,
                    lda,
                    ldb,
                    beta,
                    ldc: ni,
                };
                // SAFETY: Device::gemm checked that each operand's extent
                // fits its buffer and that c holds m x n elements.
                let (av, bv) = (a_all.slice(a.offset..), b_all.slice(b.offset..));
                return unsafe { blas.gemm(cfg, &bv, &av, c) }.map_err(failed);
            }
        };
    }
    call!(f64);
    call!(f32);
    // cudarc's `Gemm` has the real types only: complex products call cuBLAS's
    // zgemm and cgemm themselves, on the same column-major view.
    macro_rules! call_complex {
        ($f:ty, $routine:ident, $c:ident) => {
            if let (Some(a_all), Some(b_all), Some(c), Some(&alpha), Some(&beta)) = (
                (a_slice as &dyn Any).downcast_ref::<CudaSlice<ComplexBits<$f>>>(),
                (b_slice as &dyn Any).downcast_ref::<CudaSlice<ComplexBits<$f>>>(),
                (c as &mut dyn Any).downcast_mut::<CudaSlice<ComplexBits<$f>>>(),
                (&alpha as &dyn Any).downcast_ref::<Complex<$f>>(),
                (&beta as &dyn Any).downcast_ref::<Complex<$f>>(),
            ) {
                let stream = &state.stream;
                let (av, bv) = (a_all.slice(a.offset..), b_all.slice(b.offset..));
                let (a_ptr, _a_read) = av.device_ptr(stream);
                let (b_ptr, _b_read) = bv.device_ptr(stream);
                let (c_ptr, _c_write) = c.device_ptr_mut(stream);
                let scalar = |z: Complex<$f>| sys::$c { x: z.re, y: z.im };
                let (alpha, beta) = (scalar(alpha), scalar(beta));
                // SAFETY: Device::gemm checked that each operand's extent fits
                // its buffer and that c holds m x n elements; ComplexBits has
                // the layout of cuBLAS's complex type; the handle runs on the
                // stream the pointers were taken on.
                let status = unsafe {
                    sys::$routine(
                        *blas.handle(),
                        op(b.transpose),
                        op(a.transpose),
                        ni,
                        mi,
                        ki,
                        &alpha,
                        b_ptr as *const sys::$c,
                        lda,
                        a_ptr as *const sys::$c,
                        ldb,
                        &beta,
                        c_ptr as *mut sys::$c,
                        ni,
                    )
                };
                return status.result().map_err(failed);
            }
        };
    }
    call_complex!(f64, cublasZgemm_v2, cuDoubleComplex);
    call_complex!(f32, cublasCgemm_v2, cuComplex);
    Err(device.unsupported(format!("gemm of {} (cuBLAS has f32, f64, c64 and c128)", T::C_NAME)))
}
