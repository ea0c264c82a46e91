//! CUDA C++ for fused elementwise chains: each expression node writes its own
//! C expression, and a layer's whole (fused) expression becomes the body of one
//! kernel (see [`chunked_gpu::kernels`] for its signature).
//!
//! Only what has the CPU's exact semantics in C is translated: floating-point
//! arithmetic, comparisons, math functions, boolean logic, `where`, and
//! conversions to floating point. Integer arithmetic (Rust wraps, C overflow is
//! undefined; Rust's `x / 0` is 0 here) and user closures (`map`) are not: a
//! layer with any of them runs through host copies instead. CUDA's math
//! functions (`sin`, `exp`, `pow`, ...) are within a few ulp of glibc's; plain
//! arithmetic, comparisons and conversions are exact.

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

/// The C type of a dtype.
pub(crate) fn c_type(dtype: DType) -> Option<&'static str> {
    Some(match dtype {
        DType::F64 => "double",
        DType::F32 => "float",
        DType::I64 => "long long",
        DType::I32 => "int",
        DType::I16 => "short",
        DType::I8 => "signed char",
        DType::U64 => "unsigned long long",
        DType::U32 => "unsigned int",
        DType::U16 => "unsigned short",
        DType::U8 => "unsigned char",
        DType::Bool => "bool",
        DType::Complex64 | DType::Complex128 | DType::Intermediate => return None,
    })
}

/// An exact C literal of a value (floats by their bits; integers are not
/// translated, see the module notes).
pub(crate) fn literal<T: Element>(v: T) -> Option<String> {
    match T::DTYPE {
        DType::F64 => Some(format!("bits_f64(0x{:016X}ull)", v.to_f64().to_bits())),
        DType::F32 => Some(format!("bits_f32(0x{:08X}u)", (v.to_f64() as f32).to_bits())),
        DType::Bool => Some(if v.to_f64() != 0.0 { "true" } else { "false" }.to_string()),
        _ => None,
    }
}

/// The C form of the named unary operation from `A` to `O`.
pub(crate) fn unary_form<A: Element, O: Element>(name: &str) -> Option<CudaForm> {
    let float = A::IS_FLOAT && A::DTYPE == O::DTYPE;
    match name {
        "neg" if float => CudaForm::new("(-", ")"),
        "abs" if float => CudaForm::new("fabs(", ")"),
        "sqrt" | "exp" | "log" | "sin" | "cos" | "tanh" if float => CudaForm::new(format!("{name}("), ")"),
        "square" if float => CudaForm::new("sq(", ")"),
        "cube" if float => CudaForm::new("cube(", ")"),
        "pow" if float => CudaForm::new("(", ")"), // x ** 1
        "isnan" if A::IS_FLOAT => CudaForm::new("isnan(", ")"),
        "not" if A::DTYPE == DType::Bool => CudaForm::new("(!", ")"),
        // Conversions to floating point go through double, as the CPU's do
        // (`from_f64(to_f64(x))`: an i64 above 2^53 rounds twice on the way
        // to f32), rounding to nearest; bool is 0 or 1.
        "astype" if O::IS_FLOAT => CudaForm::new(format!("(({})((double)(", c_type(O::DTYPE)?), ")))"),
        _ => None,
    }
}

/// The C form of `x op scalar` (or `scalar op x` when `scalar_first`).
pub(crate) fn scalar_form<T: Element>(name: &str, scalar: T, scalar_first: bool) -> Option<CudaForm> {
    if !T::IS_FLOAT {
        return None;
    }
    let lit = literal(scalar)?;
    let op = match name {
        "add" => "+",
        "sub" => "-",
        "mul" => "*",
        "div" => "/",
        "rem" => {
            return if scalar_first {
                CudaForm::new(format!("fmod({lit}, "), ")")
            } else {
                CudaForm::new("fmod(", format!(", {lit})"))
            };
        }
        _ => return None,
    };
    if scalar_first { CudaForm::new(format!("({lit} {op} "), ")") } else { CudaForm::new("(", format!(" {op} {lit})")) }
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
    let infix = |op: &str| Some(format!("({a} {op} {b})"));
    match name {
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
