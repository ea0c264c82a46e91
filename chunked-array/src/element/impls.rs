//! `Element`, `Number` and `Float` for each element type.

use super::{DType, Element, Float, Number};

macro_rules! float_element {
    ($t:ty, $dt:expr, $mean:ty) => {
        impl Element for $t {
            const DTYPE: DType = $dt;
            const IS_FLOAT: bool = true;
            type Sum = $t;
            type Mean = $mean;
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
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const MIN: Self = <$t>::NEG_INFINITY;
            const MAX: Self = <$t>::INFINITY;
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
            fn rem(self, b: Self) -> Self {
                self % b
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
            fn min_nan(self, b: Self) -> Self {
                if self.is_nan() || b.is_nan() {
                    <$t>::NAN
                } else if b < self {
                    b
                } else {
                    self
                }
            }
            #[inline]
            fn max_nan(self, b: Self) -> Self {
                if self.is_nan() || b.is_nan() {
                    <$t>::NAN
                } else if b > self {
                    b
                } else {
                    self
                }
            }
        }
        impl Float for $t {
            const NAN: Self = <$t>::NAN;
            #[inline]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline]
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            #[inline]
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            #[inline]
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            #[inline]
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            #[inline]
            fn tanh(self) -> Self {
                <$t>::tanh(self)
            }
        }
    };
}
float_element!(f32, DType::F32, f32);
float_element!(f64, DType::F64, f64);

macro_rules! int_element {
    ($t:ty, $dt:expr, signed = $signed:expr) => {
        impl Element for $t {
            const DTYPE: DType = $dt;
            const IS_FLOAT: bool = false;
            type Sum = i64;
            type Mean = f64;
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
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
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
            fn rem(self, b: Self) -> Self {
                if b == 0 { 0 } else { self.wrapping_rem(b) }
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
                if (b as i64) < 0 {
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
            fn min_nan(self, b: Self) -> Self {
                Ord::min(self, b)
            }
            #[inline]
            fn max_nan(self, b: Self) -> Self {
                Ord::max(self, b)
            }
        }
    };
}
int_element!(i32, DType::I32, signed = true);
int_element!(i64, DType::I64, signed = true);
int_element!(u8, DType::U8, signed = false);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    const IS_FLOAT: bool = false;
    type Sum = i64;
    type Mean = f64;
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
