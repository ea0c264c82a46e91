//! The element types device buffers hold.

use std::fmt;

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};

mod sealed {
    pub trait Sealed {}
}

/// Element types a device buffer holds: `f64`, `f32` and the integers of
/// every width (sealed).
///
/// ```
/// use chunked_gpu::{Device, DeviceElement};
/// fn ones<T: DeviceElement>(dev: &Device, n: usize) -> chunked_gpu::Result<Vec<T>> {
///     dev.upload(&vec![T::MUL_IDENTITY; n])?.download()
/// }
/// let dev = Device::emulated(1 << 10);
/// assert_eq!(ones::<i32>(&dev, 3).unwrap(), vec![1, 1, 1]);
/// assert_eq!(<f32 as DeviceElement>::C_NAME, "f32");
/// ```
pub trait DeviceElement:
    DeviceRepr + ValidAsZeroBits + Copy + Default + PartialEq + Send + Sync + fmt::Debug + 'static + sealed::Sealed
{
    /// The C type name, as the kernels' names use it.
    const C_NAME: &'static str;
    /// 1 (named apart from the array element traits' `ONE`, which types
    /// implementing both also have).
    const MUL_IDENTITY: Self;
}

macro_rules! device_element {
    ($($t:ty => $name:literal, $one:literal);*) => {$(
        impl sealed::Sealed for $t {}
        impl DeviceElement for $t {
            const C_NAME: &'static str = $name;
            const MUL_IDENTITY: Self = $one;
        }
    )*};
}
device_element!(f64 => "f64", 1.0; f32 => "f32", 1.0; i64 => "i64", 1; i32 => "i32", 1; i16 => "i16", 1; i8 => "i8", 1; u8 => "u8", 1; u16 => "u16", 1; u32 => "u32", 1; u64 => "u64", 1);
