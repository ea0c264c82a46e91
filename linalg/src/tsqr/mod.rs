//! Direct TSQR (Benson, Gleich and Demmel, 2013) for tall-skinny arrays chunked
//! along rows only.
//!
//! 1. Every leaf is factored, `A_i = Q_i R_i`, and only R_i kept. A leaf is a
//!    row block, or a part of one taller than `max(10000, 10n)` rows (a tall
//!    leaf's QR is bound by memory bandwidth; see [`tree::LEAF_ROWS`]).
//! 2. The R factors are reduced in a tree: groups of `arity` stacked triangles
//!    are factored again, level by level, so no single factorization is larger
//!    than `arity` triangles even when the blocks are square. Pairs of full
//!    triangles (the default arity) take the structured QR of [`crate::pair_qr`].
//! 3. Q is assembled in one of two ways, chosen at the root from the condition
//!    number κ of R (which is A's):
//!    - **direct**, when κ ≤ [`TsqrOptions::max_direct_condition`] (100): every
//!      block of Q is `A_i · R⁻¹` (of U, `A_i · V Σ⁻¹`), one matrix product per
//!      block. Its loss of orthogonality grows as κ·ε, so it is taken only
//!      where that stays at the Householder path's level.
//!    - **Householder**, otherwise: the root's block of Q (the identity, or the
//!      left singular vectors of R for an SVD) is pushed through every node,
//!      `E = Q_node · [W; 0]`, each child takes its rows of E as its own W, and
//!      a leaf's block of the result is `Q_i · [W_i; 0]`, from the leaf's
//!      factorization taken again (leaves keep only their R in between, so
//!      the tree holds the input's row blocks, not a copy of them as
//!      Householder vectors as well).
//!
//!    The direct path is a third of the flops of the Householder one (one
//!    product against a QR and an application of its reflectors): the seed's
//!    100000 x 1000 SVD (κ = 61) gets U with orthogonality 8.4e-15 against
//!    6.7e-15 by the reflectors.
//!
//! With `compute_svd`, `R = U_R Σ Vᵀ` is taken at the root and `U_R` replaces the
//! identity in step 3, so `U = Q U_R` costs no extra pass over the data.
//!
//! A device array takes the same tree on its device (see [`device`]): cuSOLVER
//! factors with explicit Q, cuBLAS products on the way down. The host's layer
//! ops are in [`layers`] (up the tree), [`plan`] (the root's choice of path
//! and its copies for the ranks) and [`down`] (the pass down to Q or U); the
//! tree both share is in [`tree`].

mod device;
mod down;
mod layers;
mod plan;
mod tree;

use std::sync::Arc;

use chunked_array::custom::Layer;
use chunked_array::{Array, Chunks, DType, Element};

use crate::{Error, RealScalar, Result, Scalar};
use down::{Down, LeafOut, WofParent, broadcast_levels};
use layers::{LeafR, RofFactor, RootR, StackQr, SvdOfR, SvdPart};
use plan::{LeafPlan, Plan, PlanOf};
use tree::{LEAF_ROWS, Tree};

/// Options of [`tsqr`].
///
/// ```
/// use chunked_array::random::RandomState;
/// use chunked_linalg::{tsqr, TsqrOptions};
/// assert_eq!(TsqrOptions::default().arity, 2);
/// let a = RandomState::new(4).uniform::<f64>(&[80, 5], [10, 5]).unwrap();
/// // Groups of 4 triangles, always through the Householder factors.
/// let f = tsqr(&a, &TsqrOptions { arity: 4, max_direct_condition: 0.0, ..TsqrOptions::default() }).unwrap();
/// let err = (&f.q.matmul(&f.r).unwrap() - &a).abs().max(None).unwrap().compute_scalar().unwrap();
/// assert!(err < 1e-12);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TsqrOptions {
    /// How many stacked R factors one tree node factors (at least 2). The
    /// default, 2, factors pairs of full triangles by the structured QR that
    /// skips their zeros (about a fifth of a dense QR's flops, a third to
    /// push Q down), faster than groups of 4 on the seeds' shape (BENCHMARKS.md,
    /// "Figures behind constants"). Larger groups make
    /// shallower trees (fewer steps between MPI ranks) at a dense QR each.
    pub arity: usize,
    /// Also give the thin SVD, `A = U diag(S) Vᵀ`, taken from the root's R.
    pub compute_svd: bool,
    /// The largest condition number of A (σ_max / σ_min of R) for which Q and
    /// U are formed directly, `Q_i = A_i · R⁻¹` and `U_i = A_i · V Σ⁻¹`, instead
    /// of through the Householder factors (see the module docs). The direct
    /// forms lose orthogonality in proportion to κ (figures in BENCHMARKS.md,
    /// "Figures behind constants"). The default, 100, keeps the loss within a
    /// few times the Householder path's, and uniform random matrices such as
    /// the seeds' 100000 x 1000 (κ = 61) are below it. 0 always takes the
    /// Householder path.
    pub max_direct_condition: f64,
    /// The MPI ranks the tree is shaped for (default: the process count of
    /// [`chunked_array::runtime::process_count`], the world's size under
    /// MPI). Each rank's row blocks (where the placement puts them) are
    /// reduced to one R first, then those R factors in a tree over the ranks,
    /// so that one R per rank travels up and one n x n matrix per rank comes
    /// down: the least a TSQR over ranks can move. The values do not depend
    /// on it.
    pub processes: usize,
}

