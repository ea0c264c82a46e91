//! `fft`: every transform against a naive O(n²) DFT written here, over drawn
//! shapes and chunkings (transformed axes split into chunks included); the
//! four-step path of long lanes on lengths with large prime factors; the
//! identities (Parseval, round trips); NumPy's values for the helpers; the
//! refusals of bad arguments.

use chunked_array::fft::{self, FftOptions, FftnOptions, Norm};
use chunked_array::ndarray::{ArrayD, Axis, IxDyn};
use chunked_array::{Array, Complex32, Complex64, Error};
use proptest::prelude::*;

/// The DFT of `x` cut or padded with zeros to `n`, scaled by `scale`.
fn dft(x: &[Complex64], n: usize, inverse: bool, scale: f64) -> Vec<Complex64> {
    let sign = if inverse { 1.0 } else { -1.0 };
    (0..n)
        .map(|k| {
            let sum: Complex64 = (0..n.min(x.len()))
                .map(|j| {
                    x[j] * Complex64::from_polar(
                        1.0,
                        sign * 2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64,
                    )
                })
                .sum();
            sum * scale
        })
        .collect()
}

fn norm_scale(norm: Norm, n: usize, inverse: bool) -> f64 {
    match (norm, inverse) {
        (Norm::Ortho, _) => 1.0 / (n as f64).sqrt(),
        (Norm::Backward, true) | (Norm::Forward, false) => 1.0 / n as f64,
        _ => 1.0,
    }
}

/// `lane_op` applied to every lane of `x` along `axis`.
fn along(x: &ArrayD<Complex64>, axis: usize, lane_op: impl Fn(&[Complex64]) -> Vec<Complex64>) -> ArrayD<Complex64> {
    let mut shape = x.shape().to_vec();
    let lanes: Vec<Vec<Complex64>> = x.lanes(Axis(axis)).into_iter().map(|l| lane_op(&l.to_vec())).collect();
    shape[axis] = lanes.first().map_or(0, Vec::len);
    let mut out = ArrayD::zeros(IxDyn(&shape));
    for (mut dest, lane) in out.lanes_mut(Axis(axis)).into_iter().zip(lanes) {
        dest.iter_mut().zip(lane).for_each(|(d, v)| *d = v);
    }
    out
}

/// The oracle of `irfft` for one lane: the Hermitian extension of its first
/// `n / 2 + 1` values, inverse transformed, its real part.
fn irdft(a: &[Complex64], n: usize, scale: f64) -> Vec<f64> {
    let m = n / 2 + 1;
    let get = |k: usize| if k < a.len() { a[k] } else { Complex64::new(0.0, 0.0) };
    let full: Vec<Complex64> = (0..n).map(|k| if k < m { get(k) } else { get(n - k).conj() }).collect();
    dft(&full, n, true, scale).iter().map(|v| v.re).collect()
}

fn complex_data(shape: &[usize], seed: u64) -> ArrayD<Complex64> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    ArrayD::from_shape_simple_fn(IxDyn(shape), || Complex64::new(next(), next()))
}

fn assert_close(got: &ArrayD<Complex64>, want: &ArrayD<Complex64>, tol: f64) {
    assert_eq!(got.shape(), want.shape());
    let scale = want.iter().map(|v| v.norm()).fold(1.0, f64::max);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).norm() <= tol * scale, "element {i}: {g} against {w}");
    }
}

fn chunked<T: chunked_array::Element>(x: &ArrayD<T>, chunks: &[usize]) -> Array<T> {
    Array::from_ndarray(x.clone(), chunks.to_vec()).unwrap()
}

/// A shape of 1 to 3 axes and a chunking of it.
fn shape_and_chunks() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    prop::collection::vec(1usize..10, 1..4).prop_flat_map(|shape| {
        let chunks: Vec<_> = shape.iter().map(|&s| 1..=s).collect();
        (Just(shape), chunks)
    })
}

