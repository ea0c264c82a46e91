//! TSQR, QR and SVD against residuals, orthogonality and faer's in-core SVD.
//!
//! Tolerances: Householder QR is backward stable with ||A - QR|| <= c·m·n·eps·||A||
//! in the worst case, but the observed constant for random matrices is about
//! sqrt(n)·eps; a tree of depth d adds d factorizations. We assert 10·n·eps
//! (scaled by the tree depth where it matters), which holds with a wide margin
//! for correct code and fails by orders of magnitude for a wrong Q or R.

use crate::common::*;
use chunked_array::random::RandomState;
use chunked_linalg::{DEFAULT_MAX_DIRECT_CONDITION, TsqrOptions, tsqr};
use ndarray::Array2;

const EPS: f64 = f64::EPSILON;

fn check_qr(a: &Array2<f64>, rows: Vec<usize>, arity: usize) {
    check_qr_with(a, rows, &TsqrOptions { arity, ..TsqrOptions::default() });
}

fn check_qr_with(a: &Array2<f64>, rows: Vec<usize>, options: &TsqrOptions) {
    let (m, n) = a.dim();
    let k = m.min(n);
    let x = chunked(a, rows.clone(), vec![n]);
    let f = tsqr(&x, &TsqrOptions { compute_svd: true, ..options.clone() }).unwrap();
    let (q, r) = (mat(&f.q), mat(&f.r));
    assert_eq!(q.dim(), (m, k));
    assert_eq!(r.dim(), (k, n));
    assert_eq!(f.q.chunks().lengths()[0], rows);
    let tol = 10.0 * (n.max(1) as f64) * EPS;
    let scale = fro(a).max(f64::MIN_POSITIVE);
    assert!(fro(&(a - &q.dot(&r))) / scale <= tol, "residual {}", fro(&(a - &q.dot(&r))) / scale);
    assert!(orthogonality(&q) <= tol, "orthogonality {}", orthogonality(&q));
    for i in 0..k {
        for j in 0..i.min(n) {
            assert_eq!(r[[i, j]], 0.0, "R[{i},{j}] below the diagonal");
        }
    }
    let svd = f.svd.unwrap();
    let (u, s, vt) = (mat(&svd.u), svd.s.compute().unwrap(), mat(&svd.vt));
    let want = singular_values(a);
    for (got, want) in s.iter().zip(&want) {
        assert!((got - want).abs() <= tol * want.max(1.0) * 10.0, "singular value {got} vs {want}");
    }
    let us = &u * &s.view().into_dimensionality::<ndarray::Ix1>().unwrap();
    assert!(fro(&(a - &us.dot(&vt))) / scale <= 10.0 * tol);
    assert!(orthogonality(&u) <= 10.0 * tol);
}

#[test]
fn tsqr_random_many_blocks_pairs_and_groups() {
    let a = mat(&RandomState::new(3).standard_normal::<f64>(&[300, 12], [300, 12]).unwrap());
    for arity in [2, 3, 4, 16] {
        check_qr(&a, vec![25; 12], arity);
    }
}

/// Trees shaped for MPI ranks (each rank's leaves first, ranks whose leaves
/// are one pass them up unchanged, then a tree over the ranks) give the same
/// factorization, on both ways of forming Q, with as many ranks as blocks and
/// more.
#[test]
fn trees_shaped_for_ranks_factor_alike() {
    let a = mat(&RandomState::new(5).standard_normal::<f64>(&[300, 12], [300, 12]).unwrap());
    for processes in [2, 3, 5, 7, 12, 20] {
        for arity in [2, 3] {
            for max_direct_condition in [DEFAULT_MAX_DIRECT_CONDITION, 0.0] {
                let options = TsqrOptions { arity, processes, max_direct_condition, ..TsqrOptions::default() };
                check_qr_with(&a, vec![25; 12], &options);
                check_qr_with(&a, vec![7, 50, 1, 40, 5, 17, 0, 180], &options);
            }
        }
    }
}

