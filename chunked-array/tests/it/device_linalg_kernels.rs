//! The solver's and the reductions' CUDA kernels, checked on machines
//! without a GPU as `device_kernels` checks the generators and the
//! elementwise kernels: compiled by the host C++ compiler with its prelude,
//! run over a small grid, compared with the CPU.

use std::path::PathBuf;
use std::process::Command;

use super::device_kernels::{HOST_PRELUDE, compiler};

/// Runs one of the solver's own kernels (`chunked_gpu::SOLVER_SOURCE`) on the
/// host over a small grid: `args` are its integer arguments, `data` its
/// buffers' elements (read from stdin), the output the buffers after.
fn run_solver_kernel(kernel: &str, ints: &[i64], buffers: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let cxx = compiler()?;
    let dir = std::env::temp_dir().join(format!("chunked-solver-host-{}-{kernel}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let main = r#"
int main(int argc, char** argv) {
    std::vector<std::vector<double>> bufs;
    long long ints[8];
    int nints = atoi(argv[2]);
    for (int i = 0; i < nints; i++) ints[i] = strtoll(argv[3 + i], 0, 10);
    for (int b = 3 + nints; b < argc; b++) {
        std::vector<double> v(strtoull(argv[b], 0, 10));
        for (auto& x : v) if (scanf("%lf", &x) != 1) return 2;
        bufs.push_back(v);
    }
    gridDim.x = 2; blockDim.x = 3;
    for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++)
        for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++) {
            if (!strcmp(argv[1], "col_to_row"))
                col_to_row_f64(bufs[0].data(), ints[0], ints[1], ints[2], (int)ints[3], bufs[1].data());
            else
                svd_flip_f64(bufs[0].data(), bufs[1].data(), ints[0], ints[1]);
        }
    for (auto& v : bufs) { for (double x : v) printf("%.17g ", x); printf("\n"); }
    return 0;
}
"#;
    let src = dir.join("solver.cpp");
    std::fs::write(&src, format!("{HOST_PRELUDE}{}{main}", chunked_gpu::SOLVER_SOURCE)).unwrap();
    let exe = dir.join("solver");
    let out = Command::new(cxx).args(["-O1", "-std=c++17", "-o"]).arg(&exe).arg(&src).output().unwrap();
    assert!(
        out.status.success(),
        "the solver kernels do not compile as C++:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut cmd = Command::new(&exe);
    cmd.arg(kernel)
        .arg(ints.len().to_string())
        .args(ints.iter().map(|i| i.to_string()))
        .args(buffers.iter().map(|b| b.len().to_string()));
    let input: String = buffers.iter().flatten().map(|x| format!("{x:e} ")).collect();
    let child = cmd.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).spawn().unwrap();
    use std::io::Write;
    child.stdin.as_ref().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success());
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split_whitespace().map(|x| x.parse().unwrap()).collect())
            .collect(),
    )
}

#[test]
fn the_solver_layout_kernel_transposes_and_keeps_the_upper_triangle() {
    // A 4 x 3 column-major matrix inside a leading dimension of 5 (a row of
    // padding): element (i, j) at i + 5 j.
    let (rows, cols, ld) = (4usize, 3usize, 5usize);
    let value = |i: usize, j: usize| (10 * i + j) as f64 + 0.5;
    let mut src = vec![-1.0; ld * cols];
    for i in 0..rows {
        for j in 0..cols {
            src[i + j * ld] = value(i, j);
        }
    }
    for upper in [0, 1] {
        let Some(out) = run_solver_kernel(
            "col_to_row",
            &[ld as i64, rows as i64, cols as i64, upper],
            &[src.clone(), vec![0.0; rows * cols]],
        ) else {
            return;
        };
        let expected: Vec<f64> = (0..rows * cols)
            .map(|e| (e / cols, e % cols))
            .map(|(i, j)| if upper == 1 && j < i { 0.0 } else { value(i, j) })
            .collect();
        assert_eq!(out[1], expected, "upper = {upper}");
    }
    // Row-major to column-major: the same kernel with the dimensions swapped.
    let row_major: Vec<f64> = (0..rows * cols).map(|e| value(e / cols, e % cols)).collect();
    let Some(out) = run_solver_kernel(
        "col_to_row",
        &[cols as i64, cols as i64, rows as i64, 0],
        &[row_major, vec![0.0; rows * cols]],
    ) else {
        return;
    };
    let expected: Vec<f64> = (0..rows * cols).map(|e| value(e % rows, e / rows)).collect();
    assert_eq!(out[1], expected);
}

#[test]
fn the_svd_flip_kernel_makes_the_largest_entry_of_each_right_vector_positive() {
    // u: 3 x 3, vt: 3 x 4, row-major. Row 0's largest entry (-4) is negative,
    // row 1's (3, first of a tie with -3) positive, row 2's (-2.5) negative.
    let u: Vec<f64> = (0..9).map(|e| e as f64 + 1.0).collect();
    let vt = vec![1.0, -4.0, 2.0, 0.5, 3.0, -3.0, 0.0, 1.0, 0.1, 0.2, -2.5, 2.0];
    let Some(out) = run_solver_kernel("svd_flip", &[3, 4], &[u.clone(), vt.clone()]) else {
        return;
    };
    let flipped = [true, false, true];
    let expected_vt: Vec<f64> = vt.iter().enumerate().map(|(e, &x)| if flipped[e / 4] { -x } else { x }).collect();
    let expected_u: Vec<f64> = u.iter().enumerate().map(|(e, &x)| if flipped[e % 3] { -x } else { x }).collect();
    assert_eq!(out[0], expected_u);
    assert_eq!(out[1], expected_vt);
}

