//! gradient against NumPy's printed values, cross against the component
//! formula written as a loop, convolve and correlate against the sums of
//! their definitions and NumPy's printed values, over irregular chunkings.

use chunked_array::ndarray::{ArrayD, IxDyn};
use chunked_array::{Array, ConvolveMode, GradientOptions, Spacing};

const F: [f64; 18] = [1., 2., 4., 7., 11., 16., 0., -1., 5., 2., 2., 8., 3., 3., 3., 3., 3., 3.5];

fn close(got: &ArrayD<f64>, want: &[f64], tol: f64) -> bool {
    got.iter().zip(want).all(|(g, w)| (g - w).abs() <= tol * w.abs().max(1.0)) && got.len() == want.len()
}

#[test]
fn gradient_equals_numpy() {
    let f = Array::from_vec(&[3, 6], F.to_vec(), vec![vec![2, 1], vec![1, 0, 3, 2]]).unwrap();
    let got = f.gradient(1).unwrap().compute().unwrap();
    let numpy = [1.0, 1.5, 2.5, 3.5, 4.5, 5.0, -1.0, 2.5, 1.5, -1.5, 3.0, 6.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.5];
    assert_eq!(got.as_slice().unwrap(), &numpy);
    let opts = GradientOptions { spacing: Spacing::Uniform(0.3), edge_order: 2 };
    let got = f.gradient_with(1, &opts).unwrap().compute().unwrap();
    let numpy = [
        1.666666666666667,
        5.0,
        8.333333333333334,
        11.666666666666668,
        15.0,
        18.33333333333333,
        -15.0,
        8.333333333333334,
        5.0,
        -5.0,
        10.0,
        30.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.8333333333333334,
        2.5,
    ];
    assert!(close(&got, &numpy, 1e-15), "{got}");
    let x = vec![0.0, 0.5, 1.7, 2.0, 3.1, 4.4];
    let opts = GradientOptions { spacing: Spacing::Coordinates(x.clone()), edge_order: 1 };
    let got = f.gradient_with(-1, &opts).unwrap().compute().unwrap();
    let numpy = [
        2.0,
        1.9019607843137254,
        8.333333333333332,
        8.636363636363637,
        3.7325174825174816,
        3.8461538461538454,
        -2.0,
        0.0588235294117645,
        -7.0,
        -7.857142857142856,
        2.115384615384615,
        4.615384615384614,
        0.0,
        -1.1102230246251565e-16,
        0.0,
        2.220446049250313e-16,
        0.1762820512820511,
        0.3846153846153845,
    ];
    assert!(close(&got, &numpy, 1e-14), "{got}");
    let opts = GradientOptions { spacing: Spacing::Coordinates(x), edge_order: 2 };
    let got = f.gradient_with(1, &opts).unwrap().compute().unwrap();
    assert!((got[[0, 0]] - 2.0980392156862746).abs() < 1e-14 && (got[[1, 5]] - 7.115384615384614).abs() < 1e-14);
    let got = f.gradient_with(0, &GradientOptions { edge_order: 2, ..Default::default() }).unwrap().compute().unwrap();
    let numpy =
        [-3.0, -6.5, 2.5, -8.0, -14.0, -9.75, 1.0, 0.5, -0.5, -2.0, -4.0, -6.25, 5.0, 7.5, -3.5, 4.0, 6.0, -2.75];
    assert_eq!(got.as_slice().unwrap(), &numpy);
}

#[test]
fn bad_gradient_inputs_are_errors_naming_them() {
    let f = Array::<f64>::ones(&[2, 5], 2).unwrap();
    let order3 = GradientOptions { edge_order: 3, ..Default::default() };
    assert!(f.gradient_with(1, &order3).unwrap_err().to_string().contains("edge_order"));
    let e = f.gradient_with(0, &GradientOptions { edge_order: 2, ..Default::default() }).unwrap_err().to_string();
    assert!(e.contains('2') && e.contains("at least"), "{e}");
    let coords = GradientOptions { spacing: Spacing::Coordinates(vec![0.0, 1.0]), edge_order: 1 };
    assert!(f.gradient_with(1, &coords).unwrap_err().to_string().contains("one per position (5)"));
}