#[test]
fn tsqr_one_block_and_irregular_rows_shorter_than_n() {
    let a = mat(&RandomState::new(4).uniform::<f64>(&[120, 16], [120, 16]).unwrap());
    check_qr(&a, vec![120], 2);
    // Blocks shorter than n (k_i < n) and a single-row block.
    check_qr(&a, vec![7, 50, 1, 40, 5, 17], 2);
    // Empty row blocks, as a selection's rows can have.
    for arity in [2, 3] {
        check_qr(&a, vec![0, 30, 0, 0, 60, 30, 0], arity);
    }
}

/// Row blocks taller than a leaf (10000 rows at this n) are factored as
/// several leaves; q keeps the input's row blocks. Both ways of forming Q.
#[test]
fn tall_blocks_split_into_leaves_on_both_paths() {
    let rows = vec![25_001, 5_999];
    let a = mat(&RandomState::new(9).standard_normal::<f64>(&[31_000, 6], [31_000, 6]).unwrap());
    check_qr(&a, rows.clone(), 2);
    // κ = 1e8: the Householder path, each leaf's QR taken again.
    let s: Vec<f64> = (0..6).map(|i| 10f64.powf(-8.0 * i as f64 / 5.0)).collect();
    let a = with_singular_values(31_000, 6, &s, 3);
    let f = tsqr(&chunked(&a, rows.clone(), vec![6]), &TsqrOptions::default()).unwrap();
    let (q, r) = (mat(&f.q), mat(&f.r));
    assert_eq!(f.q.chunks().lengths()[0], rows);
    let tol = 10.0 * 6.0 * EPS;
    assert!(fro(&(&a - &q.dot(&r))) / fro(&a) <= tol, "residual {}", fro(&(&a - &q.dot(&r))) / fro(&a));
    assert!(orthogonality(&q) <= tol, "orthogonality {}", orthogonality(&q));
}

#[test]
fn tsqr_square_blocks_like_the_seed() {
    let a = mat(&RandomState::new(5).standard_normal::<f64>(&[160, 20], [20, 20]).unwrap());
    check_qr(&a, vec![20; 8], 2);
}

#[test]
fn tsqr_ill_conditioned_1e12() {
    let n = 12;
    let s: Vec<f64> = (0..n).map(|i| 10f64.powf(-12.0 * i as f64 / (n - 1) as f64)).collect();
    let a = with_singular_values(400, n, &s, 7);
    let x = chunked(&a, vec![50; 8], vec![n]);
    let f = tsqr(&x, &TsqrOptions { arity: 2, compute_svd: true, ..TsqrOptions::default() }).unwrap();
    let (q, r) = (mat(&f.q), mat(&f.r));
    let tol = 10.0 * n as f64 * EPS;
    // QR stays backward stable and orthogonal whatever the conditioning.
    assert!(fro(&(&a - &q.dot(&r))) / fro(&a) <= tol);
    assert!(orthogonality(&q) <= tol);
    // Singular values: absolute error bounded by eps·σ_max·c.
    let got = f.svd.unwrap().s.compute().unwrap();
    for (g, w) in got.iter().zip(&s) {
        assert!((g - w).abs() <= tol * s[0], "{g} vs {w}");
    }
}

#[test]
fn tsqr_rank_deficient() {
    let s = [3.0, 2.0, 1.0, 0.0, 0.0, 0.0];
    let a = with_singular_values(90, 6, &s[..3], 11);
    let x = chunked(&a, vec![30; 3], vec![6]);
    let f = tsqr(&x, &TsqrOptions { arity: 2, compute_svd: true, ..TsqrOptions::default() }).unwrap();
    let (q, r) = (mat(&f.q), mat(&f.r));
    let tol = 60.0 * EPS;
    assert!(fro(&(&a - &q.dot(&r))) / fro(&a) <= tol);
    assert!(orthogonality(&q) <= tol);
    let got = f.svd.unwrap().s.compute().unwrap();
    for (g, w) in got.iter().zip(&s) {
        assert!((g - w).abs() <= tol * 3.0, "{g} vs {w}");
    }
}

