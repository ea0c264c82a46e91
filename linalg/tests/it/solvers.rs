//! Cholesky, triangular solves, LU, solve, inv and the matrix 2-norm against
//! whole-matrix oracles (residuals; faer's in-core SVD for the 2-norm).
//!
//! Tolerances: these are backward-stable blocked algorithms; residuals
//! ||A x - b|| / (||A|| ||x||) are bounded by c·n·eps with small c for
//! well-conditioned matrices. We assert 10·n·eps.

use crate::common::*;
use chunked_array::Array;
use chunked_array::random::RandomState;
use chunked_linalg::{MatrixNorm, cholesky, inv, lu, matrix_norm, solve, solve_triangular};
use ndarray::Array2;

const EPS: f64 = f64::EPSILON;

/// A random symmetric positive definite matrix: G Gᵀ + n I.
fn spd(n: usize, seed: u64) -> Array2<f64> {
    let g = mat(&RandomState::new(seed).standard_normal::<f64>(&[n, n], [n, n]).unwrap());
    g.dot(&g.t()) + Array2::<f64>::eye(n) * n as f64
}

fn blocks(n: usize, b: usize) -> Vec<usize> {
    let mut v = vec![b; n / b];
    if !n.is_multiple_of(b) {
        v.push(n % b);
    }
    v
}

#[test]
fn cholesky_many_blocks_and_irregular() {
    for (n, lens) in [(40, blocks(40, 10)), (37, vec![5, 12, 1, 19]), (9, vec![9])] {
        let a = spd(n, n as u64);
        let x = chunked(&a, lens.clone(), lens.clone());
        let l = mat(&cholesky(&x, true).unwrap());
        let tol = 10.0 * n as f64 * EPS;
        assert!(fro(&(&a - &l.dot(&l.t()))) / fro(&a) <= tol);
        for i in 0..n {
            for j in i + 1..n {
                assert_eq!(l[[i, j]], 0.0);
            }
        }
        let u = mat(&cholesky(&x, false).unwrap());
        assert_eq!(u, l.t());
    }
}

#[test]
fn cholesky_refuses_bad_input() {
    let mut a = spd(20, 1);
    a[[13, 13]] = -1e6;
    let x = chunked(&a, vec![5; 4], vec![5; 4]);
    let e = cholesky(&x, true).unwrap().compute().err().unwrap().to_string();
    assert!(e.contains("not positive definite") && e.contains("(2, 2)"), "{e}");
    let y = chunked(&spd(20, 1), vec![5; 4], vec![10; 2]);
    let e = cholesky(&y, true).err().unwrap().to_string();
    assert!(e.contains("square blocks"), "{e}");
    assert!(cholesky(&RandomState::new(0).uniform::<f64>(&[4, 5], 2).unwrap(), true).is_err());
}

#[test]
fn triangular_solves_lower_and_upper() {
    let n = 30;
    let a = spd(n, 3);
    let l = Array2::from_shape_fn((n, n), |(i, j)| if i >= j { a[[i, j]] } else { 0.0 });
    let u = l.t().to_owned();
    let b = mat(&RandomState::new(4).standard_normal::<f64>(&[n, 4], [n, 4]).unwrap());
    for (t, lower) in [(&l, true), (&u, false)] {
        let x = solve_triangular(
            &chunked(t, vec![7, 7, 7, 9], vec![7, 7, 7, 9]),
            &chunked(&b, vec![10, 20], vec![3, 1]),
            lower,
        )
        .unwrap();
        assert_eq!(x.chunks().lengths()[0], vec![7, 7, 7, 9]);
        let x = mat(&x);
        let r = fro(&(t.dot(&x) - &b)) / (fro(t) * fro(&x));
        assert!(r <= 10.0 * n as f64 * EPS, "{r}");
    }
    // 1-d right-hand side; a zero pivot is an error naming its block.
    let b1 = Array::from_ndarray(b.column(0).to_owned().into_dyn(), 10).unwrap();
    assert_eq!(solve_triangular(&chunked(&l, vec![15, 15], vec![15, 15]), &b1, true).unwrap().shape(), vec![n]);
    let mut z = l.clone();
    z[[20, 20]] = 0.0;
    let e = solve_triangular(&chunked(&z, vec![15, 15], vec![15, 15]), &b1, true)
        .unwrap()
        .compute()
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("singular") && e.contains("(1, 1)"), "{e}");
    assert!(
        solve_triangular(&chunked(&l, vec![15, 15], vec![15, 15]), &Array::<f64>::ones(&[29], 10).unwrap(), true)
            .is_err()
    );
}

