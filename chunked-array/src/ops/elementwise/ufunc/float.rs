//! The ufuncs of real floats: rounding, angles, classification, and the
//! binary functions with IEEE semantics.

use crate::array::Array;
use crate::element::Float;
use crate::element::math::{FloatMath, RealMath};
use crate::ops::elementwise::ops::{unary, unary_with};
use crate::ops::elementwise::ufunc::{binary_ufuncs, unary_ufuncs};

unary_ufuncs! { impl<T: Float> {
    /// Rounds down.
    fn floor -> T = FloatMath::floor;
    example f64 [-1.5, 0.5, 2.0] => [-2.0, 0.0, 2.0];
    /// Rounds up.
    fn ceil -> T = FloatMath::ceil;
    example f64 [-1.5, 0.5, 2.0] => [-1.0, 1.0, 2.0];
    /// Rounds toward zero.
    fn trunc -> T = FloatMath::trunc;
    example f64 [-1.5, 0.5, 2.7] => [-1.0, 0.0, 2.0];
    /// Rounds to the nearest integer, ties to even.
    fn rint -> T = FloatMath::rint;
    example f64 [-1.5, 0.5, 2.5, 2.6] => [-2.0, 0.0, 2.0, 3.0];
    /// Cube root.
    fn cbrt -> T = FloatMath::cbrt;
    example f64 [-8.0, 27.0, 0.0] => [-2.0, 3.0, 0.0];
    /// Radians to degrees (NumPy's `degrees`, also `rad2deg`).
    fn degrees -> T = FloatMath::to_degrees;
    example f64 [0.0, std::f64::consts::PI] => [0.0, 180.0];
    /// Degrees to radians (NumPy's `radians`, also `deg2rad`).
    fn radians -> T = FloatMath::to_radians;
    example f64 [0.0, 180.0] => [0.0, std::f64::consts::PI];
    /// Whether each element is +∞.
    fn isposinf -> bool = |x: T| x == T::INFINITY;
    example f64 [f64::INFINITY, f64::NEG_INFINITY, 1.0] => [true, false, false];
    /// Whether each element is −∞.
    fn isneginf -> bool = |x: T| x.neg() == T::INFINITY;
    example f64 [f64::INFINITY, f64::NEG_INFINITY, 1.0] => [false, true, false];
}}

binary_ufuncs! { impl<T: Float> {
    /// `sqrt(x² + z²)` without undue overflow.
    fn hypot -> T = FloatMath::hypot;
    example f64 [3.0, 5.0, 0.0], [4.0, 12.0, -0.0] => [5.0, 13.0, 0.0];
    /// The angle of the point `(z, x)`: `x` is the y-coordinate (NumPy's `arctan2(y, x)`).
    fn arctan2 -> T = FloatMath::atan2;
    example f64 [0.0, 1.0, -0.0], [1.0, 0.0, -1.0] => [0.0, std::f64::consts::FRAC_PI_2, -std::f64::consts::PI];
    /// `|x|` with the sign of `z`.
    fn copysign -> T = FloatMath::copysign;
    example f64 [1.5, -2.0, 3.0], [-0.0, 1.0, -1.0] => [-1.5, 2.0, -3.0];
    /// The next representable value after `x` toward `z`.
    fn nextafter -> T = FloatMath::nextafter;
    example f64 [1.0, 1.0, 0.0], [2.0, 1.0, -1.0] => [1.0000000000000002, 1.0, -5e-324];
    /// `ln(e^x + e^z)` without overflow.
    fn logaddexp -> T = FloatMath::logaddexp;
    example f64 [0.0, 1000.0, f64::NEG_INFINITY], [0.0, 1000.0, 2.0] => [std::f64::consts::LN_2, 1000.0 + std::f64::consts::LN_2, 2.0];
    /// `log2(2^x + 2^z)` without overflow.
    fn logaddexp2 -> T = FloatMath::logaddexp2;
    example f64 [0.0, 3.0, f64::NEG_INFINITY], [0.0, 3.0, 2.0] => [1.0, 4.0, 2.0];
    /// The Heaviside step: 0 below 0, `z` at 0, 1 above.
    fn heaviside -> T = FloatMath::heaviside;
    example f64 [-2.0, 0.0, 3.0], [0.5, 0.5, 0.5] => [0.0, 0.5, 1.0];
    /// The larger of two values, ignoring a NaN (NumPy's `fmax`).
    fn fmax -> T = RealMath::fmax;
    example f64 [1.0, f64::NAN, 3.0], [2.0, 2.0, f64::NAN] => [2.0, 2.0, 3.0];
    /// The smaller of two values, ignoring a NaN (NumPy's `fmin`).
    fn fmin -> T = RealMath::fmin;
    example f64 [1.0, f64::NAN, 3.0], [2.0, 2.0, f64::NAN] => [1.0, 2.0, 3.0];
}}

