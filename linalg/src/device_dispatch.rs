//! Which element types have a device path: the sealed supertrait of
//! [`crate::Scalar`] that sends a device array to the device TSQR for the
//! reals. The device TSQR's solver kernels (layouts, signs, cuSOLVER's
//! geqrf/orgqr/gesvd bindings) are real-only, so a complex array on a device
//! is factored by the host TSQR, its blocks copied to host memory.

use chunked_array::{Array, Result};

use crate::tsqr::{Tsqr, TsqrOptions};
use crate::{RealScalar, Scalar};

/// The device TSQR of an element type, or its error.
pub trait DeviceDispatch: Sized {
    /// [`crate::tsqr`] of `a`, which is on a device.
    fn device_tsqr(a: &Array<Self>, options: &TsqrOptions) -> Result<Tsqr<Self>>
    where
        Self: Scalar;
}

fn real<T: RealScalar>(a: &Array<T>, options: &TsqrOptions) -> Result<Tsqr<T>> {
    crate::tsqr::device_tsqr(a, options.arity, options.compute_svd)
}

fn complex<T: Scalar>(a: &Array<T>, options: &TsqrOptions) -> Result<Tsqr<T>> {
    crate::tsqr::tsqr(&a.to_host(), options)
}

impl DeviceDispatch for f32 {
    fn device_tsqr(a: &Array<Self>, options: &TsqrOptions) -> Result<Tsqr<Self>> {
        real(a, options)
    }
}

impl DeviceDispatch for f64 {
    fn device_tsqr(a: &Array<Self>, options: &TsqrOptions) -> Result<Tsqr<Self>> {
        real(a, options)
    }
}

impl DeviceDispatch for chunked_array::Complex32 {
    fn device_tsqr(a: &Array<Self>, options: &TsqrOptions) -> Result<Tsqr<Self>> {
        complex(a, options)
    }
}

impl DeviceDispatch for chunked_array::Complex64 {
    fn device_tsqr(a: &Array<Self>, options: &TsqrOptions) -> Result<Tsqr<Self>> {
        complex(a, options)
    }
}