/// [`TsqrOptions::max_direct_condition`]'s default.
pub const DEFAULT_MAX_DIRECT_CONDITION: f64 = 100.0;

impl Default for TsqrOptions {
    fn default() -> Self {
        TsqrOptions {
            arity: 2,
            compute_svd: false,
            max_direct_condition: DEFAULT_MAX_DIRECT_CONDITION,
            processes: chunked_array::runtime::process_count(),
        }
    }
}

/// The thin SVD of a chunked matrix as lazy arrays: `a = u · diag(s) · vt`
/// (for complex `a`, vt is `Vᴴ` and s is real).
///
/// ```
/// use chunked_array::Array;
/// let a = Array::<f64>::from_vec(&[3, 2], vec![3.0, 0.0, 0.0, -2.0, 0.0, 0.0], 3).unwrap();
/// let f = chunked_linalg::svd(&a).unwrap();
/// assert_eq!((f.u.shape(), f.vt.shape()), (vec![3, 2], vec![2, 2]));
/// let s = f.s.compute().unwrap();
/// assert!((s[0] - 3.0).abs() < 1e-12 && (s[1] - 2.0).abs() < 1e-12);
/// ```
#[derive(Clone)]
pub struct Svd<T: Scalar> {
    /// Left singular vectors, m × k, chunked along rows like the input.
    pub u: Array<T>,
    /// Singular values, non-increasing, length k.
    pub s: Array<T::RealPart>,
    /// Right singular vectors as rows (conjugated for complex `a`), k × n.
    pub vt: Array<T>,
}

/// The result of [`tsqr`]: lazy arrays, computed only when asked for.
///
/// ```
/// use chunked_array::random::RandomState;
/// use chunked_linalg::{tsqr, TsqrOptions};
/// let a = RandomState::new(1).uniform::<f64>(&[60, 4], [20, 4]).unwrap();
/// let f = tsqr(&a, &TsqrOptions { compute_svd: true, ..TsqrOptions::default() }).unwrap();
/// assert_eq!((f.q.shape(), f.r.shape()), (vec![60, 4], vec![4, 4]));
/// assert_eq!(f.r.compute().unwrap()[[3, 0]], 0.0); // upper triangular
/// assert_eq!(f.svd.unwrap().s.shape(), vec![4]);
/// ```
#[derive(Clone)]
pub struct Tsqr<T: Scalar> {
    /// Orthonormal columns, m × k (k = min(m, n)), chunked along rows like the input.
    pub q: Array<T>,
    /// Upper triangular (trapezoidal when m < n), k × n, one block.
    pub r: Array<T>,
    /// With [`TsqrOptions::compute_svd`]: the thin SVD, sharing the factorization.
    pub svd: Option<Svd<T>>,
}

