//! pad and map_overlap against whole-array oracles.

use crate::common;

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
    assert!(
        x.map_overlap(|b| b.to_owned(), &[1 << 27], Boundary::Nearest)
            .unwrap_err()
            .to_string()
            .contains("more than 67108864")
    );
    // 1024 blocks each extended by 2^16 on both sides: halos of 2^27
    // positions, refused when built.
    let many = Array::<f64>::zeros(&[1 << 10], 1).unwrap();
    assert!(
        many.map_overlap(|b| b.to_owned(), &[1 << 16], Boundary::Constant(0.0))
            .unwrap_err()
            .to_string()
            .contains("positions in all")
    );
    assert!(many.map_overlap(|b| b.to_owned(), &[4], Boundary::Constant(0.0)).is_ok());
    let empty = Array::<f64>::zeros(&[0], 1).unwrap();
    assert!(empty.map_overlap(|b| b.to_owned(), &[1], Boundary::Reflect).unwrap_err().to_string().contains("empty"));
    assert_eq!(empty.map_overlap(|b| b.to_owned(), &[1], Boundary::Constant(1.0)).unwrap().shape(), vec![0]);
    assert!(
        Array::<f64>::zeros(&[0], 1).unwrap().pad(&[(1, 0)], PadMode::Wrap).unwrap_err().to_string().contains("empty")
    );
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
        assert_eq!(
            one.pad(&[(3, 3)], mode).unwrap().compute().unwrap().iter().copied().collect::<Vec<_>>(),
            vec![5; 7]
        );
    }
}

/// A boundary rule from a draw: none, constant (per axis, to see which one a
/// corner takes), nearest, reflect, periodic.
fn boundary_of(code: u8, constant: f64) -> Boundary<f64> {
    match code {
        0 => Boundary::None,
        1 => Boundary::Constant(constant),
        2 => Boundary::Nearest,
        3 => Boundary::Reflect,
        _ => Boundary::Periodic,
    }
}

/// Where position `p` of an axis of length `n` reads under boundary `code`
/// (NumPy's pad modes edge, symmetric, wrap); None: outside (none or constant).
fn boundary_source(p: isize, n: isize, code: u8) -> Option<usize> {
    if (0..n).contains(&p) {
        return Some(p as usize);
    }
    match code {
        2 => Some(p.clamp(0, n - 1) as usize),
        3 => {
            let q = p.rem_euclid(2 * n);
            Some(if q < n { q } else { 2 * n - 1 - q } as usize)
        }
        4 => Some(p.rem_euclid(n) as usize),
        _ => None,
    }
}

