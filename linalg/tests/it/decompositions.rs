//! qr, sfqr, svd (any chunking), svd_compressed and lstsq against whole-matrix
//! oracles. Tolerances as in the tsqr tests: 10·n·eps for backward errors and
//! orthogonality of Householder-based factorizations.

use crate::common::*;
use chunked_array::Array;
use chunked_array::random::RandomState;
use chunked_linalg::{CompressedOptions, lstsq, qr, svd, svd_compressed};
use ndarray::{Array1, Array2, Ix1};

const EPS: f64 = f64::EPSILON;

fn check_factorization(a: &Array2<f64>, q: &Array2<f64>, r: &Array2<f64>) {
    let n = a.ncols().min(a.nrows());
    let tol = 10.0 * n as f64 * EPS;
    assert!(fro(&(a - &q.dot(r))) / fro(a) <= tol, "residual {}", fro(&(a - &q.dot(r))) / fro(a));
    assert!(orthogonality(q) <= tol, "orthogonality {}", orthogonality(q));
    for i in 0..r.nrows() {
        for j in 0..i.min(r.ncols()) {
            assert_eq!(r[[i, j]], 0.0, "R[{i},{j}]");
        }
    }
}

#[test]
fn qr_rechunks_a_matrix_chunked_both_ways() {
    let x = RandomState::new(1).standard_normal::<f64>(&[300, 20], [70, 7]).unwrap();
    let (q, r) = qr(&x).unwrap();
    check_factorization(&mat(&x), &mat(&q), &mat(&r));
}

#[test]
fn qr_of_short_fat_goes_through_sfqr() {
    let x = RandomState::new(2).standard_normal::<f64>(&[20, 300], [7, 70]).unwrap();
    let (q, r) = qr(&x).unwrap();
    assert_eq!(q.shape(), vec![20, 20]);
    assert_eq!(r.shape(), vec![20, 300]);
    check_factorization(&mat(&x), &mat(&q), &mat(&r));
}

fn check_svd(a: &Array2<f64>, x: &Array<f64>) {
    let f = svd(x).unwrap();
    let (u, s, vt) = (mat(&f.u), f.s.compute().unwrap().into_dimensionality::<Ix1>().unwrap(), mat(&f.vt));
    let k = a.nrows().min(a.ncols());
    let tol = 100.0 * k as f64 * EPS;
    let want = singular_values(a);
    for (g, w) in s.iter().zip(&want) {
        assert!((g - w).abs() <= tol * want[0], "{g} vs {w}");
    }
    assert!(fro(&(a - &(&u * &s).dot(&vt))) / fro(a) <= tol);
    assert!(orthogonality(&u) <= tol && orthogonality(&vt.t().to_owned()) <= tol);
    // svd_flip on the small factor: the largest entry of every row of vt (tall
    // a) or of every column of u (wide a, through the transpose) is positive.
    let small = if a.nrows() >= a.ncols() { vt.clone() } else { u.t().to_owned() };
    for row in small.rows() {
        let best = row.iter().copied().fold(0.0f64, |m, v| if v.abs() > m.abs() { v } else { m });
        assert!(best > 0.0);
    }
}

#[test]
fn svd_tall_wide_and_both_ways_chunked() {
    let tall = RandomState::new(3).uniform::<f64>(&[250, 15], [40, 6]).unwrap();
    check_svd(&mat(&tall), &tall);
    let wide = RandomState::new(4).uniform::<f64>(&[15, 250], [6, 40]).unwrap();
    check_svd(&mat(&wide), &wide);
    let one = RandomState::new(5).uniform::<f64>(&[30, 30], [30, 30]).unwrap();
    check_svd(&mat(&one), &one);
}

#[test]
fn svd_is_deterministic_across_chunkings() {
    let a = RandomState::new(6).standard_normal::<f64>(&[200, 10], [20, 10]).unwrap();
    let b = a.rechunk([50, 5]).unwrap();
    let (fa, fb) = (svd(&a).unwrap(), svd(&b).unwrap());
    let d = max_abs(&(fa.vt.compute().unwrap() - fb.vt.compute().unwrap()));
    assert!(d < 1e-12, "{d}");
}

#[test]
fn svd_of_too_wide_a_matrix_points_to_svd_compressed() {
    let x = RandomState::new(0).uniform::<f64>(&[6000, 6000], [1000, 1000]).unwrap();
    let e = svd(&x).err().unwrap().to_string();
    assert!(e.contains("svd_compressed") && e.contains("[6000, 6000]"), "{e}");
    assert!(qr(&x).is_err());
    assert!(svd(&RandomState::new(0).uniform::<f64>(&[6], 3).unwrap()).is_err());
}

