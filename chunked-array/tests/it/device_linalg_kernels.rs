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
/// main running the launches over a small grid as `launch_reduce` makes them
/// (the first kernel, each merge pass, the finish). The block is read and the
/// results printed as doubles, converted from and to the source's element and
/// accumulator types.
fn build_reduction(source: &str, name: &str) -> Option<PathBuf> {
    let cxx = compiler()?;
    let dir = std::env::temp_dir().join(format!("chunked-reduce-host-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let main = r#"
#include <limits>
int main(int argc, char** argv) {
    unsigned long long n = strtoull(argv[1], 0, 10), n_out = strtoull(argv[2], 0, 10);
    unsigned long long n_red = strtoull(argv[3], 0, 10), pieces = strtoull(argv[4], 0, 10);
    int nk = atoi(argv[5]), nr = atoi(argv[6]), inner = atoi(argv[7]), passes = atoi(argv[8]);
    std::vector<unsigned long long> merges;
    for (int i = 9; i < 9 + passes; i++) merges.push_back(strtoull(argv[i], 0, 10));
    std::vector<long long> meta;
    for (int i = 9 + passes; i < argc; i++) meta.push_back(strtoll(argv[i], 0, 10));
    std::vector<in_t> x(n);
    for (auto& v : x) {
        double read;
        if (scanf("%lf", &read) != 1) return 2;
        v = (in_t)read;
    }
    // Poison, so that a partial left unwritten shows in the result.
    const acc_t poison = std::numeric_limits<acc_t>::has_quiet_NaN ? std::numeric_limits<acc_t>::quiet_NaN()
                                                                    : std::numeric_limits<acc_t>::max();
    std::vector<acc_t> partial(n_out * pieces, poison), out(n_out, poison);
    gridDim.x = 3; blockDim.x = 7;
    for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++)
        for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++)
            chunked_reduce_pieces(x.data(), partial.data(), n_out, n_red, pieces, nk, nr, meta.data(), inner);
    for (unsigned long long next_pieces : merges) {
        std::vector<acc_t> next(n_out * next_pieces, poison);
        for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++)
            for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++)
                chunked_reduce_merge(partial.data(), next.data(), n_out, pieces, next_pieces);
        partial.swap(next);
        pieces = next_pieces;
    }
    for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++)
        for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++)
            chunked_reduce_finish(partial.data(), out.data(), n_out, pieces);
    for (acc_t v : out) printf("%.17g\n", (double)v);
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
        layout.merge_passes().len(),
    ];
    cmd.args(counts.iter().map(|c| c.to_string()))
        .args(layout.merge_passes().iter().map(|p| p.to_string()))
        .args(layout.meta().iter().map(|m| m.to_string()));
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
    use chunked_gpu::reduce::{ReduceOp, source};
    let ops = [ReduceOp::Sum, ReduceOp::NanSum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min];
    let mut built = Vec::new();
    for op in ops {
        let Some(exe) = build_reduction(&source::<f64>(op, "double"), &format!("{op:?}")) else {
            return;
        };
        built.push(exe);
    }
    // A 3-d block with NaNs, infinities and every sign, reduced over each
    // set of axes; the sums to a few ulp (another order of additions), the
    // extremes and NaN handling exactly.
    let mut x: Vec<f64> = (0..120).map(|i| ((i * 37 % 101) as f64 - 50.0) / 7.0).collect();
    (x[17], x[60], x[61]) = (f64::NAN, f64::INFINITY, f64::NEG_INFINITY);
    check_reductions(&built, &[4, 5, 6], x, &[&[0], &[1], &[2], &[0, 2], &[0, 1, 2]]);
    // A block long enough that the first kernel's pieces go through merge
    // passes (values near 1, so that the product stays finite).
    let mut x: Vec<f64> = (0..120_000).map(|i| 1.0 + ((i * 37 % 101) as f64 - 50.0) / 5000.0).collect();
    (x[70_001], x[99_999]) = (f64::NAN, f64::INFINITY);
    let long = chunked_gpu::reduce::ReduceLayout::new(&[3, 40_000], &[true, true]);
    assert!(!long.merge_passes().is_empty(), "{:?}", long.pieces());
    check_reductions(&built, &[3, 40_000], x.clone(), &[&[0], &[1], &[0, 1]]);
    // The same values as 40000 x 3 over the long axis: pieces of an outer
    // axis, merged.
    assert!(!chunked_gpu::reduce::ReduceLayout::new(&[40_000, 3], &[true, false]).merge_passes().is_empty());
    check_reductions(&built, &[40_000, 3], x, &[&[0]]);
    for exe in built {
        let _ = std::fs::remove_dir_all(exe.parent().unwrap());
    }
}

