//! The arithmetic operators on arrays, with NumPy's type promotion: `&a + &b`,
//! `&a * 2.0`, `1 - &a`, `-&a`, `!&mask`, `&p & &q`.
//!
//! `/` is true division (NumPy's `true_divide`: integers give `f64`) and `%`
//! is NumPy's `remainder` (the sign of the divisor, as Python's `%`);
//! [`Array::floor_divide`] and [`Array::fmod`] keep integers and C's sign.
//!
//! Operators cannot return `Result`; on mismatched shapes they return an
//! array that carries the error, which `compute()` (or any method returning
//! `Result`) reports.

use std::ops;

use crate::array::Array;
use crate::element::math::RealMath;
use crate::element::{Complex32, Complex64, Element, Number, Promote, Real};
use crate::ops::elementwise::cuda::scalar_form;
use crate::ops::elementwise::ops::{binary, binary_promoted, unary, unary_with};

/// `f` over two arrays after converting both to `O` (a no-op where they are
/// `O`), in one layer that has a device form wherever the conversions and the
/// operation on `O` have one.
fn promoted<A: Element, B: Element, O: Element>(
    name: &'static str,
    a: &Array<A>,
    b: &Array<B>,
    f: impl Fn(O, O) -> O + Send + Sync + 'static,
) -> Array<O> {
    Array::from_result(binary_promoted(name, a, b, f))
}

/// `f(x, scalar)` (or `f(scalar, x)` when `scalar_first`) over an array,
/// both converted to `O`.
fn with_scalar<A: Element, S: Element, O: Element>(
    name: &'static str,
    a: &Array<A>,
    scalar: S,
    scalar_first: bool,
    f: impl Fn(O, O) -> O + Send + Sync + 'static,
) -> Array<O> {
    let s = scalar.cast::<O>();
    let form = if A::DTYPE == O::DTYPE { scalar_form(name, s, scalar_first) } else { None };
    if scalar_first {
        unary_with(a, name, move |x: A| f(s, x.cast::<O>()), form)
    } else {
        unary_with(a, name, move |x: A| f(x.cast::<O>(), s), form)
    }
}

/// One operator between arrays, owned or borrowed, with NumPy's promotion:
/// `$out` is the result type (in terms of the promoted `A::Output`), `$f`
/// its kernel over that type, `$bound` what the promoted type must be.
macro_rules! operator {
    ($tr:ident, $m:ident, $name:literal, $bound:ident, $out:ty, $f:expr) => {
        operator!(@one $tr, $m, $name, $bound, $out, $f, &Array<A>, &Array<B>, |a, b| (a, b));
        operator!(@one $tr, $m, $name, $bound, $out, $f, Array<A>, Array<B>, |a, b| (&a, &b));
        operator!(@one $tr, $m, $name, $bound, $out, $f, Array<A>, &Array<B>, |a, b| (&a, b));
        operator!(@one $tr, $m, $name, $bound, $out, $f, &Array<A>, Array<B>, |a, b| (a, &b));
    };
    (@one $tr:ident, $m:ident, $name:literal, $bound:ident, $out:ty, $f:expr, $lhs:ty, $rhs:ty, |$a:ident, $b:ident| $refs:expr) => {
        impl<A, B> ops::$tr<$rhs> for $lhs
        where
            A: Promote<B>,
            B: Element,
            A::Output: $bound,
        {
            type Output = Array<$out>;
            fn $m(self, rhs: $rhs) -> Self::Output {
                let ($a, $b) = (self, rhs);
                let (x, y) = $refs;
                promoted($name, x, y, $f)
            }
        }
    };
}

/// One operator between an array and a scalar of its element type, on either
/// side (a literal takes the array's type: `&x_f32 * 2.0` stays `f32`, as
/// NumPy keeps the array's type for a Python number of its kind).
macro_rules! scalar_operator {
    ($tr:ident, $m:ident, $name:literal, $mode:ident, $f:expr; $($t:ty),*) => {$(
        impl ops::$tr<$t> for &Array<$t> {
            type Output = Array<scalar_operator!(@out $mode $t)>;
            fn $m(self, rhs: $t) -> Self::Output {
                with_scalar($name, self, rhs, false, $f)
            }
        }
        impl ops::$tr<$t> for Array<$t> {
            type Output = Array<scalar_operator!(@out $mode $t)>;
            fn $m(self, rhs: $t) -> Self::Output {
                with_scalar($name, &self, rhs, false, $f)
            }
        }
        impl ops::$tr<&Array<$t>> for $t {
            type Output = Array<scalar_operator!(@out $mode $t)>;
            fn $m(self, rhs: &Array<$t>) -> Self::Output {
                with_scalar($name, rhs, self, true, $f)
            }
        }
        impl ops::$tr<Array<$t>> for $t {
            type Output = Array<scalar_operator!(@out $mode $t)>;
            fn $m(self, rhs: Array<$t>) -> Self::Output {
                with_scalar($name, &rhs, self, true, $f)
            }
        }
    )*};
    (@out same $t:ty) => { $t };
    (@out quotient $t:ty) => { <$t as Element>::Quotient };
}

operator!(Add, add, "add", Number, A::Output, Number::add);
operator!(Sub, sub, "sub", Number, A::Output, Number::sub);
operator!(Mul, mul, "mul", Number, A::Output, Number::mul);
operator!(Div, div, "div", Element, <A::Output as Element>::Quotient, Number::div);
operator!(Rem, rem, "remainder", Real, A::Output, RealMath::modulo);

scalar_operator!(Add, add, "add", same, Number::add; i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, Complex32, Complex64);
scalar_operator!(Sub, sub, "sub", same, Number::sub; i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, Complex32, Complex64);
scalar_operator!(Mul, mul, "mul", same, Number::mul; i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, Complex32, Complex64);
scalar_operator!(Div, div, "div", quotient, Number::div; i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, Complex32, Complex64);
scalar_operator!(Rem, rem, "remainder", same, RealMath::modulo; i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);
impl<T: Number> ops::Neg for &Array<T> {
    type Output = Array<T>;
    fn neg(self) -> Array<T> {
        unary(self, "neg", T::neg)
    }
}
impl<T: Number> ops::Neg for Array<T> {
    type Output = Array<T>;
    fn neg(self) -> Array<T> {
        unary(&self, "neg", T::neg)
    }
}

impl ops::Not for &Array<bool> {
    type Output = Array<bool>;
    fn not(self) -> Array<bool> {
        unary(self, "not", |x: bool| !x)
    }
}
impl ops::Not for Array<bool> {
    type Output = Array<bool>;
    fn not(self) -> Array<bool> {
        unary(&self, "not", |x: bool| !x)
    }
}

macro_rules! logic_op {
    ($tr:ident, $m:ident, $name:literal, $op:tt) => {
        impl ops::$tr<&Array<bool>> for &Array<bool> {
            type Output = Array<bool>;
            fn $m(self, rhs: &Array<bool>) -> Array<bool> {
                Array::from_result(binary($name, self, rhs, |a: bool, b: bool| a $op b))
            }
        }
        impl ops::$tr<Array<bool>> for Array<bool> {
            type Output = Array<bool>;
            fn $m(self, rhs: Array<bool>) -> Array<bool> {
                Array::from_result(binary($name, &self, &rhs, |a: bool, b: bool| a $op b))
            }
        }
    };
}
logic_op!(BitAnd, bitand, "and", &);
logic_op!(BitOr, bitor, "or", |);
logic_op!(BitXor, bitxor, "xor", ^);