/// The whole array extended by the two axes' rules, at one position: a
/// constant axis outside the array gives its constant (axis 1's over axis
/// 0's), 'none' gives nothing (None).
fn extended_value(a: &ArrayD<f64>, r: isize, c: isize, codes: [u8; 2], constants: [f64; 2]) -> Option<f64> {
    let (n0, n1) = (a.shape()[0] as isize, a.shape()[1] as isize);
    let outside = [!(0..n0).contains(&r), !(0..n1).contains(&c)];
    if (outside[0] && codes[0] == 0) || (outside[1] && codes[1] == 0) {
        return None;
    }
    if outside[1] && codes[1] == 1 {
        return Some(constants[1]);
    }
    if outside[0] && codes[0] == 1 {
        return Some(constants[0]);
    }
    Some(a[[boundary_source(r, n0, codes[0])?, boundary_source(c, n1, codes[1])?]])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// A box sum over the window [i - b0, i + e0] x [j - b1, j + e1]: asymmetric
    /// depths, a boundary per axis, blocks that may be empty or shorter than
    /// the depths.
    #[test]
    fn asymmetric_overlap_with_boundaries_per_axis(l0 in prop::collection::vec(0usize..5, 1..4), l1 in prop::collection::vec(0usize..5, 1..4),
                                                   depth in prop::collection::vec((0usize..4, 0usize..4), 2), codes in (0u8..5, 0u8..5)) {
        let (n0, n1) = (l0.iter().sum::<usize>(), l1.iter().sum::<usize>());
        let a = ArrayD::from_shape_fn(IxDyn(&[n0, n1]), |i| (i[0] * 13 + (i[1] * 5) % 7) as f64 - 20.0);
        let x = chunked(&a, &[l0.clone(), l1.clone()]);
        let codes = [codes.0, codes.1];
        let constants = [-1.0, -100.0];
        let opts = chunked_array::Overlap::asymmetric(&depth, boundary_of(codes[0], constants[0])).boundary_at(1, boundary_of(codes[1], constants[1]));
        let reads_empty = [n0, n1].iter().zip(&depth).zip(&codes).any(|((&n, &(b, e)), &c)| n == 0 && b.max(e) > 0 && c >= 2);
        let (b0, e0, b1, e1) = (depth[0].0 as isize, depth[0].1 as isize, depth[1].0 as isize, depth[1].1 as isize);
        let got = x.map_overlap_with(move |blk, info| {
            let (m0, m1) = (blk.shape()[0] as isize, blk.shape()[1] as isize);
            assert_eq!(info.out_shape, blk.shape());
            ArrayD::from_shape_fn(blk.raw_dim(), |i| {
                let mut s = 0.0;
                for r in i[0] as isize - b0..=i[0] as isize + e0 {
                    for c in i[1] as isize - b1..=i[1] as isize + e1 {
                        if (0..m0).contains(&r) && (0..m1).contains(&c) { s += blk[[r as usize, c as usize]]; }
                    }
                }
                s
            })
        }, &opts);
        if reads_empty {
            prop_assert!(got.is_err());
            return Ok(());
        }
        let got = got.unwrap().compute().unwrap();
        let want = ArrayD::from_shape_fn(IxDyn(&[n0, n1]), |i| {
            let mut s = 0.0;
            for r in i[0] as isize - b0..=i[0] as isize + e0 {
                for c in i[1] as isize - b1..=i[1] as isize + e1 { s += extended_value(&a, r, c, codes, constants).unwrap_or(0.0); }
            }
            s
        });
        prop_assert_eq!(got, want);
    }

    /// `overlap` gives every block's window of the extended array (the blocks
    /// grow by the depths, less at a 'none' edge); `trim_internal` with the
    /// same options gives the array back where the edge blocks were extended
    /// by the full depth; `trim(false)` keeps the function's extended blocks.
    #[test]
    fn overlap_and_trim_internal(l0 in prop::collection::vec(1usize..5, 1..4), l1 in prop::collection::vec(1usize..5, 1..4),
                                 depth in prop::collection::vec((0usize..3, 0usize..3), 2), codes in (0u8..5, 0u8..5)) {
        let (n0, n1) = (l0.iter().sum::<usize>(), l1.iter().sum::<usize>());
        let a = ArrayD::from_shape_fn(IxDyn(&[n0, n1]), |i| (i[0] * 10 + i[1]) as f64);
        let x = chunked(&a, &[l0.clone(), l1.clone()]);
        let codes = [codes.0, codes.1];
        let constants = [-1.0, -2.0];
        let opts = chunked_array::Overlap::asymmetric(&depth, boundary_of(codes[0], constants[0])).boundary_at(1, boundary_of(codes[1], constants[1]));
        let y = x.overlap(&opts).unwrap();
        // Per axis, the global positions of the extended blocks, one after the other.
        let positions = |lens: &[usize], (b, e): (usize, usize), n: usize, code: u8| -> Vec<isize> {
            let mut out = vec![];
            let mut lo = 0isize;
            for &l in lens {
                let hi = lo + l as isize;
                out.extend((lo - b as isize..hi + e as isize).filter(|&p| code != 0 || (0..n as isize).contains(&p)));
                lo = hi;
            }
            out
        };
        let (p0, p1) = (positions(&l0, depth[0], n0, codes[0]), positions(&l1, depth[1], n1, codes[1]));
        let want = ArrayD::from_shape_fn(IxDyn(&[p0.len(), p1.len()]), |i| extended_value(&a, p0[i[0]], p1[i[1]], codes, constants).unwrap());
        prop_assert_eq!(y.shape(), vec![p0.len(), p1.len()]);
        prop_assert_eq!(y.compute().unwrap(), want.clone());
        // The same blocks from map_overlap without trimming, as i64.
        let kept = x.map_overlap_with(|b, _| b.mapv(|v| v as i64), &opts.clone().trim(false)).unwrap();
        prop_assert_eq!(kept.chunks(), y.chunks());
        prop_assert_eq!(kept.compute().unwrap(), want.mapv(|v| v as i64));
        // trim_internal undoes overlap when every edge block got its whole depth.
        // ('none' extends the interior sides by min(depth, distance to the edge)).
        let full_halos = |lens: &[usize], (b, e): (usize, usize), code: u8| code != 0 || lens.len() == 1 || (b <= lens[0] && e <= lens[lens.len() - 1]);
        if full_halos(&l0, depth[0], codes[0]) && full_halos(&l1, depth[1], codes[1]) {
            let back = y.trim_internal(&opts).unwrap();
            prop_assert_eq!(back.chunks(), x.chunks());
            prop_assert_eq!(back.compute().unwrap(), a);
        }
    }

    /// Two arrays on different grids, one function over both extended blocks.
    #[test]
    fn map_overlap_of_two_arrays(la in prop::collection::vec(1usize..5, 1..4), cuts in prop::collection::vec(any::<bool>(), 12), d in 0usize..3, code in 1u8..5) {
        let n = la.iter().sum::<usize>();
        let mut lb = vec![];
        let mut len = 1;
        for &c in cuts.iter().take(n - 1) { if c { lb.push(len); len = 1; } else { len += 1; } }
        lb.push(len);
        let a = ArrayD::from_shape_fn(IxDyn(&[n]), |i| i[0] as f64 + 1.0);
        let b = ArrayD::from_shape_fn(IxDyn(&[n]), |i| (i[0] * i[0]) as f64);
        let (xa, xb) = (chunked(&a, std::slice::from_ref(&la)), chunked(&b, std::slice::from_ref(&lb)));
        // out[i] = a[i] * b[i + d] - b[i - d]
        let got = chunked_array::map_overlap_arrays(move |v, info| {
            let (before, _) = info.halo[0];
            assert_eq!(v[0].shape(), v[1].shape());
            let m = v[0].len();
            ndarray::ArrayD::from_shape_fn(v[0].raw_dim(), |i| {
                let i = i[0];
                if i < before || i + d >= m || i < d { return 0.0; }
                v[0][[i]] * v[1][[i + d]] - v[1][[i - d]]
            })
        }, &[&xa, &xb], &chunked_array::Overlap::new(&[d], boundary_of(code, 0.5))).unwrap();
        let at = |p: isize, arr: &ArrayD<f64>| boundary_source(p, n as isize, code).map_or(0.5, |q| arr[[q]]);
        let want = ArrayD::from_shape_fn(IxDyn(&[n]), |i| { let i = i[0] as isize; at(i, &a) * at(i + d as isize, &b) - at(i - d as isize, &b) });
        prop_assert_eq!(got.compute().unwrap(), want);
    }
}

