//! The kernels for integers and real floats.

use super::{
    FloatMath, InexactMath, IntegerMath, NumberMath, RealMath, vector_exp, vector_inverse_hyperbolic, vector_libm,
};

macro_rules! float_math {
    ($t:ident) => {
        impl NumberMath for $t {
            #[inline]
            fn square(self) -> Self {
                self * self
            }
            #[inline]
            fn reciprocal(self) -> Self {
                1.0 / self
            }
            #[inline]
            fn sign(self) -> Self {
                if self > 0.0 {
                    1.0
                } else if self < 0.0 {
                    -1.0
                } else if self == 0.0 {
                    0.0
                } else {
                    self
                }
            }
            #[inline]
            fn is_finite(self) -> bool {
                $t::is_finite(self)
            }
            #[inline]
            fn is_inf(self) -> bool {
                $t::is_infinite(self)
            }
        }
        impl RealMath for $t {
            /// NumPy's `npy_divmod`: the floor of the exact quotient, from
            /// `fmod` so that `a == b * q + r` holds as closely as it can.
            #[inline]
            fn divmod(self, b: Self) -> (Self, Self) {
                let (a, mut m) = (self, self % b);
                if b == 0.0 {
                    return (a / b, m);
                }
                let div = (a - m) / b;
                let div = if m == 0.0 {
                    m = (0.0 as $t).copysign(b);
                    div
                } else if (b < 0.0) != (m < 0.0) {
                    m += b;
                    div - 1.0
                } else {
                    div
                };
                let q = if div != 0.0 {
                    let f = FloatMath::floor(div);
                    if div - f > 0.5 { f + 1.0 } else { f }
                } else {
                    (0.0 as $t).copysign(a / b)
                };
                (q, m)
            }
            #[inline]
            fn fmax(self, b: Self) -> Self {
                $t::max(self, b)
            }
            #[inline]
            fn fmin(self, b: Self) -> Self {
                $t::min(self, b)
            }
            #[inline]
            fn signbit(self) -> bool {
                self.is_sign_negative()
            }
        }
        impl InexactMath for $t {
            #[inline]
            fn sqrt(self) -> Self {
                $t::sqrt(self)
            }
            #[inline(always)]
            fn exp(self) -> Self {
                vector_exp::exp(f64::from(self)) as $t
            }
            #[inline(always)]
            fn exp2(self) -> Self {
                vector_exp::exp2(f64::from(self)) as $t
            }
            #[inline(always)]
            fn expm1(self) -> Self {
                vector_libm::expm1(f64::from(self)) as $t
            }
            #[inline(always)]
            fn ln(self) -> Self {
                vector_libm::ln(f64::from(self)) as $t
            }
            #[inline(always)]
            fn log2(self) -> Self {
                vector_libm::log2(f64::from(self)) as $t
            }
            #[inline(always)]
            fn log10(self) -> Self {
                vector_libm::log10(f64::from(self)) as $t
            }
            #[inline(always)]
            fn log1p(self) -> Self {
                vector_libm::log1p(f64::from(self)) as $t
            }
            #[inline]
            fn sin(self) -> Self {
                $t::sin(self)
            }
            #[inline]
            fn cos(self) -> Self {
                $t::cos(self)
            }
            #[inline]
            fn tan(self) -> Self {
                $t::tan(self)
            }
            #[inline]
            fn asin(self) -> Self {
                $t::asin(self)
            }
            #[inline]
            fn acos(self) -> Self {
                $t::acos(self)
            }
            #[inline(always)]
            fn atan(self) -> Self {
                vector_libm::atan(f64::from(self)) as $t
            }
            #[inline(always)]
            fn sinh(self) -> Self {
                vector_exp::sinh(f64::from(self)) as $t
            }
            #[inline(always)]
            fn cosh(self) -> Self {
                vector_exp::cosh(f64::from(self)) as $t
            }
            #[inline(always)]
            fn tanh(self) -> Self {
                vector_exp::tanh(f64::from(self)) as $t
            }
            #[inline(always)]
            fn asinh(self) -> Self {
                vector_inverse_hyperbolic::asinh(f64::from(self)) as $t
            }
            #[inline(always)]
            fn acosh(self) -> Self {
                vector_inverse_hyperbolic::acosh(f64::from(self)) as $t
            }
            /// glibc's form (std's `ln_1p(2x / (1 - x)) / 2` loses hundreds of
            /// ulps near -1).
            #[inline(always)]
            fn atanh(self) -> Self {
                vector_inverse_hyperbolic::atanh(f64::from(self)) as $t
            }
        }
        impl FloatMath for $t {
            // The rounding functions without a libm call (x86-64's baseline has
            // no rounding instruction): adding and subtracting 2^(mantissa
            // bits) rounds to an integer, ties to even, exactly; values that
            // large (and NaN, ±inf) are integers already. The loops over them
            // vectorize.
            #[inline]
            fn rint(self) -> Self {
                let big = (2.0 as $t).powi(<$t>::MANTISSA_DIGITS as i32 - 1);
                let a = self.abs();
                if a < big { ((a + big) - big).copysign(self) } else { self }
            }
            #[inline]
            fn floor(self) -> Self {
                let r = self.rint();
                if r > self { r - 1.0 } else { r }
            }
            #[inline]
            fn ceil(self) -> Self {
                // ceil(-0.5) is -0.0: the sign of x, which `r + 1.0` loses.
                let r = self.rint();
                if r < self { (r + 1.0).copysign(self) } else { r }
            }
            #[inline]
            fn trunc(self) -> Self {
                FloatMath::floor(self.abs()).copysign(self)
            }
            #[inline]
            fn round_to(self, decimals: i32) -> Self {
                // NumPy's: scale by a power of ten, round half to even, scale back.
                let scale = (10.0 as $t).powi(decimals.abs());
                if decimals >= 0 {
                    FloatMath::rint(self * scale) / scale
                } else {
                    FloatMath::rint(self / scale) * scale
                }
            }
            #[inline(always)]
            fn cbrt(self) -> Self {
                vector_libm::cbrt(f64::from(self)) as $t
            }
            #[inline(always)]
            fn hypot(self, b: Self) -> Self {
                vector_libm::hypot(f64::from(self), f64::from(b)) as $t
            }
            #[inline(always)]
            fn atan2(self, b: Self) -> Self {
                vector_libm::atan2(f64::from(self), f64::from(b)) as $t
            }
            #[inline]
            fn copysign(self, b: Self) -> Self {
                $t::copysign(self, b)
            }
            #[inline]
            fn nextafter(self, b: Self) -> Self {
                if self.is_nan() || b.is_nan() {
                    self + b
                } else if self == b {
                    b
                } else if b > self {
                    self.next_up()
                } else {
                    self.next_down()
                }
            }
            #[inline(always)]
            fn logaddexp(self, b: Self) -> Self {
                vector_exp::logaddexp(f64::from(self), f64::from(b)) as $t
            }
            #[inline(always)]
            fn logaddexp2(self, b: Self) -> Self {
                vector_exp::logaddexp2(f64::from(self), f64::from(b)) as $t
            }
            #[inline]
            fn heaviside(self, h0: Self) -> Self {
                if self < 0.0 {
                    0.0
                } else if self > 0.0 {
                    1.0
                } else if self == 0.0 {
                    h0
                } else {
                    self
                }
            }
            #[inline]
            fn to_degrees(self) -> Self {
                self * (180.0 / std::$t::consts::PI)
            }
            #[inline]
            fn to_radians(self) -> Self {
                self * (std::$t::consts::PI / 180.0)
            }
            #[inline]
            fn fmod(self, b: Self) -> Self {
                self % b
            }
            #[inline]
            fn clamp_finite(self) -> Self {
                if self == $t::INFINITY {
                    $t::MAX
                } else if self == $t::NEG_INFINITY {
                    $t::MIN
                } else {
                    self
                }
            }
        }
    };
}
float_math!(f32);
float_math!(f64);

