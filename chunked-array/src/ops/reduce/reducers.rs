//! The reductions: sums, products, extrema, moments, truth tests, arg-extrema.

use std::marker::PhantomData;

use chunked_gpu::reduce::ReduceOp;

use crate::element::{Element, Number, Real};
use crate::ops::reduce::{IndexMode, Reducer};

/// Sum of a lane with eight independent accumulators (vectorizes; also more
/// accurate than one running sum).
#[inline]
fn sum_lane<T: Element, S: Number>(lane: &[T], skip_nan: bool) -> S {
    let mut acc = [S::ZERO; 8];
    let mut chunks = lane.chunks_exact(8);
    for c in &mut chunks {
        for i in 0..8 {
            let v: S = c[i].cast();
            acc[i] = acc[i].add(if skip_nan && v.is_nan() { S::ZERO } else { v });
        }
    }
    let mut tail = S::ZERO;
    for &x in chunks.remainder() {
        let v: S = x.cast();
        tail = tail.add(if skip_nan && v.is_nan() { S::ZERO } else { v });
    }
    acc[0].add(acc[1]).add(acc[2].add(acc[3])).add(acc[4].add(acc[5]).add(acc[6].add(acc[7]))).add(tail)
}

/// `sum` / `nansum` (and `mean`'s numerator) accumulating in `S`.
pub(crate) struct Sum<T, S> {
    pub skip_nan: bool,
    pub _t: PhantomData<fn(T) -> S>,
}

impl<T: Element, S: Number> Reducer for Sum<T, S> {
    type In = T;
    type Acc = S;
    type Out = S;
    fn identity(&self) -> S {
        S::ZERO
    }
    #[inline]
    fn fold_lane(&self, acc: &mut S, lane: &[T], _: i64) {
        *acc = acc.add(sum_lane::<T, S>(lane, self.skip_nan));
    }
    #[inline]
    fn fold_row(&self, accs: &mut [S], row: &[T], _: i64) {
        if self.skip_nan {
            for (a, &x) in accs.iter_mut().zip(row) {
                let v: S = x.cast();
                *a = a.add(if v.is_nan() { S::ZERO } else { v });
            }
        } else {
            for (a, &x) in accs.iter_mut().zip(row) {
                *a = a.add(x.cast());
            }
        }
    }
    fn merge(&self, a: &mut S, b: &S) {
        *a = a.add(*b);
    }
    fn finish(&self, a: &S) -> S {
        *a
    }
    fn device_op(&self) -> Option<ReduceOp> {
        Some(if self.skip_nan { ReduceOp::NanSum } else { ReduceOp::Sum })
    }
}

/// `prod` accumulating in `S`.
pub(crate) struct Prod<T, S>(pub PhantomData<fn(T) -> S>);

impl<T: Element, S: Number> Reducer for Prod<T, S> {
    type In = T;
    type Acc = S;
    type Out = S;
    fn identity(&self) -> S {
        S::ONE
    }
    fn fold_lane(&self, acc: &mut S, lane: &[T], _: i64) {
        for &x in lane {
            *acc = acc.mul(x.cast());
        }
    }
    fn fold_row(&self, accs: &mut [S], row: &[T], _: i64) {
        for (a, &x) in accs.iter_mut().zip(row) {
            *a = a.mul(x.cast());
        }
    }
    fn merge(&self, a: &mut S, b: &S) {
        *a = a.mul(*b);
    }
    fn finish(&self, a: &S) -> S {
        *a
    }
    fn device_op(&self) -> Option<ReduceOp> {
        Some(ReduceOp::Prod)
    }
}

/// `min` / `max`; NaN propagates. No identity: empty reductions are refused.
pub(crate) struct Extreme<T> {
    pub max: bool,
    pub _t: PhantomData<fn() -> T>,
}

/// The extreme of `init` and a lane: eight independent accumulators and a
/// separate NaN flag, so that the loop vectorizes (NaN still propagates).
#[inline]
fn extreme_lane<T: Real, const MAX: bool>(init: T, lane: &[T]) -> T {
    let pick = |m: T, x: T| if (MAX && x > m) || (!MAX && x < m) { x } else { m };
    let mut m = [init; 8];
    let mut nan = false;
    let mut chunks = lane.chunks_exact(8);
    for c in &mut chunks {
        for i in 0..8 {
            nan |= c[i].is_nan();
            m[i] = pick(m[i], c[i]);
        }
    }
    for &x in chunks.remainder() {
        nan |= x.is_nan();
        m[0] = pick(m[0], x);
    }
    if nan {
        return T::from_f64(f64::NAN);
    }
    let merge = if MAX { T::max_nan } else { T::min_nan };
    m.iter().fold(init, |a, &x| merge(a, x))
}

