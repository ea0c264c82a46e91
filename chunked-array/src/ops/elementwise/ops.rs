//! The elementwise API: arithmetic operators, math functions, comparisons,
//! `where`, `astype` and user closures. All broadcast like NumPy.
//!
//! Operators (`&a + &b`) cannot return `Result`; on mismatched shapes they return
//! an array that carries the error, which `compute()` (or any method returning
//! `Result`) reports. The named methods (`a.maximum(&b)?`) report it at once.

use std::marker::PhantomData;
use std::ops;
use std::sync::Arc;

use crate::array::Array;
use crate::element::{Element, Float, Number};
use crate::error::Result;
use crate::graph::Node;
use crate::ops::elementwise::build;
use crate::ops::elementwise::expr::{Binary, Const, Expr, Ternary, Unary, leaf};

/// An operand of an elementwise operation: an array or a scalar.
///
/// ```
/// use chunked_array::{Array, Operand};
/// let x = Array::from_vec(&[3], vec![1, 5, 3], 2).unwrap();
/// let y = Array::from_vec(&[3], vec![4, 4, 4], 2).unwrap();
/// // Arrays and scalars both convert into an operand.
/// let a = x.maximum(&y).unwrap();
/// let b = x.maximum(Operand::Scalar(4)).unwrap();
/// assert_eq!(a.compute().unwrap(), b.compute().unwrap());
/// assert_eq!(b.compute().unwrap().as_slice().unwrap(), &[4, 5, 4]);
/// ```
pub enum Operand<'a, T> {
    /// A borrowed array.
    Array(&'a Array<T>),
    /// An owned array.
    Owned(Array<T>),
    /// A scalar, broadcast to every element.
    Scalar(T),
}

impl<'a, T> From<&'a Array<T>> for Operand<'a, T> {
    fn from(a: &'a Array<T>) -> Self {
        Operand::Array(a)
    }
}
impl<T> From<Array<T>> for Operand<'_, T> {
    fn from(a: Array<T>) -> Self {
        Operand::Owned(a)
    }
}
macro_rules! scalar_operand {
    ($($t:ty),*) => {$(
        impl From<$t> for Operand<'_, $t> {
            fn from(v: $t) -> Self {
                Operand::Scalar(v)
            }
        }
    )*};
}
scalar_operand!(f32, f64, i32, i64, u8, bool);

impl<T: Element> Operand<'_, T> {
    fn expr(&self, leaves: &mut Vec<Arc<Node>>) -> Expr<T> {
        let node = match self {
            Operand::Array(a) => &a.node,
            Operand::Owned(a) => &a.node,
            Operand::Scalar(v) => return Arc::new(Const(*v)),
        };
        leaves.push(node.clone());
        leaf::<T>(leaves.len() - 1)
    }
}

pub(crate) fn unary<A: Element, O: Element>(
    a: &Array<A>,
    name: &'static str,
    f: impl Fn(A) -> O + Send + Sync + 'static,
) -> Array<O> {
    Array::from_result(try_unary(a, name, f))
}

fn try_unary<A: Element, O: Element>(
    a: &Array<A>,
    name: &'static str,
    f: impl Fn(A) -> O + Send + Sync + 'static,
) -> Result<Array<O>> {
    try_unary_with(a, name, f, crate::ops::elementwise::cuda::unary_form::<A, O>(name))
}

/// A unary layer with an explicit C form (for closures over scalars).
pub(crate) fn unary_with<A: Element, O: Element>(
    a: &Array<A>,
    name: &'static str,
    f: impl Fn(A) -> O + Send + Sync + 'static,
    cuda: Option<crate::ops::elementwise::cuda::CudaForm>,
) -> Array<O> {
    Array::from_result(try_unary_with(a, name, f, cuda))
}

fn try_unary_with<A: Element, O: Element>(
    a: &Array<A>,
    name: &'static str,
    f: impl Fn(A) -> O + Send + Sync + 'static,
    cuda: Option<crate::ops::elementwise::cuda::CudaForm>,
) -> Result<Array<O>> {
    let mut leaves = Vec::new();
    let x = Operand::Array(a).expr(&mut leaves);
    let e: Expr<O> = Arc::new(Unary { name, a: x, f: Arc::new(f), cuda, _t: PhantomData });
    Array::built(build(name, leaves, e)?)
}