#[test]
fn block_info_tells_the_halos() {
    // Blocks 3, 4, 3 with depth (2, 1) and 'none': the first block has no
    // halo before it, the last none after.
    let x = chunked(&ArrayD::from_shape_fn(IxDyn(&[10, 2]), |i| i[0] as f64), &[vec![3, 4, 3], vec![2]]);
    let opts = chunked_array::Overlap::asymmetric(&[(2, 1), (0, 0)], Boundary::None);
    let y = x
        .map_overlap_with(
            |b, info| {
                ArrayD::from_elem(b.raw_dim(), (info.halo[0].0 * 10 + info.halo[0].1 + 100 * info.start[0]) as i64)
            },
            &opts,
        )
        .unwrap();
    let got = y.compute().unwrap();
    assert_eq!(
        got.index_axis(Axis(1), 0).iter().copied().collect::<Vec<_>>(),
        vec![1, 1, 1, 321, 321, 321, 321, 720, 720, 720]
    );
    assert_eq!(y.dtype(), chunked_array::DType::I64);
}

#[test]
fn overlap_option_errors() {
    let x = Array::<f64>::zeros(&[6, 4], 2).unwrap();
    let opts = chunked_array::Overlap::new(&[1, 1], Boundary::Nearest).boundary_at(2, Boundary::Periodic);
    let e = x.overlap(&opts).unwrap_err();
    assert!(matches!(e, chunked_array::Error::BadAxis { axis: 2, ndim: 2, .. }), "{e}");
    assert!(x.map_overlap_with(|b, _| b.to_owned(), &opts).is_err());
    assert!(
        x.overlap(&chunked_array::Overlap::asymmetric(&[(1, 0)], Boundary::Nearest))
            .unwrap_err()
            .to_string()
            .contains("one depth per axis")
    );
    // trim_internal cannot cut more than a block holds.
    let e = x
        .trim_internal(&chunked_array::Overlap::asymmetric(&[(1, 2), (0, 0)], Boundary::Nearest))
        .unwrap_err()
        .to_string();
    assert!(e.contains("block 0 along axis 0 has 2 elements, fewer than the 3"), "{e}");
    // Several arrays: at least one, of shapes that broadcast.
    let none: [&Array<f64>; 0] = [];
    assert!(
        chunked_array::map_overlap_arrays(
            |v, _| v[0].to_owned(),
            &none,
            &chunked_array::Overlap::new(&[1], Boundary::None)
        )
        .is_err()
    );
    let other = Array::<f64>::zeros(&[6, 5], 2).unwrap();
    let e = chunked_array::map_overlap_arrays(
        |v, _| v[0].to_owned(),
        &[&x, &other],
        &chunked_array::Overlap::new(&[1, 1], Boundary::None),
    )
    .unwrap_err();
    assert!(e.to_string().contains("[6, 4]") && e.to_string().contains("[6, 5]"), "{e}");
    // A function returning the trimmed shape instead of the extended one.
    let bad = x
        .map_overlap_with(
            |b, _| b.slice_each_axis(|ax| ndarray::Slice::from(1..ax.len - 1)).to_owned(),
            &chunked_array::Overlap::new(&[1, 1], Boundary::Reflect),
        )
        .unwrap();
    assert!(bad.compute().unwrap_err().to_string().contains("extended block shape"));
}

