//! take_array (a gather by a chunked array of indices) against ndarray's
//! `select`, and the random orderings built on it: shuffle is a permutation
//! of the rows in `permutation`'s order, whatever the chunking, within a
//! memory limit below the array's size; choice_of takes the values at
//! `choice`'s indices.

use crate::common::*;
use crate::support::TempDir;
use chunked_array::random::RandomState;
use chunked_array::{Array, Context, Error};
use ndarray::{ArrayD, Axis, Dimension, IxDyn};
use proptest::prelude::*;

fn numbered(shape: &[usize]) -> ArrayD<i64> {
    ArrayD::from_shape_fn(IxDyn(shape), |i| i.as_array_view().iter().fold(1i64, |acc, &v| acc * 10 + v as i64))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn take_array_is_select((shape, chunks) in shape_chunks(3, 7), pick in any::<prop::sample::Index>(),
                            raw in prop::collection::vec(-9i64..9, 0..15), cuts in prop::collection::vec(any::<bool>(), 14)) {
        prop_assume!(!shape.is_empty());
        let a = numbered(&shape);
        let x = chunked(&a, &chunks);
        let axis = pick.index(shape.len());
        let n = shape[axis] as i64;
        // The indices chunked at the drawn cuts (empty blocks included).
        let mut lengths = vec![0usize];
        for (i, _) in raw.iter().enumerate() {
            if i > 0 && cuts[i - 1] {
                lengths.push(0);
            }
            *lengths.last_mut().unwrap() += 1;
        }
        let indices = Array::from_ndarray(ndarray::Array1::from(raw.clone()).into_dyn(), vec![lengths]).unwrap();
        let got = x.take_array(&indices, axis as isize).unwrap();
        if raw.iter().all(|&i| i >= -n && i < n) {
            let ids: Vec<usize> = raw.iter().map(|&i| if i < 0 { (i + n) as usize } else { i as usize }).collect();
            prop_assert_eq!(got.compute().unwrap(), a.select(Axis(axis), &ids));
        } else {
            // Whichever block fails first names one of its bad indices.
            let err = got.compute().unwrap_err().to_string();
            let named = raw.iter().filter(|&&i| i < -n || i >= n).any(|i| err.contains(&format!("index = {i}:")));
            prop_assert!(named, "{} should name an index outside -{}..{}", err, n, n);
        }
    }
}

#[test]
fn take_array_refuses_indices_that_are_not_1d() {
    let x = Array::<f64>::ones(&[4, 3], 2).unwrap();
    let idx = Array::<i64>::zeros(&[2, 2], 2).unwrap();
    assert!(matches!(x.take_array(&idx, 0), Err(Error::InvalidArgument { .. })));
    assert!(x.take_array(&Array::<i64>::zeros(&[2], 2).unwrap(), 2).is_err());
}

#[test]
fn shuffle_permutes_rows_in_permutations_order_for_any_chunking() {
    let rng = RandomState::new(77);
    let a = numbered(&[97, 3]);
    let order = rng.permutation(97, 97).unwrap().compute().unwrap();
    let want = a.select(Axis(0), &order.iter().map(|&i| i as usize).collect::<Vec<_>>());
    for chunks in [vec![vec![97], vec![3]], vec![vec![10, 0, 40, 47], vec![2, 1]], vec![vec![1; 97], vec![3]]] {
        let x = chunked(&a, &chunks);
        let s = rng.shuffle(&x).unwrap();
        assert_eq!(s.chunks().lengths()[0], chunks[0], "chunked like the input");
        assert_eq!(s.compute().unwrap(), want);
    }
    assert!(
        rng.shuffle(&Array::from_ndarray(ndarray::arr0(1.0).into_dyn(), Vec::<Vec<usize>>::new()).unwrap()).is_err()
    );
}

#[test]
fn shuffle_holds_a_block_at_a_time() {
    // 4 MB in 32 blocks under a 1 MB limit: every task holds about a block
    // (an output block, its pieces, a source block), spilling what waits.
    let n = 500_000;
    let x = Array::<i64>::arange(0, n as i64, 1, n / 32).unwrap();
    let spill = TempDir::new("shuffle-spill");
    let ctx = Context::threads(2).with_memory_limit(1 << 20).with_spill_dir(spill.path());
    let rng = RandomState::new(78);
    let (got, stats) = rng.shuffle(&x).unwrap().compute_stats(&ctx).unwrap();
    let want = rng.permutation(n, n / 32).unwrap().compute().unwrap();
    assert_eq!(got, want, "shuffling arange(n) gives the permutation itself");
    // The limit, plus what two workers' tasks hold in flight (about two
    // blocks each): far below the 4 MB the array takes.
    let block = (n / 32) * 8;
    assert!(stats.tiers.peak_bytes <= (1 << 20) + 4 * block, "{stats:?}");
}

#[test]
fn choice_of_takes_the_values_at_choices_indices() {
    let rng = RandomState::new(79);
    let values = ArrayD::from_shape_fn(IxDyn(&[50]), |i| i[0] as f64 * 0.5 - 3.0);
    let a = Array::from_ndarray(values.clone(), 7).unwrap();
    let p: Vec<f64> = (0..50).map(|i| (i + 1) as f64 / 1275.0).collect();
    for (size, replace, p) in [(vec![300], true, None), (vec![20, 15], true, Some(&p[..])), (vec![50], false, None)] {
        let got = rng.choice_of(&a, &size, replace, p, 11).unwrap().compute().unwrap();
        let k = rng.choice(50, &size, replace, p, 11).unwrap().compute().unwrap();
        assert_eq!(got.shape(), &size[..]);
        assert!(got.iter().zip(&k).all(|(&v, &i)| v == values[[i as usize]]));
    }
    assert!(rng.choice_of(&Array::<f64>::ones(&[2, 2], 1).unwrap(), &[3], true, None, 3).is_err());
}
