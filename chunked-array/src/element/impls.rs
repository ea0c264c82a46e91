//! `Element` and the numeric traits for the real element types and bool.

use super::{DType, Element, Float, Inexact, Integer, Number, Real};

macro_rules! float_element {
    ($t:ty, $dt:expr) => {
        impl Element for $t {
            const DTYPE: DType = $dt;
            const IS_FLOAT: bool = true;
            type Sum = $t;
            type Mean = $t;
            type Quotient = $t;
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }
        impl Number for $t {
            type RealPart = $t;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            #[inline]
            fn add(self, b: Self) -> Self {
                self + b
            }
            #[inline]
            fn sub(self, b: Self) -> Self {
                self - b
            }
            #[inline]
            fn mul(self, b: Self) -> Self {
                self * b
            }
            #[inline]
            fn div(self, b: Self) -> Self {
                self / b
            }
            #[inline]
            fn neg(self) -> Self {
                -self
            }
            #[inline]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline]
            fn pow(self, b: Self) -> Self {
                self.powf(b)
            }
            #[inline]
            fn re(self) -> Self {
                self
            }
            #[inline]
            fn im(self) -> Self {
                0.0
            }
            #[inline]
            fn conj(self) -> Self {
                self
            }
        }
        impl Real for $t {
            const MIN: Self = <$t>::NEG_INFINITY;
            const MAX: Self = <$t>::INFINITY;
            #[inline]
            fn rem(self, b: Self) -> Self {
                self % b
            }
            #[inline]
            fn min_nan(self, b: Self) -> Self {
                if self.is_nan() || b.is_nan() {
                    <$t>::NAN
                } else if self < b {
                    self
                } else {
                    b
                }
            }
            #[inline]
            fn max_nan(self, b: Self) -> Self {
                if self.is_nan() || b.is_nan() {
                    <$t>::NAN
                } else if self > b {
                    self
                } else {
                    b
                }
            }
        }
        impl Inexact for $t {}
        impl Float for $t {
            const NAN: Self = <$t>::NAN;
            const INFINITY: Self = <$t>::INFINITY;
            const MAX_FINITE: Self = <$t>::MAX;
            const EPSILON: Self = <$t>::EPSILON;
        }
    };
}
float_element!(f32, DType::F32);
float_element!(f64, DType::F64);

macro_rules! int_element {
    ($t:ty, $dt:expr, sum = $sum:ty, signed = $signed:expr) => {
        impl Element for $t {
            const DTYPE: DType = $dt;
            const IS_FLOAT: bool = false;
            type Sum = $sum;
            type Mean = f64;
            type Quotient = f64;
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
        }
        impl Number for $t {
            type RealPart = $t;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline]
            fn add(self, b: Self) -> Self {
                self.wrapping_add(b)
            }
            #[inline]
            fn sub(self, b: Self) -> Self {
                self.wrapping_sub(b)
            }
            #[inline]
            fn mul(self, b: Self) -> Self {
                self.wrapping_mul(b)
            }
            #[inline]
            fn div(self, b: Self) -> Self {
                if b == 0 { 0 } else { self.wrapping_div(b) }
            }
            #[inline]
            fn neg(self) -> Self {
                self.wrapping_neg()
            }
            #[inline]
            fn abs(self) -> Self {
                if $signed { (self as i64).wrapping_abs() as $t } else { self }
            }
            #[inline]
            fn pow(self, b: Self) -> Self {
                if (b as i64) < 0 && $signed {
                    match self as i64 {
                        1 => 1,
                        -1 => {
                            if (b as i64) % 2 == 0 {
                                1
                            } else {
                                self
                            }
                        }
                        _ => 0,
                    }
                } else {
                    self.wrapping_pow((b as u64).min(u32::MAX as u64) as u32)
                }
            }
            #[inline]
            fn re(self) -> Self {
                self
            }
            #[inline]
            fn im(self) -> Self {
                0
            }
            #[inline]
            fn conj(self) -> Self {
                self
            }
        }
        impl Real for $t {
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
            #[inline]
            fn rem(self, b: Self) -> Self {
                if b == 0 { 0 } else { self.wrapping_rem(b) }
            }
            #[inline]
            fn min_nan(self, b: Self) -> Self {
                Ord::min(self, b)
            }
            #[inline]
            fn max_nan(self, b: Self) -> Self {
                Ord::max(self, b)
            }
        }
        impl Integer for $t {
            const BITS: u32 = <$t>::BITS;
            const SIGNED: bool = $signed;
        }
    };
}
int_element!(i8, DType::I8, sum = i64, signed = true);
int_element!(i16, DType::I16, sum = i64, signed = true);
int_element!(i32, DType::I32, sum = i64, signed = true);
int_element!(i64, DType::I64, sum = i64, signed = true);
int_element!(u8, DType::U8, sum = u64, signed = false);
int_element!(u16, DType::U16, sum = u64, signed = false);
int_element!(u32, DType::U32, sum = u64, signed = false);
int_element!(u64, DType::U64, sum = u64, signed = false);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    const IS_FLOAT: bool = false;
    type Sum = i64;
    type Mean = f64;
    type Quotient = f64;
    #[inline]
    fn to_f64(self) -> f64 {
        if self { 1.0 } else { 0.0 }
    }
    #[inline]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    #[inline]
    fn from_i64(v: i64) -> Self {
        v != 0
    }
}
