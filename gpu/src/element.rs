//! The element types device buffers hold.

use std::fmt;

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
use num_complex::Complex;

mod sealed {
    pub trait Sealed {}
}

/// Element types a device buffer holds: `f64`, `f32`, the integers of every
/// width, and `Complex<f32>` and `Complex<f64>` (sealed).
///
/// ```
/// use chunked_gpu::{Device, DeviceElement};
/// use num_complex::Complex;
/// fn ones<T: DeviceElement>(dev: &Device, n: usize) -> chunked_gpu::Result<Vec<T>> {
///     dev.upload(&vec![T::MUL_IDENTITY; n])?.download()
/// }
/// let dev = Device::emulated(1 << 10);
/// assert_eq!(ones::<i32>(&dev, 3).unwrap(), vec![1, 1, 1]);
/// assert_eq!(ones::<Complex<f64>>(&dev, 1).unwrap(), vec![Complex::new(1.0, 0.0)]);
/// assert_eq!(<f32 as DeviceElement>::C_NAME, "f32");
/// assert_eq!(<i16 as DeviceElement>::C_TYPE, "short");
/// assert_eq!(<Complex<f32> as DeviceElement>::C_TYPE, "c64");
/// ```
pub trait DeviceElement: Copy + Default + PartialEq + Send + Sync + fmt::Debug + 'static + sealed::Sealed {
    /// The type CUDA memory holds it as: itself, or for complex numbers a
    /// `#[repr(C)]` pair of the same layout ([`ComplexBits`]).
    type Raw: DeviceRepr + ValidAsZeroBits + Copy + Default + Send + Sync + fmt::Debug + Unpin + 'static;
    /// The short type name, as the kernels' names use it (`"f64"`, `"i16"`, `"c128"`).
    const C_NAME: &'static str;
    /// The type in CUDA C++ (`"double"`, `"short"`; complex numbers as the
    /// `c64` and `c128` structs of [`crate::kernels::ELEMENTWISE_HELPERS`]).
    const C_TYPE: &'static str;
    /// A CUDA C++ expression of its lowest value (-infinity for floats; none
    /// for complex numbers, which have no order).
    const C_LOWEST: &'static str;
    /// A CUDA C++ expression of its highest value (+infinity for floats).
    const C_HIGHEST: &'static str;
    /// Whether it is a complex number.
    const IS_COMPLEX: bool;
    /// 1 (named apart from the array element traits' `ONE`, which types
    /// implementing both also have).
    const MUL_IDENTITY: Self;

    /// The elements as CUDA memory holds them (the same bytes).
    ///
    /// ```
    /// use chunked_gpu::DeviceElement;
    /// let z = [num_complex::Complex::new(1.0f64, 2.0)];
    /// assert_eq!((DeviceElement::as_raw(&z[..])[0].re, f32::as_raw(&[0.5])[0]), (1.0, 0.5));
    /// ```
    fn as_raw(s: &[Self]) -> &[Self::Raw] {
        // SAFETY: `Raw` has `Self`'s size and alignment (checked at compile
        // time where each type is declared) and the same field layout.
        unsafe { std::slice::from_raw_parts(s.as_ptr().cast(), s.len()) }
    }

    /// The elements as CUDA memory holds them, writable.
    ///
    /// ```
    /// use chunked_gpu::DeviceElement;
    /// let mut x = [1i64, 2];
    /// DeviceElement::as_raw_mut(&mut x[..])[1] = 5;
    /// assert_eq!(x, [1, 5]);
    /// ```
    fn as_raw_mut(s: &mut [Self]) -> &mut [Self::Raw] {
        // SAFETY: as in `as_raw`; every bit pattern of `Raw` is a value of `Self`.
        unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast(), s.len()) }
    }

    /// Elements from the bytes CUDA memory held.
    ///
    /// ```
    /// use chunked_gpu::DeviceElement;
    /// let raw = [chunked_gpu::ComplexBits { re: 3.0f32, im: -1.0 }];
    /// assert_eq!(<num_complex::Complex<f32>>::from_raw(&raw)[0].im, -1.0);
    /// ```
    fn from_raw(s: &[Self::Raw]) -> &[Self] {
        // SAFETY: as in `as_raw`.
        unsafe { std::slice::from_raw_parts(s.as_ptr().cast(), s.len()) }
    }
}

/// A complex number as CUDA memory holds it: `#[repr(C)]` real and imaginary
/// parts, the layout of `num_complex::Complex`, of CUDA's `double2`/`float2`
/// (cuBLAS's `cuDoubleComplex`) and of the kernels' `c128`/`c64`.
///
/// ```
/// let z = chunked_gpu::ComplexBits { re: 1.0f64, im: 2.0 };
/// assert_eq!(std::mem::size_of_val(&z), 16);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub struct ComplexBits<F> {
    /// The real part.
    pub re: F,
    /// The imaginary part.
    pub im: F,
}

// SAFETY: two floats side by side with no padding, as CUDA's float2/double2
// (whose alignment the kernels do not require beyond the float's own).
unsafe impl DeviceRepr for ComplexBits<f32> {}
unsafe impl DeviceRepr for ComplexBits<f64> {}
// SAFETY: all-zero bits are 0 + 0i.
unsafe impl ValidAsZeroBits for ComplexBits<f32> {}
unsafe impl ValidAsZeroBits for ComplexBits<f64> {}

macro_rules! same_layout {
    ($t:ty, $raw:ty) => {
        const _: () = assert!(
            size_of::<$t>() == size_of::<$raw>() && align_of::<$t>() == align_of::<$raw>(),
            "a device element and its raw form differ in layout"
        );
    };
}

macro_rules! device_element {
    ($($t:ty => $name:literal, $c:literal, $lowest:literal, $highest:literal, $one:literal);* $(;)?) => {$(
        impl sealed::Sealed for $t {}
        impl DeviceElement for $t {
            type Raw = $t;
            const C_NAME: &'static str = $name;
            const C_TYPE: &'static str = $c;
            const C_LOWEST: &'static str = $lowest;
            const C_HIGHEST: &'static str = $highest;
            const IS_COMPLEX: bool = false;
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

macro_rules! complex_element {
    ($($f:ty => $name:literal);* $(;)?) => {$(
        same_layout!(Complex<$f>, ComplexBits<$f>);
        impl sealed::Sealed for Complex<$f> {}
        impl DeviceElement for Complex<$f> {
            type Raw = ComplexBits<$f>;
            const C_NAME: &'static str = $name;
            const C_TYPE: &'static str = $name;
            // Complex numbers have no order: no kernel asks for these.
            const C_LOWEST: &'static str = "no_lowest_of_a_complex_type";
            const C_HIGHEST: &'static str = "no_highest_of_a_complex_type";
            const IS_COMPLEX: bool = true;
            const MUL_IDENTITY: Self = Complex::new(1.0, 0.0);
        }
    )*};
}
complex_element!(f32 => "c64"; f64 => "c128");