#[test]
fn tsqr_refuses_bad_input() {
    let x = RandomState::new(0).uniform::<f64>(&[20, 10], [10, 5]).unwrap();
    let e = tsqr(&x, &TsqrOptions::default()).err().unwrap().to_string();
    assert!(e.contains("one block along the columns") && e.contains("[5, 5]"), "{e}");
    let y = RandomState::new(0).uniform::<f64>(&[20, 10], [10, 10]).unwrap();
    let e = tsqr(&y, &TsqrOptions { arity: 1, ..TsqrOptions::default() }).err().unwrap().to_string();
    assert!(e.contains("arity >= 2 (got 1)"), "{e}");
    let z = RandomState::new(0).uniform::<f64>(&[20], [10]).unwrap();
    assert!(tsqr(&z, &TsqrOptions::default()).is_err());
}

#[test]
fn tsqr_f32() {
    let x = RandomState::new(8).standard_normal::<f32>(&[200, 8], [40, 8]).unwrap();
    let f = tsqr(&x, &TsqrOptions::default()).unwrap();
    let back = f.q.matmul(&f.r).unwrap();
    let err = (&back - &x).abs().max(None).unwrap().compute_scalar().unwrap();
    assert!(err < 1e-5, "{err}");
}

/// Under a memory limit the blocks the factorization holds (the row blocks
/// waiting for the assembly of Q, the tree's factors) spill to disk and come
/// back bit for bit.
#[test]
fn tsqr_and_svd_under_a_memory_limit_match_the_unlimited_run() {
    use chunked_array::Context;
    let a: chunked_array::Array<f64> = RandomState::new(21).standard_normal(&[4000, 40], [500, 40]).unwrap();
    let f = tsqr(&a, &TsqrOptions { compute_svd: true, ..TsqrOptions::default() }).unwrap();
    let svd = f.svd.as_ref().unwrap();
    let spill = std::env::temp_dir().join(format!("chunked-linalg-spill-{}", std::process::id()));
    std::fs::create_dir_all(&spill).unwrap();
    for ctx in [Context::sync(), Context::threads(2)] {
        let want_q = f.q.compute_on(&ctx).unwrap();
        let want_u = svd.u.compute_on(&ctx).unwrap();
        // 4000 x 40 f64 is 1.28 MB; 800 kB of blocks at once (a tree task holds
        // its four children's factors, 640 kB).
        let limited = ctx.clone().with_memory_limit(800 << 10).with_spill_dir(&spill);
        let (q, stats) = f.q.compute_stats(&limited).unwrap();
        assert_eq!(q, want_q);
        assert!(stats.tiers.spilled > 0 && stats.tiers.unspilled > 0, "{stats:?}");
        let (_, free) = f.q.compute_stats(&ctx).unwrap();
        // The row blocks and factors spill: the limited run holds less.
        assert!(stats.tiers.peak_bytes < free.tiers.peak_bytes * 4 / 5, "limited {stats:?}, unlimited {free:?}");
        let (u, _) = svd.u.compute_stats(&limited).unwrap();
        assert_eq!(u, want_u);
    }
    assert_eq!(std::fs::read_dir(&spill).unwrap().count(), 0, "spill files removed");
    std::fs::remove_dir_all(&spill).unwrap();
}

/// The plan-time check counts the factorization's own blocks: a leaf QR holds its
/// row block, the factor of its leaf (rows split into leaves of 10000 here) and
/// the R it keeps.
#[test]
fn the_memory_check_counts_householder_factors() {
    use chunked_array::{Context, Error};
    let a: chunked_array::Array<f64> = RandomState::new(3).uniform(&[20_000, 100], [20_000, 100]).unwrap();
    let f = tsqr(&a, &TsqrOptions::default()).unwrap();
    let ctx = Context::sync().with_memory_limit(20_000_000);
    let err = f.r.compute_on(&ctx).unwrap_err();
    let Error::PlanExceedsMemory { key, estimate, .. } = &err else { panic!("expected PlanExceedsMemory, got {err}") };
    assert!(key.contains("tsqr-leaf"), "{err}");
    assert_eq!(
        *estimate,
        20_000 * 100 * 8 + 10_000 * 100 * 8 + 100 * 100 * 8,
        "the row block, its leaf's factor and R"
    );
    // In blocks of 5000 rows, it fits and runs.
    let small = a.rechunk([5000, 100]).unwrap();
    let r = tsqr(&small, &TsqrOptions::default()).unwrap().r.compute_on(&ctx).unwrap();
    assert_eq!(r.shape(), &[100, 100]);
}