pub(crate) fn binary<'a, 'b, A: Element, B: Element, O: Element>(
    name: &'static str,
    a: impl Into<Operand<'a, A>>,
    b: impl Into<Operand<'b, B>>,
    f: impl Fn(A, B) -> O + Send + Sync + 'static,
) -> Result<Array<O>> {
    let mut leaves = Vec::new();
    let x = a.into().expr(&mut leaves);
    let y = b.into().expr(&mut leaves);
    let e: Expr<O> = Arc::new(Binary { name, a: x, b: y, f: Arc::new(f), _t: PhantomData });
    Array::built(build(name, leaves, e)?)
}

/// Chooses from `a` where `cond` is true and from `b` elsewhere (NumPy's `where`);
/// all three broadcast together. `a` and `b` may be arrays or scalars.
///
/// ```
/// use chunked_array::{where_, Array};
/// let x = Array::<f64>::arange(-2.0, 3.0, 1.0, 2).unwrap();
/// let relu = where_(&x.gt(0.0).unwrap(), &x, 0.0).unwrap();
/// assert_eq!(relu.compute().unwrap().as_slice().unwrap(), &[0.0, 0.0, 0.0, 1.0, 2.0]);
/// ```
///
/// # Errors
/// [`crate::Error::ShapeMismatch`] when the shapes do not broadcast.
pub fn where_<'a, 'b, T: Element>(
    cond: &Array<bool>,
    a: impl Into<Operand<'a, T>>,
    b: impl Into<Operand<'b, T>>,
) -> Result<Array<T>> {
    let mut leaves = Vec::new();
    let c = Operand::Array(cond).expr(&mut leaves);
    let x = a.into().expr(&mut leaves);
    let y = b.into().expr(&mut leaves);
    let f = |c: bool, x: T, y: T| if c { x } else { y };
    let e: Expr<T> = Arc::new(Ternary { name: "where", a: c, b: x, c: y, f: Arc::new(f), _t: PhantomData });
    Array::built(build("where", leaves, e)?)
}

impl<T: Element> Array<T> {
    /// Converts every element with NumPy `astype` rules (see [`Element::cast`]).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_slice(&[3], &[1.7, -1.7, 2.0], 2).unwrap();
    /// // NumPy: x.astype(np.int64) truncates towards zero
    /// let y = x.astype::<i64>();
    /// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[1, -1, 2]);
    /// ```
    pub fn astype<U: Element>(&self) -> Array<U> {
        unary(self, "astype", |x: T| x.cast::<U>())
    }

    /// Applies a user function to every element (fused with neighbouring
    /// elementwise operations; the closure is inlined into the tile loop).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::arange(0, 4, 1, 3).unwrap();
    /// let y = x.map(|v| (v * v) as f64);
    /// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[0.0, 1.0, 4.0, 9.0]);
    /// ```
    pub fn map<U: Element, F: Fn(T) -> U + Send + Sync + 'static>(&self, f: F) -> Array<U> {
        unary(self, "map", f)
    }

    /// Elementwise `==`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[3], vec![1, 2, 3], 2).unwrap();
    /// let y = Array::from_vec(&[3], vec![1, 0, 3], 2).unwrap();
    /// // NumPy: x == y
    /// assert_eq!(x.eq(&y).unwrap().compute().unwrap().as_slice().unwrap(), &[true, false, true]);
    /// assert_eq!(x.eq(2).unwrap().compute().unwrap().as_slice().unwrap(), &[false, true, false]);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::ShapeMismatch`] when the shapes do not broadcast.
    pub fn eq<'a>(&self, other: impl Into<Operand<'a, T>>) -> Result<Array<bool>> {
        binary("eq", self, other, |a: T, b: T| a == b)
    }
    /// Elementwise `!=`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[3], vec![1, 2, 3], 2).unwrap();
    /// // NumPy: x != 2
    /// assert_eq!(x.ne(2).unwrap().compute().unwrap().as_slice().unwrap(), &[true, false, true]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::eq`].
    pub fn ne<'a>(&self, other: impl Into<Operand<'a, T>>) -> Result<Array<bool>> {
        binary("ne", self, other, |a: T, b: T| a != b)
    }
    /// Elementwise `<`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[3], vec![1, 2, 3], 2).unwrap();
    /// // NumPy: x < 2
    /// assert_eq!(x.lt(2).unwrap().compute().unwrap().as_slice().unwrap(), &[true, false, false]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::eq`].
    pub fn lt<'a>(&self, other: impl Into<Operand<'a, T>>) -> Result<Array<bool>> {
        binary("lt", self, other, |a: T, b: T| a < b)
    }
    /// Elementwise `<=`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[3], vec![1, 2, 3], 2).unwrap();
    /// // NumPy: x <= 2
    /// assert_eq!(x.le(2).unwrap().compute().unwrap().as_slice().unwrap(), &[true, true, false]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::eq`].
    pub fn le<'a>(&self, other: impl Into<Operand<'a, T>>) -> Result<Array<bool>> {
        binary("le", self, other, |a: T, b: T| a <= b)
    }
    /// Elementwise `>`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[3], vec![1, 2, 3], 2).unwrap();
    /// let y = Array::from_vec(&[3], vec![3, 2, 1], 1).unwrap();
    /// // NumPy: x > y
    /// assert_eq!(x.gt(&y).unwrap().compute().unwrap().as_slice().unwrap(), &[false, false, true]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::eq`].
    pub fn gt<'a>(&self, other: impl Into<Operand<'a, T>>) -> Result<Array<bool>> {
        binary("gt", self, other, |a: T, b: T| a > b)
    }
    /// Elementwise `>=`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[3], vec![1, 2, 3], 2).unwrap();
    /// // NumPy: x >= 2
    /// assert_eq!(x.ge(2).unwrap().compute().unwrap().as_slice().unwrap(), &[false, true, true]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::eq`].
    pub fn ge<'a>(&self, other: impl Into<Operand<'a, T>>) -> Result<Array<bool>> {
        binary("ge", self, other, |a: T, b: T| a >= b)
    }
}

