//! The QR of two stacked upper triangles, `[R1; R2] = Q [R; 0]`, exploiting
//! their zeros (LAPACK's `tpqrt`/`tpmqrt` for a triangular second block): the
//! reflector of column j touches row j of the top triangle and rows `0..=j` of
//! the bottom one, so the factorization costs `2/3 n³` flops instead of the
//! `10/3 n³` of a dense QR of the `2n x n` stack, and applying Q costs
//! `2 n² k` instead of `6 n² k`. This is the TSQR tree's inner kernel.
//!
//! Blocked in panels of [`PANEL`] columns: inside a panel the reflectors are
//! made and applied column by column; the rest of the matrix (and, in
//! [`PairQr::q_times`], the pushed-down matrix) is updated with the panel's
//! compact WY form `I - V T Vᴴ` by matrix products, where `V = [I; V2]` (the
//! identity on the top rows `j0..j1`, `V2` on the bottom rows `0..j1`).
//!
//! Complex matrices take LAPACK's complex reflectors (`zlarfg`): `H = I - τ v
//! vᴴ` with a complex τ and a real β, the factorization applies `Hᴴ`, and
//! every transpose is the conjugate transpose. For the reals the conjugations
//! are no-ops and the arithmetic is the real algorithm's.

use chunked_array::Number;
use faer::linalg::matmul::matmul;
use faer::reborrow::{Reborrow, ReborrowMut};
use faer::traits::Conjugate;
use faer::traits::math_utils::{abs2, conj, from_real, real, sqrt};
use faer::{Accum, Mat, MatMut, MatRef, Par};

use crate::Scalar;

/// Columns per panel.
const PANEL: usize = 48;

/// `[R1; R2] = Q [R; 0]` for `n x n` upper triangular R1 and R2, Q kept as
/// reflectors.
pub(crate) struct PairQr<T: Scalar> {
    /// R, upper triangular (zeros below).
    pub r: Mat<T>,
    /// The reflectors' bottom parts: column j holds rows `0..=j` (zeros below).
    pub v2: Mat<T>,
    /// Per panel, its `T` factor (upper triangular, panel width square),
    /// stacked by columns: panel p's is `t[.., j0..j1]`, rows `0..j1-j0`.
    pub t: Mat<T>,
}

impl<T: Scalar> PairQr<T> {
    /// Factors the stack of `r1` over `r2` (both `n x n`, upper triangular;
    /// what lies below their diagonals is ignored).
    pub fn factor(r1: MatRef<'_, T>, r2: MatRef<'_, T>, par: Par) -> Self {
        let n = r1.ncols();
        let mut top = Mat::from_fn(n, n, |i, j| if i <= j { r1[(i, j)] } else { T::ZERO });
        let mut bot = Mat::from_fn(n, n, |i, j| if i <= j { r2[(i, j)] } else { T::ZERO });
        let mut t = Mat::<T>::zeros(PANEL.min(n.max(1)), n);
        let mut tau = vec![T::ZERO; n];
        let mut j0 = 0;
        while j0 < n {
            let j1 = (j0 + PANEL).min(n);
            // The panel, column by column (level 2, on its own columns only).
            for j in j0..j1 {
                tau[j] = reflector(&mut top, &mut bot, j);
                if tau[j] == T::ZERO {
                    continue;
                }
                for c in j + 1..j1 {
                    // w = top[j, c] + v2ᴴ bot[0..=j, c]; then subtract conj(τ) w v.
                    let mut w = top[(j, c)];
                    for i in 0..=j {
                        w += conj(&bot[(i, j)]) * bot[(i, c)];
                    }
                    let w = conj(&tau[j]) * w;
                    top[(j, c)] -= w;
                    for i in 0..=j {
                        let v = bot[(i, j)];
                        bot[(i, c)] -= w * v;
                    }
                }
            }
            panel_t(bot.as_ref().get(..j1, j0..j1), &tau[j0..j1], t.as_mut().get_mut(..j1 - j0, j0..j1));
            // The trailing columns: C ← (I - V Tᴴ Vᴴ) C.
            if j1 < n {
                let (done, mut rest) = bot.as_mut().split_at_col_mut(j1);
                let v2 = done.rb().get(..j1, j0..j1);
                let tp = t.as_ref().get(..j1 - j0, j0..j1);
                apply_panel(v2, tp.adjoint(), top.as_mut().get_mut(j0..j1, j1..), rest.rb_mut().get_mut(..j1, ..), par);
            }
            j0 = j1;
        }
        let mut r = top;
        for j in 0..n {
            for i in j + 1..n {
                r[(i, j)] = T::ZERO;
            }
        }
        // Below the diagonal of the bottom block: what the reflectors never
        // touch is zero; rows up to the diagonal hold the reflectors.
        PairQr { r, v2: bot, t }
    }