#[test]
fn svd_compressed_matches_the_leading_singular_values() {
    // Decaying spectrum 0.5^i on a 400 x 120 matrix chunked both ways.
    let s: Vec<f64> = (0..60).map(|i| 0.5f64.powi(i)).collect();
    let a = with_singular_values(400, 120, &s, 21);
    let x = chunked(&a, vec![100; 4], vec![50, 50, 20]);
    let k = 8;
    let f = svd_compressed(&x, k, &CompressedOptions { n_power_iter: 1, ..CompressedOptions::default() }).unwrap();
    let got = f.s.compute().unwrap();
    assert_eq!(got.len(), k);
    for i in 0..k {
        // Oversampling by 10 on a spectrum halving per index: error ~ σ_{k+10}.
        assert!((got[i] - s[i]).abs() <= 1e-5 * s[0], "σ{i}: {} vs {}", got[i], s[i]);
    }
    let (u, vt) = (mat(&f.u), mat(&f.vt));
    assert_eq!(u.dim(), (400, k));
    assert_eq!(vt.dim(), (k, 120));
    assert!(orthogonality(&u) < 1e-12);
    // The rank-k reconstruction error is about σ_k.
    let approx = (&u * &got.into_dimensionality::<Ix1>().unwrap()).dot(&vt);
    let err = singular_values(&(&a - &approx))[0];
    assert!(err <= 1.01 * s[k], "{err} vs σ_k {}", s[k]);
    let e = svd_compressed(&x, 0, &CompressedOptions::default()).err().unwrap().to_string();
    assert!(e.contains("got k = 0"), "{e}");
    assert!(svd_compressed(&x, 121, &CompressedOptions::default()).is_err());
}

/// The minimum-norm least-squares solution through faer's SVD of the whole a.
fn pinv_solve(a: &Array2<f64>, b: &Array2<f64>) -> Array2<f64> {
    let f = faer::Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[[i, j]]).thin_svd().unwrap();
    let (u, s, v) = (f.U(), f.S().column_vector(), f.V());
    let cut = s[0] * a.nrows().max(a.ncols()) as f64 * EPS;
    Array2::from_shape_fn((a.ncols(), b.ncols()), |(i, c)| {
        (0..s.nrows())
            .filter(|&k| s[k] > cut)
            .map(|k| v[(i, k)] * (0..a.nrows()).map(|r| u[(r, k)] * b[[r, c]]).sum::<f64>() / s[k])
            .sum()
    })
}

#[test]
fn lstsq_full_rank_and_rank_deficient() {
    let a = mat(&RandomState::new(7).standard_normal::<f64>(&[200, 8], [200, 8]).unwrap());
    let b = mat(&RandomState::new(8).standard_normal::<f64>(&[200, 3], [200, 3]).unwrap());
    let fit = lstsq(&chunked(&a, vec![50; 4], vec![4, 4]), &chunked(&b, vec![60, 60, 80], vec![2, 1]), None).unwrap();
    let x = mat(&fit.x);
    let want = pinv_solve(&a, &b);
    assert!(fro(&(&x - &want)) <= 1e-12 * fro(&want), "{}", fro(&(&x - &want)));
    let r = &b - &a.dot(&x);
    let res = fit.residuals.compute().unwrap();
    for c in 0..3 {
        let direct: f64 = r.column(c).iter().map(|v| v * v).sum();
        assert!((res[c] - direct).abs() <= 1e-10 * direct);
    }
    assert_eq!(fit.rank.compute_scalar().unwrap(), 8);

    // Rank 3 of 6 columns: the minimum-norm solution, rank 3.
    let a = with_singular_values(90, 6, &[5.0, 2.0, 1.0], 9);
    let b1: Array1<f64> = (0..90).map(|i| (i as f64 * 0.37).sin()).collect();
    let fit = lstsq(&chunked(&a, vec![30; 3], vec![6]), &Array::from_ndarray(b1.clone().into_dyn(), 30).unwrap(), None)
        .unwrap();
    assert_eq!(fit.rank.compute_scalar().unwrap(), 3);
    let want = pinv_solve(&a, &b1.clone().insert_axis(ndarray::Axis(1)));
    let x = fit.x.compute().unwrap();
    assert_eq!(x.shape(), &[6]);
    for i in 0..6 {
        assert!((x[i] - want[[i, 0]]).abs() <= 1e-12 * fro(&want).max(1.0), "{} vs {}", x[i], want[[i, 0]]);
    }
    assert!(lstsq(&chunked(&a, vec![90], vec![6]), &Array::<f64>::ones(&[89], 10).unwrap(), None).is_err());
}
