//! The loops a fused elementwise chain runs over each tile, compiled once per
//! vector width (AVX-512, AVX2 and the baseline's SSE2) and chosen at run time.
//! Each operation's closure is inlined into them, so a chain of cheap
//! operations runs at the CPU's vector width, not at the baseline's two lanes.
//! Plain multiplies and adds are never fused into FMAs (Rust asks LLVM for no
//! contraction), so every width computes the same bits.
//!
//! The `_in_place` loops write the result over their first (or second)
//! operand, whose element type is then the output's: a parent evaluates its
//! child into its own output tile and maps it there, so a chain of N
//! operations touches one tile buffer instead of N. They write element `i`
//! through the pointer they read it from, so the compiler sees a dependence of
//! distance zero and vectorizes them without overlap checks.

use std::any::TypeId;

use crate::element::Element;

/// The widest vector instructions this CPU has, as far as these loops use them.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Width {
    Avx512,
    Avx2,
    Base,
}

pub(crate) fn width() -> Width {
    #[cfg(target_arch = "x86_64")]
    {
        static WIDTH: std::sync::OnceLock<Width> = std::sync::OnceLock::new();
        *WIDTH.get_or_init(|| {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx512f") && has!("avx512dq") && has!("avx512vl") && has!("avx512bw") && has!("fma") {
                Width::Avx512
            } else if has!("avx2") && has!("fma") {
                Width::Avx2
            } else {
                Width::Base
            }
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    Width::Base
}

/// A safe function whose body is compiled three times (see the module notes)
/// and dispatched on [`width`]. Every generic parameter takes one bound.
macro_rules! multiversion {
    ($(#[$m:meta])* fn $name:ident<$($g:ident: $b:path),*>($($arg:ident: $ty:ty),*) $body:block) => {
        $(#[$m])*
        #[inline]
        pub(crate) fn $name<$($g: $b),*>($($arg: $ty),*) {
            #[inline(always)]
            fn body<$($g: $b),*>($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw,avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
                fn wide<$($g: $b),*>($($arg: $ty),*) {
                    body($($arg),*)
                }
                #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
                fn mid<$($g: $b),*>($($arg: $ty),*) {
                    body($($arg),*)
                }
                use $crate::ops::elementwise::loops::Width;
                match $crate::ops::elementwise::loops::width() {
                    // SAFETY: `width` found these instructions on this CPU.
                    Width::Avx512 => return unsafe { wide($($arg),*) },
                    // SAFETY: as above.
                    Width::Avx2 => return unsafe { mid($($arg),*) },
                    Width::Base => {}
                }
            }
            body($($arg),*)
        }
    };
}

/// `A` and `B` are one type (checked once per tile; a constant after
/// monomorphization), so a buffer of one may be written as the other.
#[inline(always)]
pub(crate) fn same_type<A: 'static, B: 'static>() {
    assert!(TypeId::of::<A>() == TypeId::of::<B>(), "an in-place loop between two element types");
}

pub(crate) use multiversion;

/// A unary kernel compiled into its own tile loops ([`tile_kernel!`]): the
/// element function is called directly in them, not through a closure, so
/// an `#[inline(always)]` kernel is inlined and vectorized however large it
/// is (a call through `Fn` stays a call once the kernel passes LLVM's
/// inlining threshold, and the loop stays scalar).
pub(crate) struct TileKernel<A, O> {
    /// `out[i] = f(a[i])`.
    pub map: fn(&mut [O], &[A]),
    /// `buf[i] = f(buf[i])`; called only where `A` is `O`.
    pub in_place: fn(&mut [A]),
}

impl<A, O> Clone for TileKernel<A, O> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<A, O> Copy for TileKernel<A, O> {}

/// The [`TileKernel`] of `kernel` (a function or closure of one `T: bound`
/// returning `out`, a type that may name `T`).
macro_rules! tile_kernel {
    (<T: $bound:path> $kernel:expr => $out:ty) => {{
        $crate::ops::elementwise::loops::multiversion! {
            fn map<T: $bound>(out: &mut [$out], a: &[T]) {
                for (o, &x) in out.iter_mut().zip(a) {
                    *o = ($kernel)(x);
                }
            }
        }
        $crate::ops::elementwise::loops::multiversion! {
            fn in_place<T: $bound>(buf: &mut [T]) {
                $crate::ops::elementwise::loops::same_type::<T, $out>();
                let p = buf.as_mut_ptr();
                for i in 0..buf.len() {
                    // SAFETY: i < buf.len(); T is the output type, so an
                    // output fits where the input was.
                    unsafe { p.cast::<$out>().add(i).write(($kernel)(p.add(i).read())) }
                }
            }
        }
        $crate::ops::elementwise::loops::TileKernel { map: map::<T>, in_place: in_place::<T> }
    }};
}
pub(crate) use tile_kernel;

/// A binary kernel of one type compiled into its own tile loops
/// ([`tile_kernel2!`]), as [`TileKernel`] is for a unary one, with loops of
/// their own for a scalar operand (held in a register, not a filled tile).
pub(crate) struct TileKernel2<A, B, O> {
    /// `out[i] = f(a[i], b[i])`.
    pub map: fn(&mut [O], &[A], &[B]),
    /// `buf[i] = f(buf[i], b[i])`; called only where `A` is `O`.
    pub in_place_first: fn(&mut [A], &[B]),
    /// `buf[i] = f(a[i], buf[i])`; called only where `B` is `O`.
    pub in_place_second: fn(&[A], &mut [B]),
    /// `out[i] = f(a[i], y)`.
    pub with_second: fn(&mut [O], &[A], B),
    /// `buf[i] = f(buf[i], y)`; called only where `A` is `O`.
    pub with_second_in_place: fn(&mut [A], B),
    /// `out[i] = f(x, b[i])`.
    pub with_first: fn(&mut [O], A, &[B]),
    /// `buf[i] = f(x, buf[i])`; called only where `B` is `O`.
    pub with_first_in_place: fn(A, &mut [B]),
}

impl<A, B, O> Clone for TileKernel2<A, B, O> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<A, B, O> Copy for TileKernel2<A, B, O> {}

/// The [`TileKernel2`] of `kernel` (a function of two `T: bound` returning
/// `out`, a type that may name `T`).
macro_rules! tile_kernel2 {
    (<T: $bound:path> $kernel:expr => $out:ty) => {{
        $crate::ops::elementwise::loops::multiversion! {
            fn map<T: $bound>(out: &mut [$out], a: &[T], b: &[T]) {
                for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                    *o = ($kernel)(x, y);
                }
            }
        }
        $crate::ops::elementwise::loops::multiversion! {
            fn in_place_first<T: $bound>(buf: &mut [T], b: &[T]) {
                $crate::ops::elementwise::loops::same_type::<T, $out>();
                let n = buf.len().min(b.len());
                let p = buf.as_mut_ptr();
                for (i, &y) in b[..n].iter().enumerate() {
                    // SAFETY: i < n <= buf.len(); T is the output type.
                    unsafe { p.cast::<$out>().add(i).write(($kernel)(p.add(i).read(), y)) }
                }
            }
        }
        $crate::ops::elementwise::loops::multiversion! {
            fn in_place_second<T: $bound>(a: &[T], buf: &mut [T]) {
                $crate::ops::elementwise::loops::same_type::<T, $out>();
                let n = buf.len().min(a.len());
                let p = buf.as_mut_ptr();
                for (i, &x) in a[..n].iter().enumerate() {
                    // SAFETY: i < n <= buf.len(); T is the output type.
                    unsafe { p.cast::<$out>().add(i).write(($kernel)(x, p.add(i).read())) }
                }
            }
        }
        $crate::ops::elementwise::loops::multiversion! {
            fn with_second<T: $bound>(out: &mut [$out], a: &[T], y: T) {
                for (o, &x) in out.iter_mut().zip(a) {
                    *o = ($kernel)(x, y);
                }
            }
        }
        $crate::ops::elementwise::loops::multiversion! {
            fn with_first<T: $bound>(out: &mut [$out], x: T, b: &[T]) {
                for (o, &y) in out.iter_mut().zip(b) {
                    *o = ($kernel)(x, y);
                }
            }
        }
        $crate::ops::elementwise::loops::multiversion! {
            fn with_second_in_place<T: $bound>(buf: &mut [T], y: T) {
                $crate::ops::elementwise::loops::same_type::<T, $out>();
                let p = buf.as_mut_ptr();
                for i in 0..buf.len() {
                    // SAFETY: i < buf.len(); T is the output type.
                    unsafe { p.cast::<$out>().add(i).write(($kernel)(p.add(i).read(), y)) }
                }
            }
        }
        $crate::ops::elementwise::loops::multiversion! {
            fn with_first_in_place<T: $bound>(x: T, buf: &mut [T]) {
                $crate::ops::elementwise::loops::same_type::<T, $out>();
                let p = buf.as_mut_ptr();
                for i in 0..buf.len() {
                    // SAFETY: i < buf.len(); T is the output type.
                    unsafe { p.cast::<$out>().add(i).write(($kernel)(x, p.add(i).read())) }
                }
            }
        }
        $crate::ops::elementwise::loops::TileKernel2 {
            map: map::<T>,
            in_place_first: in_place_first::<T>,
            in_place_second: in_place_second::<T>,
            with_second: with_second::<T>,
            with_second_in_place: with_second_in_place::<T>,
            with_first: with_first::<T>,
            with_first_in_place: with_first_in_place::<T>,
        }
    }};
}
pub(crate) use tile_kernel2;

multiversion! {
    /// `out[i] = f(a[i])`.
    fn map1<A: Copy, O: Copy, F: Fn(A) -> O>(out: &mut [O], a: &[A], f: &F) {
        for (o, &x) in out.iter_mut().zip(a) {
            *o = f(x);
        }
    }
}

multiversion! {
    /// `out[i] = f(a[i], b[i])`.
    fn map2<A: Copy, B: Copy, O: Copy, F: Fn(A, B) -> O>(out: &mut [O], a: &[A], b: &[B], f: &F) {
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            *o = f(x, y);
        }
    }
}

multiversion! {
    /// `out[i] = f(a[i], b[i], c[i])`.
    fn map3<A: Copy, B: Copy, C: Copy, O: Copy, F: Fn(A, B, C) -> O>(out: &mut [O], a: &[A], b: &[B], c: &[C], f: &F) {
        for (((o, &x), &y), &z) in out.iter_mut().zip(a).zip(b).zip(c) {
            *o = f(x, y, z);
        }
    }
}

multiversion! {
    /// `buf[i] = f(buf[i])`, where `buf` holds `A`s and then `O`s: the same type.
    fn map1_in_place<A: Element, O: Element, F: Fn(A) -> O>(buf: &mut [A], f: &F) {
        same_type::<A, O>();
        let p = buf.as_mut_ptr();
        for i in 0..buf.len() {
            // SAFETY: i < buf.len(); A is O, so an O fits where the A was.
            unsafe { p.cast::<O>().add(i).write(f(p.add(i).read())) }
        }
    }
}

multiversion! {
    /// `buf[i] = f(buf[i], b[i])`, where `buf` holds `A`s and then `O`s: the same type.
    fn map2_in_place<A: Element, B: Copy, O: Element, F: Fn(A, B) -> O>(buf: &mut [A], b: &[B], f: &F) {
        same_type::<A, O>();
        let n = buf.len().min(b.len());
        let p = buf.as_mut_ptr();
        for (i, &y) in b[..n].iter().enumerate() {
            // SAFETY: i < n <= buf.len(); A is O.
            unsafe { p.cast::<O>().add(i).write(f(p.add(i).read(), y)) }
        }
    }
}

/// `buf[i] = f(a[i], buf[i])`, where `buf` holds `B`s and then `O`s: the same type.
#[inline]
pub(crate) fn map2_in_place_second<A: Copy, B: Element, O: Element, F: Fn(A, B) -> O>(a: &[A], buf: &mut [B], f: &F) {
    map2_in_place(buf, a, &|y: B, x: A| f(x, y))
}

/// `buf` seen as a slice of `B`, when `A` is `B`: a parent's output tile
/// lent to a child of the same type.
#[inline(always)]
pub(crate) fn as_same<A: 'static, B: 'static>(buf: &mut [A]) -> Option<&mut [B]> {
    // SAFETY: A is B, so the slice's layout and values are B's.
    (TypeId::of::<A>() == TypeId::of::<B>())
        .then(|| unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<B>(), buf.len()) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_width_computes_what_a_plain_loop_does() {
        let a: Vec<f64> = (0..1000).map(|i| (i as f64 - 500.3) * 0.37).collect();
        let b: Vec<f64> = (0..1000).map(|i| ((i * 7919) % 1000) as f64 * 0.01 - 3.0).collect();
        let f = |x: f64, y: f64| if x > y { x * y } else { x - y };
        let want: Vec<f64> = a.iter().zip(&b).map(|(&x, &y)| f(x, y)).collect();
        let mut out = vec![0.0; 1000];
        map2(&mut out, &a, &b, &f);
        assert_eq!(out, want);
        let mut buf = a.clone();
        map2_in_place(&mut buf, &b, &f);
        assert_eq!(buf, want);
        let mut buf = b.clone();
        map2_in_place_second(&a, &mut buf, &f);
        assert_eq!(buf, want);
        let mut buf = a.clone();
        map1_in_place(&mut buf, &|x: f64| x.floor());
        assert_eq!(buf, a.iter().map(|x| x.floor()).collect::<Vec<_>>());
        let mut ints = vec![0i64; 1000];
        map3(&mut ints, &a, &b, &a, &|x: f64, y: f64, z: f64| (x + y * z) as i64);
        assert_eq!(ints, (0..1000).map(|i| (a[i] + b[i] * a[i]) as i64).collect::<Vec<_>>());
        assert!(as_same::<f64, f32>(&mut buf).is_none());
        assert_eq!(as_same::<f64, f64>(&mut buf).map(|s| s.len()), Some(1000));
    }

    fn log1p_kernel<T: crate::element::Inexact>() -> TileKernel<T, T> {
        tile_kernel!(<T: crate::element::Inexact> crate::element::math::InexactMath::log1p => T)
    }

    fn is_nan_kernel<T: crate::element::Number>() -> TileKernel<T, bool> {
        tile_kernel!(<T: crate::element::Number> |x: T| x.is_nan() => bool)
    }

    fn atan2_kernel<T: crate::element::Float>() -> TileKernel2<T, T, T> {
        tile_kernel2!(<T: crate::element::Float> crate::element::math::FloatMath::atan2 => T)
    }

    #[test]
    fn a_binary_kernels_own_loops_compute_what_it_does_per_element() {
        use crate::element::math::FloatMath;
        let a: Vec<f64> = (0..1000).map(|i| (i as f64 - 500.3) * 0.37).collect();
        let b: Vec<f64> = (0..1000).map(|i| ((i * 7919) % 1000) as f64 * 0.01 - 3.0).collect();
        let want: Vec<f64> = a.iter().zip(&b).map(|(&y, &x)| FloatMath::atan2(y, x)).collect();
        let kernel = atan2_kernel::<f64>();
        let mut out = vec![0.0; 1000];
        (kernel.map)(&mut out, &a, &b);
        assert_eq!(out, want);
        let mut buf = a.clone();
        (kernel.in_place_first)(&mut buf, &b);
        assert_eq!(buf, want);
        let mut buf = b.clone();
        (kernel.in_place_second)(&a, &mut buf);
        assert_eq!(buf, want);
        let (first, second): (Vec<f64>, Vec<f64>) =
            a.iter().map(|&v| (FloatMath::atan2(-2.5, v), FloatMath::atan2(v, -2.5))).unzip();
        (kernel.with_first)(&mut out, -2.5, &a);
        assert_eq!(out, first);
        (kernel.with_second)(&mut out, &a, -2.5);
        assert_eq!(out, second);
        let mut buf = a.clone();
        (kernel.with_first_in_place)(-2.5, &mut buf);
        assert_eq!(buf, first);
        let mut buf = a.clone();
        (kernel.with_second_in_place)(&mut buf, -2.5);
        assert_eq!(buf, second);
    }

    #[test]
    fn a_kernels_own_loops_compute_what_it_does_per_element() {
        use crate::element::Complex64;
        use crate::element::math::InexactMath;
        let z: Vec<Complex64> =
            (0..1000).map(|i| Complex64::new((i as f64 - 500.3) * 0.37, (i as f64).sin())).collect();
        let want: Vec<Complex64> = z.iter().map(|&v| InexactMath::log1p(v)).collect();
        let kernel = log1p_kernel::<Complex64>();
        let mut out = vec![Complex64::new(0.0, 0.0); 1000];
        (kernel.map)(&mut out, &z);
        assert_eq!(out, want);
        let mut buf = z.clone();
        (kernel.in_place)(&mut buf);
        assert_eq!(buf, want);
        let x = [1.0, f64::NAN, -0.0, f64::INFINITY];
        let mut flags = [true; 4];
        (is_nan_kernel::<f64>().map)(&mut flags, &x);
        assert_eq!(flags, [false, true, false, false]);
    }
}
