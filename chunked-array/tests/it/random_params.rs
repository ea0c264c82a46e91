//! Array-valued distribution parameters (NumPy's `normal(mu_array, sigma)`):
//! each element equals the element at the same place of the array drawn with
//! that element's parameters as numbers, for any chunking; parameters
//! broadcast against the shape, and a refused value is an error naming it.

use chunked_array::random::RandomState;
use chunked_array::{Array, Element, Result};
use ndarray::ArrayD;

const SHAPE: [usize; 2] = [9, 4];

/// One parameter per column (broadcast along the rows).
fn per_column(values: [f64; 4]) -> Array<f64> {
    Array::from_vec(&[4], values.to_vec(), 3).unwrap()
}

/// `draw(param)` with a parameter per column against, column by column,
/// `draw(number)`: equal element by element, in two chunkings.
fn matches_numbers<T: Element>(
    columns: [f64; 4],
    draw: impl Fn(chunked_array::random::Param, [usize; 2]) -> Result<Array<T>>,
) {
    let param = per_column(columns);
    let by_array: ArrayD<T> = draw((&param).into(), [4, 3]).unwrap().compute().unwrap();
    let rechunked: ArrayD<T> = draw((&param).into(), [9, 1]).unwrap().compute().unwrap();
    assert_eq!(by_array, rechunked, "chunking changed the draws");
    for (j, &v) in columns.iter().enumerate() {
        let by_number: ArrayD<T> = draw(v.into(), [2, 4]).unwrap().compute().unwrap();
        for i in 0..SHAPE[0] {
            assert_eq!(by_array[[i, j]], by_number[[i, j]], "element ({i}, {j}), parameter {v}");
        }
    }
}

#[test]
fn each_element_is_drawn_with_its_own_parameters() {
    let rng = RandomState::new(71);
    matches_numbers([0.5, 1.0, 4.0, 30.0], |p, c| rng.exponential(p, &SHAPE, c));
    matches_numbers([0.3, 1.0, 2.5, 40.0], |p, c| rng.gamma(p, 2.0, &SHAPE, c));
    matches_numbers([0.3, 1.0, 2.5, 40.0], |p, c| rng.gamma(1.5, p, &SHAPE, c));
    matches_numbers([0.2, 0.5, 3.0, 9.0], |p, c| rng.beta(p, 0.7, &SHAPE, c));
    matches_numbers([1.0, 2.0, 5.5, 30.0], |p, c| rng.standard_t(p, &SHAPE, c));
    matches_numbers([-3.0, 0.0, 1.0, 2.0], |p, c| rng.uniform_range(p, 2.5, &SHAPE, c));
    matches_numbers([0.0, 3.0, 50.0, 2e4], |p, c| rng.poisson(p, &SHAPE, c));
    matches_numbers([0.0, 0.1, 0.5, 1.0], |p, c| rng.binomial(40, p, &SHAPE, c));
    matches_numbers([0.5, 1.0, 7.0, 90.0], |p, c| rng.negative_binomial(p, 0.3, &SHAPE, c));
    matches_numbers([1.1, 1.5, 2.0, 6.0], |p, c| rng.zipf(p, &SHAPE, c));
    matches_numbers([-1.0, 0.0, 0.5, 1.0], |p, c| rng.triangular(-1.0, p, 1.0, &SHAPE, c));
    matches_numbers([0.0, 0.1, 2.0, 700.0], |p, c| rng.vonmises(1.0, p, &SHAPE, c));
    matches_numbers([-5.0, 0.0, 1.0, 3.0], |p, c| rng.laplace(p, 2.0, &SHAPE, c));
    matches_numbers([-5.0, 0.0, 1.0, 3.0], |p, c| rng.lognormal(p, 0.5, &SHAPE, c));
    matches_numbers([-5.0, 0.0, 1.0, 3.0], |p, c| rng.normal::<f64>(p, 2.0, &SHAPE, c));
    matches_numbers([0.0, 0.5, 1.0, 3.0], |p, c| rng.normal::<f64>(-1.0, p, &SHAPE, c));
}

#[test]
fn two_array_parameters_broadcast_together() {
    let rng = RandomState::new(72);
    // A location per row (a column vector) and a scale per element.
    let loc = Array::from_vec(&[9, 1], (0..9).map(|i| i as f64 * 10.0).collect(), [4, 1]).unwrap();
    let scale: Vec<f64> = (0..36).map(|k| 0.5 + (k % 5) as f64).collect();
    let scale_array = Array::from_vec(&SHAPE, scale.clone(), [5, 2]).unwrap();
    let got = rng.gumbel(&loc, &scale_array, &SHAPE, [3, 3]).unwrap().compute().unwrap();
    for i in 0..9 {
        for j in 0..4 {
            let one = rng.gumbel(i as f64 * 10.0, scale[i * 4 + j], &SHAPE, [9, 4]).unwrap().compute().unwrap();
            assert_eq!(got[[i, j]], one[[i, j]], "element ({i}, {j})");
        }
    }
}