fn norms() -> impl Strategy<Value = Norm> {
    prop_oneof![Just(Norm::Backward), Just(Norm::Ortho), Just(Norm::Forward)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn fft_and_ifft_match_the_dft((shape, chunks) in shape_and_chunks(), axis in 0usize..3, n in prop::option::of(1usize..12),
                                  norm in norms(), inverse in any::<bool>(), seed in any::<u64>()) {
        let axis = axis % shape.len();
        let x = complex_data(&shape, seed);
        let len = n.unwrap_or(shape[axis]);
        let want = along(&x, axis, |l| dft(l, len, inverse, norm_scale(norm, len, inverse)));
        let opts = FftOptions { n, axis: axis as isize, norm, ..Default::default() };
        let a = chunked(&x, &chunks);
        let got = if inverse { fft::ifft_with(&a, &opts) } else { fft::fft_with(&a, &opts) };
        assert_close(&got.unwrap().compute().unwrap(), &want, 1e-12);
        // Real input: the same transform of the real parts.
        let re = x.mapv(|v| v.re);
        let want = along(&re.mapv(|v| Complex64::new(v, 0.0)), axis, |l| dft(l, len, inverse, norm_scale(norm, len, inverse)));
        let got = if inverse { fft::ifft_with(&chunked(&re, &chunks), &opts) } else { fft::fft_with(&chunked(&re, &chunks), &opts) };
        assert_close(&got.unwrap().compute().unwrap(), &want, 1e-12);
    }

    #[test]
    fn real_transforms_match_the_dft((shape, chunks) in shape_and_chunks(), axis in 0usize..3, n in prop::option::of(1usize..12),
                                     norm in norms(), seed in any::<u64>()) {
        let axis = axis % shape.len();
        let x = complex_data(&shape, seed);
        let re = x.mapv(|v| v.re);
        let opts = FftOptions { n, axis: axis as isize, norm, ..Default::default() };
        // rfft: the first n / 2 + 1 outputs of the complex transform.
        let len = n.unwrap_or(shape[axis]);
        let want = along(&re.mapv(|v| Complex64::new(v, 0.0)), axis, |l| dft(l, len, false, norm_scale(norm, len, false))[..len / 2 + 1].to_vec());
        assert_close(&fft::rfft_with(&chunked(&re, &chunks), &opts).unwrap().compute().unwrap(), &want, 1e-12);
        // ihfft: conj(rfft) under the swapped norm.
        let want = along(&re.mapv(|v| Complex64::new(v, 0.0)), axis, |l| {
            dft(l, len, false, norm_scale(norm, len, true))[..len / 2 + 1].iter().map(|v| v.conj()).collect()
        });
        assert_close(&fft::ihfft_with(&chunked(&re, &chunks), &opts).unwrap().compute().unwrap(), &want, 1e-12);
        // irfft and hfft: n real outputs from the Hermitian half.
        let len = n.unwrap_or(2 * (shape[axis] - 1));
        prop_assume!(len > 0);
        let to_c = |v: Vec<f64>| v.into_iter().map(|r| Complex64::new(r, 0.0)).collect::<Vec<_>>();
        let want = along(&x, axis, |l| to_c(irdft(l, len, norm_scale(norm, len, true))));
        let got = fft::irfft_with(&chunked(&x, &chunks), &opts).unwrap().compute().unwrap();
        assert_close(&got.mapv(|v| Complex64::new(v, 0.0)), &want, 1e-12);
        let want = along(&x, axis, |l| {
            let conj: Vec<_> = l.iter().map(|v| v.conj()).collect();
            to_c(irdft(&conj, len, norm_scale(norm, len, false)))
        });
        let got = fft::hfft_with(&chunked(&x, &chunks), &opts).unwrap().compute().unwrap();
        assert_close(&got.mapv(|v| Complex64::new(v, 0.0)), &want, 1e-12);
    }

    #[test]
    fn nd_transforms_match_axis_by_axis_dfts((shape, chunks) in shape_and_chunks(), norm in norms(), seed in any::<u64>(),
                                             pick in prop::collection::vec(0usize..3, 1..3), pad in 0usize..3) {
        let mut axes: Vec<usize> = pick.into_iter().map(|a| a % shape.len()).collect();
        axes.dedup();
        prop_assume!(axes.iter().collect::<std::collections::HashSet<_>>().len() == axes.len());
        let s: Vec<usize> = axes.iter().map(|&a| shape[a] + pad).collect();
        let x = complex_data(&shape, seed);
        let opts = FftnOptions { s: Some(s.clone()), axes: Some(axes.iter().map(|&a| a as isize).collect()), norm, ..Default::default() };
        let a = chunked(&x, &chunks);
        for inverse in [false, true] {
            let mut want = x.clone();
            for (&ax, &n) in axes.iter().zip(&s) {
                want = along(&want, ax, |l| dft(l, n, inverse, norm_scale(norm, n, inverse)));
            }
            let got = if inverse { fft::ifftn_with(&a, &opts) } else { fft::fftn_with(&a, &opts) };
            assert_close(&got.unwrap().compute().unwrap(), &want, 1e-12);
        }
        // rfftn: the real transform along the last axis given, then the rest.
        let re = x.mapv(|v| v.re);
        let (&last, rest) = axes.split_last().unwrap();
        let n_last = s[s.len() - 1];
        let mut want = along(&re.mapv(|v| Complex64::new(v, 0.0)), last, |l| dft(l, n_last, false, norm_scale(norm, n_last, false))[..n_last / 2 + 1].to_vec());
        for (&ax, &n) in rest.iter().zip(&s) {
            want = along(&want, ax, |l| dft(l, n, false, norm_scale(norm, n, false)));
        }
        let spectrum = fft::rfftn_with(&chunked(&re, &chunks), &opts).unwrap();
        assert_close(&spectrum.compute().unwrap(), &want, 1e-12);
        // irfftn of rfftn gives the input back, cut or padded to s.
        let back = fft::irfftn_with(&spectrum, &opts).unwrap().compute().unwrap();
        let mut padded = re.clone();
        for (&ax, &n) in axes.iter().zip(&s) {
            padded = along(&padded.mapv(|v| Complex64::new(v, 0.0)), ax, |l| (0..n).map(|i| l.get(i).copied().unwrap_or_default()).collect()).mapv(|v| v.re);
        }
        assert_close(&back.mapv(|v| Complex64::new(v, 0.0)), &padded.mapv(|v| Complex64::new(v, 0.0)), 1e-12);
    }
}

#[test]
fn two_d_functions_take_the_last_two_axes() {
    let x = complex_data(&[3, 4, 5], 7);
    let a = chunked(&x, &[2, 3, 2]);
    let mut want = along(&x, 2, |l| dft(l, 5, false, 1.0));
    want = along(&want, 1, |l| dft(l, 4, false, 1.0));
    assert_close(&fft::fft2(&a).unwrap().compute().unwrap(), &want, 1e-12);
    let back = fft::ifft2(&fft::fft2(&a).unwrap()).unwrap().compute().unwrap();
    assert_close(&back, &x, 1e-12);
    let re = chunked(&x.mapv(|v| v.re), &[2, 3, 2]);
    let back = fft::irfft2_with(&fft::rfft2(&re).unwrap(), &FftnOptions { s: Some(vec![4, 5]), ..Default::default() })
        .unwrap();
    assert_close(
        &back.compute().unwrap().mapv(|v| Complex64::new(v, 0.0)),
        &x.mapv(|v| Complex64::new(v.re, 0.0)),
        1e-12,
    );
}

#[test]
fn empty_axes_beside_the_transformed_one_give_empty_results() {
    // NumPy: np.fft.fft(np.zeros((8, 0)), axis=0).shape == (8, 0)
    let x = Array::<f64>::zeros(&[8, 0], 4).unwrap();
    let axis0 = FftOptions { axis: 0, ..Default::default() };
    assert_eq!(fft::fft_with(&x, &axis0).unwrap().compute().unwrap().shape(), &[8, 0]);
    assert_eq!(fft::rfft_with(&x, &axis0).unwrap().compute().unwrap().shape(), &[5, 0]);
    assert_eq!(fft::ihfft_with(&x, &axis0).unwrap().compute().unwrap().shape(), &[5, 0]);
    let c = Array::<Complex64>::zeros(&[0, 5], 1).unwrap();
    assert_eq!(fft::irfft(&c).unwrap().compute().unwrap().shape(), &[0, 8]);
    assert_eq!(fft::hfft(&c).unwrap().compute().unwrap().shape(), &[0, 8]);
    assert_eq!(
        fft::fftn_with(&c, &FftnOptions { axes: Some(vec![1]), ..Default::default() })
            .unwrap()
            .compute()
            .unwrap()
            .shape(),
        &[0, 5]
    );
}

#[test]
fn single_precision_stays_single_and_agrees() {
    let x = complex_data(&[6, 10], 3);
    let x32 = x.mapv(|v| Complex32::new(v.re as f32, v.im as f32));
    let got: ArrayD<Complex32> = fft::fft(&chunked(&x32, &[2, 3])).unwrap().compute().unwrap();
    let want = along(&x32.mapv(|v| Complex64::new(v.re as f64, v.im as f64)), 1, |l| dft(l, 10, false, 1.0));
    assert_close(&got.mapv(|v| Complex64::new(v.re as f64, v.im as f64)), &want, 1e-6);
    let re32 = x32.mapv(|v| v.re);
    let back: ArrayD<f32> = fft::irfft_with(
        &fft::rfft(&chunked(&re32, &[3, 4])).unwrap(),
        &FftOptions { n: Some(10), ..Default::default() },
    )
    .unwrap()
    .compute()
    .unwrap();
    assert!(back.iter().zip(&re32).all(|(a, b)| (a - b).abs() < 1e-5));
}

/// Options that send lanes of `n` complex128 numbers to the four-step path:
/// lanes longer than about `fits` elements do not fit a task.
fn four_step(fits: usize, axis: isize) -> FftOptions {
    FftOptions { axis, block_size_limit: fits * 16 * 4, ..Default::default() }
}

#[test]
fn long_lanes_with_large_prime_factors_take_four_steps() {
    // 3 · 1009 (split 3 x 1009), 2^4 · 1013, 2 · 3 · 5 · 7 · 11 (split 42 x 55).
    for (n, chunk) in [(3 * 1009, 500), (16 * 1013, 4000), (2310, 200)] {
        let x = complex_data(&[n], n as u64);
        let a = chunked(&x, &[chunk]);
        let opts = FftOptions { norm: Norm::Ortho, ..four_step(1100, -1) };
        let want = along(&x, 0, |l| dft(l, n, false, 1.0 / (n as f64).sqrt()));
        let spectrum = fft::fft_with(&a, &opts).unwrap();
        assert_close(&spectrum.compute().unwrap(), &want, 1e-11);
        let back = fft::ifft_with(&spectrum, &opts).unwrap().compute().unwrap();
        assert_close(&back, &x, 1e-11);
    }
}

#[test]
fn four_steps_along_an_inner_axis_and_for_real_transforms() {
    let n = 3 * 1009;
    let x = complex_data(&[3, n, 2], 5);
    let a = chunked(&x, &[2, 700, 1]);
    let want = along(&x, 1, |l| dft(l, n, false, 1.0));
    assert_close(&fft::fft_with(&a, &four_step(1100, 1)).unwrap().compute().unwrap(), &want, 1e-11);
    let re = x.mapv(|v| v.re);
    let want_half = along(&re.mapv(|v| Complex64::new(v, 0.0)), 1, |l| dft(l, n, false, 1.0)[..n / 2 + 1].to_vec());
    let half = fft::rfft_with(&chunked(&re, &[2, 700, 1]), &four_step(1100, 1)).unwrap();
    assert_close(&half.compute().unwrap(), &want_half, 1e-11);
    let opts = FftOptions { n: Some(n), ..four_step(1100, 1) };
    let back = fft::irfft_with(&half.rechunk([2, 300, 1]).unwrap(), &opts).unwrap().compute().unwrap();
    assert_close(&back.mapv(|v| Complex64::new(v, 0.0)), &re.mapv(|v| Complex64::new(v, 0.0)), 1e-11);
}

#[test]
fn a_long_prime_lane_that_fits_no_block_is_refused() {
    let x = chunked(&complex_data(&[1009], 1), &[100]);
    let err = fft::fft_with(&x, &four_step(500, 0)).unwrap_err();
    assert!(matches!(&err, Error::InvalidArgument { value, .. } if value == "1009"), "{err}");
    // Given room for the lane, it is transformed whole.
    assert!(fft::fft_with(&x, &four_step(1009, 0)).is_ok());
}

#[test]
fn parseval_and_round_trips_hold_within_log_n_eps() {
    for n in [1usize, 2, 7, 64, 97, 1000, 4096] {
        let x = complex_data(&[n], n as u64 + 11);
        let a = chunked(&x, &[n.div_ceil(3)]);
        let spectrum = fft::fft(&a).unwrap();
        let energy: f64 = x.iter().map(|v| v.norm_sqr()).sum();
        let spectral: f64 = spectrum.compute().unwrap().iter().map(|v| v.norm_sqr()).sum::<f64>() / n as f64;
        assert!((energy - spectral).abs() <= 1e-13 * energy.max(1.0) * (n as f64).log2().max(1.0), "n = {n}");
        let back = fft::ifft(&spectrum).unwrap().compute().unwrap();
        let bound = 4.0 * (n as f64).log2().max(1.0) * f64::EPSILON;
        assert!(back.iter().zip(&x).all(|(b, v)| (b - v).norm() <= bound), "n = {n}");
    }
}

#[test]
fn helpers_give_numpys_values() {
    let f = fft::fftfreq(7, 0.3, 3).unwrap().compute().unwrap();
    let numpy = [
        0.0,
        0.47619047619047616,
        0.9523809523809523,
        1.4285714285714284,
        -1.4285714285714284,
        -0.9523809523809523,
        -0.47619047619047616,
    ];
    assert_eq!(f.as_slice().unwrap(), &numpy);
    let f = fft::fftfreq(8, 2.5, 3).unwrap().compute().unwrap();
    assert_eq!(f.as_slice().unwrap(), &[0.0, 0.05, 0.1, 0.15000000000000002, -0.2, -0.15000000000000002, -0.1, -0.05]);
    let f = fft::rfftfreq(7, 0.3, 2).unwrap().compute().unwrap();
    assert_eq!(f.as_slice().unwrap(), &numpy[..4]);
    let f = fft::rfftfreq(10, 1.0 / 3.0, 4).unwrap().compute().unwrap();
    assert_eq!(
        f.as_slice().unwrap(),
        &[0.0, 0.30000000000000004, 0.6000000000000001, 0.9000000000000001, 1.2000000000000002, 1.5000000000000002]
    );
    let x = Array::<i64>::arange(0, 15, 1, 4).unwrap().reshape(&[3, 5]).unwrap();
    let flat = |a: Array<i64>| a.compute().unwrap().iter().copied().collect::<Vec<_>>();
    assert_eq!(flat(fft::fftshift(&x, None).unwrap()), [13, 14, 10, 11, 12, 3, 4, 0, 1, 2, 8, 9, 5, 6, 7]);
    assert_eq!(flat(fft::ifftshift(&x, None).unwrap()), [7, 8, 9, 5, 6, 12, 13, 14, 10, 11, 2, 3, 4, 0, 1]);
    assert_eq!(flat(fft::fftshift(&x, Some(&[1])).unwrap()), [3, 4, 0, 1, 2, 8, 9, 5, 6, 7, 13, 14, 10, 11, 12]);
    // np.fft.hfft([1, 2-1j, 3, 4+2j], n=5), np.fft.irfft([1+1j, 2-1j, 3+5j]), np.fft.fft(arange(4), norm="forward")
    let c = |v: &[(f64, f64)]| {
        Array::from_vec(&[v.len()], v.iter().map(|&(r, i)| Complex64::new(r, i)).collect(), 2).unwrap()
    };
    let h = fft::hfft_with(
        &c(&[(1.0, 0.0), (2.0, -1.0), (3.0, 0.0), (4.0, 2.0)]),
        &FftOptions { n: Some(5), ..Default::default() },
    )
    .unwrap();
    let numpy = [11.0, -4.520147021340202, -1.5575365158350514, 0.7936044933348412, -0.7159209561595878];
    assert!(h.compute().unwrap().iter().zip(numpy).all(|(a, b)| (a - b).abs() < 1e-13));
    let r = fft::irfft(&c(&[(1.0, 1.0), (2.0, -1.0), (3.0, 5.0)])).unwrap().compute().unwrap();
    assert!(r.iter().zip([2.0, 0.0, 0.0, -1.0]).all(|(a, b)| (a - b).abs() < 1e-15));
    let y = fft::fft_with(
        &Array::<f64>::arange(0.0, 4.0, 1.0, 3).unwrap(),
        &FftOptions { norm: Norm::Forward, ..Default::default() },
    );
    let numpy = [(1.5, 0.0), (-0.5, 0.5), (-0.5, 0.0), (-0.5, -0.5)];
    assert!(
        y.unwrap()
            .compute()
            .unwrap()
            .iter()
            .zip(numpy)
            .all(|(a, (r, i))| (a.re - r).abs() < 1e-15 && (a.im - i).abs() < 1e-15)
    );
}

#[test]
fn bad_arguments_are_refused_with_their_values() {
    let x = Array::<f64>::ones(&[4, 3], 2).unwrap();
    let value_of = |e: Error| match e {
        Error::InvalidArgument { name, value, .. } => format!("{name}={value}"),
        Error::BadAxis { axis, detail, .. } => format!("axis={axis}{detail}"),
        other => panic!("{other}"),
    };
    assert_eq!(value_of(fft::fft_with(&x, &FftOptions { n: Some(0), ..Default::default() }).unwrap_err()), "n=0");
    assert_eq!(value_of(fft::fft_with(&x, &FftOptions { axis: 2, ..Default::default() }).unwrap_err()), "axis=2");
    assert_eq!(value_of(fft::rfft_with(&x, &FftOptions { axis: -3, ..Default::default() }).unwrap_err()), "axis=-3");
    let repeated = FftnOptions { axes: Some(vec![0, -2]), ..Default::default() };
    assert_eq!(value_of(fft::fftn_with(&x, &repeated).unwrap_err()), "axis=-2 (given twice)");
    let mismatched = FftnOptions { s: Some(vec![2, 2]), axes: Some(vec![0]), ..Default::default() };
    assert_eq!(value_of(fft::fftn_with(&x, &mismatched).unwrap_err()), "s=[2, 2]");
    assert_eq!(
        value_of(fft::fftn_with(&x, &FftnOptions { s: Some(vec![1, 2, 3]), ..Default::default() }).unwrap_err()),
        "s=[1, 2, 3]"
    );
    assert_eq!(
        value_of(fft::fftn_with(&x, &FftnOptions { s: Some(vec![0]), ..Default::default() }).unwrap_err()),
        "s=0"
    );
    let one = Array::<Complex64>::ones(&[1], 1).unwrap();
    assert_eq!(value_of(fft::irfft(&one).unwrap_err()), "n=0", "irfft of one value has no default length");
    assert_eq!(value_of(fft::fft2(&Array::<f64>::ones(&[4], 2).unwrap()).unwrap_err()), "axis=-2");
    assert_eq!(value_of(fft::fft(&Array::<f64>::ones(&[], 1).unwrap()).unwrap_err()), "array shape=[]");
    assert_eq!(value_of(fft::fft(&Array::<f64>::ones(&[0], 1).unwrap()).unwrap_err()), "n=0");
    assert_eq!(value_of("Ortho".parse::<Norm>().unwrap_err()), "norm=\"Ortho\"");
    assert_eq!(value_of(fft::fftfreq(0, 1.0, 1).unwrap_err()), "n=0");
    assert_eq!(value_of(fft::rfftfreq(4, 0.0, 1).unwrap_err()), "d=0.0");
}

const CHILD_DIR: &str = "CHUNKED_TEST_FFT_CHILD_DIR";
const LONG: usize = 1 << 24;
const MEMORY_LIMIT: usize = 64 << 20;

/// The long transform's input: 2^24 normal numbers in blocks of 2^20.
fn long_signal() -> Array<f64> {
    chunked_array::random::RandomState::new(39).standard_normal(&[LONG], 1 << 20).unwrap()
}

/// Peak resident set size of this process (Linux VmHWM), in bytes.
fn peak_rss() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<usize>().unwrap() << 10
}