impl<T: Real> Reducer for Extreme<T> {
    type In = T;
    type Acc = T;
    type Out = T;
    const HAS_IDENTITY: bool = false;
    fn identity(&self) -> T {
        if self.max { T::MIN } else { T::MAX }
    }
    #[inline]
    fn fold_lane(&self, acc: &mut T, lane: &[T], _: i64) {
        *acc = if self.max { extreme_lane::<T, true>(*acc, lane) } else { extreme_lane::<T, false>(*acc, lane) };
    }
    #[inline]
    fn fold_row(&self, accs: &mut [T], row: &[T], _: i64) {
        if self.max {
            for (a, &x) in accs.iter_mut().zip(row) {
                *a = a.max_nan(x);
            }
        } else {
            for (a, &x) in accs.iter_mut().zip(row) {
                *a = a.min_nan(x);
            }
        }
    }
    fn merge(&self, a: &mut T, b: &T) {
        *a = if self.max { a.max_nan(*b) } else { a.min_nan(*b) };
    }
    fn finish(&self, a: &T) -> T {
        *a
    }
    fn device_op(&self) -> Option<ReduceOp> {
        Some(if self.max { ReduceOp::Max } else { ReduceOp::Min })
    }
}

/// `nanmin` / `nanmax`: NaNs skipped; all-NaN gives NaN.
pub(crate) struct NanExtreme<T> {
    pub max: bool,
    pub _t: PhantomData<fn() -> T>,
}

impl<T: Real> NanExtreme<T> {
    #[inline]
    fn step(&self, a: &mut (T, bool), x: T) {
        if !x.is_nan() {
            a.0 = if !a.1 {
                x
            } else if self.max {
                a.0.max_nan(x)
            } else {
                a.0.min_nan(x)
            };
            a.1 = true;
        }
    }
}

impl<T: Real> Reducer for NanExtreme<T> {
    type In = T;
    type Acc = (T, bool);
    type Out = T;
    const HAS_IDENTITY: bool = false;
    fn identity(&self) -> (T, bool) {
        (T::ZERO, false)
    }
    fn fold_lane(&self, acc: &mut (T, bool), lane: &[T], _: i64) {
        for &x in lane {
            self.step(acc, x);
        }
    }
    fn fold_row(&self, accs: &mut [(T, bool)], row: &[T], _: i64) {
        for (a, &x) in accs.iter_mut().zip(row) {
            self.step(a, x);
        }
    }
    fn merge(&self, a: &mut (T, bool), b: &(T, bool)) {
        if b.1 {
            self.step(a, b.0);
        }
    }
    fn finish(&self, a: &(T, bool)) -> T {
        if a.1 { a.0 } else { T::from_f64(f64::NAN) }
    }
}

/// `nanmean`: sum and count of the non-NaN elements.
pub(crate) struct NanMean<T>(pub PhantomData<fn() -> T>);

impl<T: Real> Reducer for NanMean<T> {
    type In = T;
    type Acc = (f64, u64);
    type Out = T::Mean;
    fn identity(&self) -> (f64, u64) {
        (0.0, 0)
    }
    fn fold_lane(&self, acc: &mut (f64, u64), lane: &[T], _: i64) {
        acc.0 += sum_lane::<T, f64>(lane, true);
        acc.1 += lane.iter().filter(|x| !x.is_nan()).count() as u64;
    }
    fn fold_row(&self, accs: &mut [(f64, u64)], row: &[T], _: i64) {
        for (a, &x) in accs.iter_mut().zip(row) {
            if !x.is_nan() {
                a.0 += x.to_f64();
                a.1 += 1;
            }
        }
    }
    fn merge(&self, a: &mut (f64, u64), b: &(f64, u64)) {
        a.0 += b.0;
        a.1 += b.1;
    }
    fn finish(&self, a: &(f64, u64)) -> T::Mean {
        T::Mean::from_f64(a.0 / a.1 as f64)
    }
}

/// Count, mean and sum of squared deviations, merged with Chan et al.'s update,
/// which stays accurate where `E[x²] - E[x]²` cancels.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Moments {
    n: f64,
    mean: f64,
    m2: f64,
}

impl crate::element::WireValue for Moments {
    const SIZE: usize = 24;
    fn put(&self, out: &mut Vec<u8>) {
        (self.n, (self.mean, self.m2)).put(out);
    }
    fn get(bytes: &[u8]) -> Option<Self> {
        let (n, (mean, m2)) = <(f64, (f64, f64))>::get(bytes)?;
        Some(Moments { n, mean, m2 })
    }
}

impl Moments {
    #[inline]
    fn merge(&mut self, b: &Moments) {
        if b.n == 0.0 {
            return;
        }
        if self.n == 0.0 {
            *self = *b;
            return;
        }
        let n = self.n + b.n;
        let d = b.mean - self.mean;
        self.mean += d * b.n / n;
        self.m2 += b.m2 + d * d * self.n * b.n / n;
        self.n = n;
    }
}

/// `var` / `std` with `ddof`.
pub(crate) struct Var<T> {
    pub ddof: f64,
    pub sqrt: bool,
    /// Leave NaN out (`nanvar`, `nanstd`).
    pub skip_nan: bool,
    pub _t: PhantomData<fn() -> T>,
}