#[test]
fn the_draws_follow_their_parameters() {
    // Means per column against the parameters: exponential (mean = scale),
    // poisson (mean = lam), normal (mean, and the spread its std sets).
    let rng = RandomState::new(73);
    let rows = 40_000;
    let column = |a: Array<f64>| a.mean(Some(0)).unwrap().compute().unwrap();
    let scale = per_column([0.5, 2.0, 10.0, 100.0]);
    let means = column(rng.exponential(&scale, &[rows, 4], [10_000, 2]).unwrap());
    for (m, s) in means.iter().zip([0.5, 2.0, 10.0, 100.0]) {
        assert!((m / s - 1.0).abs() < 0.03, "exponential mean {m} for scale {s}");
    }
    let lam = per_column([0.5, 4.0, 80.0, 5000.0]);
    let counts = rng.poisson(&lam, &[rows, 4], [10_000, 4]).unwrap().astype::<f64>();
    for (m, l) in column(counts).iter().zip([0.5, 4.0, 80.0, 5000.0]) {
        assert!((m - l).abs() < 4.0 * (l / rows as f64).sqrt() + 1e-9, "poisson mean {m} for lam {l}");
    }
    let mu = per_column([-50.0, 0.0, 3.0, 1e3]);
    let sd = per_column([1.0, 0.0, 4.0, 20.0]);
    let x = rng.normal::<f64>(&mu, &sd, &[rows, 4], [7_000, 3]).unwrap();
    let spread = x.std(Some(0), 0).unwrap().compute().unwrap();
    for ((m, s), (want_m, want_s)) in
        column(x).iter().zip(&spread).zip([(-50.0, 1.0), (0.0, 0.0), (3.0, 4.0), (1e3, 20.0)])
    {
        assert!((m - want_m).abs() < 4.0 * want_s / (rows as f64).sqrt() + 1e-12, "normal mean {m}");
        assert!((s - want_s).abs() < 0.02 * want_s + 1e-12, "normal std {s} for {want_s}");
    }
    // f32: the f64 formula on the f32 standard normal, to f32's rounding.
    let x32 = rng.normal::<f32>(&mu, &sd, &[100, 4], 50).unwrap().compute().unwrap();
    let z32 = rng.normal::<f32>(0.0, 1.0, &[100, 4], 100).unwrap().compute().unwrap();
    for ((i, j), v) in x32.indexed_iter().map(|(ix, v)| ((ix[0], ix[1]), *v)) {
        let want = ([-50.0, 0.0, 3.0, 1e3][j] + [1.0, 0.0, 4.0, 20.0][j] * z32[[i, j]] as f64) as f32;
        assert_eq!(v, want, "f32 element ({i}, {j})");
    }
}

#[test]
fn parameters_that_do_not_fit_or_are_refused_are_errors() {
    let rng = RandomState::new(74);
    // Five values cannot broadcast against four columns.
    let five = Array::from_vec(&[5], vec![1.0; 5], 5).unwrap();
    let err = rng.exponential(&five, &SHAPE, 3).expect_err("a shape mismatch");
    assert!(err.to_string().contains('5'), "{err}");
    let err = rng.normal::<f64>(&five, 1.0, &SHAPE, 3).expect_err("a shape mismatch");
    assert!(err.to_string().contains('5'), "{err}");
    // A refused value fails the compute, naming the parameter and the value.
    let cases: Vec<(Array<f64>, &str, &str)> = vec![
        (rng.exponential(per_column([1.0, -2.5, 1.0, 1.0]), &SHAPE, 3).unwrap(), "scale", "-2.5"),
        (rng.gamma(per_column([1.0, 1.0, f64::NAN, 1.0]), 1.0, &SHAPE, 3).unwrap(), "shape", "NaN"),
        (rng.beta(1.0, per_column([1.0, 1.0, 1.0, 0.0]), &SHAPE, 3).unwrap(), "b", "0"),
        (rng.normal::<f64>(0.0, per_column([1.0, -1.0, 1.0, 1.0]), &SHAPE, 3).unwrap(), "std", "-1"),
        (rng.normal::<f64>(per_column([1.0, 1.0, f64::INFINITY, 1.0]), 1.0, &SHAPE, 3).unwrap(), "mean", "inf"),
        (rng.triangular(0.0, per_column([0.5, 0.5, 2.0, 0.5]), 1.0, &SHAPE, 3).unwrap(), "right", "1"),
    ];
    for (x, name, value) in cases {
        let err = x.compute().expect_err("a refused parameter");
        let text = err.to_string();
        assert!(text.contains(name) && text.contains(value), "{text}");
    }
    let p = per_column([0.5, 1.5, 0.5, 0.5]);
    let err = rng.binomial(10, p, &SHAPE, 3).unwrap().compute().expect_err("p past 1");
    assert!(err.to_string().contains("1.5"), "{err}");
    // Numbers are still checked at once.
    assert!(rng.exponential(-1.0, &SHAPE, 3).is_err());
}

