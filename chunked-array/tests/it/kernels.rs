//! The gemm kernel on each backend (faer, and the system BLAS where one
//! loads; required under CI and the test command) against a plain triple
//! loop in double precision, over the layouts a block product meets:
//! row- and column-major operands, leading dimensions past the width,
//! transposed and conjugated views, accumulation, a scale, thin shapes.

use chunked_array::kernels::{Backend, KernelElement, backend, blas_library, gemm_on};
use chunked_array::{Complex32, Complex64};
use faer::{Mat, MatRef};
use num_complex::ComplexFloat;

use crate::support::tool_missing;

/// A value of the type from a pair of small integers.
trait FromPair: KernelElement + ComplexFloat {
    fn from_pair(re: f64, im: f64) -> Self;
    fn to_c64(self) -> Complex64;
    /// Relative tolerance of a product of length `k`.
    const EPS: f64;
}

impl FromPair for f32 {
    fn from_pair(re: f64, _: f64) -> Self {
        re as f32
    }
    fn to_c64(self) -> Complex64 {
        Complex64::new(self as f64, 0.0)
    }
    const EPS: f64 = 1e-5;
}

impl FromPair for f64 {
    fn from_pair(re: f64, _: f64) -> Self {
        re
    }
    fn to_c64(self) -> Complex64 {
        Complex64::new(self, 0.0)
    }
    const EPS: f64 = 1e-13;
}

impl FromPair for Complex32 {
    fn from_pair(re: f64, im: f64) -> Self {
        Complex32::new(re as f32, im as f32)
    }
    fn to_c64(self) -> Complex64 {
        Complex64::new(self.re as f64, self.im as f64)
    }
    const EPS: f64 = 1e-5;
}

impl FromPair for Complex64 {
    fn from_pair(re: f64, im: f64) -> Self {
        Complex64::new(re, im)
    }
    fn to_c64(self) -> Complex64 {
        self
    }
    const EPS: f64 = 1e-13;
}

fn filled<T: FromPair>(rows: usize, cols: usize, salt: usize) -> Mat<T> {
    Mat::from_fn(rows, cols, |i, j| {
        let v = |s: usize| ((i * 31 + j * 17 + salt * 7 + s) % 23) as f64 / 7.0 - 1.5;
        T::from_pair(v(0), v(5))
    })
}

/// `c0 (+)= alpha · op(a) · op(b)` by the triple loop, in complex128.
fn oracle<T: FromPair>(
    c0: MatRef<'_, T>,
    acc: bool,
    a: &dyn Fn(usize, usize) -> T,
    b: &dyn Fn(usize, usize) -> T,
    k: usize,
    alpha: T,
) -> Vec<Complex64> {
    let (m, n) = (c0.nrows(), c0.ncols());
    let mut out = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let dot: Complex64 = (0..k).map(|p| a(i, p).to_c64() * b(p, j).to_c64()).sum();
            let base = if acc { c0[(i, j)].to_c64() } else { Complex64::new(0.0, 0.0) };
            out.push(base + alpha.to_c64() * dot);
        }
    }
    out
}

fn assert_close<T: FromPair>(got: MatRef<'_, T>, want: &[Complex64], k: usize, what: &str) {
    let n = got.ncols();
    for (e, w) in want.iter().enumerate() {
        let g = got[(e / n, e % n)].to_c64();
        let tol = T::EPS * (k as f64 + 1.0) * (w.norm() + 10.0);
        assert!((g - w).norm() <= tol, "{what}: element {e}: {g} against {w}");
    }
}