#[test]
fn lu_pivots_over_the_whole_column() {
    let n = 24;
    let mut a = mat(&RandomState::new(5).standard_normal::<f64>(&[n, n], [n, n]).unwrap());
    // The first column's largest entry sits outside the first diagonal block:
    // pivoting within the block would pick a tiny pivot.
    a[[0, 0]] = 1e-14;
    a[[17, 0]] = 10.0;
    let lens = vec![6, 6, 6, 6];
    let (p, l, u) = lu(&chunked(&a, lens.clone(), lens.clone())).unwrap();
    let (p, l, u) = (mat(&p), mat(&l), mat(&u));
    let tol = 10.0 * n as f64 * EPS;
    assert!(fro(&(&a - &p.dot(&l).dot(&u))) / fro(&a) <= tol, "{}", fro(&(&a - &p.dot(&l).dot(&u))) / fro(&a));
    for i in 0..n {
        assert_eq!(l[[i, i]], 1.0);
        for j in i + 1..n {
            assert_eq!(l[[i, j]], 0.0);
            assert_eq!(u[[j, i]], 0.0);
        }
        // Partial pivoting over whole columns bounds every multiplier by 1.
        for j in 0..i {
            assert!(l[[i, j]].abs() <= 1.0 + 1e-15, "L[{i},{j}] = {}", l[[i, j]]);
        }
    }
    assert!(fro(&(p.t().dot(&p) - Array2::<f64>::eye(n))) == 0.0);
}

#[test]
fn solve_and_inv_against_residuals() {
    let n = 33;
    let a = mat(&RandomState::new(6).standard_normal::<f64>(&[n, n], [n, n]).unwrap()) + Array2::<f64>::eye(n) * 3.0;
    let lens = vec![10, 10, 13];
    let x_in = chunked(&a, lens.clone(), lens.clone());
    let b = mat(&RandomState::new(7).standard_normal::<f64>(&[n, 5], [n, 5]).unwrap());
    let x = mat(&solve(&x_in, &chunked(&b, vec![11, 22], vec![2, 3])).unwrap());
    let r = fro(&(a.dot(&x) - &b)) / (fro(&a) * fro(&x));
    assert!(r <= 10.0 * n as f64 * EPS, "{r}");
    let ainv = mat(&inv(&x_in).unwrap());
    let r = fro(&(a.dot(&ainv) - Array2::<f64>::eye(n))) / (fro(&a) * fro(&ainv));
    assert!(r <= 10.0 * n as f64 * EPS, "{r}");
    // Singular input is an error naming the column.
    let mut s = a.clone();
    for i in 0..n {
        s[[i, 4]] = 0.0;
    }
    let e = solve(&chunked(&s, lens.clone(), lens.clone()), &chunked(&b, vec![n], vec![5]))
        .unwrap()
        .compute()
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("singular") && e.contains("column 4"), "{e}");
}

#[test]
fn matrix_two_norm_is_the_largest_singular_value() {
    let a = mat(&RandomState::new(8).standard_normal::<f64>(&[60, 14], [60, 14]).unwrap());
    let want = singular_values(&a)[0];
    for (r, c) in [(vec![20, 40], vec![7, 7]), (vec![60], vec![14])] {
        let got = matrix_norm(&chunked(&a, r, c), MatrixNorm::Two).unwrap().compute_scalar().unwrap();
        assert!((got - want).abs() <= 1e-13 * want, "{got} vs {want}");
    }
    let wide = a.t().to_owned();
    let got = matrix_norm(&chunked(&wide, vec![14], vec![30, 30]), MatrixNorm::Two).unwrap().compute().unwrap();
    assert!((got.into_dimensionality::<ndarray::Ix0>().unwrap()[()] - want).abs() <= 1e-13 * want);
}