/// [`matches_numbers`] for an integer parameter per column.
fn matches_integers<T: Element>(
    columns: [i64; 4],
    draw: impl Fn(chunked_array::random::IntParam, [usize; 2]) -> Result<Array<T>>,
) {
    let param = Array::<i64>::from_vec(&[4], columns.to_vec(), 3).unwrap();
    let by_array: ArrayD<T> = draw((&param).into(), [4, 3]).unwrap().compute().unwrap();
    let rechunked: ArrayD<T> = draw((&param).into(), [9, 1]).unwrap().compute().unwrap();
    assert_eq!(by_array, rechunked, "chunking changed the draws");
    for (j, &v) in columns.iter().enumerate() {
        let by_number: ArrayD<T> = draw(v.into(), [2, 4]).unwrap().compute().unwrap();
        for i in 0..SHAPE[0] {
            assert_eq!(by_array[[i, j]], by_number[[i, j]], "element ({i}, {j}), parameter {v}");
        }
    }
}

#[test]
fn integer_parameters_draw_each_element_with_its_own() {
    let rng = RandomState::new(75);
    matches_integers([0, 1, 20, 5000], |n, c| rng.binomial(n, 0.3, &SHAPE, c));
    matches_integers([0, 3, 30, 500], |g, c| rng.hypergeometric(g, 70, 20, &SHAPE, c));
    matches_integers([20, 5, 600, 1 << 20], |b, c| rng.hypergeometric(30, b, 20, &SHAPE, c));
    matches_integers([0, 1, 20, 100], |s, c| rng.hypergeometric(30, 70, s, &SHAPE, c));
    // Bounds: every element type, both bounds, the endpoint, and past 2^53.
    matches_integers([1, 2, 100, 1 << 40], |h, c| rng.integers::<i64>(0, h, &SHAPE, c));
    matches_integers([-128, -3, 0, 126], |l, c| rng.integers::<i8>(l, 127, &SHAPE, c));
    matches_integers([1, 7, 256, 65535], |h, c| rng.integers::<u16>(0, h, &SHAPE, c));
    matches_integers([0, 7, 200, 255], |h, c| rng.integers_inclusive::<u8>(0, h, &SHAPE, c));
    matches_integers([1, 3, 1 << 20, 1 << 24], |h, c| rng.integers::<f32>(0, h, &SHAPE, c));
    matches_integers([1, 3, 1 << 30, 1 << 50], |h, c| rng.integers::<f64>(-5, h, &SHAPE, c));
    let big = (1i64 << 60) + 1;
    matches_integers([big, big + 1, big + 2, i64::MAX], |h, c| rng.integers::<u64>(big - 1, h, &SHAPE, c));
}

#[test]
fn integer_parameters_broadcast_and_are_checked() {
    let rng = RandomState::new(76);
    // A lower bound per row and an upper bound per element.
    let low = Array::<i64>::from_vec(&[9, 1], (0..9).map(|i| i * 100).collect(), [4, 1]).unwrap();
    let high: Vec<i64> = (0..36).map(|k| (k / 4) * 100 + 1 + k % 4).collect();
    let high_array = Array::<i64>::from_vec(&SHAPE, high.clone(), [5, 2]).unwrap();
    let got = rng.integers::<i32>(&low, &high_array, &SHAPE, [3, 3]).unwrap().compute().unwrap();
    for (k, (ix, &v)) in got.indexed_iter().enumerate() {
        let one = rng.integers::<i32>(ix[0] as i64 * 100, high[k], &SHAPE, [9, 4]).unwrap().compute().unwrap();
        assert_eq!(v, one[[ix[0], ix[1]]], "element {ix:?}");
    }
    // A refused value fails the compute, naming the parameter and the value.
    let column = |values: [i64; 4]| Array::<i64>::from_vec(&[4], values.to_vec(), 2).unwrap();
    let cases: Vec<(Array<i64>, &str, &str)> = vec![
        (rng.binomial(column([5, -7, 5, 5]), 0.5, &SHAPE, 3).unwrap(), "n", "-7"),
        (rng.hypergeometric(column([5, 5, -2, 5]), 5, 3, &SHAPE, 3).unwrap(), "ngood", "-2"),
        (rng.hypergeometric(5, 5, column([3, 11, 3, 3]), &SHAPE, 3).unwrap(), "nsample", "11"),
        (rng.integers::<i64>(column([0, 9, 0, 0]), 9, &SHAPE, 3).unwrap(), "high", "9"),
        (rng.integers::<u8>(0, column([5, 5, 5, 300]), &SHAPE, 3).unwrap().astype::<i64>(), "low..high", "300"),
        (
            rng.integers_inclusive::<i64>(0, column([3, 3, i64::MAX, 3]), &SHAPE, 3).unwrap(),
            "high",
            "9223372036854775807",
        ),
    ];
    for (x, name, value) in cases {
        let err = x.compute().expect_err("a refused parameter");
        let text = err.to_string();
        assert!(text.contains(name) && text.contains(value), "{text}");
    }
    let five = Array::<i64>::from_vec(&[5], vec![1; 5], 5).unwrap();
    assert!(rng.binomial(&five, 0.5, &SHAPE, 3).is_err(), "five values against four columns");
}
