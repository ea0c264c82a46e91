//! The per-block FFT kernels: rustfft/realfft plans cached per (element type,
//! length, kind), and the lane engine that runs them over every lane of a
//! block along one axis.
//!
//! A lane along an inner axis is strided in memory, so neighbouring lanes are
//! gathered in batches of up to [`LANES`] (see `batch_width`): their elements
//! in a row are contiguous, so each gather reads whole cache lines
//! (pocketfft's batching, which NumPy runs). Each batch is transformed in one
//! call, written back the same way.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::mem::MaybeUninit;
use std::sync::{Arc, Mutex, OnceLock};

use ndarray::{ArrayD, ArrayViewD, IxDyn};
use num_complex::Complex;
use realfft::{ComplexToReal, RealFftPlanner, RealToComplex};
use rustfft::{Fft, FftDirection, FftPlanner};

use crate::block::alloc::block_vec;
use crate::element::{ComplexFloat, Element, Number};
use crate::error::{Error, Result};
use crate::ops::fft::FftFloat;

/// Lanes transformed per batch along an inner axis.
const LANES: usize = 16;

/// The kind of a cached plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum PlanKind {
    Forward,
    Inverse,
    RealForward,
    RealInverse,
}

type PlanCache = Mutex<HashMap<(TypeId, usize, PlanKind), Arc<dyn Any + Send + Sync>>>;

/// Plans shared by every task of the process: building one factors the
/// length and precomputes twiddles, which costs more than transforming a
/// short lane.
fn cached<P: Clone + Send + Sync + 'static, R: 'static>(len: usize, kind: PlanKind, make: impl FnOnce() -> P) -> P {
    static CACHE: OnceLock<PlanCache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (TypeId::of::<R>(), len, kind);
    if let Some(p) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key).and_then(|p| p.downcast_ref::<P>()) {
        return p.clone();
    }
    let plan = make();
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(key, Arc::new(plan.clone()));
    plan
}

fn complex_plan<R: FftFloat>(len: usize, inverse: bool) -> Arc<dyn Fft<R>> {
    let (kind, dir) =
        if inverse { (PlanKind::Inverse, FftDirection::Inverse) } else { (PlanKind::Forward, FftDirection::Forward) };
    cached::<_, R>(len, kind, || FftPlanner::<R>::new().plan_fft(len, dir))
}

fn real_forward_plan<R: FftFloat>(len: usize) -> Arc<dyn RealToComplex<R>> {
    cached::<_, R>(len, PlanKind::RealForward, || RealFftPlanner::<R>::new().plan_fft_forward(len))
}

fn real_inverse_plan<R: FftFloat>(len: usize) -> Arc<dyn ComplexToReal<R>> {
    cached::<_, R>(len, PlanKind::RealInverse, || RealFftPlanner::<R>::new().plan_fft_inverse(len))
}