/// Builds the reduction kernels (`chunked_gpu::reduce`) for the host, with a
/// main running both launches over a small grid as `launch_reduce` makes
/// them, for an f64 block.
fn build_reduction(source: &str, name: &str) -> Option<PathBuf> {
    let cxx = compiler()?;
    let dir = std::env::temp_dir().join(format!("chunked-reduce-host-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let main = r#"
int main(int argc, char** argv) {
    unsigned long long n = strtoull(argv[1], 0, 10), n_out = strtoull(argv[2], 0, 10);
    unsigned long long n_red = strtoull(argv[3], 0, 10), pieces = strtoull(argv[4], 0, 10);
    int nk = atoi(argv[5]), nr = atoi(argv[6]), inner = atoi(argv[7]);
    std::vector<long long> meta;
    for (int i = 8; i < argc; i++) meta.push_back(strtoll(argv[i], 0, 10));
    std::vector<double> x(n);
    for (auto& v : x) if (scanf("%lf", &v) != 1) return 2;
    std::vector<double> partial(n_out * pieces), out(n_out);
    gridDim.x = 3; blockDim.x = 7;
    for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++)
        for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++)
            chunked_reduce_pieces(x.data(), partial.data(), n_out, n_red, pieces, nk, nr, meta.data(), inner);
    for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++)
        for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++)
            chunked_reduce_finish(partial.data(), out.data(), n_out, pieces);
    for (double v : out) printf("%.17g\n", v);
    return 0;
}
"#;
    let src = dir.join("reduce.cpp");
    std::fs::write(&src, format!("{HOST_PRELUDE}{source}{main}")).unwrap();
    let exe = dir.join("reduce");
    let out = Command::new(cxx).args(["-O1", "-std=c++17", "-o"]).arg(&exe).arg(&src).output().unwrap();
    assert!(
        out.status.success(),
        "the reduction kernels do not compile as C++:\n{}\n{source}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(exe)
}

/// The built kernels' result for the C-order block `x` reduced as `layout` says.
fn run_reduction(exe: &PathBuf, x: &[f64], layout: &chunked_gpu::reduce::ReduceLayout) -> Vec<f64> {
    let mut cmd = Command::new(exe);
    let counts = [
        x.len(),
        layout.outputs(),
        layout.reduced_len(),
        layout.pieces(),
        layout.kept.len(),
        layout.reduced.len(),
        layout.reduced_inner() as usize,
    ];
    cmd.args(counts.iter().map(|c| c.to_string())).args(layout.meta().iter().map(|m| m.to_string()));
    let child = cmd.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).spawn().unwrap();
    use std::io::Write;
    let input: String = x.iter().map(|v| format!("{v:e} ")).collect();
    child.stdin.as_ref().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().lines().map(|l| l.parse().unwrap()).collect()
}

#[test]
fn the_reduction_kernels_compute_what_the_cpu_reductions_do() {
    use chunked_array::Array;
    use chunked_gpu::reduce::{ReduceLayout, ReduceOp, source};
    // A 3-d block with NaNs, infinities and every sign, reduced over each
    // set of axes; the sums to a few ulp (another order of additions), the
    // extremes and NaN handling exactly.
    let shape = [4usize, 5, 6];
    let mut x: Vec<f64> = (0..120).map(|i| ((i * 37 % 101) as f64 - 50.0) / 7.0).collect();
    x[17] = f64::NAN;
    x[60] = f64::INFINITY;
    x[61] = f64::NEG_INFINITY;
    let block = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&shape), x.clone()).unwrap();
    let array = Array::from_ndarray(block.clone(), [4, 5, 6]).unwrap();
    let without_nan = Array::from_ndarray(block.mapv(|v| if v.is_nan() { 2.5 } else { v }), [4, 5, 6]).unwrap();
    let ops = [ReduceOp::Sum, ReduceOp::NanSum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min];
    let mut built = Vec::new();
    for op in ops {
        let Some(exe) = build_reduction(&source::<f64>(op, "double"), &format!("{op:?}")) else {
            return;
        };
        built.push(exe);
    }
    let axis_sets: [&[isize]; 5] = [&[0], &[1], &[2], &[0, 2], &[0, 1, 2]];
    for axes in axis_sets {
        let reduced: Vec<bool> = (0..3).map(|a| axes.contains(&(a as isize))).collect();
        let layout = ReduceLayout::new(&shape, &reduced);
        let cases: [(ReduceOp, &Array<f64>, Array<f64>); 5] = [
            (ReduceOp::Sum, &without_nan, without_nan.sum(axes).unwrap()),
            (ReduceOp::NanSum, &array, array.nansum(axes).unwrap()),
            (ReduceOp::Prod, &without_nan, without_nan.prod(axes).unwrap()),
            (ReduceOp::Max, &array, array.max(axes).unwrap()),
            (ReduceOp::Min, &array, array.min(axes).unwrap()),
        ];
        for ((op, input, oracle), exe) in cases.into_iter().zip(&built) {
            let data: Vec<f64> = input.compute().unwrap().iter().copied().collect();
            let got = run_reduction(exe, &data, &layout);
            let want: Vec<f64> = oracle.compute().unwrap().iter().copied().collect();
            assert_eq!(got.len(), want.len(), "{op:?} over {axes:?}");
            for (g, w) in got.iter().zip(&want) {
                let close = g == w
                    || (g.is_nan() && w.is_nan())
                    || (matches!(op, ReduceOp::Sum | ReduceOp::NanSum | ReduceOp::Prod)
                        && (g - w).abs() <= 1e-12 * w.abs().max(1.0));
                assert!(close, "{op:?} over {axes:?}: {g} vs {w}");
            }
        }
    }
    for exe in built {
        let _ = std::fs::remove_dir_all(exe.parent().unwrap());
    }
}
