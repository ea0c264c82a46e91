//! Counting against plain loops over the whole array that follow NumPy's
//! definitions (bin i holds edges[i] <= v < edges[i+1], the last bin its
//! right edge too), and against values NumPy printed.

use chunked_array::ndarray::{ArrayD, Axis, IxDyn};
use chunked_array::{Array, Bins, Error, HistogramDdOptions, HistogramOptions, histogram2d};

/// Bin counts by the definition, with the edges NumPy's `linspace` makes.
fn histogram_loop(values: &[f64], edges: &[f64], weights: Option<&[f64]>) -> Vec<f64> {
    let n = edges.len() - 1;
    let mut out = vec![0.0; n];
    for (k, &v) in values.iter().enumerate() {
        let w = weights.map_or(1.0, |w| w[k]);
        if let Some(i) = (0..n).find(|&i| edges[i] <= v && (v < edges[i + 1] || (i == n - 1 && v == edges[n]))) {
            out[i] += w;
        }
    }
    out
}

fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|i| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            match i % 17 {
                3 => f64::NAN,
                5 => 3.0,  // the last edge
                7 => -0.5, // below
                _ => ((s >> 11) as f64 / (1u64 << 53) as f64) * 3.2 - 0.1,
            }
        })
        .collect()
}

#[test]
fn histograms_match_the_loop_with_weights_density_and_irregular_blocks() {
    let data = values(1000, 9);
    let weights: Vec<f64> = (0..1000).map(|i| (i % 7) as f64 * 0.25).collect();
    let x = Array::from_vec(&[1000], data.clone(), vec![vec![300, 0, 450, 250]]).unwrap();
    let w = Array::from_vec(&[1000], weights.clone(), 128).unwrap();
    for bins in [1usize, 7, 10, 64] {
        let (counts, edges) = x.histogram(bins, Some((0.0, 3.0))).unwrap();
        let want = histogram_loop(&data, &edges, None);
        let got: Vec<f64> = counts.compute().unwrap().iter().map(|&c| c as f64).collect();
        assert_eq!(got, want, "{bins} bins");
        let opts = HistogramOptions { range: Some((0.0, 3.0)), weights: Some(&w), density: false };
        let (sums, _) = x.histogram_with(bins, &opts).unwrap();
        let want = histogram_loop(&data, &edges, Some(&weights));
        for (g, w) in sums.compute().unwrap().iter().zip(&want) {
            assert!((g - w).abs() < 1e-9, "{bins} bins weighted: {g} against {w}");
        }
        let (density, _) = x.histogram_with(bins, &HistogramOptions { density: true, ..opts }).unwrap();
        let area: f64 = density.compute().unwrap().iter().zip(edges.windows(2)).map(|(d, e)| d * (e[1] - e[0])).sum();
        assert!((area - 1.0).abs() < 1e-12, "{bins} bins: density integrates to {area}");
    }
    let edges = vec![-1.0, 0.0, 0.25, 0.25, 2.0, 3.0];
    let (counts, _) = x.histogram(edges.clone(), None).unwrap();
    let got: Vec<f64> = counts.compute().unwrap().iter().map(|&c| c as f64).collect();
    assert_eq!(got, histogram_loop(&data, &edges, None));
    // Integers, in two dimensions.
    let ints = Array::<i32>::from_fn(&[20, 30], [7, 11], |i| (i[0] * 31 + i[1] * 17) as i32 % 41 - 5).unwrap();
    let (counts, edges) = ints.histogram(9, Some((0.0, 36.0))).unwrap();
    let all: Vec<f64> = ints.compute().unwrap().iter().map(|&v| v as f64).collect();
    let got: Vec<f64> = counts.compute().unwrap().iter().map(|&c| c as f64).collect();
    assert_eq!(got, histogram_loop(&all, &edges, None));
}