/// Every layout case for one type and shape on `backend`; returns how
/// many calls the BLAS ran.
fn layouts<T: FromPair>(backend: Backend, m: usize, n: usize, k: usize) -> usize {
    let mut by_blas = 0;
    let alpha = T::from_pair(-0.75, 0.5);
    let a = filled::<T>(m, k, 1);
    let a_t = filled::<T>(k, m, 2); // used transposed or as an adjoint
    let b = filled::<T>(k, n, 3);
    let b_wide = filled::<T>(k, n + 5, 4); // a leading dimension past the width
    for acc in [false, true] {
        let start = filled::<T>(m, n, 5);
        let what = format!("{m}x{n}x{k}, accumulate {acc}, {backend:?}");
        let mut run = |name: &str,
                       op_a: &dyn Fn(usize, usize) -> T,
                       op_b: &dyn Fn(usize, usize) -> T,
                       go: &dyn Fn(faer::MatMut<'_, T>) -> Backend| {
            let mut c = start.clone();
            by_blas += usize::from(go(c.as_mut()) == Backend::Blas);
            assert_close(c.as_ref(), &oracle(start.as_ref(), acc, op_a, op_b, k, alpha), k, &format!("{what}, {name}"));
            // Column-major output: the transposed product.
            let mut ct = start.transpose().to_owned();
            let tr = go(ct.as_mut().transpose_mut());
            by_blas += usize::from(tr == Backend::Blas);
            assert_close(
                ct.transpose(),
                &oracle(start.as_ref(), acc, op_a, op_b, k, alpha),
                k,
                &format!("{what}, {name}, column-major out"),
            );
        };
        run("a b", &|i, p| a[(i, p)], &|p, j| b[(p, j)], &|c| gemm_on(backend, c, acc, a.as_ref(), b.as_ref(), alpha));
        run("aᵀ b", &|i, p| a_t[(p, i)], &|p, j| b[(p, j)], &|c| {
            gemm_on(backend, c, acc, a_t.transpose(), b.as_ref(), alpha)
        });
        let sub = b_wide.as_ref().submatrix(0, 2, k, n);
        run("a b[:, 2:]", &|i, p| a[(i, p)], &|p, j| b_wide[(p, j + 2)], &|c| {
            gemm_on(backend, c, acc, a.as_ref(), sub, alpha)
        });
        run("aᴴ b", &|i, p| a_t[(p, i)].conj(), &|p, j| b[(p, j)], &|c| {
            gemm_on(backend, c, acc, a_t.adjoint(), b.as_ref(), alpha)
        });
        run("a conj(b)", &|i, p| a[(i, p)], &|p, j| b[(p, j)].conj(), &|c| {
            gemm_on(backend, c, acc, a.as_ref(), b.conjugate(), alpha)
        });
    }
    by_blas
}

fn every_type(backend: Backend) -> usize {
    let mut by_blas = 0;
    for (m, n, k) in [(1, 1, 1), (1, 9, 4), (9, 1, 4), (37, 23, 51), (70, 64, 130), (5, 6, 0)] {
        by_blas += layouts::<f32>(backend, m, n, k);
        by_blas += layouts::<f64>(backend, m, n, k);
        by_blas += layouts::<Complex32>(backend, m, n, k);
        by_blas += layouts::<Complex64>(backend, m, n, k);
    }
    by_blas
}

#[test]
fn faer_kernels_match_the_triple_loop() {
    assert_eq!(every_type(Backend::Faer), 0, "the faer backend called the BLAS");
}

#[test]
fn blas_kernels_match_the_triple_loop() {
    let Some(name) = blas_library() else {
        return tool_missing("no system BLAS loads (Debian: libopenblas0-pthread)");
    };
    let by_blas = every_type(Backend::Blas);
    // Every case but the empty products and the untransposed conjugates (of
    // complex types) runs on the BLAS.
    assert!(by_blas >= 5 * 4 * 2 * 2 * 3, "{name} ran {by_blas} calls");
}

/// The backend each block's task saw, as 0 (faer) or 1 (BLAS), under `ctx`.
fn backends_seen(ctx: &chunked_array::Context) -> Vec<f64> {
    let x = chunked_array::Array::<f64>::zeros(&[8], 2).unwrap();
    let seen = x.map_blocks(|b, _| b.mapv(|_| f64::from(backend() == Backend::Blas)), None).unwrap();
    seen.compute_on(ctx).unwrap().into_raw_vec_and_offset().0
}

#[test]
fn a_contexts_backend_runs_its_tasks_and_no_others() {
    use chunked_array::{Array, Context};
    let before = backend();
    let faer = Context::threads(2).with_kernel_backend(Backend::Faer).unwrap();
    assert_eq!(backends_seen(&faer), vec![0.0; 8]);
    // A block product under the context's backend against ndarray's.
    let a = Array::from_fn(&[70, 50], [32, 24], |i| ((i[0] * 7 + i[1] * 3) % 11) as f64 - 5.0).unwrap();
    let want = a.compute().unwrap().into_dimensionality::<ndarray::Ix2>().unwrap();
    let want = want.dot(&want.t());
    let got = |ctx: &Context| a.matmul(&a.t()).unwrap().compute_on(ctx).unwrap();
    assert_eq!(got(&faer).into_dimensionality::<ndarray::Ix2>().unwrap(), want, "small integers multiply exactly");
    match blas_library() {
        Some(_) => {
            let blas = Context::threads(2).with_kernel_backend(Backend::Blas).unwrap();
            assert_eq!(backends_seen(&blas), vec![1.0; 8]);
            assert_eq!(got(&blas).into_dimensionality::<ndarray::Ix2>().unwrap(), want);
            // A context without a choice runs on the process's.
            let process = f64::from(backend() == Backend::Blas);
            assert_eq!(backends_seen(&Context::threads(2)), vec![process; 8]);
        }
        None => {
            let refused = Context::threads(2).with_kernel_backend(Backend::Blas).err().unwrap().to_string();
            assert!(refused.contains("BLAS"), "{refused}");
        }
    }
    assert_eq!(backend(), before, "the calling thread keeps its backend");
}