/// The child of `a_transform_larger_than_memory_runs_under_its_limit`: the
/// 2^24-point transform (256 MiB of output) under a 64 MiB memory limit,
/// streamed to an .npy file, then this process's peak RSS.
#[test]
#[ignore = "the child process of a_transform_larger_than_memory_runs_under_its_limit"]
fn child_long_transform_under_a_limit() {
    let Ok(dir) = std::env::var(CHILD_DIR) else {
        panic!("run by a_transform_larger_than_memory_runs_under_its_limit only");
    };
    let dir = std::path::Path::new(&dir);
    let opts = FftOptions { block_size_limit: 8 << 20, ..Default::default() };
    let spectrum = fft::fft_with(&long_signal(), &opts).unwrap();
    let ctx = chunked_array::Context::threads(2).with_memory_limit(MEMORY_LIMIT).with_spill_dir(dir);
    spectrum.to_npy_on(dir.join("spectrum.npy"), chunked_array::io::WriteMode::Overwrite, &ctx).unwrap();
    std::fs::write(dir.join("peak_rss"), peak_rss().to_string()).unwrap();
}

#[test]
fn a_transform_larger_than_memory_runs_under_its_limit() {
    let dir = crate::support::TempDir::new("fft-long");
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["fft::child_long_transform_under_a_limit", "--exact", "--ignored", "--test-threads=1"])
        .env(CHILD_DIR, dir.path())
        .status()
        .unwrap();
    assert!(status.success(), "the child failed: {status}");
    let peak: usize = std::fs::read_to_string(dir.path().join("peak_rss")).unwrap().parse().unwrap();
    eprintln!("peak RSS of the child: {} MiB", peak >> 20);
    // The output alone is 256 MiB; the process holds its blocks under the
    // limit plus the binary, the allocator's slack and the FFT plans.
    assert!(peak < 200 << 20, "peak RSS {} MiB", peak >> 20);
    let got: ArrayD<Complex64> =
        chunked_array::io::npy::from_npy(dir.path().join("spectrum.npy"), LONG).unwrap().compute().unwrap();
    let mut want: Vec<Complex64> = long_signal().compute().unwrap().iter().map(|&v| Complex64::new(v, 0.0)).collect();
    rustfft::FftPlanner::new().plan_fft_forward(LONG).process(&mut want);
    let scale = want.iter().map(|v| v.norm()).fold(0.0, f64::max);
    let worst = got.iter().zip(&want).map(|(g, w)| (g - w).norm()).fold(0.0, f64::max);
    assert!(worst <= 1e-12 * scale * 24.0, "largest difference {worst} against a largest value {scale}");
}