impl<T: Float> Array<T> {
    /// NumPy's `rad2deg`: [`Array::degrees`].
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[1], vec![std::f64::consts::PI], 1).unwrap();
    /// assert_eq!(x.rad2deg().compute().unwrap()[0], 180.0);
    /// ```
    pub fn rad2deg(&self) -> Array<T> {
        self.degrees()
    }

    /// NumPy's `deg2rad`: [`Array::radians`].
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[1], vec![90.0f32], 1).unwrap();
    /// assert_eq!(x.deg2rad().compute().unwrap()[0], std::f32::consts::FRAC_PI_2);
    /// ```
    pub fn deg2rad(&self) -> Array<T> {
        self.radians()
    }

    /// Rounds to `decimals` decimal places, ties to even (NumPy's `round`;
    /// negative `decimals` round to tens, hundreds, ...).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[4], vec![1.25, 2.5, 1234.0, -0.125], 2).unwrap();
    /// // NumPy: np.round(x, 1) and np.round(x, -2)
    /// assert_eq!(x.round(1).compute().unwrap().as_slice().unwrap(), &[1.2, 2.5, 1234.0, -0.1]);
    /// assert_eq!(x.round(-2).compute().unwrap().as_slice().unwrap(), &[0.0, 0.0, 1200.0, -0.0]);
    /// ```
    pub fn round(&self, decimals: i32) -> Array<T> {
        if decimals == 0 {
            return self.rint();
        }
        unary(self, "round", move |x: T| x.round_to(decimals))
    }

    /// Replaces NaN with `nan`, +∞ with `posinf` and −∞ with `neginf`
    /// (NumPy's `nan_to_num`; `None` keeps its default: 0, the largest finite
    /// value, the lowest).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[4], vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.5], 2).unwrap();
    /// // NumPy: np.nan_to_num(x) and np.nan_to_num(x, nan=-1.0, posinf=9.0)
    /// let y = x.nan_to_num(None, None, None).compute().unwrap();
    /// assert_eq!(y.as_slice().unwrap(), &[0.0, f64::MAX, f64::MIN, 1.5]);
    /// let z = x.nan_to_num(Some(-1.0), Some(9.0), None).compute().unwrap();
    /// assert_eq!(z.as_slice().unwrap(), &[-1.0, 9.0, f64::MIN, 1.5]);
    /// ```
    pub fn nan_to_num(&self, nan: Option<T>, posinf: Option<T>, neginf: Option<T>) -> Array<T> {
        let nan = nan.unwrap_or(T::ZERO);
        let posinf = posinf.unwrap_or(T::MAX_FINITE);
        let neginf = neginf.unwrap_or(T::MAX_FINITE.neg());
        unary_with(
            self,
            "nan_to_num",
            move |x: T| {
                if x.is_nan() {
                    nan
                } else if x == T::INFINITY {
                    posinf
                } else if x.neg() == T::INFINITY {
                    neginf
                } else {
                    x
                }
            },
            None,
        )
    }
}