macro_rules! int_math {
    ($t:ident, $u:ident, signed = $signed:expr) => {
        impl NumberMath for $t {
            #[inline]
            fn square(self) -> Self {
                self.wrapping_mul(self)
            }
            #[inline]
            fn reciprocal(self) -> Self {
                if self == 0 { 0 } else { (1 as $t).wrapping_div(self) }
            }
            #[inline]
            #[allow(unused_comparisons)]
            fn sign(self) -> Self {
                if self > 0 {
                    1
                } else if self < 0 {
                    (0 as $t).wrapping_sub(1)
                } else {
                    0
                }
            }
            #[inline]
            fn is_finite(self) -> bool {
                true
            }
            #[inline]
            fn is_inf(self) -> bool {
                false
            }
        }
        impl RealMath for $t {
            #[inline]
            #[allow(unused_comparisons)]
            fn divmod(self, b: Self) -> (Self, Self) {
                if b == 0 {
                    return (0, 0);
                }
                let (q, r) = (self.wrapping_div(b), self.wrapping_rem(b));
                if r != 0 && ((r < 0) != (b < 0)) { (q.wrapping_sub(1), r.wrapping_add(b)) } else { (q, r) }
            }
            #[inline]
            fn fmax(self, b: Self) -> Self {
                Ord::max(self, b)
            }
            #[inline]
            fn fmin(self, b: Self) -> Self {
                Ord::min(self, b)
            }
            #[inline]
            #[allow(unused_comparisons)]
            fn signbit(self) -> bool {
                self < 0
            }
        }
        impl IntegerMath for $t {
            #[inline]
            fn bit_and(self, b: Self) -> Self {
                self & b
            }
            #[inline]
            fn bit_or(self, b: Self) -> Self {
                self | b
            }
            #[inline]
            fn bit_xor(self, b: Self) -> Self {
                self ^ b
            }
            #[inline]
            fn bit_not(self) -> Self {
                !self
            }
            #[inline]
            fn shl(self, b: Self) -> Self {
                // NumPy casts the count to unsigned: a negative one is a huge shift.
                if (b as $u) < <$t>::BITS as $u { self << (b as u32) } else { 0 }
            }
            #[inline]
            #[allow(unused_comparisons)]
            fn shr(self, b: Self) -> Self {
                if (b as $u) < <$t>::BITS as $u {
                    self >> (b as u32)
                } else if self < 0 {
                    !0
                } else {
                    0
                }
            }
            #[inline]
            fn gcd(self, b: Self) -> Self {
                gcd_u64(widen_abs!(self, $signed), widen_abs!(b, $signed)) as $t
            }
            /// NumPy's `|a| / gcd * |b|`, wrapping in the type's width.
            #[inline]
            fn lcm(self, b: Self) -> Self {
                let (x, y) = (widen_abs!(self, $signed), widen_abs!(b, $signed));
                let g = gcd_u64(x, y);
                if g == 0 { 0 } else { (x / g).wrapping_mul(y) as $t }
            }
        }
    };
}

/// Euclid's algorithm on magnitudes.
#[inline]
fn gcd_u64(mut x: u64, mut y: u64) -> u64 {
    while y != 0 {
        (x, y) = (y, x % y);
    }
    x
}

/// `|x|` as the unsigned 64-bit magnitude (so that `|MIN|` is exact).
macro_rules! widen_abs {
    ($x:expr, $signed:expr) => {
        if $signed { ($x as i64).unsigned_abs() } else { $x as u64 }
    };
}

int_math!(i8, u8, signed = true);
int_math!(i16, u16, signed = true);
int_math!(i32, u32, signed = true);
int_math!(i64, u64, signed = true);
int_math!(u8, u8, signed = false);
int_math!(u16, u16, signed = false);
int_math!(u32, u32, signed = false);
int_math!(u64, u64, signed = false);