/// Direct TSQR of a tall-skinny matrix chunked along rows only (one column of
/// blocks): `a = q · r` with q (m × k) orthonormal and chunked like `a`'s rows,
/// r (k × n) upper triangular, k = min(m, n). See the module docs for the
/// algorithm; nothing runs until a result is computed.
///
/// ```
/// use chunked_array::random::RandomState;
/// use chunked_linalg::{tsqr, TsqrOptions};
/// let a = RandomState::new(1).standard_normal::<f64>(&[200, 10], [50, 10]).unwrap();
/// let f = tsqr(&a, &TsqrOptions::default()).unwrap();
/// let back = f.q.matmul(&f.r).unwrap();
/// let err = (&back - &a).abs().max(None).unwrap().compute_scalar().unwrap();
/// assert!(err < 1e-12);
/// ```
///
/// # Errors
/// [`Error::BadInput`] when `a` is not 2-d, has more than one block along its
/// columns (use [`crate::qr`], which rechunks, or [`crate::svd_compressed`]), or
/// `arity` is below 2.
pub fn tsqr<T: Scalar>(a: &Array<T>, options: &TsqrOptions) -> Result<Tsqr<T>> {
    a.check()?;
    let owners = if a.ndim() == 2 { row_owners(a, options.processes) } else { Vec::new() };
    tsqr_with_owners(a, options, &owners)
}

/// The rank that holds each row block of `a` when `processes` ranks run it:
/// the owner of the row's first block in the even spread of its blocks, which
/// is where the MPI placement puts a source, and an elementwise chain of one.
pub(crate) fn row_owners<T: Scalar>(a: &Array<T>, processes: usize) -> Vec<usize> {
    let grid = a.chunks().grid();
    let (rows, cols) = (grid[0], grid[1]);
    if rows * cols == 0 {
        return vec![0; rows];
    }
    (0..rows).map(|i| chunked_array::runtime::owner_of(i * cols, rows * cols, processes.max(1))).collect()
}

/// [`tsqr`] with the rank that holds each row block given (`owners`, one
/// per row block): the tree reduces each rank's leaves first.
pub(crate) fn tsqr_with_owners<T: Scalar>(a: &Array<T>, options: &TsqrOptions, owners: &[usize]) -> Result<Tsqr<T>> {
    a.check()?;
    let shape = a.shape();
    if shape.len() != 2 {
        return Err(Error::BadInput { routine: "tsqr".into(), needs: "a 2-d array".into(), shape });
    }
    if a.chunks().grid()[1] != 1 {
        return Err(Error::BadInput {
            routine: "tsqr".into(),
            needs: format!(
                "one block along the columns (got column chunks {:?}; qr/svd rechunk, svd_compressed takes any chunking)",
                a.chunks().lengths()[1]
            ),
            shape,
        });
    }
    if options.arity < 2 {
        return Err(Error::BadInput {
            routine: "tsqr".into(),
            needs: format!("arity >= 2 (got {})", options.arity),
            shape,
        });
    }
    let n = shape[1];
    let row_lengths = a.chunks().lengths()[0].clone();
    if a.device().is_some() {
        return T::device_tsqr(a, options);
    }
    let tree = Tree::grouped(&row_lengths, owners, n, options.arity, LEAF_ROWS.max(10 * n));
    host_tsqr(a, Arc::new(tree), options)
}

/// The device TSQR of `a` (checked by [`tsqr`], on a device).
pub(crate) fn device_tsqr<T: RealScalar>(a: &Array<T>, arity: usize, compute_svd: bool) -> Result<Tsqr<T>> {
    let tree = Tree::new(&a.chunks().lengths()[0], a.shape()[1], arity);
    device::tsqr(a, Arc::new(tree), compute_svd)
}

/// The layers up the tree: `factors[0]` the leaves' R, `factors[l]` the
/// factors of tree level `l` (each stacking the R parts of the level below).
fn tree_factors<T: Scalar>(a: &Array<T>, tree: &Arc<Tree>) -> Vec<Layer> {
    let phantom = std::marker::PhantomData;
    let leaf_op = LeafR::<T> { tree: tree.clone(), _t: phantom };
    let mut factors = vec![Layer::new(
        "tsqr-leaf",
        DType::Intermediate,
        Chunks::from_lengths(vec![vec![1; tree.levels[0].len()]]),
        &[a.layer()],
        leaf_op,
    )];
    for level in 1..tree.levels.len() {
        let nodes = tree.levels[level].len();
        let below = if level == 1 {
            factors[0].clone()
        } else {
            let r_op = RofFactor::<T> { tree: tree.clone(), level: level - 1, _t: phantom };
            Layer::new(
                "tsqr-r-part",
                DType::Intermediate,
                Chunks::from_lengths(vec![vec![1; tree.levels[level - 1].len()]]),
                &[factors[level - 1].clone()],
                r_op,
            )
        };
        let op = StackQr::<T> { tree: tree.clone(), level, _t: phantom };
        factors.push(Layer::new(
            "tsqr-tree",
            DType::Intermediate,
            Chunks::from_lengths(vec![vec![1; nodes]]),
            &[below],
            op,
        ));
    }
    factors
}

