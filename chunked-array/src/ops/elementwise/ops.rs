//! The elementwise API's building blocks (operands, the unary and binary layer
//! builders the operators and ufuncs use), comparisons, `where`, `astype` and
//! user closures. All broadcast like NumPy; the named methods (`a.eq(&b)?`)
//! report mismatched shapes at once.

use std::marker::PhantomData;
use std::sync::Arc;

use crate::array::Array;
use crate::element::{Complex32, Complex64, Element, Real};
use crate::error::Result;
use crate::graph::Node;
use crate::ops::elementwise::build;
use crate::ops::elementwise::expr::{Binary, BinaryMap, Const, Expr, Ternary, Unary, UnaryMap, leaf};
use crate::ops::elementwise::loops::{TileKernel, TileKernel2};

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
scalar_operand!(bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, Complex32, Complex64);

impl<T: Element> Operand<'_, T> {
    pub(crate) fn expr(&self, leaves: &mut Vec<Arc<Node>>) -> Expr<T> {
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

/// [`unary`] whose tiles run through `tiled`, a kernel's own loops
/// ([`crate::ops::elementwise::loops::tile_kernel`]).
pub(crate) fn unary_tiled<A: Element, O: Element>(
    a: &Array<A>,
    name: &'static str,
    tiled: TileKernel<A, O>,
) -> Array<O> {
    let cuda = crate::ops::elementwise::cuda::unary_form::<A, O>(name);
    Array::from_result(layer_unary::<A, O, fn(A) -> O>(a, name, UnaryMap::Tiled(tiled), cuda))
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
    layer_unary(a, name, UnaryMap::Element(Arc::new(f)), cuda)
}

fn layer_unary<A: Element, O: Element, F: Fn(A) -> O + Send + Sync + 'static>(
    a: &Array<A>,
    name: &'static str,
    map: UnaryMap<A, O, F>,
    cuda: Option<crate::ops::elementwise::cuda::CudaForm>,
) -> Result<Array<O>> {
    let mut leaves = Vec::new();
    let x = Operand::Array(a).expr(&mut leaves);
    let e: Expr<O> = Arc::new(Unary { name, a: x, map, cuda, _t: PhantomData });
    Array::built(build(name, leaves, e)?)
}

pub(crate) fn binary<'a, 'b, A: Element, B: Element, O: Element>(
    name: &'static str,
    a: impl Into<Operand<'a, A>>,
    b: impl Into<Operand<'b, B>>,
    f: impl Fn(A, B) -> O + Send + Sync + 'static,
) -> Result<Array<O>> {
    binary_layer(name, a.into(), b.into(), BinaryMap::Element(Arc::new(f)), false)
}

/// [`binary`] whose tiles run through `tiled`, a kernel's own loops
/// ([`crate::ops::elementwise::loops::tile_kernel2`]).
pub(crate) fn binary_tiled<'a, 'b, T: Element, O: Element>(
    name: &'static str,
    a: impl Into<Operand<'a, T>>,
    b: impl Into<Operand<'b, T>>,
    tiled: TileKernel2<T, T, O>,
) -> Result<Array<O>> {
    binary_layer::<T, T, O, fn(T, T) -> O>(name, a.into(), b.into(), BinaryMap::Tiled(tiled), false)
}

/// `f(x.cast::<O>(), y.cast::<O>())` over two arrays (NumPy's promotion): one
/// layer, whose C form converts the operands as `astype` does.
pub(crate) fn binary_promoted<A: Element, B: Element, O: Element>(
    name: &'static str,
    a: &Array<A>,
    b: &Array<B>,
    f: impl Fn(O, O) -> O + Send + Sync + 'static,
) -> Result<Array<O>> {
    let f = move |x: A, y: B| f(x.cast::<O>(), y.cast::<O>());
    binary_layer(name, Operand::Array(a), Operand::Array(b), BinaryMap::Element(Arc::new(f)), true)
}

fn binary_layer<A: Element, B: Element, O: Element, F: Fn(A, B) -> O + Send + Sync + 'static>(
    name: &'static str,
    a: Operand<'_, A>,
    b: Operand<'_, B>,
    map: BinaryMap<A, B, O, F>,
    promoted: bool,
) -> Result<Array<O>> {
    let mut leaves = Vec::new();
    let x = a.expr(&mut leaves);
    let y = b.expr(&mut leaves);
    let e: Expr<O> = Arc::new(Binary { name, a: x, b: y, map, promoted, _t: PhantomData });
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
}

impl<T: Real> Array<T> {
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