/// Cuts a length `n` into blocks where `cuts` says so (one block at least).
fn cut_lengths(n: usize, cuts: &[bool]) -> Vec<usize> {
    let mut out = vec![];
    let mut len = 1;
    for &c in cuts.iter().cycle().take(n.saturating_sub(1)) {
        if c {
            out.push(len);
            len = 1;
        } else {
            len += 1;
        }
    }
    out.push(if n == 0 { 0 } else { len });
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// A (n0, n1) array times a broadcast one ((n1,), (1, n1), (n0, 1), (1, 1)
    /// or 0-d, on its own grid), box-summed over an asymmetric window: the
    /// smaller array's blocks broadcast inside the function.
    #[test]
    fn map_overlap_broadcasts_arrays(l0 in prop::collection::vec(1usize..5, 1..4), l1 in prop::collection::vec(1usize..5, 1..4), kind in 0usize..5,
                                     cuts in prop::collection::vec(any::<bool>(), 8), depth in prop::collection::vec((0usize..3, 0usize..3), 2),
                                     codes in (0u8..4, 0u8..4)) {
        // No constants: a constant halo times a constant halo is not the
        // constant halo of the product.
        let codes = [[0, 2, 3, 4][codes.0 as usize], [0, 2, 3, 4][codes.1 as usize]];
        let (n0, n1) = (l0.iter().sum::<usize>(), l1.iter().sum::<usize>());
        let a = ArrayD::from_shape_fn(IxDyn(&[n0, n1]), |i| (i[0] * 7 + i[1] * 3) as f64 - 9.0);
        let b_shape: Vec<usize> = [vec![n1], vec![1, n1], vec![n0, 1], vec![1, 1], vec![]][kind].clone();
        let b = ArrayD::from_shape_fn(IxDyn(&b_shape), |i| i.as_array_view().iter().fold(2.0, |acc, &v| acc * 3.0 + v as f64));
        let b_chunks: Vec<Vec<usize>> = b_shape.iter().map(|&n| cut_lengths(n, &cuts)).collect();
        let (xa, xb) = (chunked(&a, &[l0.clone(), l1.clone()]), chunked(&b, &b_chunks));
        let opts = chunked_array::Overlap::asymmetric(&depth, boundary_of(codes[0], 0.0)).boundary_at(1, boundary_of(codes[1], 0.0));
        let (b0, e0, b1, e1) = (depth[0].0 as isize, depth[0].1 as isize, depth[1].0 as isize, depth[1].1 as isize);
        let f = move |v: &[ndarray::ArrayViewD<'_, f64>], info: &chunked_array::BlockInfo<'_>| {
            let p = &v[0] * &v[1];
            assert_eq!(info.out_shape, p.shape());
            let (m0, m1) = (p.shape()[0] as isize, p.shape()[1] as isize);
            ArrayD::from_shape_fn(p.raw_dim(), |i| {
                let mut s = 0.0;
                for r in i[0] as isize - b0..=i[0] as isize + e0 {
                    for c in i[1] as isize - b1..=i[1] as isize + e1 {
                        if (0..m0).contains(&r) && (0..m1).contains(&c) { s += p[[r as usize, c as usize]]; }
                    }
                }
                s
            })
        };
        let got = chunked_array::map_overlap_arrays(f, &[&xa, &xb], &opts).unwrap();
        // The product on the whole array, then the window over its extension.
        let bb = b.broadcast(IxDyn(&[n0, n1])).unwrap();
        let w = &a * &bb;
        let window = |r0: isize, c0: isize| {
            let mut s = 0.0;
            for r in r0 - b0..=r0 + e0 {
                for c in c0 - b1..=c0 + e1 { s += extended_value(&w, r, c, codes, [0.0, 0.0]).unwrap_or(0.0); }
            }
            s
        };
        let want = ArrayD::from_shape_fn(IxDyn(&[n0, n1]), |i| window(i[0] as isize, i[1] as isize));
        // On the common refinement of the two arrays' grids.
        let ends = |lens: &[usize]| lens.iter().scan(0, |e, &l| { *e += l; Some(*e) }).collect::<std::collections::BTreeSet<usize>>();
        for (ax, l) in [&l0, &l1].into_iter().enumerate() {
            let mut common = ends(l);
            // b's axis for this one, unless b lacks it or is stretched along it.
            if let Some(bax) = (ax + b_shape.len()).checked_sub(2) && (b_shape[bax] > 1 || [n0, n1][ax] == 1) {
                common.extend(ends(&b_chunks[bax]));
            }
            prop_assert_eq!(ends(&got.chunks().lengths()[ax]), common);
        }
        prop_assert_eq!(got.compute().unwrap(), want.clone());
        // Untrimmed, the blocks keep their halos; trim_internal cuts them off
        // again where every edge block got its whole depth.
        let kept = chunked_array::map_overlap_arrays(f, &[&xa, &xb], &opts.clone().trim(false)).unwrap();
        let grew = |lens: &[usize], (b, e): (usize, usize), code: u8| lens.iter().sum::<usize>() + if code == 0 { 0 } else { (b + e) * lens.len() };
        if codes.iter().all(|&c| c != 0) {
            let grid = got.chunks().lengths();
            prop_assert_eq!(kept.shape(), vec![grew(&grid[0], depth[0], codes[0]), grew(&grid[1], depth[1], codes[1])]);
        }
        let full_halos = |lens: &[usize], (b, e): (usize, usize), code: u8| code != 0 || lens.len() == 1 || (b <= lens[0] && e <= lens[lens.len() - 1]);
        let grid = got.chunks().lengths();
        if full_halos(&grid[0], depth[0], codes[0]) && full_halos(&grid[1], depth[1], codes[1]) {
            prop_assert_eq!(kept.trim_internal(&opts).unwrap().compute().unwrap(), want);
        }
    }
}

#[test]
fn map_overlap_arrays_that_do_not_broadcast() {
    let x = Array::<f64>::zeros(&[6, 4], 2).unwrap();
    let y = Array::<f64>::zeros(&[3, 1], 2).unwrap();
    let e = chunked_array::map_overlap_arrays(
        |v, _| v[0].to_owned(),
        &[&x, &y],
        &chunked_array::Overlap::new(&[1, 1], Boundary::None),
    )
    .unwrap_err();
    assert!(e.to_string().contains("[6, 4]") && e.to_string().contains("[3, 1]"), "{e}");
}

#[test]
fn overlap_then_map_blocks_declares_other_chunks() {
    // dask's map_overlap(..., trim=False, chunks=...): one sum per extended
    // block, through overlap and map_blocks with declared chunks.
    let a = ArrayD::from_shape_fn(IxDyn(&[10]), |i| (i[0] * i[0]) as f64);
    let x = chunked(&a, &[vec![4, 4, 2]]);
    let ext = x.overlap(&chunked_array::Overlap::new(&[1], Boundary::Nearest)).unwrap();
    let sums = ext.map_blocks(|b, _| ndarray::arr1(&[b.sum()]).into_dyn(), Some(vec![vec![1, 1, 1]].into())).unwrap();
    let window = |lo: isize, hi: isize| (lo..hi).map(|p| a[[p.clamp(0, 9) as usize]]).sum::<f64>();
    let want = vec![window(-1, 5), window(3, 9), window(7, 11)];
    assert_eq!(sums.compute().unwrap().iter().copied().collect::<Vec<_>>(), want);
}
