//! [`AnyArray`]'s ufuncs by NumPy's names: one table per numeric kind (the
//! same kinds as the typed methods' traits), each element type trying the
//! tables of its kinds. A name no table of the type holds is
//! [`Error::UnsupportedDtype`]; a name no table holds at all,
//! [`Error::InvalidArgument`].

use super::{AnyArray, on_each};
use crate::array::Array;
use crate::element::{DType, Element, Float, Inexact, Integer, Number, Real};
use crate::error::{Error, Result};

/// A table of unary ufuncs: the names it holds (`$names`) and `$f(x, name)`,
/// `None` for a name it does not hold.
macro_rules! unary_table {
    ($f:ident, $names:ident, $bound:ident [$($wc:tt)*]; $x:ident; $($($n:literal)|+ => $e:expr),* $(,)?) => {
        const $names: &[&str] = &[$($($n),+),*];
        fn $f<T: $bound>($x: &Array<T>, name: &str) -> Option<Result<AnyArray>>
        where
            AnyArray: From<Array<T>> + From<Array<bool>>, $($wc)*
        {
            Some(Ok(match name { $($($n)|+ => AnyArray::from($e),)* _ => return None }))
        }
    };
}

/// As `unary_table!`, for ufuncs of two arrays of one type (`Result`s).
macro_rules! binary_table {
    ($f:ident, $names:ident, $bound:ident [$($wc:tt)*]; $x:ident, $y:ident; $($($n:literal)|+ => $e:expr),* $(,)?) => {
        const $names: &[&str] = &[$($($n),+),*];
        fn $f<T: $bound>($x: &Array<T>, $y: &Array<T>, name: &str) -> Option<Result<AnyArray>>
        where
            AnyArray: From<Array<T>> + From<Array<bool>>, $($wc)*
        {
            Some(match name { $($($n)|+ => $e.map(AnyArray::from),)* _ => return None })
        }
    };
}

unary_table!(element_unary, ELEMENT_UNARY, Element []; x; "logical_not" => x.logical_not());
unary_table!(number_unary, NUMBER_UNARY, Number [AnyArray: From<Array<T::RealPart>>,]; x;
    "absolute" | "abs" => x.abs(), "negative" => -x, "positive" => x.clone(), "square" => x.square(),
    "reciprocal" => x.reciprocal(), "sign" => x.sign(), "real" => x.real(), "imag" => x.imag(),
    "conjugate" | "conj" => x.conj(), "isfinite" => x.isfinite(), "isinf" => x.isinf(), "isnan" => x.isnan(),
);
unary_table!(real_unary, REAL_UNARY, Real []; x; "signbit" => x.signbit());
unary_table!(integer_unary, INTEGER_UNARY, Integer []; x; "invert" | "bitwise_not" => x.invert());
unary_table!(float_unary, FLOAT_UNARY, Float []; x;
    "floor" => x.floor(), "ceil" => x.ceil(), "trunc" => x.trunc(), "rint" => x.rint(), "cbrt" => x.cbrt(),
    "degrees" => x.degrees(), "radians" => x.radians(), "rad2deg" => x.rad2deg(), "deg2rad" => x.deg2rad(),
    "isposinf" => x.isposinf(), "isneginf" => x.isneginf(),
);
unary_table!(inexact_unary, INEXACT_UNARY, Inexact []; x;
    "sqrt" => x.sqrt(), "exp" => x.exp(), "exp2" => x.exp2(), "expm1" => x.expm1(), "log" => x.log(),
    "log2" => x.log2(), "log10" => x.log10(), "log1p" => x.log1p(), "sin" => x.sin(), "cos" => x.cos(),
    "tan" => x.tan(), "arcsin" => x.arcsin(), "arccos" => x.arccos(), "arctan" => x.arctan(), "sinh" => x.sinh(),
    "cosh" => x.cosh(), "tanh" => x.tanh(), "arcsinh" => x.arcsinh(), "arccosh" => x.arccosh(),
    "arctanh" => x.arctanh(),
);