/// The host TSQR of `a` (checked by [`tsqr`]) over `tree`: the layers of
/// [`layers`] wired up the tree, then [`plan`]'s and [`down`]'s down it for Q
/// (and again for U with `compute_svd`).
fn host_tsqr<T: Scalar>(a: &Array<T>, tree: Arc<Tree>, options: &TsqrOptions) -> Result<Tsqr<T>> {
    let n = tree.n;
    let row_lengths = a.chunks().lengths()[0].clone();
    let k = tree.root().k;
    let phantom = std::marker::PhantomData;

    let factors = tree_factors(a, &tree);
    let root = factors[tree.top()].clone();
    let r = Layer::new(
        "tsqr-r",
        T::DTYPE,
        Chunks::from_lengths(vec![vec![k], vec![n]]),
        std::slice::from_ref(&root),
        RootR::<T>(phantom),
    )
    .into_array()?;

    let q_chunks = Chunks::from_lengths(vec![row_lengths.clone(), vec![k]]);
    let one = || Chunks::from_lengths(vec![vec![1]]);
    let assemble = |plan: Layer, name: &str| -> Result<Array<T>> {
        // Top-down through the internal levels (only on the Householder path;
        // the direct path pushes empty blocks), then the leaves.
        let mut above = plan.clone();
        for level in (1..tree.levels.len()).rev() {
            let nodes = tree.levels[level].len();
            let op = Down::<T> { tree: tree.clone(), level, _t: phantom };
            let e = Layer::new(
                "tsqr-down",
                DType::Intermediate,
                Chunks::from_lengths(vec![vec![1; nodes]]),
                &[factors[level].clone(), above],
                op,
            );
            let below = tree.levels[level - 1].len();
            let w = WofParent::<T> { tree: tree.clone(), level: level - 1, _t: phantom };
            above = Layer::new("tsqr-w-part", DType::Intermediate, Chunks::from_lengths(vec![vec![1; below]]), &[e], w);
        }
        let mut inputs = vec![a.layer()];
        if tree.top() > 0 {
            // The plan's copies for the ranks holding rows, a level at a time.
            let mut copies = plan;
            for level in 0..broadcast_levels(&tree) {
                let first = (1 << level) - 1;
                let count = tree.ranks.len().min(2 * first + 1) - first;
                let op = LeafPlan::<T> { tree: tree.clone(), level, _t: phantom };
                let chunks = Chunks::from_lengths(vec![vec![1; count]]);
                copies = Layer::new("tsqr-leaf-plan", DType::Intermediate, chunks, &[copies], op);
                inputs.push(copies.clone());
            }
            inputs.push(above);
        } else {
            inputs.push(plan);
        }
        Layer::new(name, T::DTYPE, q_chunks.clone(), &inputs, LeafOut::<T> { tree: tree.clone(), _t: phantom })
            .into_array()
    };
    let max_direct_condition = options.max_direct_condition;
    let q_plan = Layer::new(
        "tsqr-q-plan",
        DType::Intermediate,
        one(),
        std::slice::from_ref(&root),
        Plan::<T> { of: PlanOf::Q, n, max_direct_condition, _t: phantom },
    );
    let q = assemble(q_plan, "tsqr-q")?;
    let svd = if options.compute_svd {
        let svd_r = Layer::new("tsqr-svd-r", DType::Intermediate, one(), &[root], SvdOfR::<T>(phantom));
        let u_plan = Layer::new(
            "svd-u-plan",
            DType::Intermediate,
            one(),
            std::slice::from_ref(&svd_r),
            Plan::<T> { of: PlanOf::U, n, max_direct_condition, _t: phantom },
        );
        let u = assemble(u_plan, "svd-u")?;
        let s = Layer::new(
            "svd-s",
            <T::RealPart as Element>::DTYPE,
            Chunks::from_lengths(vec![vec![k]]),
            std::slice::from_ref(&svd_r),
            SvdPart::<T> { vectors: false, _t: phantom },
        )
        .into_array()?;
        let vt = Layer::new(
            "svd-vt",
            T::DTYPE,
            Chunks::from_lengths(vec![vec![k], vec![n]]),
            &[svd_r],
            SvdPart::<T> { vectors: true, _t: phantom },
        )
        .into_array()?;
        Some(Svd { u, s, vt })
    } else {
        None
    };
    Ok(Tsqr { q, r, svd })
}