#[test]
fn cross_matches_the_component_formula() {
    let a_data = ArrayD::from_shape_fn(IxDyn(&[4, 3]), |i| (i[0] * 3 + i[1]) as f64 - 4.0);
    let b_data = ArrayD::from_shape_fn(IxDyn(&[4, 3]), |i| ((i[0] + 2 * i[1]) % 5) as f64 * 0.5);
    let a = Array::from_ndarray(a_data.clone(), vec![vec![1, 3], vec![2, 1]]).unwrap();
    let b = Array::from_ndarray(b_data.clone(), 2).unwrap();
    let got = a.cross(&b, 1).unwrap().compute().unwrap();
    for r in 0..4 {
        let (u, v) = (a_data.row_of(r), b_data.row_of(r));
        let want = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
        assert_eq!(got.row_of(r), want, "row {r}");
    }
    // Vectors along axis 0, and 2-vectors giving the z-component.
    let got = a.t().cross(&b.t(), 0).unwrap().compute().unwrap();
    assert_eq!(got.shape(), &[3, 4]);
    let two = a.slice(chunked_array::s![.., ..2]).unwrap().cross(&b.slice(chunked_array::s![.., ..2]).unwrap(), -1);
    let got = two.unwrap().compute().unwrap();
    for r in 0..4 {
        assert_eq!(got[[r]], a_data[[r, 0]] * b_data[[r, 1]] - a_data[[r, 1]] * b_data[[r, 0]]);
    }
    assert!(a.cross(&b.slice(chunked_array::s![.., ..2]).unwrap(), 1).unwrap_err().to_string().contains("(3, 2)"));
}

/// Row `r` of a 2-D array as a Vec.
trait RowOf {
    fn row_of(&self, r: usize) -> Vec<f64>;
}

impl RowOf for ArrayD<f64> {
    fn row_of(&self, r: usize) -> Vec<f64> {
        self.index_axis(chunked_array::ndarray::Axis(0), r).iter().copied().collect()
    }
}

/// The full correlation by its definition: c[k] = sum_j a[k + j - (m - 1)] v[j].
fn full_correlation(a: &[f64], v: &[f64]) -> Vec<f64> {
    let (n, m) = (a.len() as isize, v.len() as isize);
    (0..n + m - 1)
        .map(|k| {
            (0..m)
                .filter_map(|j| a.get((k + j - (m - 1)) as usize).filter(|_| k + j >= m - 1).map(|x| x * v[j as usize]))
                .sum()
        })
        .collect()
}

#[test]
fn convolve_and_correlate_match_their_definitions_and_numpy() {
    let data: Vec<f64> = (0..23).map(|i| ((i * 7) % 11) as f64 - 3.5).collect();
    let a = Array::from_vec(&[23], data.clone(), vec![vec![5, 0, 9, 1, 8]]).unwrap();
    for kernel in [vec![1.0], vec![0.5, -1.0], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]] {
        let reversed: Vec<f64> = kernel.iter().rev().copied().collect();
        for (convolve, v) in [(false, &kernel), (true, &reversed)] {
            let full = full_correlation(&data, v);
            let (n, m) = (data.len(), kernel.len());
            for (mode, start, len) in [
                (ConvolveMode::Full, 0, n + m - 1),
                (ConvolveMode::Same, (m - 1) / 2, n),
                (ConvolveMode::Valid, m - 1, n - m + 1),
            ] {
                let got = if convolve { a.convolve(&kernel, mode) } else { a.correlate(&kernel, mode) };
                let got = got.unwrap().compute().unwrap();
                assert!(
                    close(&got, &full[start..start + len], 1e-12),
                    "{kernel:?} {mode:?} convolve {convolve}: {got}"
                );
            }
        }
    }
    // A kernel longer than the array: NumPy's printed values.
    let x = Array::from_vec(&[5], vec![1.0, 2.0, 3.0, 4.0, 5.0], 2).unwrap();
    let v = [0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let got = x.convolve(&v, ConvolveMode::Same).unwrap().compute().unwrap();
    assert_eq!(got.as_slice().unwrap(), &[5.5, 12.0, 22.5, 35.0, 50.0, 58.0, 58.0]);
    let got = x.correlate(&v, ConvolveMode::Valid).unwrap().compute().unwrap();
    assert_eq!(got.as_slice().unwrap(), &[70.0, 55.0, 40.5]);
    assert!(Array::<f64>::ones(&[2, 2], 1).unwrap().convolve(&v, ConvolveMode::Full).is_err());
    assert!(x.correlate(&[], ConvolveMode::Full).unwrap_err().to_string().contains("(5, 0)"));
}
