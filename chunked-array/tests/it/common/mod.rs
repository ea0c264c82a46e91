//! Shared strategies and oracles for the property tests.
#![allow(dead_code)]

use chunked_array::{Array, Element};
use ndarray::{ArrayD, IxDyn, Zip};
use proptest::prelude::*;

/// Cases per property: at least 256 per operation in CI.
pub const CASES: u32 = 256;

/// A partition of `n` into block lengths, from a mask of cut points. Two cuts
/// in a row also put an empty block between them, as selections make: every
/// operation must take blocks of no elements.
fn partition(n: usize, cuts: &[bool]) -> Vec<usize> {
    if n == 0 {
        return vec![0];
    }
    let mut out = Vec::new();
    let mut len = 1;
    let mut previous = false;
    for &c in cuts.iter().take(n - 1) {
        if c {
            out.push(len);
            if previous {
                out.push(0);
            }
            len = 1;
        } else {
            len += 1;
        }
        previous = c;
    }
    out.push(len);
    out
}

/// A shape of 0..=max_dims axes of length 0..=max_len and an irregular chunking.
pub fn shape_chunks(max_dims: usize, max_len: usize) -> impl Strategy<Value = (Vec<usize>, Vec<Vec<usize>>)> {
    prop::collection::vec(0..=max_len, 0..=max_dims).prop_flat_map(|shape| {
        let cuts: Vec<_> = shape.iter().map(|&n| prop::collection::vec(any::<bool>(), n.saturating_sub(1))).collect();
        (Just(shape), cuts).prop_map(|(shape, cuts)| {
            let chunks = shape.iter().zip(&cuts).map(|(&n, c)| partition(n, c)).collect();
            (shape, chunks)
        })
    })
}

/// Another irregular chunking of the same shape.
pub fn rechunking(shape: Vec<usize>) -> impl Strategy<Value = Vec<Vec<usize>>> {
    let cuts: Vec<_> = shape.iter().map(|&n| prop::collection::vec(any::<bool>(), n.saturating_sub(1))).collect();
    cuts.prop_map(move |cuts| shape.iter().zip(&cuts).map(|(&n, c)| partition(n, c)).collect())
}

/// An f64 array of the shape with values in [-10, 10], some exactly representable.
pub fn values_f64(shape: Vec<usize>) -> impl Strategy<Value = ArrayD<f64>> {
    let n: usize = shape.iter().product();
    prop::collection::vec(prop_oneof![3 => -10.0f64..10.0, 1 => (-4i32..4).prop_map(|v| v as f64 * 0.5)], n)
        .prop_map(move |v| ArrayD::from_shape_vec(IxDyn(&shape), v).unwrap())
}

/// An i64 array of the shape with small values.
pub fn values_i64(shape: Vec<usize>) -> impl Strategy<Value = ArrayD<i64>> {
    let n: usize = shape.iter().product();
    prop::collection::vec(-20i64..20, n).prop_map(move |v| ArrayD::from_shape_vec(IxDyn(&shape), v).unwrap())
}

/// A shape that broadcasts against `shape`: some axes set to 1, maybe fewer axes.
pub fn broadcastable(shape: Vec<usize>) -> impl Strategy<Value = Vec<usize>> {
    let nd = shape.len();
    (0..=nd, prop::collection::vec(any::<bool>(), nd)).prop_map(move |(drop, ones)| {
        shape[drop..].iter().zip(&ones[drop..]).map(|(&n, &one)| if one { 1 } else { n }).collect()
    })
}

/// The NumPy broadcast of two shapes (which must be compatible).
pub fn broadcast_shape(a: &[usize], b: &[usize]) -> Vec<usize> {
    let nd = a.len().max(b.len());
    (0..nd)
        .map(|i| {
            let x = if i + a.len() >= nd { a[i + a.len() - nd] } else { 1 };
            let y = if i + b.len() >= nd { b[i + b.len() - nd] } else { 1 };
            if x == 1 { y } else { x }
        })
        .collect()
}

/// The oracle for binary elementwise operations: ndarray's broadcasting `Zip`.
pub fn zip2<A: Copy, B: Copy, O>(a: &ArrayD<A>, b: &ArrayD<B>, f: impl Fn(A, B) -> O) -> ArrayD<O> {
    let shape = broadcast_shape(a.shape(), b.shape());
    let av = a.broadcast(IxDyn(&shape)).unwrap();
    let bv = b.broadcast(IxDyn(&shape)).unwrap();
    Zip::from(&av).and(&bv).map_collect(|&x, &y| f(x, y))
}

/// Chunks for `data`: the given irregular lists.
pub fn chunked<T: Element>(data: &ArrayD<T>, chunks: &[Vec<usize>]) -> Array<T> {
    Array::from_ndarray(data.clone(), chunks.to_vec()).unwrap()
}

/// Chunk lists of `shape` that are one block per axis.
pub fn whole(shape: &[usize]) -> Vec<Vec<usize>> {
    shape.iter().map(|&n| vec![n]).collect()
}

/// Element-by-element closeness with a relative tolerance; NaNs must match.
pub fn assert_close(got: &ArrayD<f64>, want: &ArrayD<f64>, rtol: f64) {
    assert_eq!(got.shape(), want.shape(), "shapes");
    for (g, w) in got.iter().zip(want.iter()) {
        if w.is_nan() {
            assert!(g.is_nan(), "got {g}, want NaN");
        } else {
            let tol = rtol * (1.0 + w.abs());
            assert!((g - w).abs() <= tol, "got {g}, want {w} (tol {tol})\n got {got}\nwant {want}");
        }
    }
}

/// The indices `start:stop:step` takes from an axis of length n, by NumPy's rules.
pub fn numpy_indices(start: Option<isize>, stop: Option<isize>, step: isize, n: usize) -> Vec<usize> {
    let n = n as isize;
    let (mut i, end) = if step > 0 {
        let s = start.map(|s| if s < 0 { (s + n).max(0) } else { s.min(n) }).unwrap_or(0);
        let e = stop.map(|e| if e < 0 { (e + n).max(0) } else { e.min(n) }).unwrap_or(n);
        (s, e)
    } else {
        let s = start.map(|s| if s < 0 { (s + n).max(-1) } else { s.min(n - 1) }).unwrap_or(n - 1);
        let e = stop.map(|e| if e < 0 { (e + n).max(-1) } else { e.min(n - 1) }).unwrap_or(-1);
        (s, e)
    };
    let mut out = Vec::new();
    while (step > 0 && i < end) || (step < 0 && i > end) {
        out.push(i as usize);
        i += step;
    }
    out
}

/// The first element (index, got, want) further than `ulps` units in the
/// last place from its oracle; NaN matches NaN, and a zero only a zero of
/// the same sign.
pub fn beyond_ulps(got: &ArrayD<f64>, want: &ArrayD<f64>, ulps: u64) -> Option<(usize, f64, f64)> {
    let far = |g: f64, w: f64| {
        if g.is_nan() || w.is_nan() {
            return g.is_nan() != w.is_nan();
        }
        g.is_sign_negative() != w.is_sign_negative() || g.to_bits().abs_diff(w.to_bits()) > ulps
    };
    got.iter()
        .zip(want.iter())
        .map(|(&g, &w)| (g, w))
        .enumerate()
        .find(|&(_, (g, w))| far(g, w))
        .map(|(i, (g, w))| (i, g, w))
}
