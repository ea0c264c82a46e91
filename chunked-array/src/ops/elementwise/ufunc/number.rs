//! The ufuncs of every number: magnitude and sign, powers, complex parts,
//! classification, closeness, and logic on truth values.

use crate::array::Array;
use crate::element::math::NumberMath;
use crate::element::{Element, Float, Inexact, Number};
use crate::error::Result;
use crate::ops::elementwise::Operand;
use crate::ops::elementwise::ops::{binary, unary};
use crate::ops::elementwise::ufunc::unary_ufuncs;
use crate::ops::reduce::ReduceOptions;

unary_ufuncs! { impl<T: Number> {
    /// Absolute value (complex: the modulus, a real; integers wrap at `MIN`).
    fn abs -> T::RealPart = Number::abs;
    example i32 [-2, 0, 3] => [2, 0, 3];
    /// `x * x`.
    fn square -> T = NumberMath::square;
    example i64 [-3, 0, 4] => [9, 0, 16];
    /// `1 / x` (integers: truncated, so 0 unless `|x| == 1`; `1 / 0` is 0).
    fn reciprocal -> T = NumberMath::reciprocal;
    example f64 [2.0, -0.5, 4.0] => [0.5, -2.0, 0.25];
    /// -1, 0 or 1 by sign (NaN stays NaN; complex: `z / |z|`).
    fn sign -> T = NumberMath::sign;
    example f64 [-2.5, 0.0, 7.0] => [-1.0, 0.0, 1.0];
    /// The real part (the value for reals).
    fn real -> T::RealPart = Number::re;
    example f32 [1.5, -2.0] => [1.5, -2.0];
    /// The imaginary part (0 for reals).
    fn imag -> T::RealPart = Number::im;
    example i16 [4, -9] => [0, 0];
    /// The complex conjugate (the value for reals).
    fn conj -> T = Number::conj;
    example f64 [1.0, -2.0] => [1.0, -2.0];
    /// Whether each element is finite (complex: both parts; integers: always).
    fn isfinite -> bool = NumberMath::is_finite;
    example f64 [1.0, f64::INFINITY, f64::NAN] => [true, false, false];
    /// Whether each element is infinite (complex: either part).
    fn isinf -> bool = NumberMath::is_inf;
    example f64 [1.0, f64::NEG_INFINITY, f64::NAN] => [false, true, false];
    /// Whether each element is NaN (complex: either part).
    fn isnan -> bool = Element::is_nan;
    example f64 [1.0, f64::NAN, 0.0] => [false, true, false];
}}