binary_table!(element_binary, ELEMENT_BINARY, Element []; x, y;
    "equal" => x.eq(y), "not_equal" => x.ne(y), "logical_and" => x.logical_and(y),
    "logical_or" => x.logical_or(y), "logical_xor" => x.logical_xor(y),
);
binary_table!(number_binary, NUMBER_BINARY, Number [AnyArray: From<Array<T::Quotient>>,]; x, y;
    "add" => Ok(x + y), "subtract" => Ok(x - y), "multiply" => Ok(x * y), "power" => x.pow(y),
);
binary_table!(quotient_binary, QUOTIENT_BINARY, Number [AnyArray: From<Array<T::Quotient>>,]; x, y;
    "divide" | "true_divide" => Ok(x / y),
);
binary_table!(real_binary, REAL_BINARY, Real []; x, y;
    "floor_divide" => x.floor_divide(y), "remainder" | "mod" => x.remainder(y), "fmod" => x.fmod(y),
    "maximum" => x.maximum(y), "minimum" => x.minimum(y), "less" => x.lt(y), "less_equal" => x.le(y),
    "greater" => x.gt(y), "greater_equal" => x.ge(y),
);
binary_table!(float_binary, FLOAT_BINARY, Float []; x, y;
    "hypot" => x.hypot(y), "arctan2" => x.arctan2(y), "copysign" => x.copysign(y), "nextafter" => x.nextafter(y),
    "logaddexp" => x.logaddexp(y), "logaddexp2" => x.logaddexp2(y), "heaviside" => x.heaviside(y),
    "fmax" => x.fmax(y), "fmin" => x.fmin(y),
);
binary_table!(integer_binary, INTEGER_BINARY, Integer []; x, y;
    "bitwise_and" => x.bitwise_and(y), "bitwise_or" => x.bitwise_or(y), "bitwise_xor" => x.bitwise_xor(y),
    "left_shift" => x.left_shift(y), "right_shift" => x.right_shift(y), "gcd" => x.gcd(y), "lcm" => x.lcm(y),
);

/// The unary tables of each kind of type, tried in turn.
macro_rules! unary_kinds {
    (bool, $x:expr, $n:expr) => {
        element_unary($x, $n)
    };
    (integer, $x:expr, $n:expr) => {
        integer_unary($x, $n)
            .or_else(|| real_unary($x, $n))
            .or_else(|| number_unary($x, $n))
            .or_else(|| element_unary($x, $n))
    };
    (float, $x:expr, $n:expr) => {
        float_unary($x, $n)
            .or_else(|| inexact_unary($x, $n))
            .or_else(|| real_unary($x, $n))
            .or_else(|| number_unary($x, $n))
            .or_else(|| element_unary($x, $n))
    };
    (complex, $x:expr, $n:expr) => {
        inexact_unary($x, $n).or_else(|| number_unary($x, $n)).or_else(|| element_unary($x, $n))
    };
}

/// The binary tables of each kind of type, tried in turn.
macro_rules! binary_kinds {
    (bool, $x:expr, $y:expr, $n:expr) => {
        element_binary($x, $y, $n)
    };
    (integer, $x:expr, $y:expr, $n:expr) => {
        integer_binary($x, $y, $n)
            .or_else(|| real_binary($x, $y, $n))
            .or_else(|| number_binary($x, $y, $n))
            .or_else(|| quotient_binary($x, $y, $n))
            .or_else(|| element_binary($x, $y, $n))
    };
    (float, $x:expr, $y:expr, $n:expr) => {
        float_binary($x, $y, $n)
            .or_else(|| real_binary($x, $y, $n))
            .or_else(|| number_binary($x, $y, $n))
            .or_else(|| quotient_binary($x, $y, $n))
            .or_else(|| element_binary($x, $y, $n))
    };
    (complex, $x:expr, $y:expr, $n:expr) => {
        number_binary($x, $y, $n).or_else(|| quotient_binary($x, $y, $n)).or_else(|| element_binary($x, $y, $n))
    };
}

/// `$mac!(kind, x...)` on the typed array(s) of one `AnyArray` (or two of
/// the same type).
macro_rules! by_kind {
    ($mac:ident, $any:expr, $x:ident $(, $other:expr, $y:ident)?; $($rest:expr),*) => {
        match $any {
            AnyArray::Bool($x) => by_kind!(@one $mac, bool, Bool, $x $(, $other, $y)?; $($rest),*),
            AnyArray::I8($x) => by_kind!(@one $mac, integer, I8, $x $(, $other, $y)?; $($rest),*),
            AnyArray::I16($x) => by_kind!(@one $mac, integer, I16, $x $(, $other, $y)?; $($rest),*),
            AnyArray::I32($x) => by_kind!(@one $mac, integer, I32, $x $(, $other, $y)?; $($rest),*),
            AnyArray::I64($x) => by_kind!(@one $mac, integer, I64, $x $(, $other, $y)?; $($rest),*),
            AnyArray::U8($x) => by_kind!(@one $mac, integer, U8, $x $(, $other, $y)?; $($rest),*),
            AnyArray::U16($x) => by_kind!(@one $mac, integer, U16, $x $(, $other, $y)?; $($rest),*),
            AnyArray::U32($x) => by_kind!(@one $mac, integer, U32, $x $(, $other, $y)?; $($rest),*),
            AnyArray::U64($x) => by_kind!(@one $mac, integer, U64, $x $(, $other, $y)?; $($rest),*),
            AnyArray::F32($x) => by_kind!(@one $mac, float, F32, $x $(, $other, $y)?; $($rest),*),
            AnyArray::F64($x) => by_kind!(@one $mac, float, F64, $x $(, $other, $y)?; $($rest),*),
            AnyArray::Complex64($x) => by_kind!(@one $mac, complex, Complex64, $x $(, $other, $y)?; $($rest),*),
            AnyArray::Complex128($x) => by_kind!(@one $mac, complex, Complex128, $x $(, $other, $y)?; $($rest),*),
        }
    };
    (@one $mac:ident, $kind:ident, $v:ident, $x:ident; $($rest:expr),*) => { $mac!($kind, $x, $($rest),*) };
    (@one $mac:ident, $kind:ident, $v:ident, $x:ident, $other:expr, $y:ident; $($rest:expr),*) => {
        match $other {
            AnyArray::$v($y) => $mac!($kind, $x, $y, $($rest),*),
            _ => unreachable!("both operands are converted to their result type first"),
        }
    };
}

