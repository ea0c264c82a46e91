//! Every routine on complex matrices against whole-matrix oracles: residuals
//! and orthogonality computed here with plain loops over the computed arrays,
//! singular values from faer's in-core complex SVD, and the real routines'
//! tolerances (10·n·eps for backward errors, 100·k·eps for singular values).

use chunked_array::random::RandomState;
use chunked_array::{Array, ChunkSpec, Complex32, Complex64};
use chunked_linalg::{
    CompressedOptions, MatrixNorm, TsqrOptions, cholesky, inv, lstsq, lu, matrix_norm, qr, sfqr, solve,
    solve_triangular, svd, svd_compressed, tsqr, vector_norm,
};
use ndarray::{Array1, Array2, ArrayD, Ix1, Ix2};

type C = Complex64;
const EPS: f64 = f64::EPSILON;

/// A matrix of independent complex Gaussians (real and imaginary parts from
/// two streams).
fn gaussian(m: usize, n: usize, seed: u64) -> Array2<C> {
    let part = |stream| {
        RandomState::new(seed)
            .with_stream(stream)
            .standard_normal::<f64>(&[m, n], [m.max(1), n.max(1)])
            .unwrap()
            .compute()
            .unwrap()
            .into_dimensionality::<Ix2>()
            .unwrap()
    };
    let (re, im) = (part(0), part(1));
    Array2::from_shape_fn((m, n), |(i, j)| C::new(re[[i, j]], im[[i, j]]))
}

fn chunked(a: &Array2<C>, rows: Vec<usize>, cols: Vec<usize>) -> Array<C> {
    Array::from_ndarray(a.clone().into_dyn(), ChunkSpec::from(vec![rows, cols])).unwrap()
}

fn mat(a: &Array<C>) -> Array2<C> {
    a.compute().unwrap().into_dimensionality::<Ix2>().unwrap()
}

fn vector(a: &Array<f64>) -> Array1<f64> {
    a.compute().unwrap().into_dimensionality::<Ix1>().unwrap()
}

/// The conjugate transpose.
fn herm(a: &Array2<C>) -> Array2<C> {
    a.t().mapv(|x| x.conj())
}

fn product(a: &Array2<C>, b: &Array2<C>) -> Array2<C> {
    let mut c = Array2::<C>::zeros((a.nrows(), b.ncols()));
    for i in 0..a.nrows() {
        for k in 0..a.ncols() {
            let aik = a[[i, k]];
            for j in 0..b.ncols() {
                c[[i, j]] += aik * b[[k, j]];
            }
        }
    }
    c
}

fn fro(a: &Array2<C>) -> f64 {
    a.iter().map(|x| x.norm_sqr()).sum::<f64>().sqrt()
}

fn eye(n: usize) -> Array2<C> {
    Array2::from_shape_fn((n, n), |(i, j)| if i == j { C::new(1.0, 0.0) } else { C::new(0.0, 0.0) })
}

/// ||qᴴq - I||_F.
fn orthogonality(q: &Array2<C>) -> f64 {
    fro(&(product(&herm(q), q) - eye(q.ncols())))
}

fn relative(a: &Array2<C>, b: &Array2<C>) -> f64 {
    fro(&(a - b)) / fro(a)
}

/// faer's in-core singular values, non-increasing.
fn faer_singular_values(a: &Array2<C>) -> Vec<f64> {
    faer::Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[[i, j]]).singular_values().unwrap()
}

fn check_qr(a: &Array2<C>, q: &Array2<C>, r: &Array2<C>, what: &str) {
    let tol = 10.0 * a.ncols().min(a.nrows()) as f64 * EPS;
    assert!(relative(a, &product(q, r)) <= tol, "{what}: residual {}", relative(a, &product(q, r)));
    assert!(orthogonality(q) <= tol, "{what}: orthogonality {}", orthogonality(q));
    for i in 0..r.nrows() {
        for j in 0..i.min(r.ncols()) {
            assert_eq!(r[[i, j]], C::new(0.0, 0.0), "{what}: R[{i},{j}]");
        }
    }
    // R is unique up to a unit phase per row: |R_ii| is the oracle's.
    let oracle = faer::Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[[i, j]]).qr().R().to_owned();
    for i in 0..r.nrows().min(r.ncols()) {
        let (got, want) = (r[[i, i]].norm(), oracle[(i, i)].norm());
        assert!((got - want).abs() <= tol * fro(a), "{what}: |R[{i},{i}]| {got} vs {want}");
    }
}

