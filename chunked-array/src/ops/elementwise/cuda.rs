//! CUDA C++ for fused elementwise chains: each expression node writes its own
//! C expression, and a layer's whole (fused) expression becomes the body of one
//! kernel (see [`chunked_gpu::kernels`] for its signature).
//!
//! Only what has the CPU's exact semantics in C is translated: floating-point
//! arithmetic, comparisons, math functions and the float ufuncs (NumPy's
//! `floor_divide`, `remainder`, `logaddexp`, ... as helpers that repeat the
//! CPU's steps), boolean logic, `where`, conversions to floating point and
//! between integers, and the integer operations that wrap (`+ - *` in
//! unsigned arithmetic, which wraps in C as in Rust; bitwise logic;
//! comparisons). Integer division (Rust's `x / 0` is 0 here, C's is
//! undefined), shifts and user closures (`map`) are not: a layer with any of
//! them runs through host copies instead. Complex numbers are the `c64` and
//! `c128` structs of the kernel helpers: arithmetic (num-complex's product,
//! NumPy's division), comparisons for equality, conjugate, parts, modulus,
//! angle, sign, classification, conversions, powers, and the
//! transcendental ufuncs (num-complex's and NumPy's steps) have device forms.
//! CUDA's math functions (`sin`, `exp`, `pow`, ...) are within a few ulp of
//! glibc's; plain arithmetic, comparisons and conversions are exact.

use std::fmt::Write;

use crate::element::{DType, Element};

/// A unary operation's C form: `prefix` + operand + `suffix`.
#[derive(Clone, Debug)]
pub(crate) struct CudaForm {
    pub prefix: String,
    pub suffix: String,
}

impl CudaForm {
    fn new(prefix: impl Into<String>, suffix: impl Into<String>) -> Option<CudaForm> {
        Some(CudaForm { prefix: prefix.into(), suffix: suffix.into() })
    }

    pub fn apply(&self, a: &str) -> String {
        format!("{}{a}{}", self.prefix, self.suffix)
    }
}

/// The C type of a dtype: the device element type's own, and `bool`.
pub(crate) fn c_type(dtype: DType) -> Option<&'static str> {
    fn of<T: chunked_gpu::DeviceElement>() -> &'static str {
        T::C_TYPE
    }
    match dtype {
        DType::Bool => Some("bool"),
        DType::Intermediate => None,
        _ => Some(crate::block::device::dispatch_device_dtype!(dtype, of::<_>())),
    }
}

/// An exact C literal of a value (floats by their bits; integers are not
/// translated, see the module notes).
pub(crate) fn literal<T: Element>(v: T) -> Option<String> {
    match T::DTYPE {
        DType::F64 => Some(format!("bits_f64(0x{:016X}ull)", v.to_f64().to_bits())),
        DType::F32 => Some(format!("bits_f32(0x{:08X}u)", (v.to_f64() as f32).to_bits())),
        DType::Bool => Some(if v.to_f64() != 0.0 { "true" } else { "false" }.to_string()),
        // Integers by their two's-complement bits: no literal overflows.
        d if is_integer(d) => Some(format!("(({})0x{:X}ull)", c_type(d)?, v.to_i64() as u64)),
        DType::Complex128 => {
            let z = v.to_complex();
            Some(format!("mk_c128(bits_f64(0x{:016X}ull), bits_f64(0x{:016X}ull))", z.re.to_bits(), z.im.to_bits()))
        }
        DType::Complex64 => {
            let z = v.to_complex();
            let (re, im) = ((z.re as f32).to_bits(), (z.im as f32).to_bits());
            Some(format!("mk_c64(bits_f32(0x{re:08X}u), bits_f32(0x{im:08X}u))"))
        }
        _ => None,
    }
}

fn is_integer(d: DType) -> bool {
    matches!(d, DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::U8 | DType::U16 | DType::U32 | DType::U64)
}

/// The unsigned type integer arithmetic of `d` wraps in (at least `unsigned
/// int`, so that C's promotion to `int` cannot overflow).
fn wrapping_type(d: DType) -> &'static str {
    if d.size() == 8 { "unsigned long long" } else { "unsigned int" }
}