#[test]
fn numpy_prints_the_same_counts() {
    // np.histogram(x, bins=10, range=(0, 3)) and bins=7, range=(0.1, 2.3),
    // printed by NumPy 2.4: values on or a hair off the edges.
    let mut data: Vec<f64> = (0..31).map(|i| 0.1 * i as f64).collect();
    data.extend([0.3, 0.7, 1.0, 2.9999999999999996, 3.0, -0.0, 1e-300]);
    let x = Array::from_vec(&[data.len()], data, 5).unwrap();
    let (h, e) = x.histogram(10, Some((0.0, 3.0))).unwrap();
    assert_eq!(h.compute().unwrap().as_slice().unwrap(), &[5, 4, 4, 4, 3, 3, 3, 3, 3, 6]);
    assert_eq!(e[..4], [0.0, 0.3, 0.6, 0.8999999999999999]);
    let (h, _) = x.histogram(7, Some((0.1, 2.3))).unwrap();
    assert_eq!(h.compute().unwrap().as_slice().unwrap(), &[5, 4, 4, 3, 3, 3, 3]);
    // np.digitize([-1, 0, 0.5, 1, 9, nan], [0, 1, 2])
    let d = Array::from_vec(&[6], vec![-1.0, 0.0, 0.5, 1.0, 9.0, f64::NAN], 4).unwrap();
    assert_eq!(
        d.digitize(&[0.0, 1.0, 2.0], false).unwrap().compute().unwrap().as_slice().unwrap(),
        &[0, 1, 1, 2, 3, 3]
    );
}

#[test]
fn digitize_isin_and_count_nonzero_match_loops() {
    let data = values(300, 4);
    let x = Array::from_vec(&[12, 25], data.clone(), vec![vec![5, 0, 7], vec![10, 15]]).unwrap();
    let bins = [0.0, 0.5, 0.5, 1.75, 3.0];
    for right in [false, true] {
        let got = x.digitize(&bins, right).unwrap().compute().unwrap();
        for (g, &v) in got.iter().zip(&data) {
            let want = if v.is_nan() {
                bins.len()
            } else {
                bins.iter().filter(|&&e| if right { e < v } else { e <= v }).count()
            };
            assert_eq!(*g as usize, want, "{v} right {right}");
        }
    }
    let test = [3.0, -0.5, 0.0, f64::NAN];
    let got = x.isin(&test).unwrap().compute().unwrap();
    for (g, &v) in got.iter().zip(&data) {
        assert_eq!(*g, test.contains(&v), "{v}");
    }
    let whole = ArrayD::from_shape_vec(IxDyn(&[12, 25]), data).unwrap();
    let nonzero = |a: &ArrayD<f64>| a.iter().filter(|&&v| v != 0.0).count() as i64;
    assert_eq!(x.count_nonzero(None).unwrap().compute_scalar().unwrap(), nonzero(&whole));
    let per_row = x.count_nonzero(1).unwrap().compute().unwrap();
    let want: Vec<i64> = whole.axis_iter(Axis(0)).map(|r| r.iter().filter(|&&v| v != 0.0).count() as i64).collect();
    assert_eq!(per_row.as_slice().unwrap(), want.as_slice());
}

#[test]
fn bad_bins_and_ranges_are_errors_naming_them() {
    let x = Array::<f64>::ones(&[10], 3).unwrap();
    let named = |r: Result<(Array<i64>, Vec<f64>), Error>, value: &str| match r {
        Err(Error::InvalidArgument { value: v, .. }) => assert!(v.contains(value), "{v} should name {value}"),
        other => panic!("{other:?}"),
    };
    named(x.histogram(0, Some((0.0, 1.0))), "0");
    named(x.histogram(4, None), "None");
    named(x.histogram(4, Some((2.0, 1.0))), "(2.0, 1.0)");
    named(x.histogram(4, Some((0.0, f64::INFINITY))), "inf");
    named(x.histogram(vec![0.0, 2.0, 1.0], None), "[0.0, 2.0, 1.0]");
    assert!(matches!(x.digitize(&[1.0, 0.0], false), Err(Error::InvalidArgument { .. })));
    let w = Array::<f64>::ones(&[9], 3).unwrap();
    let opts = HistogramOptions { range: Some((0.0, 1.0)), weights: Some(&w), density: false };
    assert!(matches!(x.histogram_with(2, &opts), Err(Error::ShapeMismatch { .. })));
    // A value on an empty range: NumPy widens it by a half on each side.
    let (h, e) = x.histogram(2, Some((1.0, 1.0))).unwrap();
    assert_eq!((h.compute().unwrap().as_slice().unwrap(), e), (&[0i64, 10][..], vec![0.5, 1.0, 1.5]));
}

