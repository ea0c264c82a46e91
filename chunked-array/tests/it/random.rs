//! Random arrays: the same numbers for every chunking and scheduler, and the right
//! distributions.

use crate::common;

use chunked_array::random::RandomState;
use chunked_array::{Array, ChunkSpec, Context};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::CASES))]

    #[test]
    fn chunking_invariant((shape, chunks) in common::shape_chunks(3, 9), seed in any::<u64>()) {
        let rng = RandomState::new(seed);
        let whole = common::whole(&shape);
        let u1 = rng.uniform::<f64>(&shape, chunks.clone()).unwrap().compute().unwrap();
        let u2 = rng.uniform::<f64>(&shape, whole.clone()).unwrap().compute().unwrap();
        prop_assert_eq!(u1.mapv(f64::to_bits), u2.mapv(f64::to_bits));
        let n1 = rng.standard_normal::<f32>(&shape, chunks.clone()).unwrap().compute().unwrap();
        let n2 = rng.standard_normal::<f32>(&shape, whole.clone()).unwrap().compute().unwrap();
        prop_assert_eq!(n1.mapv(f32::to_bits), n2.mapv(f32::to_bits));
        let i1 = rng.integers::<i32>(-5, 7, &shape, chunks.clone()).unwrap().compute_on(&Context::sync()).unwrap();
        let i2 = rng.integers::<i32>(-5, 7, &shape, whole).unwrap().compute().unwrap();
        prop_assert!(i1.iter().all(|&v| (-5..7).contains(&v)));
        prop_assert_eq!(i1, i2);
    }
}

/// Element i depends only on (seed, i): the flat sequence of a 2-d array equals the
/// 1-d array of the same length.
#[test]
fn flat_index_defines_the_value() {
    let rng = RandomState::new(1234);
    let a = rng.normal::<f64>(3.0, 2.0, &[37, 41], [5, 7]).unwrap().compute().unwrap();
    let b = rng.normal::<f64>(3.0, 2.0, &[37 * 41], 100).unwrap().compute().unwrap();
    assert_eq!(a.iter().copied().collect::<Vec<_>>(), b.iter().cloned().collect::<Vec<_>>());
    let other_stream = rng.with_stream(1).normal::<f64>(3.0, 2.0, &[37 * 41], 100).unwrap().compute().unwrap();
    assert_ne!(b, other_stream);
}

/// Moments within 6 standard errors (a false failure is ~1e-9 likely per check).
#[test]
fn distributions_have_the_right_moments() {
    let n = 1_000_000.0;
    let rng = RandomState::new(7);
    let u = rng.uniform::<f64>(&[1_000_000], ChunkSpec::auto()).unwrap();
    let (m, v) = (u.mean(None).unwrap().compute_scalar().unwrap(), u.var(None, 0).unwrap().compute_scalar().unwrap());
    assert!((m - 0.5).abs() < 6.0 * (1.0f64 / 12.0 / n).sqrt(), "uniform mean {m}");
    assert!((v - 1.0 / 12.0).abs() < 6.0 * (1.0f64 / 180.0 / n).sqrt(), "uniform var {v}");
    assert!(u.min(None).unwrap().compute_scalar().unwrap() >= 0.0);
    assert!(u.max(None).unwrap().compute_scalar().unwrap() < 1.0);
    let z = rng.normal::<f64>(-2.0, 3.0, &[1_000_000], 65_536).unwrap();
    let (m, s) = (z.mean(None).unwrap().compute_scalar().unwrap(), z.std(None, 0).unwrap().compute_scalar().unwrap());
    assert!((m + 2.0).abs() < 6.0 * 3.0 / n.sqrt(), "normal mean {m}");
    assert!((s - 3.0).abs() < 6.0 * 3.0 / (2.0 * n).sqrt(), "normal std {s}");
    let f = rng.uniform::<f32>(&[100_000], 999).unwrap().mean(None).unwrap().compute_scalar().unwrap();
    assert!((f - 0.5).abs() < 0.01, "f32 uniform mean {f}");
    // Integers: every value of a small range appears with frequency ~1/6.
    let k = rng.integers::<i64>(10, 16, &[600_000], 50_000).unwrap().compute().unwrap();
    for v in 10..16 {
        let c = k.iter().filter(|&&x| x == v).count() as f64;
        assert!((c - 100_000.0).abs() < 6.0 * (600_000.0f64 * (1.0 / 6.0) * (5.0 / 6.0)).sqrt(), "value {v} count {c}");
    }
}