/// C's function for a float ufunc whose C function has the CPU kernel's
/// semantics (to a few ulp for the transcendental ones).
fn c_function(name: &str) -> Option<&'static str> {
    const SAME_NAME: [&str; 8] = ["sqrt", "sin", "cos", "floor", "ceil", "trunc", "rint", "tan"];
    if let Some(&f) = SAME_NAME.iter().find(|&&f| f == name) {
        return Some(f);
    }
    Some(match name {
        "exp" => "vl_exp",
        "exp2" => "vl_exp2",
        "cbrt" => "vl_cbrt",
        "expm1" => "vl_expm1",
        "log1p" => "vl_log1p",
        "log" => "vl_log",
        "log2" => "vl_log2",
        "log10" => "vl_log10",
        "sinh" => "vl_sinh",
        "cosh" => "vl_cosh",
        "tanh" => "vl_tanh",
        "arcsin" => "asin",
        "arccos" => "acos",
        "arctan" => "vl_atan",
        "arcsinh" => "vl_asinh",
        "arccosh" => "vl_acosh",
        "arctanh" => "vl_atanh",
        "sign" => "sign_of",
        _ => return None,
    })
}

/// `x * c` with `c` the CPU's constant `180 / π` or `π / 180` in `T`.
fn angle_form<T: Element>(to_degrees: bool) -> Option<CudaForm> {
    let c = match (T::DTYPE, to_degrees) {
        (DType::F64, true) => 180.0 / std::f64::consts::PI,
        (DType::F64, false) => std::f64::consts::PI / 180.0,
        (DType::F32, true) => (180.0 / std::f32::consts::PI) as f64,
        (DType::F32, false) => (std::f32::consts::PI / 180.0) as f64,
        _ => return None,
    };
    CudaForm::new("(", format!(" * {})", literal(T::from_f64(c))?))
}

/// The complex ufuncs whose C form is the kernel helpers' `{name}_of`.
const COMPLEX_FUNCTIONS: [&str; 20] = [
    "exp", "sqrt", "expm1", "log1p", "log", "exp2", "log2", "log10", "sin", "cos", "tan", "sinh", "cosh", "tanh",
    "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
];

/// The C form of a unary operation on complex `A` (see the module notes).
fn complex_unary_form<A: Element, O: Element>(name: &str) -> Option<CudaForm> {
    let same = A::DTYPE == O::DTYPE;
    let to_real = O::IS_FLOAT && O::DTYPE.size() * 2 == A::DTYPE.size();
    match name {
        "neg" if same => CudaForm::new("(-", ")"),
        "conj" if same => CudaForm::new("conj_of(", ")"),
        "square" if same => CudaForm::new("sq(", ")"),
        "sign" if same => CudaForm::new("sign_of(", ")"),
        "reciprocal" if same => CudaForm::new(format!("({} / (", literal(A::from_f64(1.0))?), "))"),
        "real" if to_real => CudaForm::new("((", ").re)"),
        "imag" if to_real => CudaForm::new("((", ").im)"),
        "abs" if to_real => CudaForm::new("abs_of(", ")"),
        "angle" if to_real => CudaForm::new("angle_of(", ")"),
        "isnan" | "isfinite" | "isinf" if O::DTYPE == DType::Bool => CudaForm::new(format!("{name}_of("), ")"),
        _ if same && COMPLEX_FUNCTIONS.contains(&name) => CudaForm::new(format!("{name}_of("), ")"),
        // The real part, through f64 as the CPU's `from_complex`.
        "astype" if O::IS_FLOAT => CudaForm::new(format!("(({})((double)(", c_type(O::DTYPE)?), ").re))"),
        _ => None,
    }
}