    /// Columns (and rows of R).
    pub fn n(&self) -> usize {
        self.r.ncols()
    }

    /// `dst ← Q · [w; 0]` (`2n x k`), for the `n x k` matrix `w`.
    pub fn q_times(&self, w: MatRef<'_, T>, mut dst: MatMut<'_, T>, par: Par) {
        let n = self.n();
        dst.fill(T::ZERO);
        dst.as_mut().get_mut(..n, ..).copy_from(w);
        let (mut top, mut bot) = dst.split_at_row_mut(n);
        // Q = Π_p (I - V_p T_p V_pᴴ): the last panel acts first.
        let starts: Vec<usize> = (0..n).step_by(PANEL).collect();
        for &j0 in starts.iter().rev() {
            let j1 = (j0 + PANEL).min(n);
            let v2 = self.v2.as_ref().get(..j1, j0..j1);
            let tp = self.t.as_ref().get(..j1 - j0, j0..j1);
            apply_panel(v2, tp, top.as_mut().get_mut(j0..j1, ..), bot.as_mut().get_mut(..j1, ..), par);
        }
    }
}

/// The reflector of column j: from `top[j, j]` and `bot[0..=j, j]`, which
/// its `Hᴴ` turns into `(β, 0)` with β real; `bot[0..=j, j]` then holds its
/// bottom part (its top part is 1 at row j). Returns τ (0: the identity,
/// nothing to eliminate).
fn reflector<T: Scalar>(top: &mut Mat<T>, bot: &mut Mat<T>, j: usize) -> T {
    let alpha = top[(j, j)];
    let mut norm2 = <T::RealPart as Number>::ZERO;
    for i in 0..=j {
        norm2 += abs2(&bot[(i, j)]);
    }
    if norm2 == <T::RealPart as Number>::ZERO {
        return T::ZERO;
    }
    let norm = sqrt(&(abs2(&alpha) + norm2));
    let beta = from_real::<T>(&if real(&alpha) >= <T::RealPart as Number>::ZERO { -norm } else { norm });
    let scale = T::ONE / (alpha - beta);
    for i in 0..=j {
        bot[(i, j)] *= scale;
    }
    top[(j, j)] = beta;
    (beta - alpha) / beta
}

/// The panel's `T` (LAPACK's `larft`, forward, columnwise): `H_0 ··· H_{b-1}
/// = I - V T Vᴴ`, where `Vᴴ V`'s off-diagonal is `V2ᴴ V2` (the top parts are
/// distinct unit vectors).
fn panel_t<T: Scalar>(v2: MatRef<'_, T>, tau: &[T], mut t: MatMut<'_, T>) {
    let b = tau.len();
    let mut g = Mat::<T>::zeros(b, b);
    matmul(g.as_mut(), Accum::Replace, v2.adjoint(), v2, T::ONE, Par::Seq);
    for i in 0..b {
        for p in 0..i {
            // T[p, i] = -τ_i Σ_q T[p, q] G[q, i], q in p..i.
            let mut s = T::ZERO;
            for q in p..i {
                s += t[(p, q)] * g[(q, i)];
            }
            t[(p, i)] = -tau[i] * s;
        }
        t[(i, i)] = tau[i];
        for p in i + 1..b {
            t[(p, i)] = T::ZERO;
        }
    }
}