#[test]
fn tsqr_of_complex_matrices_on_every_path() {
    let a = gaussian(320, 24, 1);
    let x = chunked(&a, vec![40; 8], vec![24]);
    let paths = [
        ("pairs of triangles, direct Q", TsqrOptions::default()),
        ("pairs of triangles, Householder Q", TsqrOptions { max_direct_condition: 0.0, ..TsqrOptions::default() }),
        ("groups of three, Householder Q", TsqrOptions { arity: 3, max_direct_condition: 0.0, ..Default::default() }),
    ];
    for (what, options) in paths {
        let f = tsqr(&x, &TsqrOptions { compute_svd: true, ..options }).unwrap();
        check_qr(&a, &mat(&f.q), &mat(&f.r), what);
        let svd = f.svd.unwrap();
        let (u, s, vt) = (mat(&svd.u), vector(&svd.s), mat(&svd.vt));
        let us = Array2::from_shape_fn(u.raw_dim(), |(i, j)| u[[i, j]] * s[j]);
        assert!(relative(&a, &product(&us, &vt)) <= 100.0 * 24.0 * EPS, "{what}: U S Vᴴ");
        assert!(orthogonality(&u) <= 100.0 * 24.0 * EPS, "{what}: U");
    }
}

#[test]
fn qr_of_complex_tall_wide_and_both_ways_chunked() {
    let a = gaussian(150, 12, 2);
    let (q, r) = qr(&chunked(&a, vec![50, 60, 40], vec![5, 7])).unwrap();
    check_qr(&a, &mat(&q), &mat(&r), "tall");
    let w = gaussian(12, 150, 3);
    for (q, r) in
        [qr(&chunked(&w, vec![12], vec![70, 80])).unwrap(), sfqr(&chunked(&w, vec![6, 6], vec![150])).unwrap()]
    {
        assert_eq!((q.shape(), r.shape()), (vec![12, 12], vec![12, 150]));
        check_qr(&w, &mat(&q), &mat(&r), "wide");
    }
}

/// Singular values against faer's, `U S Vᴴ = A`, orthonormal vectors, and the
/// phase convention: on the small factor (vt's rows for a tall matrix, u's
/// columns for a wide one) the entry of largest modulus is real and positive.
fn check_svd(a: &Array2<C>, x: &Array<C>) {
    let f = svd(x).unwrap();
    let (u, s, vt) = (mat(&f.u), vector(&f.s), mat(&f.vt));
    let k = a.nrows().min(a.ncols());
    let tol = 100.0 * k as f64 * EPS;
    let want = faer_singular_values(a);
    assert_eq!(s.len(), k);
    for (g, w) in s.iter().zip(&want) {
        assert!((g - w).abs() <= tol * want[0], "{g} vs {w}");
    }
    let us = Array2::from_shape_fn(u.raw_dim(), |(i, j)| u[[i, j]] * s[j]);
    assert!(relative(a, &product(&us, &vt)) <= tol, "U S Vᴴ: {}", relative(a, &product(&us, &vt)));
    assert!(orthogonality(&u) <= tol && orthogonality(&herm(&vt)) <= tol);
    let small = if a.nrows() >= a.ncols() { vt.clone() } else { herm(&u) };
    for row in small.rows() {
        let best = row.iter().copied().fold(C::new(0.0, 0.0), |m, v| if v.norm() > m.norm() { v } else { m });
        // The wide case conjugates u's columns: its largest entry is real too.
        assert!(best.re > 0.0 && best.im.abs() <= 4.0 * EPS * best.re, "largest entry {best}");
    }
}

#[test]
fn svd_of_complex_tall_and_wide_against_faer() {
    let a = gaussian(200, 16, 4);
    check_svd(&a, &chunked(&a, vec![30; 6].into_iter().chain([20]).collect(), vec![16]));
    let w = gaussian(10, 90, 5);
    check_svd(&w, &chunked(&w, vec![10], vec![40, 50]));
    // A matrix whose singular values are known: i·[[3, 1], [1, 3]] has 4 and 2.
    let i = C::new(0.0, 1.0);
    let h = Array2::from_shape_vec((2, 2), vec![i * 3.0, i, i, i * 3.0]).unwrap();
    let s = vector(&svd(&chunked(&h, vec![1, 1], vec![2])).unwrap().s);
    assert!((s[0] - 4.0).abs() < 1e-14 && (s[1] - 2.0).abs() < 1e-14, "{s}");
}