impl<T: Number> Array<T> {
    /// Absolute value.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[3], vec![-2, 0, 3], 2).unwrap();
    /// // NumPy: np.abs(x)
    /// assert_eq!(x.abs().compute().unwrap().as_slice().unwrap(), &[2, 0, 3]);
    /// ```
    pub fn abs(&self) -> Array<T> {
        unary(self, "abs", T::abs)
    }

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
            Operand::Scalar(e) if T::IS_FLOAT && e.to_f64() == 2.0 => Ok(unary(self, "square", |x: T| x.mul(x))),
            Operand::Scalar(e) if T::IS_FLOAT && e.to_f64() == 1.0 => Ok(unary(self, "pow", |x: T| x)),
            Operand::Scalar(e) if T::IS_FLOAT && e.to_f64() == 3.0 => Ok(unary(self, "cube", |x: T| x.mul(x).mul(x))),
            other => binary("pow", self, other, T::pow),
        }
    }

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
            move |x: T| {
                if x < low {
                    low
                } else if x > high {
                    high
                } else {
                    x
                }
            },
            crate::ops::elementwise::cuda::clip_form(low, high),
        )
    }
}

impl<T: Float> Array<T> {
    /// Square root.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_slice(&[3], &[1.0, 4.0, 9.0], 2).unwrap();
    /// // NumPy: np.sqrt(x)
    /// assert_eq!(x.sqrt().compute().unwrap().as_slice().unwrap(), &[1.0, 2.0, 3.0]);
    /// ```
    pub fn sqrt(&self) -> Array<T> {
        unary(self, "sqrt", T::sqrt)
    }
    /// e^x.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_slice(&[2], &[0.0, 1.0], 1).unwrap();
    /// // NumPy: np.exp(x)
    /// let y = x.exp().compute().unwrap();
    /// assert_eq!(y[0], 1.0);
    /// assert!((y[1] - std::f64::consts::E).abs() < 1e-12);
    /// ```
    pub fn exp(&self) -> Array<T> {
        unary(self, "exp", T::exp)
    }
    /// Natural logarithm (NumPy's `log`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_slice(&[2], &[1.0, std::f64::consts::E], 1).unwrap();
    /// // NumPy: np.log(x)
    /// let y = x.log().compute().unwrap();
    /// assert_eq!(y[0], 0.0);
    /// assert!((y[1] - 1.0).abs() < 1e-12);
    /// ```
    pub fn log(&self) -> Array<T> {
        unary(self, "log", T::ln)
    }
    /// Sine.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_slice(&[2], &[0.0, std::f64::consts::FRAC_PI_2], 1).unwrap();
    /// // NumPy: np.sin(x)
    /// let y = x.sin().compute().unwrap();
    /// assert_eq!(y[0], 0.0);
    /// assert!((y[1] - 1.0).abs() < 1e-12);
    /// ```
    pub fn sin(&self) -> Array<T> {
        unary(self, "sin", T::sin)
    }
    /// Cosine.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_slice(&[2], &[0.0, std::f64::consts::PI], 1).unwrap();
    /// // NumPy: np.cos(x)
    /// let y = x.cos().compute().unwrap();
    /// assert_eq!(y[0], 1.0);
    /// assert!((y[1] + 1.0).abs() < 1e-12);
    /// ```
    pub fn cos(&self) -> Array<T> {
        unary(self, "cos", T::cos)
    }
    /// Hyperbolic tangent.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_slice(&[3], &[-50.0, 0.0, 0.5], 2).unwrap();
    /// // NumPy: np.tanh(x)
    /// let y = x.tanh().compute().unwrap();
    /// assert_eq!((y[0], y[1]), (-1.0, 0.0));
    /// assert!((y[2] - 0.5f64.tanh()).abs() < 1e-12);
    /// ```
    pub fn tanh(&self) -> Array<T> {
        unary(self, "tanh", T::tanh)
    }
    /// Whether each element is NaN.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_slice(&[3], &[1.0, f64::NAN, 0.0], 2).unwrap();
    /// // NumPy: np.isnan(x)
    /// assert_eq!(x.isnan().compute().unwrap().as_slice().unwrap(), &[false, true, false]);
    /// ```
    pub fn isnan(&self) -> Array<bool> {
        unary(self, "isnan", |x: T| x.is_nan())
    }
}