/// Q and U of a matrix with the given singular values (log-spaced from 1 to
/// 1/κ) by one path: `max_direct_condition` 0 is the Householder path.
fn factor_with_condition(
    kappa: f64,
    n: usize,
    max_direct_condition: f64,
) -> (Array2<f64>, Array2<f64>, Array2<f64>, Array2<f64>) {
    let s: Vec<f64> = (0..n).map(|i| kappa.powf(-(i as f64) / (n - 1) as f64)).collect();
    let a = with_singular_values(40 * n, n, &s, 5);
    let x = chunked(&a, vec![5 * n; 8], vec![n]);
    let f = tsqr(&x, &TsqrOptions { compute_svd: true, max_direct_condition, ..TsqrOptions::default() }).unwrap();
    (a, mat(&f.q), mat(&f.r), mat(&f.svd.unwrap().u))
}

/// The direct path (Q = A·R⁻¹, U = A·VΣ⁻¹) agrees with the Householder path
/// where A is well conditioned, and the threshold keeps its loss of
/// orthogonality (about κ·ε) out of ill-conditioned problems.
#[test]
fn direct_path_where_well_conditioned_householder_past_the_threshold() {
    let n = 40;
    let tol = 10.0 * n as f64 * EPS;
    // κ = 100: both paths, same R, so the same Q and U within κ·ε·c.
    let (a, q_direct, r, u_direct) = factor_with_condition(100.0, n, 1e3);
    // κ = 500, past the default threshold: the Householder path (a forced
    // direct one loses about 2κ·ε there, 1.4e-13 for Q and 2.4e-13 for U).
    let (_, q_500, _, u_500) = factor_with_condition(500.0, n, DEFAULT_MAX_DIRECT_CONDITION);
    eprintln!("kappa 500 default: orth q {:.3e} u {:.3e}", orthogonality(&q_500), orthogonality(&u_500));
    assert!(orthogonality(&q_500) <= tol && orthogonality(&u_500) <= tol);
    let (_, q_hh, r_hh, u_hh) = factor_with_condition(100.0, n, 0.0);
    assert_eq!(r, r_hh, "one R for both paths");
    for (q, u, path) in [(&q_direct, &u_direct, "direct"), (&q_hh, &u_hh, "householder")] {
        assert!(fro(&(&a - &q.dot(&r))) / fro(&a) <= tol, "{path}: residual {}", fro(&(&a - &q.dot(&r))) / fro(&a));
        assert!(orthogonality(q) <= tol, "{path}: orthogonality of Q {}", orthogonality(q));
        assert!(orthogonality(u) <= tol, "{path}: orthogonality of U {}", orthogonality(u));
    }
    assert!(fro(&(&q_direct - &q_hh)) <= 100.0 * tol, "{}", fro(&(&q_direct - &q_hh)));
    assert!(fro(&(&u_direct - &u_hh)) <= 100.0 * tol, "{}", fro(&(&u_direct - &u_hh)));
    // κ = 50, under the default threshold: the direct path still within the tolerance.
    let (_, q, _, u) = factor_with_condition(50.0, n, DEFAULT_MAX_DIRECT_CONDITION);
    eprintln!("kappa 50 direct: orth q {:.3e} u {:.3e}", orthogonality(&q), orthogonality(&u));
    assert!(orthogonality(&q) <= tol && orthogonality(&u) <= tol, "{} {}", orthogonality(&q), orthogonality(&u));
    // κ = 1e7: forced onto the direct path Q loses orthogonality; by default
    // (the Householder path) it does not.
    let (_, q_forced, _, u_forced) = factor_with_condition(1e7, n, 1e8);
    let (_, q, _, u) = factor_with_condition(1e7, n, DEFAULT_MAX_DIRECT_CONDITION);
    eprintln!(
        "kappa 1e7: forced direct orth q {:.3e} u {:.3e}; default {:.3e} {:.3e}",
        orthogonality(&q_forced),
        orthogonality(&u_forced),
        orthogonality(&q),
        orthogonality(&u)
    );
    assert!(orthogonality(&q_forced) > 100.0 * tol, "the direct path at κ = 1e7: {}", orthogonality(&q_forced));
    assert!(orthogonality(&q) <= tol && orthogonality(&u) <= tol, "{} {}", orthogonality(&q), orthogonality(&u));
}