/// The C form of the named unary operation from `A` to `O`.
pub(crate) fn unary_form<A: Element, O: Element>(name: &str) -> Option<CudaForm> {
    if name == "astype" && O::IS_COMPLEX {
        // From any number or bool (the helpers' overloads).
        return CudaForm::new(format!("to_{}(", c_type(O::DTYPE)?), ")");
    }
    if A::IS_COMPLEX {
        return complex_unary_form::<A, O>(name);
    }
    let float = A::IS_FLOAT && A::DTYPE == O::DTYPE;
    let int = is_integer(A::DTYPE) && A::DTYPE == O::DTYPE;
    let (t, u) = (c_type(O::DTYPE)?, wrapping_type(O::DTYPE));
    match name {
        "neg" if float => CudaForm::new("(-", ")"),
        "neg" if int => CudaForm::new(format!("(({t})(0u - ({u})("), ")))"),
        "square" if int => CudaForm::new(format!("(({t})sq(({u})("), ")))"),
        "invert" if int => CudaForm::new(format!("(({t})~("), "))"),
        "abs" if float => CudaForm::new("fabs(", ")"),
        "degrees" if float => angle_form::<A>(true),
        "radians" if float => angle_form::<A>(false),
        "reciprocal" if float => CudaForm::new(format!("(({t})1 / ("), "))"),
        "real" | "conj" if float => CudaForm::new("(", ")"),
        "isfinite" | "isinf" | "signbit" if A::IS_FLOAT => CudaForm::new(format!("{name}("), ")"),
        _ if float && c_function(name).is_some() => CudaForm::new(format!("{}(", c_function(name)?), ")"),
        "square" if float => CudaForm::new("sq(", ")"),
        "cube" if float => CudaForm::new("cube(", ")"),
        "pow" if float => CudaForm::new("(", ")"), // x ** 1
        "isnan" if A::IS_FLOAT => CudaForm::new("isnan(", ")"),
        "not" | "logical_not" if A::DTYPE == DType::Bool => CudaForm::new("(!", ")"),
        // Conversions to floating point go through double, as the CPU's do
        // (`from_f64(to_f64(x))`: an i64 above 2^53 rounds twice on the way
        // to f32), rounding to nearest; bool is 0 or 1.
        "astype" if O::IS_FLOAT => CudaForm::new(format!("(({})((double)(", c_type(O::DTYPE)?), ")))"),
        // Between integers (and from bool): the low bits, as Rust's `as`.
        "astype" if is_integer(O::DTYPE) && (is_integer(A::DTYPE) || A::DTYPE == DType::Bool) => {
            CudaForm::new(format!("(({t})("), "))")
        }
        "astype" if O::DTYPE == DType::Bool && c_type(A::DTYPE).is_some() => CudaForm::new("((", ") != 0)"),
        _ => None,
    }
}

/// `x`, the C expression of an `A`, converted to `O` as `astype` does
/// (itself where the types are the same).
pub(crate) fn converted<A: Element, O: Element>(x: String) -> Option<String> {
    if A::DTYPE == O::DTYPE { Some(x) } else { Some(unary_form::<A, O>("astype")?.apply(&x)) }
}

/// The C form of `x op scalar` (or `scalar op x` when `scalar_first`): the
/// binary form with the literal in place of one operand.
pub(crate) fn scalar_form<T: Element>(name: &str, scalar: T, scalar_first: bool) -> Option<CudaForm> {
    const HOLE: &str = "\u{1}";
    let lit = literal(scalar)?;
    let name = if name == "rem" && T::IS_FLOAT { "fmod" } else { name };
    let expr =
        if scalar_first { binary_expr::<T, T>(name, &lit, HOLE)? } else { binary_expr::<T, T>(name, HOLE, &lit)? };
    let (prefix, suffix) = expr.split_once(HOLE)?;
    CudaForm::new(prefix, suffix)
}

/// The C form of `clip(x, low, high)` (NaN stays NaN, as on the CPU).
pub(crate) fn clip_form<T: Element>(low: T, high: T) -> Option<CudaForm> {
    if !T::IS_FLOAT {
        return None;
    }
    let (lo, hi) = (literal(low)?, literal(high)?);
    // x < lo ? lo : (x > hi ? hi : x), with x evaluated once.
    CudaForm::new(format!("clip_to({lo}, {hi}, "), ")")
}

