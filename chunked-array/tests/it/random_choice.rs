//! `permutation` and `choice`: permutations hold every index once and start
//! uniformly; `choice` follows its probabilities, with and without
//! replacement (against the exact probabilities of successive draws), and
//! refuses what it cannot draw, naming the argument.

use chunked_array::random::RandomState;
use chunked_array::{Array, Context, Error};

use crate::random_distributions::{N, chi_square_p, histogram};

/// `permutation(n)` holds every index once, for any chunking, and its first
/// position is uniform over seeds (chi-square).
#[test]
fn permutations_are_permutations() {
    for n in [0usize, 1, 2, 3, 10_007, 10_000_000] {
        let p = RandomState::new(n as u64).permutation(n, 1 << 20).unwrap().compute().unwrap();
        let mut seen = vec![false; n];
        for &i in p.iter() {
            assert!((0..n as i64).contains(&i) && !seen[i as usize], "n = {n}: {i} out of range or twice");
            seen[i as usize] = true;
        }
        assert_eq!(p.len(), n);
    }
    let rng = RandomState::new(3).with_stream(9);
    let whole = rng.permutation(1000, 1000).unwrap().compute().unwrap();
    assert_eq!(rng.permutation(1000, 7).unwrap().compute_on(&Context::threads(2)).unwrap(), whole);
    assert_ne!(whole, RandomState::new(4).permutation(1000, 1000).unwrap().compute().unwrap());
    let mut counts = vec![0u64; 10];
    for seed in 0..20_000 {
        counts[RandomState::new(seed).permutation(10, 10).unwrap().compute().unwrap()[0] as usize] += 1;
    }
    assert!(chi_square_p(&counts, |_| 0.1) > 1e-4, "first positions {counts:?}");
}

#[test]
fn choice_draws_by_the_probabilities_and_without_replacement() {
    let rng = RandomState::new(12);
    let p = [0.1, 0.0, 0.25, 0.05, 0.6];
    let k = rng.choice(5, &[N], true, Some(&p), 250_000).unwrap().compute().unwrap();
    let counts = histogram(k.iter().copied());
    assert_eq!(counts.get(1).copied().unwrap_or(0), 0, "a zero-probability index drawn");
    assert!(chi_square_p(&counts, |i| p.get(i).copied().unwrap_or(0.0)) > 1e-4, "{counts:?}");
    let uniform = rng.choice(7, &[N], true, None, 250_000).unwrap().compute().unwrap();
    assert!(chi_square_p(&histogram(uniform.iter().copied()), |i| if i < 7 { 1.0 / 7.0 } else { 0.0 }) > 1e-4);
    let distinct = rng.choice(50, &[5, 10], false, None, 3).unwrap().compute().unwrap();
    let mut v = distinct.iter().copied().collect::<Vec<_>>();
    v.sort();
    assert_eq!(v, (0..50).collect::<Vec<i64>>());
    let bad: Vec<(&str, chunked_array::Result<Array<i64>>)> = vec![
        ("size", rng.choice(5, &[6], false, None, 2)),
        ("n", rng.choice(0, &[1], true, None, 2)),
        ("p", rng.choice(3, &[4], true, Some(&[0.5, 0.5]), 2)),
        ("p", rng.choice(2, &[4], true, Some(&[0.7, 0.7]), 2)),
        ("p", rng.choice(2, &[4], true, Some(&[1.5, -0.5]), 2)),
        ("p", rng.choice(2, &[1], false, Some(&[0.5, 0.6]), 2)),
    ];
    for (name, r) in bad {
        match r {
            Err(Error::InvalidArgument { name: got, .. }) => assert_eq!(got, name),
            other => panic!("{name}: expected an error naming it, got {other:?}"),
        }
    }
}

/// Without replacement and with `p`, an ordered pair `(i, j)` comes with the
/// probability of two successive draws, `p_i · p_j / (1 - p_i)` (NumPy's
/// distribution), for any chunking.
#[test]
fn choice_without_replacement_follows_successive_draws() {
    let p = [0.1, 0.2, 0.3, 0.4];
    let mut counts = vec![0u64; 16];
    for seed in 0..20_000 {
        let k = RandomState::new(seed).choice(4, &[2], false, Some(&p), 2).unwrap().compute().unwrap();
        assert_ne!(k[0], k[1], "seed {seed}: an index drawn twice");
        counts[(k[0] * 4 + k[1]) as usize] += 1;
    }
    let pair = |c: usize| {
        let (i, j) = (c / 4, c % 4);
        if i == j { 0.0 } else { p[i] * p[j] / (1.0 - p[i]) }
    };
    assert!(chi_square_p(&counts, pair) > 1e-4, "ordered pairs {counts:?}");
    // The same draw for any chunking and scheduler; zero-probability indices never.
    let rng = RandomState::new(5).with_stream(2);
    let mut weights: Vec<f64> = (0..1000).map(|i| if i % 10 == 3 { 0.0 } else { 1.0 + (i % 7) as f64 }).collect();
    let sum: f64 = weights.iter().sum();
    weights.iter_mut().for_each(|w| *w /= sum);
    let whole = rng.choice(1000, &[30, 20], false, Some(&weights), [30, 20]).unwrap().compute().unwrap();
    let split = rng.choice(1000, &[30, 20], false, Some(&weights), [7, 3]).unwrap().compute_on(&Context::threads(2));
    assert_eq!(split.unwrap(), whole);
    let mut drawn: Vec<i64> = whole.iter().copied().collect();
    assert!(drawn.iter().all(|&i| (0..1000).contains(&i) && i % 10 != 3), "a zero-probability index drawn");
    drawn.sort();
    drawn.dedup();
    assert_eq!(drawn.len(), 600, "indices drawn twice");
    // Every index with p > 0 once, and nothing for an empty size.
    let all = rng.choice(4, &[3], false, Some(&[0.5, 0.25, 0.0, 0.25]), 2).unwrap().compute().unwrap();
    let mut all: Vec<i64> = all.iter().copied().collect();
    all.sort();
    assert_eq!(all, vec![0, 1, 3]);
    assert_eq!(rng.choice(4, &[0], false, Some(&p), 2).unwrap().compute().unwrap().len(), 0);
    match rng.choice(4, &[4], false, Some(&[0.5, 0.25, 0.0, 0.25]), 2) {
        Err(Error::InvalidArgument { name, .. }) => assert_eq!(name, "size"),
        other => panic!("expected an error naming size, got {other:?}"),
    }
}