/// `[C1; C2] ← (I - V tf Vᴴ) [C1; C2]` with `V = [I; v2]`: C1 the top rows
/// `j0..j1`, C2 the bottom rows `0..j1`; `tf` is T (to apply Q) or Tᴴ (Qᴴ).
fn apply_panel<T: Scalar>(
    v2: MatRef<'_, T>,
    tf: MatRef<'_, impl Conjugate<Canonical = T>>,
    mut c1: MatMut<'_, T>,
    mut c2: MatMut<'_, T>,
    par: Par,
) {
    // W = C1 + V2ᴴ C2; W ← tf W; C1 -= W; C2 -= V2 W.
    let mut w = c1.as_ref().to_owned();
    matmul(w.as_mut(), Accum::Add, v2.adjoint(), c2.as_ref(), T::ONE, par);
    let mut tw = Mat::<T>::zeros(w.nrows(), w.ncols());
    matmul(tw.as_mut(), Accum::Replace, tf, w.as_ref(), T::ONE, par);
    let neg = -T::ONE;
    for j in 0..c1.ncols() {
        for i in 0..c1.nrows() {
            c1[(i, j)] -= tw[(i, j)];
        }
    }
    matmul(c2.as_mut(), Accum::Add, v2, tw.as_ref(), neg, par);
}

#[cfg(test)]
mod tests {
    use super::PairQr;
    use faer::{Mat, Par};

    fn triangle(n: usize, seed: u64) -> Mat<f64> {
        let mut s = seed;
        Mat::from_fn(n, n, |i, j| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if i <= j { ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5 } else { 0.0 }
        })
    }

    fn max_abs(m: &Mat<f64>) -> f64 {
        (0..m.nrows())
            .flat_map(|i| (0..m.ncols()).map(move |j| (i, j)))
            .map(|(i, j)| m[(i, j)].abs())
            .fold(0.0, f64::max)
    }

    #[test]
    fn q_times_r_gives_back_the_stack_and_q_is_orthonormal() {
        // Sizes below, at and across panel boundaries.
        for n in [1usize, 5, 48, 49, 130] {
            let (r1, r2) = (triangle(n, 1 + n as u64), triangle(n, 99 + n as u64));
            let f = PairQr::factor(r1.as_ref(), r2.as_ref(), Par::Seq);
            for i in 0..n {
                for j in 0..i {
                    assert_eq!(f.r[(i, j)], 0.0);
                }
            }
            // Q [R; 0] = [R1; R2].
            let mut back = Mat::<f64>::zeros(2 * n, n);
            f.q_times(f.r.as_ref(), back.as_mut(), Par::Seq);
            let mut stack = Mat::<f64>::zeros(2 * n, n);
            stack.as_mut().get_mut(..n, ..).copy_from(r1.as_ref());
            stack.as_mut().get_mut(n.., ..).copy_from(r2.as_ref());
            let err = max_abs(&(&back - &stack));
            assert!(err < 1e-13 * n as f64, "n = {n}: {err}");
            // The thin Q (Q [I; 0]) has orthonormal columns.
            let mut q = Mat::<f64>::zeros(2 * n, n);
            f.q_times(Mat::<f64>::identity(n, n).as_ref(), q.as_mut(), Par::Seq);
            let gram = q.transpose() * &q;
            let err = max_abs(&(&gram - Mat::<f64>::identity(n, n)));
            assert!(err < 1e-13 * n as f64, "n = {n}: {err}");
        }
    }

    #[test]
    fn a_zero_bottom_triangle_leaves_the_top_as_it_is() {
        let r1 = triangle(20, 3);
        let f = PairQr::factor(r1.as_ref(), Mat::<f64>::zeros(20, 20).as_ref(), Par::Seq);
        assert_eq!(max_abs(&(&f.r - &r1)), 0.0);
    }
}