/// A block's lanes along `axis`, each `n_in` long, made into lanes `n_out`
/// long by `batch`, which gets `lanes` lanes one after another in each buffer.
fn map_lanes<X: Element, Y: Element, B: Copy + Default, C: Copy + Default>(
    input: ArrayViewD<'_, X>,
    axis: usize,
    n_out: usize,
    load: impl Fn(X) -> B,
    store: impl Fn(C) -> Y,
    mut batch: impl FnMut(&mut [B], &mut [C], usize) -> Result<()>,
) -> Result<ArrayD<Y>> {
    let input = input.as_standard_layout();
    let shape = input.shape().to_vec();
    let data = input.as_slice().expect("standard layout");
    let n_in = shape[axis];
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let mut out_shape = shape.clone();
    out_shape[axis] = n_out;
    let len = outer * n_out * inner;
    if len == 0 || n_in == 0 {
        // No lanes (an empty axis beside the transformed one), or nothing
        // in them: every output element is 0.
        return Ok(ArrayD::from_elem(IxDyn(&out_shape), Y::default()));
    }
    let mut out_vec: Vec<Y> = block_vec(len);
    let out = &mut out_vec.spare_capacity_mut()[..len];
    let width = if inner == 1 { (LANES * 64).div_ceil(n_in).clamp(1, outer) } else { batch_width::<X, B>(n_in, inner) };
    let mut buf_in = vec![B::default(); width * n_in];
    let mut buf_out = vec![C::default(); width * n_out];
    if inner == 1 {
        // Lanes are rows: a batch is consecutive rows, copied as they lie.
        for first in (0..outer).step_by(width) {
            let lanes = width.min(outer - first);
            let src = &data[first * n_in..(first + lanes) * n_in];
            buf_in[..src.len()].iter_mut().zip(src).for_each(|(b, &x)| *b = load(x));
            batch(&mut buf_in[..lanes * n_in], &mut buf_out[..lanes * n_out], lanes)?;
            let dst = &mut out[first * n_out..(first + lanes) * n_out];
            dst.iter_mut().zip(&buf_out).for_each(|(y, &c)| *y = MaybeUninit::new(store(c)));
        }
    } else {
        for o in 0..outer {
            for i0 in (0..inner).step_by(width) {
                let lanes = width.min(inner - i0);
                for j in 0..n_in {
                    let row = &data[(o * n_in + j) * inner + i0..][..lanes];
                    for (l, &x) in row.iter().enumerate() {
                        buf_in[l * n_in + j] = load(x);
                    }
                }
                batch(&mut buf_in[..lanes * n_in], &mut buf_out[..lanes * n_out], lanes)?;
                for j in 0..n_out {
                    let row = &mut out[(o * n_out + j) * inner + i0..][..lanes];
                    for (l, y) in row.iter_mut().enumerate() {
                        *y = MaybeUninit::new(store(buf_out[l * n_out + j]));
                    }
                }
            }
        }
    }
    // SAFETY: the loops above write every (outer, lane position, inner)
    // element of `0..len` once: the rows of each batch, or each row of
    // `lanes` elements at every lane position.
    unsafe { out_vec.set_len(len) };
    Ok(ArrayD::from_shape_vec(IxDyn(&out_shape), out_vec).expect("shape"))
}

/// Lanes gathered per batch along an inner axis: at least a cache line of
/// neighbouring elements per row, at most [`LANES`], and few enough that the
/// batch's buffer stays in a core's L2 cache.
fn batch_width<X, B>(n: usize, inner: usize) -> usize {
    let line = (64 / std::mem::size_of::<X>().max(1)).max(1);
    let fits = (256 << 10) / (n.max(1) * std::mem::size_of::<B>().max(1));
    fits.clamp(line.min(LANES), LANES).min(inner)
}

fn to_rustfft<C: ComplexFloat>(x: C) -> Complex<C::RealPart> {
    Complex::new(x.re(), x.im())
}

fn from_rustfft<C: ComplexFloat>(c: Complex<C::RealPart>) -> C {
    C::from_parts(c.re, c.im)
}

/// The complex transform of every lane along `axis` (whole in the block),
/// each output scaled by `scale`.
pub(crate) fn complex_lanes<R: FftFloat>(
    block: ArrayViewD<'_, R::Complex>,
    axis: usize,
    inverse: bool,
    scale: f64,
) -> Result<ArrayD<R::Complex>> {
    let n = block.shape()[axis];
    if n == 0 {
        return Ok(block.to_owned());
    }
    let plan = complex_plan::<R>(n, inverse);
    let mut scratch = vec![Complex::<R>::default(); plan.get_inplace_scratch_len()];
    let s = <R as Element>::from_f64(scale);
    map_lanes(block, axis, n, to_rustfft::<R::Complex>, from_rustfft::<R::Complex>, |buf, out, _| {
        plan.process_with_scratch(buf, &mut scratch);
        out.iter_mut().zip(buf.iter()).for_each(|(o, &b)| *o = if scale == 1.0 { b } else { b * s });
        Ok(())
    })
}

/// The real-input transform of every lane along `axis`: `n / 2 + 1` outputs
/// per lane of `n` reals.
pub(crate) fn real_forward_lanes<R: FftFloat>(
    block: ArrayViewD<'_, R>,
    axis: usize,
    scale: f64,
) -> Result<ArrayD<R::Complex>> {
    let n = block.shape()[axis];
    let m = n / 2 + 1;
    let plan = real_forward_plan::<R>(n);
    let mut scratch = vec![Complex::<R>::default(); plan.get_scratch_len()];
    let s = <R as Element>::from_f64(scale);
    map_lanes(
        block,
        axis,
        m,
        |x: R| x,
        from_rustfft::<R::Complex>,
        |buf, out, lanes| {
            for l in 0..lanes {
                let (lane, spectrum) = (&mut buf[l * n..(l + 1) * n], &mut out[l * m..(l + 1) * m]);
                plan.process_with_scratch(lane, spectrum, &mut scratch).map_err(|e| fft_error(n, e))?;
                if scale != 1.0 {
                    spectrum.iter_mut().for_each(|c| *c = *c * s);
                }
            }
            Ok(())
        },
    )
}