/// The error for `name` on `dtype`: unsupported if some table holds it.
fn not_found(name: &str, dtype: DType, tables: &[&[&str]]) -> Error {
    if tables.iter().any(|t| t.contains(&name)) {
        Error::UnsupportedDtype { op: name.to_string(), dtype: dtype.to_string() }
    } else {
        Error::InvalidArgument {
            name: "ufunc".into(),
            value: name.into(),
            reason: "not a ufunc that chunked has".into(),
        }
    }
}

impl AnyArray {
    /// NumPy's unary ufunc `name` (`"sqrt"`, `"floor"`, `"isnan"`, `"invert"`, ...),
    /// lazily, as the typed method of the same name.
    ///
    /// ```
    /// use chunked_array::{AnyArray, Array, Complex64, Error};
    /// let z = AnyArray::from(Array::from_vec(&[1], vec![Complex64::new(3.0, 4.0)], 1).unwrap());
    /// assert_eq!(z.unary("absolute").unwrap().downcast::<f64>().unwrap().compute().unwrap()[0], 5.0);
    /// let e = z.unary("floor").unwrap_err(); // NumPy: TypeError, ufunc 'floor' not supported
    /// assert_eq!(e.to_string(), "floor is not defined for complex128");
    /// assert!(matches!(z.unary("no_such_ufunc"), Err(Error::InvalidArgument { .. })));
    /// ```
    ///
    /// # Errors
    /// [`Error::UnsupportedDtype`] naming the ufunc and the type where the type
    /// has no such operation; [`Error::InvalidArgument`] for an unknown name.
    pub fn unary(&self, name: &str) -> Result<AnyArray> {
        let tables = [ELEMENT_UNARY, NUMBER_UNARY, REAL_UNARY, INTEGER_UNARY, FLOAT_UNARY, INEXACT_UNARY];
        by_kind!(unary_kinds, self, x; name).unwrap_or_else(|| Err(not_found(name, self.dtype(), &tables)))
    }

    /// NumPy's binary ufunc `name` (`"add"`, `"divide"`, `"arctan2"`,
    /// `"bitwise_and"`, `"less"`, ...) of `self` and `other`, after converting
    /// both to their result type ([`DType::result_type`]), broadcast as NumPy.
    ///
    /// ```
    /// use chunked_array::{AnyArray, Array, DType};
    /// let a = AnyArray::from(Array::from_vec(&[2], vec![1i32, 2], 1).unwrap());
    /// let b = AnyArray::from(Array::from_vec(&[2], vec![0.5f32, 0.25], 1).unwrap());
    /// let c = a.binary("add", &b).unwrap(); // int32 with float32 is float64
    /// assert_eq!(c.dtype(), DType::F64);
    /// assert_eq!(c.downcast::<f64>().unwrap().compute().unwrap().as_slice().unwrap(), &[1.5, 2.25]);
    /// assert!(b.binary("bitwise_and", &b).is_err());
    /// ```
    ///
    /// # Errors
    /// As [`AnyArray::unary`]; [`Error::ShapeMismatch`] when the shapes do not
    /// broadcast.
    pub fn binary(&self, name: &str, other: &AnyArray) -> Result<AnyArray> {
        let tables = [ELEMENT_BINARY, NUMBER_BINARY, QUOTIENT_BINARY, REAL_BINARY, FLOAT_BINARY, INTEGER_BINARY];
        let dtype = self.dtype().result_type(other.dtype()).expect("arrays never hold the intermediate type");
        let (a, b) = (self.astype(dtype)?, other.astype(dtype)?);
        let out = by_kind!(binary_kinds, &a, x, &b, y; name).unwrap_or_else(|| Err(not_found(name, dtype, &tables)))?;
        // The arithmetic operators carry a shape error in the array they return.
        on_each!(&out, r => r.check())?;
        Ok(out)
    }
}