macro_rules! arith_op {
    ($tr:ident, $m:ident, $name:literal, $f:path) => {
        impl<T: Number> ops::$tr<&Array<T>> for &Array<T> {
            type Output = Array<T>;
            fn $m(self, rhs: &Array<T>) -> Array<T> {
                Array::from_result(binary($name, self, rhs, $f))
            }
        }
        impl<T: Number> ops::$tr<Array<T>> for Array<T> {
            type Output = Array<T>;
            fn $m(self, rhs: Array<T>) -> Array<T> {
                Array::from_result(binary($name, &self, &rhs, $f))
            }
        }
        impl<T: Number> ops::$tr<&Array<T>> for Array<T> {
            type Output = Array<T>;
            fn $m(self, rhs: &Array<T>) -> Array<T> {
                Array::from_result(binary($name, &self, rhs, $f))
            }
        }
        impl<T: Number> ops::$tr<Array<T>> for &Array<T> {
            type Output = Array<T>;
            fn $m(self, rhs: Array<T>) -> Array<T> {
                Array::from_result(binary($name, self, &rhs, $f))
            }
        }
        arith_op!(@scalar $tr, $m, $name, $f, f32, f64, i32, i64, u8);
    };
    (@scalar $tr:ident, $m:ident, $name:literal, $f:path, $($t:ty),*) => {$(
        impl ops::$tr<$t> for &Array<$t> {
            type Output = Array<$t>;
            fn $m(self, rhs: $t) -> Array<$t> {
                unary_with(self, $name, move |x: $t| $f(x, rhs), crate::ops::elementwise::cuda::scalar_form($name, rhs, false))
            }
        }
        impl ops::$tr<$t> for Array<$t> {
            type Output = Array<$t>;
            fn $m(self, rhs: $t) -> Array<$t> {
                unary_with(&self, $name, move |x: $t| $f(x, rhs), crate::ops::elementwise::cuda::scalar_form($name, rhs, false))
            }
        }
        impl ops::$tr<&Array<$t>> for $t {
            type Output = Array<$t>;
            fn $m(self, rhs: &Array<$t>) -> Array<$t> {
                unary_with(rhs, $name, move |x: $t| $f(self, x), crate::ops::elementwise::cuda::scalar_form($name, self, true))
            }
        }
        impl ops::$tr<Array<$t>> for $t {
            type Output = Array<$t>;
            fn $m(self, rhs: Array<$t>) -> Array<$t> {
                unary_with(&rhs, $name, move |x: $t| $f(self, x), crate::ops::elementwise::cuda::scalar_form($name, self, true))
            }
        }
    )*};
}
arith_op!(Add, add, "add", Number::add);
arith_op!(Sub, sub, "sub", Number::sub);
arith_op!(Mul, mul, "mul", Number::mul);
arith_op!(Div, div, "div", Number::div);
arith_op!(Rem, rem, "rem", Number::rem);

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