/// Under a memory limit LU's panels and pivot orders spill to disk and come
/// back bit for bit.
#[test]
fn lu_under_a_memory_limit_matches_the_unlimited_run() {
    use chunked_array::{Computable, Context};
    let n = 192;
    let a = RandomState::new(8).standard_normal::<f64>(&[n, n], [32, 32]).unwrap();
    let (p, l, u) = lu(&a).unwrap();
    let spill = std::env::temp_dir().join(format!("chunked-lu-spill-{}", std::process::id()));
    std::fs::create_dir_all(&spill).unwrap();
    let want = (&p, &l, &u).compute_on(&Context::sync()).unwrap();
    // The matrix is 295 kB, a column panel 49 kB: room for a few panels.
    let limited = Context::sync().with_memory_limit(160_000).with_spill_dir(&spill);
    let got = (&p, &l, &u).compute_on(&limited).unwrap();
    assert_eq!(got, want);
    let (_, stats) = l.compute_stats(&limited).unwrap();
    let (_, free) = l.compute_stats(&Context::sync()).unwrap();
    assert!(stats.tiers.spilled > 0 && stats.tiers.unspilled > 0, "{stats:?}");
    // Element blocks alone spilling leave the peak where it was (measured: 353
    // kB either way); with the panels spilling it drops to about 250 kB.
    assert!(stats.tiers.peak_bytes < free.tiers.peak_bytes * 4 / 5, "limited {stats:?}, unlimited {free:?}");
    assert_eq!(std::fs::read_dir(&spill).unwrap().count(), 0, "spill files removed");
    std::fs::remove_dir_all(&spill).unwrap();
}

/// The plan-time check counts LU's panels (n x b): a limit below one panel is
/// refused before anything runs, naming the LU work.
#[test]
fn the_memory_check_counts_lu_panels() {
    use chunked_array::{Context, Error};
    let a = RandomState::new(9).standard_normal::<f64>(&[192, 192], [32, 32]).unwrap();
    let (_, l, _) = lu(&a).unwrap();
    // A 32 x 32 block is 8 kB; a column panel is 192 x 32, 49 kB.
    match l.compute_on(&Context::sync().with_memory_limit(40_000)) {
        Err(Error::PlanExceedsMemory { key, .. }) => assert!(key.contains("lu-work"), "{key}"),
        other => panic!("expected the plan to be refused, got {:?}", other.map(|a| a.shape().to_vec())),
    }
}

/// Grids with empty blocks (a selection's rows and columns can have them):
/// each factorization and solve still meets its residual bound.
#[test]
fn empty_blocks_in_the_grid() {
    let n = 20;
    let lens = vec![0, 7, 0, 0, 8, 5, 0];
    let a = spd(n, 11);
    let x = chunked(&a, lens.clone(), lens.clone());
    let tol = 10.0 * n as f64 * EPS;
    let l = mat(&cholesky(&x, true).unwrap());
    assert!(fro(&(&a - &l.dot(&l.t()))) / fro(&a) <= tol);
    let b = mat(&RandomState::new(12).standard_normal::<f64>(&[n, 3], [n, 3]).unwrap());
    let bx = chunked(&b, vec![10, 0, 10], vec![3]);
    for (t, lower) in [(l.clone(), true), (l.t().to_owned(), false)] {
        let y = mat(&solve_triangular(&chunked(&t, lens.clone(), lens.clone()), &bx, lower).unwrap());
        assert!(fro(&(t.dot(&y) - &b)) / (fro(&t) * fro(&y)) <= tol);
    }
    let g = mat(&RandomState::new(13).standard_normal::<f64>(&[n, n], [n, n]).unwrap());
    let gx = chunked(&g, lens.clone(), lens.clone());
    let (p, lo, up) = lu(&gx).unwrap();
    let (p, lo, up) = (mat(&p), mat(&lo), mat(&up));
    assert!(fro(&(p.dot(&lo).dot(&up) - &g)) / fro(&g) <= tol);
    let y = mat(&solve(&gx, &bx).unwrap());
    assert!(fro(&(g.dot(&y) - &b)) / (fro(&g) * fro(&y)) <= tol);
    let gi = mat(&inv(&gx).unwrap());
    assert!(fro(&(g.dot(&gi) - Array2::<f64>::eye(n))) / (fro(&g) * fro(&gi)) <= tol);
    // Least squares over row blocks of which some are empty.
    let tall = mat(&RandomState::new(14).standard_normal::<f64>(&[60, 4], [60, 4]).unwrap());
    let rhs = mat(&RandomState::new(15).standard_normal::<f64>(&[60, 1], [60, 1]).unwrap());
    let fit = chunked_linalg::lstsq(
        &chunked(&tall, vec![0, 30, 0, 30], vec![4]),
        &chunked(&rhs, vec![20, 0, 40], vec![1]),
        None,
    )
    .unwrap();
    let coef = mat(&fit.x);
    // The normal equations hold at the least-squares solution.
    let normal = tall.t().dot(&(tall.dot(&coef) - &rhs));
    assert!(fro(&normal) / (fro(&tall) * fro(&tall) * fro(&coef).max(1.0)) <= 100.0 * EPS, "{}", fro(&normal));
}