#[test]
fn svd_of_a_complex_matrix_on_a_device() {
    // The device TSQR is real-only: a complex array on a device is factored
    // by the host TSQR from host copies of its blocks, with the same result.
    let a = gaussian(120, 12, 6);
    let device =
        chunked_array::device::Device::cuda(0).unwrap_or_else(|_| chunked_array::device::Device::emulated(64 << 20));
    let x = chunked(&a, vec![40; 3], vec![12]).to_device(&device);
    assert!(x.device().is_some());
    check_svd(&a, &x);
}

#[test]
fn svd_compressed_recovers_a_complex_low_rank_matrix() {
    let (l, r) = (gaussian(120, 4, 6), gaussian(4, 80, 7));
    let a = product(&l, &r);
    let f = svd_compressed(&chunked(&a, vec![40; 3], vec![40; 2]), 4, &CompressedOptions::default()).unwrap();
    let (u, s, vt) = (mat(&f.u), vector(&f.s), mat(&f.vt));
    let want = faer_singular_values(&a);
    for (g, w) in s.iter().zip(&want) {
        assert!((g - w).abs() <= 1e-12 * want[0], "{g} vs {w}");
    }
    let us = Array2::from_shape_fn(u.raw_dim(), |(i, j)| u[[i, j]] * s[j]);
    assert!(relative(&a, &product(&us, &vt)) <= 1e-12);
}

#[test]
fn lstsq_of_complex_systems_satisfies_the_normal_equations() {
    let a = gaussian(200, 6, 8);
    let b = gaussian(200, 3, 9);
    let x = chunked(&a, vec![50; 4], vec![6]);
    let fit = lstsq(&x, &chunked(&b, vec![50; 4], vec![2, 1]), None).unwrap();
    let sol = mat(&fit.x);
    let resid = &b - &product(&a, &sol);
    // Aᴴ (b - A x) = 0, relative to ||A||·||b||.
    let normal = product(&herm(&a), &resid);
    assert!(fro(&normal) <= 100.0 * 200.0 * EPS * fro(&a) * fro(&b), "normal equations {}", fro(&normal));
    let residuals = vector(&fit.residuals);
    for (c, got) in residuals.iter().enumerate() {
        let want: f64 = resid.column(c).iter().map(|z| z.norm_sqr()).sum();
        assert!((got - want).abs() <= 1e-10 * want, "residual of column {c}: {got} vs {want}");
    }
    assert_eq!(fit.rank.compute_scalar().unwrap(), 6);
    // A 1-d right-hand side, and a rank-deficient matrix (a repeated column).
    let mut deficient = a.clone();
    let first = deficient.column(0).to_owned();
    deficient.column_mut(5).assign(&first);
    let b1 = Array::from_ndarray(b.column(0).to_owned().into_dyn(), 50).unwrap();
    let fit = lstsq(&chunked(&deficient, vec![50; 4], vec![6]), &b1, None).unwrap();
    assert_eq!(fit.rank.compute_scalar().unwrap(), 5);
    let x1 = fit.x.compute().unwrap();
    // The minimum-norm solution splits the repeated column's weight evenly.
    assert!((x1[0] - x1[5]).norm() <= 1e-10 * x1[0].norm(), "{} vs {}", x1[0], x1[5]);
}

/// A random Hermitian positive definite matrix: G Gᴴ + n I.
fn hpd(n: usize, seed: u64) -> Array2<C> {
    let g = gaussian(n, n, seed);
    product(&g, &herm(&g)) + eye(n) * C::new(n as f64, 0.0)
}