impl<T: Number> Array<T> {
    /// `self ** exponent`, elementwise (see [`Number::pow`] for integers).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_slice(&[3], &[1.0, 2.0, 3.0], 2).unwrap();
    /// // NumPy: x ** 2 and x ** x
    /// assert_eq!(x.pow(2.0).unwrap().compute().unwrap().as_slice().unwrap(), &[1.0, 4.0, 9.0]);
    /// assert_eq!(x.pow(&x).unwrap().compute().unwrap().as_slice().unwrap(), &[1.0, 4.0, 27.0]);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::ShapeMismatch`] when the shapes do not broadcast.
    pub fn pow<'a>(&self, exponent: impl Into<Operand<'a, T>>) -> Result<Array<T>> {
        match exponent.into() {
            // Small integral exponents as products (NumPy does the same for 2): far
            // faster than powf, and exact for integers.
            Operand::Scalar(e) if T::IS_FLOAT && e.to_f64() == 2.0 => Ok(self.square()),
            Operand::Scalar(e) if T::IS_FLOAT && e.to_f64() == 1.0 => Ok(unary(self, "pow", |x: T| x)),
            Operand::Scalar(e) if T::IS_FLOAT && e.to_f64() == 3.0 => Ok(unary(self, "cube", |x: T| x.mul(x).mul(x))),
            other => binary("pow", self, other, T::pow),
        }
    }

    /// The complex conjugate (NumPy's `conjugate`, also `conj`).
    ///
    /// ```
    /// use chunked_array::{Array, Complex64};
    /// let z = Array::from_vec(&[1], vec![Complex64::new(1.0, 2.0)], 1).unwrap();
    /// assert_eq!(z.conjugate().compute().unwrap()[0], Complex64::new(1.0, -2.0));
    /// ```
    pub fn conjugate(&self) -> Array<T> {
        self.conj()
    }

    /// Whether `self` and `other` are equal within `|a - b| <= atol + rtol * |b|`
    /// elementwise (NumPy's `isclose`: infinities close only to themselves,
    /// NaN to NaN only with `equal_nan`; integers compare as `f64`).
    ///
    /// ```
    /// use chunked_array::{Array, CloseOptions};
    /// let a = Array::from_vec(&[4], vec![1.0, 1e10, f64::NAN, f64::INFINITY], 2).unwrap();
    /// let b = Array::from_vec(&[4], vec![1.0 + 1e-9, 1.0001e10, f64::NAN, f64::INFINITY], 2).unwrap();
    /// // NumPy: np.isclose(a, b) and np.isclose(a, b, equal_nan=True)
    /// let c = a.isclose(&b, &CloseOptions::default()).unwrap().compute().unwrap();
    /// assert_eq!(c.as_slice().unwrap(), &[true, false, false, true]);
    /// let n = a.isclose(&b, &CloseOptions { equal_nan: true, ..Default::default() }).unwrap();
    /// assert_eq!(n.compute().unwrap().as_slice().unwrap(), &[true, false, true, true]);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::ShapeMismatch`] when the shapes do not broadcast.
    pub fn isclose<'a>(&self, other: impl Into<Operand<'a, T>>, options: &CloseOptions) -> Result<Array<bool>> {
        let CloseOptions { rtol, atol, equal_nan } = *options;
        binary("isclose", self, other, move |a: T, b: T| close(a, b, rtol, atol, equal_nan))
    }

    /// Whether every pair of elements is close (NumPy's `allclose`): a 0-d
    /// boolean array, the `all` reduction of [`Array::isclose`].
    ///
    /// ```
    /// use chunked_array::{Array, CloseOptions};
    /// let a = Array::<f64>::linspace(0.0, 1.0, 100, true, 10).unwrap();
    /// let b = &a + 1e-12;
    /// // NumPy: np.allclose(a, b)
    /// assert!(a.allclose(&b, &CloseOptions::default()).unwrap().compute_scalar().unwrap());
    /// assert!(!a.allclose(&(&a + 1e-3), &CloseOptions::default()).unwrap().compute_scalar().unwrap());
    /// ```
    ///
    /// # Errors
    /// As [`Array::isclose`].
    pub fn allclose<'a>(&self, other: impl Into<Operand<'a, T>>, options: &CloseOptions) -> Result<Array<bool>> {
        self.isclose(other, options)?.all(ReduceOptions::all())
    }

    /// Whether `other` has the same shape and equal elements (NumPy's
    /// `array_equal`; NaN is unequal to itself unless `equal_nan`): a 0-d
    /// boolean array, false at once for different shapes.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let a = Array::from_vec(&[3], vec![1, 2, 3], 2).unwrap();
    /// let b = Array::from_vec(&[3], vec![1, 2, 3], 1).unwrap();
    /// let c = Array::from_vec(&[1, 3], vec![1, 2, 3], 1).unwrap();
    /// // NumPy: np.array_equal(a, b), np.array_equal(a, c)
    /// assert!(a.array_equal(&b, false).unwrap().compute_scalar().unwrap());
    /// assert!(!a.array_equal(&c, false).unwrap().compute_scalar().unwrap());
    /// ```
    ///
    /// # Errors
    /// The errors of computing either operand's graph (an operand that
    /// carries an error).
    pub fn array_equal(&self, other: &Array<T>, equal_nan: bool) -> Result<Array<bool>> {
        self.node.check()?;
        other.node.check()?;
        if self.shape() != other.shape() {
            return Array::<bool>::full(&[], false, 1);
        }
        binary("array_equal", self, other, move |a: T, b: T| a == b || (equal_nan && a.is_nan() && b.is_nan()))?
            .all(ReduceOptions::all())
    }
}

/// NumPy's `isclose` of one pair.
#[inline]
fn close<T: Number>(a: T, b: T, rtol: f64, atol: f64, equal_nan: bool) -> bool {
    if a == b {
        return true;
    }
    if a.is_nan() || b.is_nan() {
        return equal_nan && a.is_nan() && b.is_nan();
    }
    if !a.is_finite() || !b.is_finite() {
        return false;
    }
    let (diff, scale) = if T::IS_COMPLEX {
        let (x, y) = (a.to_complex(), b.to_complex());
        ((x - y).norm(), y.norm())
    } else {
        let (x, y) = (a.to_f64(), b.to_f64());
        ((x - y).abs(), y.abs())
    };
    diff <= atol + rtol * scale
}