/// The C expression of the named binary operation of `a` and `b`.
pub(crate) fn binary_expr<A: Element, B: Element>(name: &str, a: &str, b: &str) -> Option<String> {
    let same = A::DTYPE == B::DTYPE;
    let float = same && A::IS_FLOAT;
    let boolean = same && A::DTYPE == DType::Bool;
    let int = same && is_integer(A::DTYPE);
    let complex = same && A::IS_COMPLEX;
    let infix = |op: &str| Some(format!("({a} {op} {b})"));
    let wrap = |op: &str| {
        let (t, u) = (c_type(A::DTYPE)?, wrapping_type(A::DTYPE));
        Some(format!("(({t})(({u})({a}) {op} ({u})({b})))"))
    };
    let call = |f: &str| Some(format!("{f}({a}, {b})"));
    match name {
        "add" if int => wrap("+"),
        "sub" if int => wrap("-"),
        "mul" if int => wrap("*"),
        "bitwise_and" if int => wrap("&"),
        "bitwise_or" if int => wrap("|"),
        "bitwise_xor" if int => wrap("^"),
        "maximum" | "fmax" if int => call("max_of"),
        "minimum" | "fmin" if int => call("min_of"),
        "eq" if int => infix("=="),
        "ne" if int => infix("!="),
        "lt" if int => infix("<"),
        "le" if int => infix("<="),
        "gt" if int => infix(">"),
        "ge" if int => infix(">="),
        "copysign" | "nextafter" | "fmax" | "fmin" if float => call(name),
        "hypot" if float => call("vl_hypot"),
        "arctan2" if float => call("vl_atan2"),
        "floor_divide" if float => call("floor_div"),
        "remainder" if float => call("py_mod"),
        "logaddexp" if float => call("vl_logaddexp"),
        "logaddexp2" if float => call("vl_logaddexp2"),
        "heaviside" if float => call("heaviside_of"),
        "logical_and" if boolean => infix("&&"),
        "logical_or" if boolean => infix("||"),
        "logical_xor" if boolean => infix("!="),
        "add" if complex => infix("+"),
        "sub" if complex => infix("-"),
        "mul" if complex => infix("*"),
        "div" if complex => infix("/"),
        "pow" if complex => call("pow_of"),
        "eq" if complex => infix("=="),
        "ne" if complex => infix("!="),
        "add" if float => infix("+"),
        "sub" if float => infix("-"),
        "mul" if float => infix("*"),
        "div" if float => infix("/"),
        "rem" | "fmod" if float => Some(format!("fmod({a}, {b})")),
        "pow" if float => Some(format!("pow({a}, {b})")),
        "maximum" if float => Some(format!("max_nan({a}, {b})")),
        "minimum" if float => Some(format!("min_nan({a}, {b})")),
        "eq" if float || boolean => infix("=="),
        "ne" if float || boolean => infix("!="),
        "lt" if float => infix("<"),
        "le" if float => infix("<="),
        "gt" if float => infix(">"),
        "ge" if float => infix(">="),
        "and" if boolean => infix("&&"),
        "or" if boolean => infix("||"),
        "xor" if boolean => infix("!="),
        _ => None,
    }
}

/// The kernel of a layer whose fused expression is `body`, writing `O`s and
/// reading one input per dtype in `leaves` (see the module notes); `None`
/// when a type has no device form.
pub(crate) fn kernel_source(out: DType, leaves: &[DType], body: &str) -> Option<String> {
    let out_c = c_type(out)?;
    let mut s = String::from(chunked_gpu::kernels::ELEMENTWISE_HELPERS);
    let _ = write!(
        s,
        "extern \"C\" __global__ void {}({out_c}* out, unsigned long long n, int ndim, const long long* meta, int contiguous",
        chunked_gpu::kernels::ELEMENTWISE_ENTRY
    );
    for (k, d) in leaves.iter().enumerate() {
        let _ = write!(s, ", const {}* x{k}", c_type(*d)?);
    }
    s.push_str(") {\n    unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;\n");
    s.push_str("    for (unsigned long long e = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += step) {\n");
    for k in 0..leaves.len() {
        let _ = writeln!(s, "        long long o{k} = (long long)e;");
    }
    if !leaves.is_empty() {
        s.push_str("        if (!contiguous) {\n");
        for k in 0..leaves.len() {
            let _ = writeln!(s, "            o{k} = meta[ndim + {k} * (ndim + 1)];");
        }
        s.push_str("            unsigned long long r = e;\n            for (int a = ndim - 1; a >= 0; a--) {\n");
        s.push_str("                long long i = (long long)(r % (unsigned long long)meta[a]);\n                r /= (unsigned long long)meta[a];\n");
        for k in 0..leaves.len() {
            let _ = writeln!(s, "                o{k} += i * meta[ndim + {k} * (ndim + 1) + 1 + a];");
        }
        s.push_str("            }\n        }\n");
    }
    let _ = writeln!(s, "        out[e] = ({out_c})({body});\n    }}\n}}");
    Some(s)
}
