//! The ufuncs of integers: bitwise logic, shifts, `gcd` and `lcm`.

use crate::array::Array;
use crate::element::Integer;
use crate::element::math::IntegerMath;
use crate::ops::elementwise::ufunc::{binary_ufuncs, unary_ufuncs};

binary_ufuncs! { impl<T: Integer> {
    /// Bitwise AND.
    fn bitwise_and -> T = IntegerMath::bit_and;
    example u8 [0b1100, 0xFF], [0b1010, 0x0F] => [0b1000, 0x0F];
    /// Bitwise OR.
    fn bitwise_or -> T = IntegerMath::bit_or;
    example u8 [0b1100, 0xF0], [0b1010, 0x0F] => [0b1110, 0xFF];
    /// Bitwise XOR.
    fn bitwise_xor -> T = IntegerMath::bit_xor;
    example i32 [0b1100, -1], [0b1010, 0] => [0b0110, -1];
    /// `x << z`; a shift by the type's width or more, or a negative one, gives 0.
    fn left_shift -> T = IntegerMath::shl;
    example i8 [1, 3, 1, 1], [3, 6, 8, -1] => [8, -64, 0, 0];
    /// `x >> z`, arithmetic for signed types; a shift by the width or more, or
    /// a negative one, fills with the sign.
    fn right_shift -> T = IntegerMath::shr;
    example i16 [64, -64, -5, 7], [3, 3, 16, 20] => [8, -8, -1, 0];
    /// The greatest common divisor, non-negative.
    fn gcd -> T = IntegerMath::gcd;
    example i64 [12, -18, 0, 7], [18, 12, 0, 0] => [6, 6, 0, 7];
    /// The least common multiple, non-negative (0 when either is 0).
    fn lcm -> T = IntegerMath::lcm;
    example i64 [4, -6, 0], [6, 4, 5] => [12, 12, 0];
}}

unary_ufuncs! { impl<T: Integer> {
    /// Bitwise NOT (NumPy's `invert`, also `bitwise_not`).
    fn invert -> T = IntegerMath::bit_not;
    example u16 [0, 0xFFFF, 1] => [0xFFFF, 0, 0xFFFE];
}}

impl<T: Integer> Array<T> {
    /// NumPy's `bitwise_not`: [`Array::invert`].
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[2], vec![0i8, -1], 1).unwrap();
    /// assert_eq!(x.bitwise_not().compute().unwrap().as_slice().unwrap(), &[-1, 0]);
    /// ```
    pub fn bitwise_not(&self) -> Array<T> {
        self.invert()
    }
}