impl<T: Real> Reducer for Var<T> {
    type In = T;
    type Acc = Moments;
    type Out = T::Mean;
    fn identity(&self) -> Moments {
        Moments::default()
    }
    fn fold_lane(&self, acc: &mut Moments, lane: &[T], _: i64) {
        if self.skip_nan && lane.iter().any(|x| x.is_nan()) {
            let kept: Vec<T> = lane.iter().copied().filter(|x| !x.is_nan()).collect();
            return Var::<T> { skip_nan: false, ..*self }.fold_lane(acc, &kept, 0);
        }
        if lane.is_empty() {
            return;
        }
        // Two passes over the lane (in cache): exact mean, then squared deviations.
        let n = lane.len() as f64;
        let mean = sum_lane::<T, f64>(lane, false) / n;
        let mut m = [0.0f64; 4];
        let mut chunks = lane.chunks_exact(4);
        for c in &mut chunks {
            for i in 0..4 {
                let d = c[i].to_f64() - mean;
                m[i] += d * d;
            }
        }
        let tail: f64 = chunks.remainder().iter().map(|x| (x.to_f64() - mean).powi(2)).sum();
        acc.merge(&Moments { n, mean, m2: (m[0] + m[1]) + (m[2] + m[3]) + tail });
    }
    fn fold_row(&self, accs: &mut [Moments], row: &[T], _: i64) {
        for (a, &x) in accs.iter_mut().zip(row) {
            if self.skip_nan && x.is_nan() {
                continue;
            }
            let x = x.to_f64();
            a.n += 1.0;
            let d = x - a.mean;
            a.mean += d / a.n;
            a.m2 += d * (x - a.mean);
        }
    }
    fn merge(&self, a: &mut Moments, b: &Moments) {
        a.merge(b);
    }
    fn finish(&self, a: &Moments) -> T::Mean {
        let v = a.m2 / (a.n - self.ddof).max(0.0);
        T::Mean::from_f64(if self.sqrt { v.sqrt() } else { v })
    }
}

/// `any` / `all` over truthiness (`x != 0`).
pub(crate) struct Truth<T> {
    pub all: bool,
    pub _t: PhantomData<fn() -> T>,
}

impl<T: Element> Reducer for Truth<T> {
    type In = T;
    type Acc = bool;
    type Out = bool;
    fn identity(&self) -> bool {
        self.all
    }
    fn fold_lane(&self, acc: &mut bool, lane: &[T], _: i64) {
        let z = T::default();
        *acc = if self.all { *acc && lane.iter().all(|&x| x != z) } else { *acc || lane.iter().any(|&x| x != z) };
    }
    fn fold_row(&self, accs: &mut [bool], row: &[T], _: i64) {
        let z = T::default();
        for (a, &x) in accs.iter_mut().zip(row) {
            *a = if self.all { *a && x != z } else { *a || x != z };
        }
    }
    fn merge(&self, a: &mut bool, b: &bool) {
        *a = if self.all { *a && *b } else { *a || *b };
    }
    fn finish(&self, a: &bool) -> bool {
        *a
    }
}

/// `argmin` / `argmax` along one axis (`FLAT = false`) or over the flattened array.
/// Ties and NaNs follow NumPy: the first occurrence wins, and NaN beats numbers
/// (or, with `skip_nan`, never wins: `nanargmin`; a lane of NaN only gives -1).
pub(crate) struct Arg<T, const FLAT: bool> {
    pub max: bool,
    pub skip_nan: bool,
    pub _t: PhantomData<fn() -> T>,
}

impl<T: Real, const FLAT: bool> Arg<T, FLAT> {
    #[inline]
    fn better(&self, cur: &(T, i64), v: T, i: i64) -> bool {
        if self.skip_nan && v.is_nan() {
            return false;
        }
        if cur.1 < 0 {
            return true;
        }
        let (cn, vn) = (cur.0.is_nan(), v.is_nan());
        if cn || vn {
            return if cn && vn { i < cur.1 } else { vn };
        }
        if v == cur.0 {
            return i < cur.1;
        }
        if self.max { v > cur.0 } else { v < cur.0 }
    }
}

impl<T: Real, const FLAT: bool> Reducer for Arg<T, FLAT> {
    type In = T;
    type Acc = (T, i64);
    type Out = i64;
    const INDEX: IndexMode = if FLAT { IndexMode::Flat } else { IndexMode::Axis };
    const HAS_IDENTITY: bool = false;
    fn identity(&self) -> (T, i64) {
        (T::ZERO, -1)
    }
    fn fold_lane(&self, acc: &mut (T, i64), lane: &[T], index: i64) {
        for (j, &x) in lane.iter().enumerate() {
            let i = index + j as i64;
            if self.better(acc, x, i) {
                *acc = (x, i);
            }
        }
    }
    fn fold_row(&self, accs: &mut [(T, i64)], row: &[T], index: i64) {
        for (a, &x) in accs.iter_mut().zip(row) {
            if self.better(a, x, index) {
                *a = (x, index);
            }
        }
    }
    fn merge(&self, a: &mut (T, i64), b: &(T, i64)) {
        if b.1 >= 0 && self.better(a, b.0, b.1) {
            *a = *b;
        }
    }
    fn finish(&self, a: &(T, i64)) -> i64 {
        a.1
    }
}
