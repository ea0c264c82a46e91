//! Dense kernels on row-major device blocks: cuSOLVER and cuBLAS on a CUDA
//! device; on an emulated device the same CPU kernels as the host path (faer),
//! run on the device buffers' host slices.

use chunked_array::device::{Device, DeviceBuffer};
use chunked_gpu::{Operand, SvdFactors};
use faer::{Mat, MatMut, MatRef, Par};

use crate::kernels::{HouseholderQr, ThinSvd};
use crate::{Error, RealScalar};

type Result<T> = chunked_array::Result<T>;

fn host<T: RealScalar>(b: &DeviceBuffer<T>) -> &[T] {
    b.host().expect("host memory of an emulated device")
}

/// The thin QR of the row-major `m x n` matrix `a`, packed as
/// [`Device::qr_packed`] packs it: Q (`m x k`) then R (`k x n`), k = min(m, n),
/// both row-major, on `a`'s device.
pub(crate) fn qr_packed<T: RealScalar>(
    device: &Device,
    a: &DeviceBuffer<T>,
    (m, n): (usize, usize),
) -> Result<DeviceBuffer<T>> {
    if !device.is_emulated() {
        return Ok(device.qr_packed(a, (m, n))?);
    }
    let k = m.min(n);
    // Leaves run side by side, one core each, as on the host.
    let f = HouseholderQr::factor(MatRef::from_row_major_slice(host(a), m, n).to_owned(), Par::Seq);
    let mut packed = vec![T::ZERO; m * k + k * n];
    let (q, r) = packed.split_at_mut(m * k);
    f.write_r(MatMut::from_row_major_slice_mut(r, k, n));
    let identity = Mat::<T>::from_fn(k, k, |i, j| if i == j { T::ONE } else { T::ZERO });
    f.q_times(identity.as_ref(), MatMut::from_row_major_slice_mut(q, m, k), Par::Seq);
    Ok(device.upload_vec(packed)?)
}

/// The thin SVD of the row-major wide or square `m x n` matrix `a` (m <= n),
/// signs fixed as the host SVD fixes them (dask's `svd_flip`).
pub(crate) fn svd<T: RealScalar>(
    device: &Device,
    a: &DeviceBuffer<T>,
    (m, n): (usize, usize),
) -> Result<SvdFactors<T>> {
    if !device.is_emulated() {
        return Ok(device.svd(a, (m, n))?);
    }
    let f = ThinSvd::new(MatRef::from_row_major_slice(host(a), m, n), Par::rayon(0)).map_err(|e| {
        Error::NoConvergence { routine: "svd".into(), what: "R of the TSQR".into(), reason: e.to_string() }
    })?;
    let k = f.s.len();
    let mut u = vec![T::ZERO; m * k];
    MatMut::from_row_major_slice_mut(&mut u, m, k).copy_from(f.u.as_ref());
    let mut vt = vec![T::ZERO; k * n];
    MatMut::from_row_major_slice_mut(&mut vt, k, n).copy_from(f.v.transpose());
    Ok(SvdFactors { u: device.upload_vec(u)?, s: device.upload_vec(f.s.clone())?, vt: device.upload_vec(vt)? })
}

/// `a · b` (`m x k` times `k x n`) as a new row-major buffer on `device`.
pub(crate) fn product<T: RealScalar>(
    device: &Device,
    (m, n, k): (usize, usize, usize),
    a: Operand<'_, T>,
    b: Operand<'_, T>,
) -> Result<DeviceBuffer<T>> {
    let mut c = device.zeros::<T>(m * n)?;
    if !device.is_emulated() {
        device.gemm((m, n, k), T::ONE, a, b, T::ZERO, &mut c)?;
        return Ok(c);
    }
    fn view<'a, T: RealScalar>(o: &Operand<'a, T>, rows: usize, cols: usize) -> MatRef<'a, T> {
        let stored = if o.transpose { (cols, rows) } else { (rows, cols) };
        let data = &host(o.buffer)[o.offset..];
        let len = if stored.0 == 0 { 0 } else { (stored.0 - 1) * o.ld + stored.1 };
        let m = MatRef::from_row_major_slice_with_stride(&data[..len], stored.0, stored.1, o.ld);
        if o.transpose { m.transpose() } else { m }
    }
    let (a, b) = (view(&a, m, k), view(&b, k, n));
    let out = c.host_mut().expect("host memory of an emulated device");
    crate::kernels::gemm(MatMut::from_row_major_slice_mut(out, m, n), false, a, b, T::ONE, Par::Seq);
    Ok(c)
}
