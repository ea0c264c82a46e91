//! Which element types have a device path: the sealed supertrait of
//! [`crate::Scalar`] that sends a device array to the device TSQR for the
//! reals. Complex arrays never live on a device (the device blocks hold real
//! numbers only), so theirs is an error that cannot be reached through the
//! public API.

use chunked_array::{Array, Error, Result};

use crate::tsqr::Tsqr;
use crate::{RealScalar, Scalar};

/// The device TSQR of an element type, or its error.
pub trait DeviceDispatch: Sized {
    /// [`crate::tsqr`] of `a`, which is on a device.
    fn device_tsqr(a: &Array<Self>, arity: usize, compute_svd: bool) -> Result<Tsqr<Self>>
    where
        Self: Scalar;
}

fn real<T: RealScalar>(a: &Array<T>, arity: usize, compute_svd: bool) -> Result<Tsqr<T>> {
    crate::tsqr::device_tsqr(a, arity, compute_svd)
}

fn complex<T: Scalar>() -> Result<Tsqr<T>> {
    Err(Error::UnsupportedDtype { op: "tsqr on a device".into(), dtype: T::DTYPE.name().into() })
}

impl DeviceDispatch for f32 {
    fn device_tsqr(a: &Array<Self>, arity: usize, compute_svd: bool) -> Result<Tsqr<Self>> {
        real(a, arity, compute_svd)
    }
}

impl DeviceDispatch for f64 {
    fn device_tsqr(a: &Array<Self>, arity: usize, compute_svd: bool) -> Result<Tsqr<Self>> {
        real(a, arity, compute_svd)
    }
}

impl DeviceDispatch for chunked_array::Complex32 {
    fn device_tsqr(_: &Array<Self>, _: usize, _: bool) -> Result<Tsqr<Self>> {
        complex()
    }
}

impl DeviceDispatch for chunked_array::Complex64 {
    fn device_tsqr(_: &Array<Self>, _: usize, _: bool) -> Result<Tsqr<Self>> {
        complex()
    }
}