/// Each of the host-built reductions in `built` (sum, nansum, prod, max,
/// min) of the block `x` of `shape` over each of `axis_sets`, against
/// chunked's CPU reductions.
fn check_reductions(built: &[PathBuf], shape: &[usize], x: Vec<f64>, axis_sets: &[&[isize]]) {
    use chunked_array::Array;
    use chunked_gpu::reduce::{ReduceLayout, ReduceOp};
    let block = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(shape), x).unwrap();
    let array = Array::from_ndarray(block.clone(), shape).unwrap();
    let without_nan = Array::from_ndarray(block.mapv(|v| if v.is_nan() { 2.5 } else { v }), shape).unwrap();
    for &axes in axis_sets {
        let reduced: Vec<bool> = (0..shape.len()).map(|a| axes.contains(&(a as isize))).collect();
        let layout = ReduceLayout::new(shape, &reduced);
        let cases: [(ReduceOp, &Array<f64>, Array<f64>); 5] = [
            (ReduceOp::Sum, &without_nan, without_nan.sum(axes).unwrap()),
            (ReduceOp::NanSum, &array, array.nansum(axes).unwrap()),
            (ReduceOp::Prod, &without_nan, without_nan.prod(axes).unwrap()),
            (ReduceOp::Max, &array, array.max(axes).unwrap()),
            (ReduceOp::Min, &array, array.min(axes).unwrap()),
        ];
        for ((op, input, oracle), exe) in cases.into_iter().zip(built) {
            let data: Vec<f64> = input.compute().unwrap().iter().copied().collect();
            let got = run_reduction(exe, &data, &layout);
            let want: Vec<f64> = oracle.compute().unwrap().iter().copied().collect();
            assert_eq!(got.len(), want.len(), "{op:?} over {axes:?}");
            for (g, w) in got.iter().zip(&want) {
                let close = g == w
                    || (g.is_nan() && w.is_nan())
                    || (matches!(op, ReduceOp::Sum | ReduceOp::NanSum | ReduceOp::Prod)
                        && (g - w).abs() <= 1e-12 * w.abs().max(1.0));
                assert!(close, "{op:?} over {axes:?} of {shape:?}: {g} vs {w}");
            }
        }
    }
}

#[test]
fn the_reduction_kernels_keep_every_integer_width() {
    use chunked_gpu::reduce::{ReduceLayout, ReduceOp, source};
    use ndarray::{ArrayD, Axis, IxDyn};
    // Extremes in the element's own type (its lowest and highest values as
    // identities: all-negative rows of a signed type, large unsigned values),
    // sums widened to 64 bits; against plain folds over the same values.
    let shape = [6usize, 700];
    let signed: Vec<f64> = (0..4200).map(|i| (i * 37 % 101) as f64 - 100.0).collect(); // -100..=0
    let offset = |by: f64| signed.iter().map(|v| v + by).collect::<Vec<f64>>();
    let cases: [(&str, String, Vec<f64>); 8] = [
        ("i8 max", source::<i8>(ReduceOp::Max, "signed char"), signed.clone()),
        ("i8 min", source::<i8>(ReduceOp::Min, "signed char"), signed.clone()),
        ("i16 max", source::<i16>(ReduceOp::Max, "short"), offset(-30_000.0)),
        ("u16 min", source::<u16>(ReduceOp::Min, "unsigned short"), offset(65_435.0)),
        ("u32 max", source::<u32>(ReduceOp::Max, "unsigned int"), offset(4_294_967_195.0)),
        ("u32 min", source::<u32>(ReduceOp::Min, "unsigned int"), offset(4_294_967_195.0)),
        ("i16 sum in i64", source::<i64>(ReduceOp::Sum, "short"), offset(-30_000.0)),
        ("u32 sum in u64", source::<u64>(ReduceOp::Sum, "unsigned int"), offset(4_294_967_195.0)),
    ];
    for (name, src, data) in cases {
        let Some(exe) = build_reduction(&src, &name.replace(' ', "_")) else {
            return;
        };
        let block = ArrayD::from_shape_vec(IxDyn(&shape), data.clone()).unwrap();
        for axes in [vec![0usize], vec![1], vec![0, 1]] {
            let reduced: Vec<bool> = (0..2).map(|a| axes.contains(&a)).collect();
            let got = run_reduction(&exe, &data, &ReduceLayout::new(&shape, &reduced));
            let fold = |init: f64, f: fn(f64, f64) -> f64| {
                let mut acc = block.clone();
                for &a in axes.iter().rev() {
                    acc = acc.fold_axis(Axis(a), init, |&x, &y| f(x, y));
                }
                acc.iter().copied().collect::<Vec<f64>>()
            };
            let want = match name.split(' ').nth(1).unwrap() {
                "max" => fold(f64::NEG_INFINITY, f64::max),
                "min" => fold(f64::INFINITY, f64::min),
                _ => fold(0.0, |x, y| x + y),
            };
            assert_eq!(got, want, "{name} over {axes:?}");
        }
        let _ = std::fs::remove_dir_all(exe.parent().unwrap());
    }
}