/// The cell of each point by the 1-D definition per dimension.
fn dd_loop(points: &[[f64; 3]], edges: &[Vec<f64>], weights: Option<&[f64]>) -> Vec<f64> {
    let sizes: Vec<usize> = edges.iter().map(|e| e.len() - 1).collect();
    let mut out = vec![0.0; sizes.iter().product()];
    for (k, p) in points.iter().enumerate() {
        let mut flat = Some(0);
        for (d, e) in edges.iter().enumerate() {
            let n = sizes[d];
            let i = (0..n).find(|&i| e[i] <= p[d] && (p[d] < e[i + 1] || (i == n - 1 && p[d] == e[n])));
            flat = flat.zip(i).map(|(f, i)| f * n + i);
        }
        if let Some(f) = flat {
            out[f] += weights.map_or(1.0, |w| w[k]);
        }
    }
    out
}

#[test]
fn histogramdd_and_histogram2d_match_loops() {
    let v = values(3 * 2000, 11);
    let points: Vec<[f64; 3]> = v.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
    let flat: Vec<f64> = points.iter().flatten().copied().collect();
    let x = Array::from_vec(&[2000, 3], flat, vec![vec![700, 0, 1300], vec![2, 1]]).unwrap();
    let bins = [Bins::Count(4), Bins::Edges(vec![-0.2, 0.5, 1.0, 3.0]), Bins::Count(2)];
    let ranges = [(0.0, 3.0), (0.0, 1.0), (-0.5, 3.0)];
    let (h, edges) = x.histogramdd(&bins, Some(&ranges)).unwrap();
    let got = h.compute().unwrap();
    assert_eq!(got.shape(), &[4, 3, 2]);
    let want = dd_loop(&points, &edges, None);
    assert_eq!(got.iter().map(|&c| c as f64).collect::<Vec<_>>(), want);
    let weights: Vec<f64> = (0..2000).map(|i| (i % 5) as f64 * 0.5).collect();
    let w = Array::from_vec(&[2000], weights.clone(), 300).unwrap();
    let opts = HistogramDdOptions { ranges: Some(ranges.to_vec()), weights: Some(&w), density: false };
    let (h, _) = x.histogramdd_with(&bins, &opts).unwrap();
    let want = dd_loop(&points, &edges, Some(&weights));
    assert!(h.compute().unwrap().iter().zip(&want).all(|(g, w)| (g - w).abs() < 1e-9));
    // Density: sums over the total and each cell's volume.
    let (d, _) = x.histogramdd_with(&bins, &HistogramDdOptions { density: true, ..opts.clone() }).unwrap();
    let total: f64 = want.iter().sum();
    let d = d.compute().unwrap();
    for ((i, g), w) in d.indexed_iter().zip(&want) {
        let volume: f64 = (0..3).map(|k| edges[k][i[k] + 1] - edges[k][i[k]]).product();
        assert!((g - w / total / volume).abs() < 1e-12, "{i:?}");
    }
    // histogram2d of the first two coordinates.
    let (a, b) = (x.slice(chunked_array::s![.., 0]).unwrap(), x.slice(chunked_array::s![.., 1]).unwrap());
    let opts2 = HistogramDdOptions { ranges: Some(ranges[..2].to_vec()), ..Default::default() };
    let (h2, e2) = histogram2d(&a, &b, &bins[..2], &opts2).unwrap();
    let pairs: Vec<[f64; 3]> = points.iter().map(|p| [p[0], p[1], 0.0]).collect();
    let mut e3 = e2.clone();
    e3.push(vec![-1.0, 1.0]);
    assert_eq!(h2.compute().unwrap().iter().copied().collect::<Vec<_>>(), dd_loop(&pairs, &e3, None));
    let e = x.histogramdd(&bins[..2], None).unwrap_err().to_string();
    assert!(e.contains("one per dimension (3)"), "{e}");
    let e = x.histogramdd(&[Bins::Count(1000), Bins::Count(1000), Bins::Count(1000)], Some(&ranges)).unwrap_err();
    assert!(e.to_string().contains("[1000, 1000, 1000]"), "{e}");
}