/// Tolerances of [`Array::isclose`] and [`Array::allclose`] (NumPy's defaults:
/// `rtol = 1e-5`, `atol = 1e-8`, NaN unequal).
///
/// ```
/// use chunked_array::CloseOptions;
/// let o = CloseOptions::default();
/// assert_eq!((o.rtol, o.atol, o.equal_nan), (1e-5, 1e-8, false));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CloseOptions {
    /// Relative tolerance, against `|other|`.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
    /// Whether NaN is close to NaN.
    pub equal_nan: bool,
}

impl Default for CloseOptions {
    fn default() -> Self {
        CloseOptions { rtol: 1e-5, atol: 1e-8, equal_nan: false }
    }
}

impl<T: Inexact> Array<T>
where
    T::RealPart: Float,
{
    /// The angle of each complex value, in radians (NumPy's `angle`; reals:
    /// 0, or π for negatives).
    ///
    /// ```
    /// use chunked_array::{Array, Complex64};
    /// let z = Array::from_vec(&[2], vec![Complex64::new(0.0, 1.0), Complex64::new(-1.0, 0.0)], 1).unwrap();
    /// // NumPy: np.angle(z)
    /// let a = z.angle().compute().unwrap();
    /// assert_eq!(a.as_slice().unwrap(), &[std::f64::consts::FRAC_PI_2, std::f64::consts::PI]);
    /// ```
    pub fn angle(&self) -> Array<T::RealPart> {
        use crate::element::math::FloatMath;
        unary(self, "angle", |z: T| z.im().atan2(z.re()))
    }
}

impl<T: Element> Array<T> {
    /// Truth of `self AND other` elementwise, by each value's truth (non-zero).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let a = Array::from_vec(&[3], vec![0, 2, 3], 2).unwrap();
    /// let b = Array::from_vec(&[3], vec![1, 0, -1], 2).unwrap();
    /// // NumPy: np.logical_and(a, b)
    /// assert_eq!(a.logical_and(&b).unwrap().compute().unwrap().as_slice().unwrap(), &[false, false, true]);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::ShapeMismatch`] when the shapes do not broadcast.
    pub fn logical_and<'a>(&self, other: impl Into<Operand<'a, T>>) -> Result<Array<bool>> {
        binary("logical_and", self, other, |a: T, b: T| truth(a) && truth(b))
    }
    /// Truth of `self OR other` elementwise.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let a = Array::from_vec(&[3], vec![0.0, 2.0, 0.0], 2).unwrap();
    /// // NumPy: np.logical_or(a, 0.0)
    /// assert_eq!(a.logical_or(0.0).unwrap().compute().unwrap().as_slice().unwrap(), &[false, true, false]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::logical_and`].
    pub fn logical_or<'a>(&self, other: impl Into<Operand<'a, T>>) -> Result<Array<bool>> {
        binary("logical_or", self, other, |a: T, b: T| truth(a) || truth(b))
    }
    /// Truth of `self XOR other` elementwise.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let a = Array::from_vec(&[3], vec![true, true, false], 2).unwrap();
    /// let b = Array::from_vec(&[3], vec![true, false, false], 2).unwrap();
    /// // NumPy: np.logical_xor(a, b)
    /// assert_eq!(a.logical_xor(&b).unwrap().compute().unwrap().as_slice().unwrap(), &[false, true, false]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::logical_and`].
    pub fn logical_xor<'a>(&self, other: impl Into<Operand<'a, T>>) -> Result<Array<bool>> {
        binary("logical_xor", self, other, |a: T, b: T| truth(a) != truth(b))
    }
    /// Truth of `NOT self` elementwise.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let a = Array::from_vec(&[3], vec![0u8, 7, 0], 2).unwrap();
    /// // NumPy: np.logical_not(a)
    /// assert_eq!(a.logical_not().compute().unwrap().as_slice().unwrap(), &[true, false, true]);
    /// ```
    pub fn logical_not(&self) -> Array<bool> {
        unary(self, "logical_not", |a: T| !truth(a))
    }
}

/// A value's truth: non-zero (NaN is true, as in NumPy).
#[inline]
fn truth<T: Element>(x: T) -> bool {
    x != T::default()
}