#[test]
fn bad_parameters_are_errors() {
    let rng = RandomState::new(0);
    let e = rng.integers::<i64>(5, 5, &[3], 1).unwrap_err().to_string();
    assert!(e.contains("high = 5") && e.contains("low = 5"), "{e}");
    assert!(rng.integers::<i32>(0, 1 << 40, &[3], 1).is_err());
    assert!(rng.normal::<f64>(0.0, -1.0, &[3], 1).is_err());
    assert!(rng.uniform::<f64>(&[3, 3], [2]).is_err());
    let _: Array<f32> = rng.uniform(&[], ChunkSpec::auto()).unwrap();
}

#[test]
fn wide_integer_bounds_cover_u64_and_i64_uniformly() {
    use crate::random_distributions::{chi_square_p, histogram};
    let rng = RandomState::new(81);
    let n = 200_000;
    // The top half of u64: every value there, the eight top-bit cells equal.
    let top = rng.integers_wide::<u64>(1 << 63, 1 << 64, &[n], 30_000).unwrap().compute().unwrap();
    assert_eq!(top, rng.integers_wide::<u64>(1 << 63, 1 << 64, &[n], 77_777).unwrap().compute().unwrap());
    assert!(top.iter().all(|&v| v >= 1 << 63));
    let cells = histogram(top.iter().map(|&v| ((v >> 60) & 7) as i64));
    assert!(chi_square_p(&cells, |_| 1.0 / 8.0) > 1e-3, "{cells:?}");
    // A range that is not a power of two (the rejection runs): its thirds equal.
    let third = 1u128 << 62;
    let odd = rng.integers_wide::<u64>(0, 3 * third as i128, &[n], 50_000).unwrap().compute().unwrap();
    assert!(odd.iter().all(|&v| (v as u128) < 3 * third));
    let thirds = histogram(odd.iter().map(|&v| (v as u128 / third) as i64));
    assert!(chi_square_p(&thirds, |_| 1.0 / 3.0) > 1e-3, "{thirds:?}");
    // The whole of u64 and of i64: both halves, both signs.
    let all = rng.integers_wide::<u64>(0, 1 << 64, &[n], n).unwrap().compute().unwrap();
    let high = all.iter().filter(|&&v| v >= 1 << 63).count() as f64 / n as f64;
    assert!((high - 0.5).abs() < 0.01, "{high}");
    let signed = rng.integers_wide::<i64>(i64::MIN as i128, 1 << 63, &[n], n).unwrap().compute().unwrap();
    let negative = signed.iter().filter(|&&v| v < 0).count() as f64 / n as f64;
    assert!((negative - 0.5).abs() < 0.01, "{negative}");
    // Bounds within i64: the numbers of `integers`.
    let narrow = rng.integers_wide::<u64>(5, 1000, &[100], 30).unwrap().compute().unwrap();
    assert_eq!(narrow, rng.integers::<u64>(5, 1000, &[100], 100).unwrap().compute().unwrap());
    // Ranges that do not fit, or are empty.
    assert!(rng.integers_wide::<u8>(0, 1 << 64, &[4], 4).is_err());
    assert!(rng.integers_wide::<u64>(-1, 1 << 64, &[4], 4).is_err());
    assert!(rng.integers_wide::<u64>(0, (1 << 64) + 1, &[4], 4).is_err());
    assert!(rng.integers_wide::<i64>(0, (1 << 63) + 1, &[4], 4).is_err());
    let err = rng.integers_wide::<u64>(1 << 64, 1 << 63, &[4], 4).unwrap_err();
    assert!(err.to_string().contains("high"), "{err}");
}
