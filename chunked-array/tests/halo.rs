//! pad and map_overlap against whole-array oracles.

mod common;

use chunked_array::{Array, Boundary, PadMode};
use common::*;
use ndarray::{ArrayD, Axis, Dimension, IxDyn};
use proptest::prelude::*;

fn numbered(shape: &[usize]) -> ArrayD<i64> {
    ArrayD::from_shape_fn(IxDyn(shape), |i| i.as_array_view().iter().fold(1i64, |acc, &v| acc * 10 + v as i64))
}

/// Source index of padded position p (in -before..n+after) by NumPy's rules; None: constant.
fn pad_source(p: isize, n: isize, mode: u8) -> Option<usize> {
    if (0..n).contains(&p) {
        return Some(p as usize);
    }
    // Reflect, symmetric and wrap by folding back into range one step at a time,
    // as NumPy pads again from what it padded.
    let mut p = p;
    while !(0..n).contains(&p) {
        p = match (mode, p < 0) {
            (0, _) => return None,
            (1, _) => p.clamp(0, n - 1),
            (2, _) if n == 1 => 0,
            (2, true) => -p,
            (2, false) => 2 * (n - 1) - p,
            (3, true) => -p - 1,
            (3, false) => 2 * n - 1 - p,
            (_, true) => p + n,
            (_, false) => p - n,
        };
    }
    Some(p as usize)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn pad_matches_numpy((shape, chunks) in shape_chunks(3, 6), widths in prop::collection::vec((0usize..14, 0usize..14), 3), mode in 0u8..5) {
        let a = numbered(&shape);
        let x = chunked(&a, &chunks);
        let w: Vec<(usize, usize)> = widths[..shape.len()].to_vec();
        let pm = match mode { 0 => PadMode::Constant(-7), 1 => PadMode::Edge, 2 => PadMode::Reflect, 3 => PadMode::Symmetric, _ => PadMode::Wrap };
        let got = x.pad(&w, pm);
        let impossible = shape.iter().zip(&w).any(|(&n, &(b, e))| (b > 0 || e > 0) && mode != 0 && n == 0);
        if impossible {
            prop_assert!(got.is_err());
            return Ok(());
        }
        // Oracle: pad with a marker per axis via select, then put the constant.
        let mut want = a.mapv(Some);
        for (ax, (&n, &(b, e))) in shape.iter().zip(&w).enumerate() {
            let srcs: Vec<Option<usize>> = (-(b as isize)..(n + e) as isize).map(|p| pad_source(p, n as isize, mode)).collect();
            let parts: Vec<ArrayD<Option<i64>>> = srcs.iter().map(|s| match s {
                Some(i) => want.index_axis(Axis(ax), *i).insert_axis(Axis(ax)).to_owned(),
                None => { let mut sh = want.shape().to_vec(); sh[ax] = 1; ArrayD::from_elem(IxDyn(&sh), None) }
            }).collect();
            let views: Vec<_> = parts.iter().map(|p| p.view()).collect();
            want = if views.is_empty() { let mut sh = want.shape().to_vec(); sh[ax] = 0; ArrayD::from_elem(IxDyn(&sh), None) } else { ndarray::concatenate(Axis(ax), &views).unwrap() };
        }
        prop_assert_eq!(got.unwrap().compute().unwrap(), want.mapv(|v| v.unwrap_or(-7)));
    }

    #[test]
    fn overlap_stencil_matches_whole_array(n in 1usize..20, cols in 1usize..4, cuts in prop::collection::vec(any::<bool>(), 19), boundary in 0u8..5) {
        // Three-point sum along axis 0 with depth 1.
        let mut lens = vec![];
        let mut len = 1;
        for &c in cuts.iter().take(n - 1) { if c { lens.push(len); len = 1; } else { len += 1; } }
        lens.push(len);
        let a = ArrayD::from_shape_fn(IxDyn(&[n, cols]), |i| (i[0] * 7 + i[1] * 3) as f64);
        let x = chunked(&a, &[lens, vec![cols]]);
        let b = match boundary { 0 => Boundary::None, 1 => Boundary::Constant(-1.0), 2 => Boundary::Nearest, 3 => Boundary::Reflect, _ => Boundary::Periodic };
        let y = x.map_overlap(|blk| {
            let m = blk.shape()[0];
            ArrayD::from_shape_fn(blk.raw_dim(), |i| {
                let r = i[0];
                let prev = if r > 0 { blk[[r - 1, i[1]]] } else { 0.0 };
                let next = if r + 1 < m { blk[[r + 1, i[1]]] } else { 0.0 };
                prev + blk[[r, i[1]]] + next
            })
        }, &[1, 0], b).unwrap().compute().unwrap();
        let at = |r: isize, c: usize| -> f64 {
            let nn = n as isize;
            if (0..nn).contains(&r) { return a[[r as usize, c]]; }
            match boundary { 0 => 0.0, 1 => -1.0, 2 => a[[r.clamp(0, nn - 1) as usize, c]], 3 => a[[if r < 0 { -r - 1 } else { 2 * nn - r - 1 } as usize, c]], _ => a[[r.rem_euclid(nn) as usize, c]] }
        };
        let want = ArrayD::from_shape_fn(IxDyn(&[n, cols]), |i| at(i[0] as isize - 1, i[1]) + at(i[0] as isize, i[1]) + at(i[0] as isize + 1, i[1]));
        prop_assert_eq!(y, want);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// A box sum over a (2·d0+1) x (2·d1+1) window, depth on both axes (so the
    /// corner halos come from the diagonal neighbours), every boundary.
    #[test]
    fn overlap_box_sum_on_two_axes(l0 in prop::collection::vec(1usize..5, 1..4), l1 in prop::collection::vec(1usize..5, 1..4),
                                   d0 in 0usize..3, d1 in 0usize..3, deep in 0usize..12, boundary in 0u8..5) {
        // Sometimes deeper than the blocks and than the axis.
        let d0 = if deep > 6 { deep } else { d0 };
        let (n0, n1) = (l0.iter().sum::<usize>(), l1.iter().sum::<usize>());
        let a = ArrayD::from_shape_fn(IxDyn(&[n0, n1]), |i| (i[0] * 13 + (i[1] * 5) % 7) as f64 - 20.0);
        let x = chunked(&a, &[l0.clone(), l1.clone()]);
        let b = match boundary { 0 => Boundary::None, 1 => Boundary::Constant(-1.0), 2 => Boundary::Nearest, 3 => Boundary::Reflect, _ => Boundary::Periodic };
        let got = x.map_overlap(move |blk| {
            let (m0, m1) = (blk.shape()[0] as isize, blk.shape()[1] as isize);
            ArrayD::from_shape_fn(blk.raw_dim(), |i| {
                let mut s = 0.0;
                for r in i[0] as isize - d0 as isize..=i[0] as isize + d0 as isize {
                    for c in i[1] as isize - d1 as isize..=i[1] as isize + d1 as isize {
                        if (0..m0).contains(&r) && (0..m1).contains(&c) { s += blk[[r as usize, c as usize]]; }
                    }
                }
                s
            })
        }, &[d0, d1], b);
        let got = got.unwrap().compute().unwrap();
        // The whole array extended by the boundary rule, coordinate by
        // coordinate (NumPy's pad modes edge, symmetric and wrap).
        let map = |p: isize, n: isize| -> isize {
            let mirrored = |p: isize| { let q = p.rem_euclid(2 * n); if q < n { q } else { 2 * n - 1 - q } };
            match boundary { 2 => p.clamp(0, n - 1), 3 => mirrored(p), 4 => p.rem_euclid(n), _ => p }
        };
        let value = |r: isize, c: isize| -> f64 {
            let (nn0, nn1) = (n0 as isize, n1 as isize);
            if (0..nn0).contains(&r) && (0..nn1).contains(&c) { return a[[r as usize, c as usize]]; }
            match boundary { 0 => 0.0, 1 => -1.0, _ => a[[map(r, nn0) as usize, map(c, nn1) as usize]] }
        };
        let want = ArrayD::from_shape_fn(IxDyn(&[n0, n1]), |i| {
            let mut s = 0.0;
            for r in i[0] as isize - d0 as isize..=i[0] as isize + d0 as isize {
                for c in i[1] as isize - d1 as isize..=i[1] as isize + d1 as isize { s += value(r, c); }
            }
            s
        });
        prop_assert_eq!(got, want);
    }
}

#[test]
fn halo_errors() {
    let x = Array::<f64>::zeros(&[6], 2).unwrap();
    assert!(x.map_overlap(|b| b.to_owned(), &[1, 1], Boundary::None).is_err());
    assert!(x.map_overlap(|b| b.to_owned(), &[1 << 27], Boundary::Nearest).unwrap_err().to_string().contains("more than 67108864"));
    // 1024 blocks each extended by 2^16 on both sides: halos of 2^27
    // positions, refused when built.
    let many = Array::<f64>::zeros(&[1 << 10], 1).unwrap();
    assert!(many.map_overlap(|b| b.to_owned(), &[1 << 16], Boundary::Constant(0.0)).unwrap_err().to_string().contains("positions in all"));
    assert!(many.map_overlap(|b| b.to_owned(), &[4], Boundary::Constant(0.0)).is_ok());
    let empty = Array::<f64>::zeros(&[0], 1).unwrap();
    assert!(empty.map_overlap(|b| b.to_owned(), &[1], Boundary::Reflect).unwrap_err().to_string().contains("empty"));
    assert_eq!(empty.map_overlap(|b| b.to_owned(), &[1], Boundary::Constant(1.0)).unwrap().shape(), vec![0]);
    assert!(Array::<f64>::zeros(&[0], 1).unwrap().pad(&[(1, 0)], PadMode::Wrap).unwrap_err().to_string().contains("empty"));
    let bad = x.map_overlap(|b| b.slice(ndarray::s![..1]).to_owned().into_dyn(), &[1], Boundary::Periodic).unwrap();
    assert!(bad.compute().is_err());
}

#[test]
fn absurd_padding_is_an_error() {
    let x = Array::<f64>::zeros(&[3], 3).unwrap();
    assert!(x.pad(&[(0, usize::MAX)], PadMode::Constant(0.0)).is_err());
    assert!(x.pad(&[(1 << 40, 0)], PadMode::Constant(0.0)).is_err());
}

#[test]
fn wide_padding_matches_numpy() {
    // np.pad([1, 2, 3], 7, mode) for each mode, and a length-1 axis.
    let x = Array::<i64>::arange(1, 4, 1, 2).unwrap();
    let cases = [
        (PadMode::Reflect, vec![2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2]),
        (PadMode::Symmetric, vec![1, 1, 2, 3, 3, 2, 1, 1, 2, 3, 3, 2, 1, 1, 2, 3, 3]),
        (PadMode::Wrap, vec![3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1]),
    ];
    for (mode, want) in cases {
        let got = x.pad(&[(7, 7)], mode).unwrap().compute().unwrap();
        assert_eq!(got.iter().copied().collect::<Vec<_>>(), want, "{mode:?}");
    }
    let one = Array::<i64>::full(&[1], 5, 1).unwrap();
    for mode in [PadMode::Reflect, PadMode::Symmetric, PadMode::Wrap] {
        assert_eq!(one.pad(&[(3, 3)], mode).unwrap().compute().unwrap().iter().copied().collect::<Vec<_>>(), vec![5; 7]);
    }
}