#[test]
fn cholesky_solve_inv_lu_and_triangular_solves_of_complex_matrices() {
    let n = 37;
    let lens = vec![10, 12, 15];
    let a = hpd(n, 10);
    let x = chunked(&a, lens.clone(), lens.clone());
    let tol = 10.0 * n as f64 * EPS;
    let l = mat(&cholesky(&x, true).unwrap());
    assert!(relative(&a, &product(&l, &herm(&l))) <= tol, "L Lᴴ");
    assert!((0..n).all(|i| (i + 1..n).all(|j| l[[i, j]] == C::new(0.0, 0.0))));
    assert_eq!(mat(&cholesky(&x, false).unwrap()), herm(&l));

    let g = gaussian(n, n, 11) + eye(n) * C::new(4.0, 1.0);
    let xg = chunked(&g, lens.clone(), lens.clone());
    let b = gaussian(n, 4, 12);
    let xb = chunked(&b, lens.clone(), vec![3, 1]);
    let sol = mat(&solve(&xg, &xb).unwrap());
    assert!(fro(&(product(&g, &sol) - &b)) <= tol * fro(&g) * fro(&sol), "solve");
    let gi = mat(&inv(&xg).unwrap());
    assert!(fro(&(product(&gi, &g) - eye(n))) <= 10.0 * tol * fro(&g) * fro(&gi), "inv");
    let (p, lo, up) = lu(&xg).unwrap();
    let plu = product(&mat(&p), &product(&mat(&lo), &mat(&up)));
    assert!(relative(&g, &plu) <= tol, "P L U");

    // Triangular solves read one triangle of a complex matrix.
    for lower in [true, false] {
        let t = Array2::from_shape_fn((n, n), |(i, j)| {
            if (lower && i >= j) || (!lower && i <= j) { g[[i, j]] } else { C::new(0.0, 0.0) }
        });
        let y = mat(&solve_triangular(&chunked(&g, lens.clone(), lens.clone()), &xb, lower).unwrap());
        assert!(fro(&(product(&t, &y) - &b)) <= tol * fro(&t) * fro(&y), "triangular, lower = {lower}");
    }
}

#[test]
fn norms_of_complex_arrays_are_real() {
    let a = gaussian(30, 20, 13);
    let x = chunked(&a, vec![10; 3], vec![7, 13]);
    let moduli: Vec<f64> = a.iter().map(|z| z.norm()).collect();
    let close = |got: f64, want: f64| assert!((got - want).abs() <= 1e-12 * want, "{got} vs {want}");
    let flat = x.reshape(&[600]).unwrap();
    close(vector_norm(&flat, 2.0).unwrap().compute_scalar().unwrap(), moduli.iter().map(|m| m * m).sum::<f64>().sqrt());
    close(vector_norm(&flat, 1.0).unwrap().compute_scalar().unwrap(), moduli.iter().sum());
    close(
        vector_norm(&flat, f64::INFINITY).unwrap().compute_scalar().unwrap(),
        moduli.iter().cloned().fold(0.0, f64::max),
    );
    close(
        vector_norm(&flat, 3.0).unwrap().compute_scalar().unwrap(),
        moduli.iter().map(|m| m.powi(3)).sum::<f64>().cbrt(),
    );
    close(vector_norm(&flat, 0.0).unwrap().compute_scalar().unwrap(), 600.0);
    let norm = |ord| matrix_norm(&x, ord).unwrap().compute_scalar().unwrap();
    close(norm(MatrixNorm::Frobenius), fro(&a));
    let col_sums = (0..20).map(|j| (0..30).map(|i| a[[i, j]].norm()).sum::<f64>());
    close(norm(MatrixNorm::One), col_sums.fold(0.0, f64::max));
    let row_sums = (0..30).map(|i| (0..20).map(|j| a[[i, j]].norm()).sum::<f64>());
    close(norm(MatrixNorm::Inf), row_sums.fold(0.0, f64::max));
    close(norm(MatrixNorm::Two), faer_singular_values(&a)[0]);
}

#[test]
fn complex64_in_single_precision() {
    let a64 = gaussian(90, 8, 14);
    let a: ArrayD<Complex32> = a64.mapv(|z| Complex32::new(z.re as f32, z.im as f32)).into_dyn();
    let x = Array::from_ndarray(a.clone(), ChunkSpec::from(vec![vec![30; 3], vec![8]])).unwrap();
    let (q, r) = qr(&x).unwrap();
    let back = q.matmul(&r).unwrap().compute().unwrap();
    let err = back.iter().zip(&a).map(|(g, w)| (g - w).norm()).fold(0.0f32, f32::max);
    assert!(err < 1e-4, "Q R: {err}");
    let s = svd(&x).unwrap().s.compute().unwrap();
    let want = faer_singular_values(&a64);
    for (g, w) in s.iter().zip(&want) {
        assert!((*g as f64 - w).abs() <= 1e-4 * want[0], "{g} vs {w}");
    }
}
