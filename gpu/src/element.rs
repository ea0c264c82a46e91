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
/// assert_eq!(<i16 as DeviceElement>::C_TYPE, "short");
/// ```
pub trait DeviceElement:
    DeviceRepr + ValidAsZeroBits + Copy + Default + PartialEq + Send + Sync + fmt::Debug + 'static + sealed::Sealed
{
    /// The short type name, as the kernels' names use it (`"f64"`, `"i16"`).
    const C_NAME: &'static str;
    /// The type in CUDA C++ (`"double"`, `"short"`).
    const C_TYPE: &'static str;
    /// A CUDA C++ expression of its lowest value (-infinity for floats).
    const C_LOWEST: &'static str;
    /// A CUDA C++ expression of its highest value (+infinity for floats).
    const C_HIGHEST: &'static str;
    /// 1 (named apart from the array element traits' `ONE`, which types
    /// implementing both also have).
    const MUL_IDENTITY: Self;
}

macro_rules! device_element {
    ($($t:ty => $name:literal, $c:literal, $lowest:literal, $highest:literal, $one:literal);* $(;)?) => {$(
        impl sealed::Sealed for $t {}
        impl DeviceElement for $t {
            const C_NAME: &'static str = $name;
            const C_TYPE: &'static str = $c;
            const C_LOWEST: &'static str = $lowest;
            const C_HIGHEST: &'static str = $highest;
            const MUL_IDENTITY: Self = $one;
        }
    )*};
}
// Integer extremes are written as C writes INT_MIN (a literal of the most
// negative value would not fit its own type); infinities by their bits, with
// the helpers every kernel source starts with.
device_element!(
    f64 => "f64", "double", "bits_f64(0xFFF0000000000000ull)", "bits_f64(0x7FF0000000000000ull)", 1.0;
    f32 => "f32", "float", "bits_f32(0xFF800000u)", "bits_f32(0x7F800000u)", 1.0;
    i64 => "i64", "long long", "(-9223372036854775807LL - 1)", "9223372036854775807LL", 1;
    i32 => "i32", "int", "(-2147483647 - 1)", "2147483647", 1;
    i16 => "i16", "short", "(short)(-32768)", "(short)32767", 1;
    i8 => "i8", "signed char", "(signed char)(-128)", "(signed char)127", 1;
    u8 => "u8", "unsigned char", "(unsigned char)0", "(unsigned char)255", 1;
    u16 => "u16", "unsigned short", "(unsigned short)0", "(unsigned short)65535", 1;
    u32 => "u32", "unsigned int", "0u", "4294967295u", 1;
    u64 => "u64", "unsigned long long", "0ull", "0xFFFFFFFFFFFFFFFFull", 1;
);
