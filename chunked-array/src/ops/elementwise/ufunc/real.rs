//! The ufuncs of ordered numbers: extrema, clipping, floor division and
//! remainders.

use std::sync::Arc;

use crate::array::Array;
use crate::element::math::RealMath;
use crate::element::{Element, Real};
use crate::error::Result;
use crate::ops::elementwise::build;
use crate::ops::elementwise::expr::{Expr, Ternary};
use crate::ops::elementwise::ops::{Operand, binary, unary_with};
use crate::ops::elementwise::ufunc::{binary_ufuncs, unary_ufuncs};

binary_ufuncs! { impl<T: Real> {
    /// `floor(x / z)` (NumPy's `floor_divide`, `//`; integers stay integers,
    /// `x // 0` is 0 and `MIN // -1` wraps to `MIN`).
    fn floor_divide -> T = RealMath::floor_div;
    example i32 [7, -7, 7, 5], [2, 2, -2, 0] => [3, -4, -4, 0];
    /// The remainder with the sign of `z` (NumPy's `remainder` and `mod`,
    /// Python's `%`; the `%` operator is this).
    fn remainder -> T = RealMath::modulo;
    example i64 [7, -7, 7, 5], [3, 3, -3, 0] => [1, 2, -2, 0];
    /// The remainder with the sign of `x` (C's `fmod`; integers: `x % 0` is 0).
    fn fmod -> T = Real::rem;
    example f64 [7.5, -7.5, 7.5], [2.0, 2.0, -2.0] => [1.5, -1.5, 1.5];
}}

unary_ufuncs! { impl<T: Real> {
    /// Whether the sign bit is set (`-0.0` has it; integers: negative).
    fn signbit -> bool = RealMath::signbit;
    example f64 [-0.0, 0.0, -2.0] => [true, false, true];
}}

impl<T: Real> Array<T> {
    /// Elementwise maximum; NaN propagates (NumPy's `maximum`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_slice(&[3], &[1.0, f64::NAN, 3.0], 2).unwrap();
    /// // NumPy: np.maximum(x, 2.0)
    /// let m = x.maximum(2.0).unwrap().compute().unwrap();
    /// assert_eq!((m[0], m[2]), (2.0, 3.0));
    /// assert!(m[1].is_nan());
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::ShapeMismatch`] when the shapes do not broadcast.
    pub fn maximum<'a>(&self, other: impl Into<Operand<'a, T>>) -> Result<Array<T>> {
        binary("maximum", self, other, T::max_nan)
    }

    /// Elementwise minimum; NaN propagates (NumPy's `minimum`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[3], vec![1, 5, 3], 2).unwrap();
    /// let y = Array::from_vec(&[3], vec![2, 2, 2], 1).unwrap();
    /// // NumPy: np.minimum(x, y)
    /// assert_eq!(x.minimum(&y).unwrap().compute().unwrap().as_slice().unwrap(), &[1, 2, 2]);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::ShapeMismatch`] when the shapes do not broadcast.
    pub fn minimum<'a>(&self, other: impl Into<Operand<'a, T>>) -> Result<Array<T>> {
        binary("minimum", self, other, T::min_nan)
    }

    /// Limits values to `[low, high]` (NumPy's `clip`; NaN stays NaN).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[4], vec![-5, 0, 5, 10], 2).unwrap();
    /// // NumPy: np.clip(x, 0, 6)
    /// assert_eq!(x.clip(0, 6).compute().unwrap().as_slice().unwrap(), &[0, 0, 5, 6]);
    /// ```
    pub fn clip(&self, low: T, high: T) -> Array<T> {
        unary_with(
            self,
            "clip",
            move |x: T| clip_one(x, low, high),
            crate::ops::elementwise::cuda::clip_form(low, high),
        )
    }

    /// NumPy's `mod`: [`Array::remainder`].
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[2], vec![-7, 7], 1).unwrap();
    /// assert_eq!(x.mod_(3).unwrap().compute().unwrap().as_slice().unwrap(), &[2, 1]);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::ShapeMismatch`] when the shapes do not broadcast.
    pub fn mod_<'a>(&self, other: impl Into<Operand<'a, T>>) -> Result<Array<T>> {
        self.remainder(other)
    }

    /// `(x // z, x % z)` in one call (NumPy's `divmod`): two lazy arrays over
    /// the same inputs, which a `compute((&q, &r))` runs in one pass.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[3], vec![7.0, -7.0, 7.5], 2).unwrap();
    /// // NumPy: np.divmod(x, 2.0)
    /// let (q, r) = x.divmod(2.0).unwrap();
    /// assert_eq!(q.compute().unwrap().as_slice().unwrap(), &[3.0, -4.0, 3.0]);
    /// assert_eq!(r.compute().unwrap().as_slice().unwrap(), &[1.0, 1.0, 1.5]);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::ShapeMismatch`] when the shapes do not broadcast.
    pub fn divmod<'a>(&self, other: impl Into<Operand<'a, T>>) -> Result<(Array<T>, Array<T>)> {
        let other = other.into();
        let again = match &other {
            Operand::Array(a) => Operand::Array(a),
            Operand::Owned(a) => Operand::Array(a),
            Operand::Scalar(s) => Operand::Scalar(*s),
        };
        Ok((self.floor_divide(again)?, self.remainder(other)?))
    }

    /// Limits values to `[low, high]` where the bounds are arrays or scalars,
    /// broadcast with `self` (NumPy's `clip` with array bounds; NaN stays NaN).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[2, 3], vec![-5, 0, 5, 10, 20, 30], 2).unwrap();
    /// let low = Array::from_vec(&[3], vec![0, 1, 2], 3).unwrap();
    /// // NumPy: np.clip(x, low, 12)
    /// let c = x.clip_between(&low, 12).unwrap().compute().unwrap();
    /// assert_eq!(c.as_slice().unwrap(), &[0, 1, 5, 10, 12, 12]);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::ShapeMismatch`] when the shapes do not broadcast.
    pub fn clip_between<'a, 'b>(
        &self,
        low: impl Into<Operand<'a, T>>,
        high: impl Into<Operand<'b, T>>,
    ) -> Result<Array<T>> {
        let mut leaves = Vec::new();
        let x = Operand::Array(self).expr(&mut leaves);
        let lo = low.into().expr(&mut leaves);
        let hi = high.into().expr(&mut leaves);
        let f = |x: T, lo: T, hi: T| clip_one(x, lo, hi);
        let e: Expr<T> =
            Arc::new(Ternary { name: "clip", a: x, b: lo, c: hi, f: Arc::new(f), _t: std::marker::PhantomData });
        Array::built(build("clip", leaves, e)?)
    }
}

/// `x` limited to `[lo, hi]`, NaN kept.
#[inline]
fn clip_one<T: Element + PartialOrd>(x: T, lo: T, hi: T) -> T {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}