/// The inverse of [`real_forward_lanes`]: lanes of `n / 2 + 1` complex
/// numbers along `axis` to `n` reals. The imaginary parts of the zero (and,
/// for even `n`, the Nyquist) frequency are ignored, as NumPy's `irfft` does.
pub(crate) fn real_inverse_lanes<R: FftFloat>(
    block: ArrayViewD<'_, R::Complex>,
    axis: usize,
    n: usize,
    scale: f64,
) -> Result<ArrayD<R>> {
    let m = n / 2 + 1;
    if block.shape()[axis] != m {
        return Err(Error::invalid("irfft input length", block.shape()[axis], format!("expected {m} for n = {n}")));
    }
    let plan = real_inverse_plan::<R>(n);
    let mut scratch = vec![Complex::<R>::default(); plan.get_scratch_len()];
    let s = <R as Element>::from_f64(scale);
    let zero = <R as Element>::from_f64(0.0);
    map_lanes(
        block,
        axis,
        n,
        to_rustfft::<R::Complex>,
        |x: R| x,
        |buf, out, lanes| {
            for l in 0..lanes {
                let (spectrum, lane) = (&mut buf[l * m..(l + 1) * m], &mut out[l * n..(l + 1) * n]);
                spectrum[0].im = zero;
                if n.is_multiple_of(2) {
                    spectrum[m - 1].im = zero;
                }
                plan.process_with_scratch(spectrum, lane, &mut scratch).map_err(|e| fft_error(n, e))?;
                if scale != 1.0 {
                    lane.iter_mut().for_each(|x| *x = *x * s);
                }
            }
            Ok(())
        },
    )
}

fn fft_error(n: usize, e: realfft::FftError) -> Error {
    Error::invalid("FFT length", n, e.to_string())
}

/// `exp(sign · 2πi · m / n)` for any `m < n`, from two tables of about
/// `sqrt(n)` entries each (`m = hi · step + lo`), so each factor is one
/// product of two correctly rounded values, not the end of a recurrence.
pub(crate) struct Twiddles {
    n: u128,
    step: u128,
    low: Vec<Complex<f64>>,
    high: Vec<Complex<f64>>,
}

impl Twiddles {
    pub(crate) fn new(n: usize, inverse: bool) -> Self {
        let step = (n as f64).sqrt().ceil().max(1.0) as usize;
        let sign = if inverse { 1.0 } else { -1.0 };
        let unit = |m: usize| Complex::from_polar(1.0, sign * 2.0 * std::f64::consts::PI * (m as f64 / n as f64));
        let low = (0..step).map(unit).collect();
        let high = (0..=n / step).map(|h| unit(h * step)).collect();
        Twiddles { n: n as u128, step: step as u128, low, high }
    }

    /// The factor for `a · b` (taken modulo n).
    pub(crate) fn get(&self, a: usize, b: usize) -> Complex<f64> {
        let m = (a as u128 * b as u128) % self.n;
        self.high[(m / self.step) as usize] * self.low[(m % self.step) as usize]
    }
}

/// Multiplies element `[.., k1, j2, ..]` (`k1` along `axis`, `j2` along
/// `axis + 1`, counted from `j2_start`) by the four-step twiddle for `k1 · j2`.
pub(crate) fn apply_twiddles<C: ComplexFloat>(block: &mut ArrayD<C>, axis: usize, j2_start: usize, tw: &Twiddles) {
    let shape = block.shape().to_vec();
    let outer: usize = shape[..axis].iter().product();
    let (n1, n2) = (shape[axis], shape[axis + 1]);
    let rest: usize = shape[axis + 2..].iter().product();
    let data = block.as_slice_mut().expect("a kernel's output is in standard layout");
    let mut row = vec![C::default(); n2];
    for k1 in 0..n1 {
        for (j, w) in row.iter_mut().enumerate() {
            let t = tw.get(k1, j2_start + j);
            *w = C::from_parts(<C::RealPart as Element>::from_f64(t.re), <C::RealPart as Element>::from_f64(t.im));
        }
        for o in 0..outer {
            let base = (o * n1 + k1) * n2 * rest;
            for (j, w) in row.iter().enumerate() {
                data[base + j * rest..][..rest].iter_mut().for_each(|x| *x = Number::mul(*x, *w));
            }
        }
    }
}
