//! NumPy's ufuncs as `Array` methods, one file per numeric kind: each is a
//! lazy elementwise layer that fuses with its neighbours (one pass per block;
//! the kernel from [`crate::element::math`] inlined into the tile loop), and,
//! where C has the same semantics, into the generated CUDA kernel.

mod float;
mod inexact;
mod integer;
mod number;
pub use number::CloseOptions;
mod real;

/// Unary ufunc methods. Each entry: docs, `fn name -> Output = kernel;` and a
/// doc example, either exact values (`[x..] => [y..]`) or std's function of
/// a std function as the oracle (`[x..] => (f64_method)`).
macro_rules! unary_ufuncs {
    (impl<T: $bound:ident> { $(
        $(#[doc = $doc:literal])*
        fn $name:ident -> $out:ty = $kernel:expr;
        example $ty:ident [$($x:expr),*] => $want:tt;
    )* }) => {
        impl<T: $bound> Array<T> { $(
            $(#[doc = $doc])*
            ///
            #[doc = concat!(
                "```\nuse chunked_array::Array;\n",
                "let v: Vec<", stringify!($ty), "> = vec![", stringify!($($x),*), "];\n",
                "let x = Array::from_vec(&[v.len()], v.clone(), 2).unwrap();\n",
                "// NumPy: np.", stringify!($name), "(x)\n",
                "let y = x.", stringify!($name), "().compute().unwrap();\n",
                $crate::ops::elementwise::ufunc::unary_ufuncs!(@want $name, $want),
                "```"
            )]
            pub fn $name(&self) -> Array<$out> {
                let tiled = $crate::ops::elementwise::loops::tile_kernel!(<T: $bound> $kernel => $out);
                $crate::ops::elementwise::ops::unary_tiled(self, stringify!($name), tiled)
            }
        )* }
    };
    (@want $name:ident, ($f:ident)) => {
        concat!("let want: Vec<_> = v.iter().map(|x| x.", stringify!($f), "()).collect();\n",
                "assert_eq!(y.as_slice().unwrap(), &want[..]);\n")
    };
    (@want $name:ident, [$($y:expr),*]) => {
        concat!("assert_eq!(y.as_slice().unwrap(), &[", stringify!($($y),*), "]);\n")
    };
}
pub(crate) use unary_ufuncs;

/// Binary ufunc methods `name(&self, other) -> Result<Array<Output>>`, `other`
/// an array or a scalar of the same type, broadcast as NumPy does. Each entry:
/// docs, `fn name -> Output = kernel;` and an example of exact values.
macro_rules! binary_ufuncs {
    (impl<T: $bound:ident> { $(
        $(#[doc = $doc:literal])*
        fn $name:ident -> $out:ty = $kernel:expr;
        example $ty:ident [$($x:expr),*], [$($z:expr),*] => [$($y:expr),*];
    )* }) => {
        impl<T: $bound> Array<T> { $(
            $(#[doc = $doc])*
            ///
            #[doc = concat!(
                "```\nuse chunked_array::Array;\n",
                "let (a, b): (Vec<", stringify!($ty), ">, Vec<", stringify!($ty), ">) = (vec![",
                stringify!($($x),*), "], vec![", stringify!($($z),*), "]);\n",
                "let x = Array::from_vec(&[a.len()], a, 2).unwrap();\n",
                "let z = Array::from_vec(&[b.len()], b, 1).unwrap();\n",
                "// NumPy: np.", stringify!($name), "(x, z)\n",
                "let y = x.", stringify!($name), "(&z).unwrap().compute().unwrap();\n",
                "assert_eq!(y.as_slice().unwrap(), &[", stringify!($($y),*), "]);\n",
                "```\n\n# Errors\n`Error::ShapeMismatch` when the shapes do not broadcast."
            )]
            pub fn $name<'a>(&self, other: impl Into<$crate::ops::elementwise::Operand<'a, T>>) -> $crate::error::Result<Array<$out>> {
                let tiled = $crate::ops::elementwise::loops::tile_kernel2!(<T: $bound> $kernel => $out);
                $crate::ops::elementwise::ops::binary_tiled(stringify!($name), self, other, tiled)
            }
        )* }
    };
}
pub(crate) use binary_ufuncs;
