//! Direct TSQR (Benson, Gleich and Demmel, 2013) for tall-skinny arrays chunked
//! along rows only.
//!
//! 1. Every leaf is factored, `A_i = Q_i R_i`, and only R_i kept. A leaf is a
//!    row block, or a part of one taller than `max(10000, 10n)` rows (a tall
//!    leaf's QR is bound by memory bandwidth; see [`LEAF_ROWS`]).
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
//! factors with explicit Q, cuBLAS products on the way down.

mod device;

use std::ops::Range;
use std::sync::Arc;

use chunked_array::custom::{block_array, block_value, Deps, Layer, LayerOp};
use chunked_array::{Array, Block, Chunks, DType};
use faer::{Mat, MatRef, Par};

use crate::kernels::{row_major_block, singular_values, view, HouseholderQr, ThinSvd};
use crate::pair_qr::PairQr;
use crate::{Error, Result, Scalar};

/// Options of [`tsqr`].
#[derive(Debug, Clone, PartialEq)]
pub struct TsqrOptions {
    /// How many stacked R factors one tree node factors (at least 2). The
    /// default, 2, factors pairs of full triangles by the structured QR that
    /// skips their zeros (about a fifth of a dense QR's flops, a third to
    /// push Q down): the seed-shaped 30000 x 1000 in (1000, 1000) blocks takes
    /// 3.8-4.0 s against 4.5-4.6 s with groups of 4. Larger groups make
    /// shallower trees (fewer steps between MPI ranks) at a dense QR each.
    pub arity: usize,
    /// Also give the thin SVD, `A = U diag(S) Vᵀ`, taken from the root's R.
    pub compute_svd: bool,
    /// The largest condition number of A (σ_max / σ_min of R) for which Q and
    /// U are formed directly, `Q_i = A_i · R⁻¹` and `U_i = A_i · V Σ⁻¹`, instead
    /// of through the Householder factors (see the module docs). The direct
    /// forms lose orthogonality in proportion to κ, measured on 320 x 40
    /// matrices with log-spaced singular values: 1.9e-14 for Q and 4.2e-14 for
    /// U at κ = 50, 1.4e-13 and 2.4e-13 at κ = 500, where the Householder path
    /// gives 3e-15 and 1.8e-14. The default, 100, keeps the loss within a few
    /// times the Householder path's; uniform random matrices such as the
    /// seed's 100000 x 1000 (κ = 61: U's orthogonality 8.4e-15 against
    /// 6.7e-15) are below it. 0 always takes the Householder path.
    pub max_direct_condition: f64,
}

/// [`TsqrOptions::max_direct_condition`]'s default.
pub const DEFAULT_MAX_DIRECT_CONDITION: f64 = 100.0;

impl Default for TsqrOptions {
    fn default() -> Self {
        TsqrOptions { arity: 2, compute_svd: false, max_direct_condition: DEFAULT_MAX_DIRECT_CONDITION }
    }
}

/// The thin SVD of a chunked matrix as lazy arrays: `a = u · diag(s) · vt`.
#[derive(Clone)]
pub struct Svd<T> {
    /// Left singular vectors, m × k, chunked along rows like the input.
    pub u: Array<T>,
    /// Singular values, non-increasing, length k.
    pub s: Array<T>,
    /// Right singular vectors as rows, k × n.
    pub vt: Array<T>,
}

/// The result of [`tsqr`]: lazy arrays, computed only when asked for.
#[derive(Clone)]
pub struct Tsqr<T> {
    /// Orthonormal columns, m × k (k = min(m, n)), chunked along rows like the input.
    pub q: Array<T>,
    /// Upper triangular (trapezoidal when m < n), k × n, one block.
    pub r: Array<T>,
    /// With [`TsqrOptions::compute_svd`]: the thin SVD, sharing the factorization.
    pub svd: Option<Svd<T>>,
}

/// One node of the reduction tree.
#[derive(Debug, Clone)]
struct TreeNode {
    /// Rows of the matrix this node factors (a row block, or stacked triangles).
    rows: usize,
    /// min(rows, n): rows of its R.
    k: usize,
    /// Its children in the level below (empty for leaves).
    children: Range<usize>,
    /// Its parent in the level above, and where its R starts in the parent's stack.
    parent: usize,
    offset_in_parent: usize,
}

/// Where a leaf's rows are: a row block of the input, from row `start` of it.
#[derive(Debug, Clone, Copy)]
struct LeafRows {
    block: usize,
    start: usize,
}

#[derive(Debug)]
struct Tree {
    n: usize,
    /// levels[0]: leaves (row blocks, or parts of them); the last level has
    /// one node, the root.
    levels: Vec<Vec<TreeNode>>,
    /// Per leaf, its rows of the input.
    leaf_rows: Vec<LeafRows>,
    /// Per row block of the input, its leaves.
    leaves_of_block: Vec<Range<usize>>,
}

/// Leaves of at most this many rows, or 10n where that is more. A tall leaf's
/// QR streams its panel from memory for every few columns: 1e6 x 100 in
/// (100000, 100) blocks took 0.49 s per 100000-row leaf QR, against 10 x
/// 0.015 s for the same rows as 10000-row leaves. Leaves of 10n rows and up
/// keep the tree cheap against them.
const LEAF_ROWS: usize = 10_000;

impl Tree {
    /// A leaf per row block.
    fn new(row_lengths: &[usize], n: usize, arity: usize) -> Tree {
        Tree::with_leaf_cap(row_lengths, n, arity, usize::MAX)
    }

    /// Row blocks taller than `cap` split into near-equal leaves.
    fn with_leaf_cap(row_lengths: &[usize], n: usize, arity: usize, cap: usize) -> Tree {
        let mut leaf_rows = Vec::new();
        let mut leaves_of_block = Vec::new();
        let mut leaves = Vec::new();
        for (block, &len) in row_lengths.iter().enumerate() {
            let pieces = len.div_ceil(cap.max(1)).max(1);
            let first = leaves.len();
            let mut start = 0;
            for p in 0..pieces {
                let rows = len / pieces + usize::from(p < len % pieces);
                leaf_rows.push(LeafRows { block, start });
                leaves.push(TreeNode { rows, k: rows.min(n), children: 0..0, parent: 0, offset_in_parent: 0 });
                start += rows;
            }
            leaves_of_block.push(first..leaves.len());
        }
        let mut levels = vec![leaves];
        while levels.last().expect("one level").len() > 1 {
            let below = levels.last_mut().expect("one level");
            let mut above = Vec::new();
            for (g, start) in (0..below.len()).step_by(arity).enumerate() {
                let children = start..(start + arity).min(below.len());
                let mut rows = 0;
                for c in children.clone() {
                    below[c].parent = g;
                    below[c].offset_in_parent = rows;
                    rows += below[c].k;
                }
                above.push(TreeNode { rows, k: rows.min(n), children, parent: 0, offset_in_parent: 0 });
            }
            levels.push(above);
        }
        Tree { n, levels, leaf_rows, leaves_of_block }
    }

    fn top(&self) -> usize {
        self.levels.len() - 1
    }

    fn root(&self) -> &TreeNode {
        &self.levels[self.top()][0]
    }
}

/// Parallelism for a task: the root's work runs alone, so it may use every core.
fn par_for(alone: bool) -> Par {
    if alone { Par::rayon(0) } else { Par::Seq }
}

/// A tree node's factorization: a dense Householder QR (leaves, groups of
/// stacked R factors), or the structured QR of two full triangles.
enum Factor<T: Scalar> {
    Dense(HouseholderQr<T>),
    Pair(PairQr<T>),
}

crate::kernels::intermediate_block!(impl<T: Scalar> for Factor<T>, |f| f.bytes(), spill);

impl<T: Scalar> Factor<T> {
    fn bytes(&self) -> usize {
        self.spill_mats().iter().map(|m| m.nrows() * m.ncols() * std::mem::size_of::<T>()).sum()
    }

    /// Its matrices: a dense factor's two, a pair's three (R, V2, T).
    fn spill_mats(&self) -> Vec<MatRef<'_, T>> {
        match self {
            Factor::Dense(f) => f.spill_mats(),
            Factor::Pair(p) => vec![p.r.as_ref(), p.v2.as_ref(), p.t.as_ref()],
        }
    }

    fn from_spill_mats(mats: Vec<Mat<T>>) -> Option<Self> {
        match mats.len() {
            2 => HouseholderQr::from_spill_mats(mats).map(Factor::Dense),
            3 => {
                let [r, v2, t]: [Mat<T>; 3] = mats.try_into().ok()?;
                Some(Factor::Pair(PairQr { r, v2, t }))
            }
            _ => None,
        }
    }

    /// Rows of the factored matrix.
    fn nrows(&self) -> usize {
        match self {
            Factor::Dense(f) => f.nrows(),
            Factor::Pair(p) => 2 * p.n(),
        }
    }

    fn r(&self) -> Mat<T> {
        match self {
            Factor::Dense(f) => f.r(),
            Factor::Pair(p) => p.r.clone(),
        }
    }

    /// `dst ← Q · [w; 0]`.
    fn q_times(&self, w: MatRef<'_, T>, dst: faer::MatMut<'_, T>, par: Par) {
        match self {
            Factor::Dense(f) => f.q_times(w, dst, par),
            Factor::Pair(p) => p.q_times(w, dst, par),
        }
    }
}

/// Level 0: the R of every leaf's QR. The Householder vectors are dropped:
/// a leaf's block of Q is made from its rows of the input (see [`LeafOut`]),
/// which the tree holds anyway.
struct LeafR<T> {
    tree: Arc<Tree>,
    _t: std::marker::PhantomData<fn() -> T>,
}

/// Bytes of a node's factor: its rows x n, held as Householder vectors.
fn factor_bytes<T>(tree: &Tree, level: usize, node: usize) -> usize {
    tree.levels[level][node].rows * tree.n * std::mem::size_of::<T>()
}

/// The QR of a leaf's rows of its row block `a`, on one core unless the leaf
/// is the root.
fn leaf_factor<T: Scalar>(tree: &Tree, leaf: usize, a: MatRef<'_, T>) -> HouseholderQr<T> {
    let LeafRows { start, .. } = tree.leaf_rows[leaf];
    let rows = tree.levels[0][leaf].rows;
    HouseholderQr::factor(a.get(start..start + rows, ..).to_owned(), par_for(tree.top() == 0))
}

impl<T: Scalar> LayerOp for LeafR<T> {
    fn wire(&self) -> Option<chunked_array::Wire> {
        Some(Pushed::<T>::wire())
    }
    fn output_bytes(&self, idx: &[usize]) -> Option<usize> {
        Some(self.tree.levels[0][idx[0]].k * self.tree.n * std::mem::size_of::<T>())
    }
    fn scratch_bytes(&self, idx: &[usize]) -> usize {
        factor_bytes::<T>(&self.tree, 0, idx[0])
    }
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[self.tree.leaf_rows[idx[0]].block, 0]);
    }
    fn run(&self, idx: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let a = view(block_array::<T>(inputs[0])?).expect("2-d block");
        Ok(Arc::new(Pushed(leaf_factor(&self.tree, idx[0], a).r())))
    }
}

/// Levels above 0: the QR of a group of stacked R factors.
struct StackQr<T> {
    tree: Arc<Tree>,
    level: usize,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for StackQr<T> {
    fn wire(&self) -> Option<chunked_array::Wire> {
        Some(Factor::<T>::wire())
    }
    fn output_bytes(&self, idx: &[usize]) -> Option<usize> {
        Some(factor_bytes::<T>(&self.tree, self.level, idx[0]))
    }
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        for c in self.tree.levels[self.level][idx[0]].children.clone() {
            deps.push(0, &[c]);
        }
    }
    fn run(&self, idx: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let node = &self.tree.levels[self.level][idx[0]];
        let par = par_for(self.level == self.tree.top());
        let n = self.tree.n;
        // Two full triangles: the structured QR of the pair.
        if let [a, b] = inputs {
            let (a, b) = (&block_value::<Pushed<T>>(a)?.0, &block_value::<Pushed<T>>(b)?.0);
            if a.nrows() == n && b.nrows() == n {
                return Ok(Arc::new(Factor::Pair(PairQr::factor(a.as_ref(), b.as_ref(), par))));
            }
        }
        let mut stacked = Mat::<T>::zeros(node.rows, self.tree.n);
        let mut row = 0;
        for input in inputs {
            let r = &block_value::<Pushed<T>>(input)?.0;
            let k = r.nrows();
            stacked.as_mut().get_mut(row..row + k, ..).copy_from(r.as_ref());
            row += k;
        }
        Ok(Arc::new(Factor::Dense(HouseholderQr::factor(stacked, par))))
    }
}

/// The R of each factor of a level, on its own: the level above reads these
/// (k x n each), not the factors (rows x n), which can then wait on disk until
/// the top-down pass needs them.
struct RofFactor<T> {
    tree: Arc<Tree>,
    level: usize,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for RofFactor<T> {
    fn wire(&self) -> Option<chunked_array::Wire> {
        Some(Pushed::<T>::wire())
    }
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[idx[0]]);
    }
    fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        Ok(Arc::new(Pushed(block_value::<Factor<T>>(inputs[0])?.r())))
    }
    fn output_bytes(&self, idx: &[usize]) -> Option<usize> {
        Some(self.tree.levels[self.level][idx[0]].k * self.tree.n * std::mem::size_of::<T>())
    }
}

/// The root's R: its tree node's factor, or the leaf's R when one leaf is the
/// whole tree.
fn root_r<T: Scalar>(block: &Block) -> chunked_array::Result<Mat<T>> {
    match block_value::<Factor<T>>(block) {
        Ok(f) => Ok(f.r()),
        Err(_) => Ok(block_value::<Pushed<T>>(block)?.0.clone()),
    }
}

/// R of the root, as a block of elements.
struct RootR<T>(std::marker::PhantomData<fn() -> T>);

impl<T: Scalar> LayerOp for RootR<T> {
    fn deps(&self, _: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[0]);
    }
    fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let r = root_r::<T>(inputs[0])?;
        Ok(row_major_block::<T>(r.nrows(), r.ncols(), |mut dst| dst.copy_from(r.as_ref())))
    }
}

/// The SVD of the root's R.
struct SvdOfR<T>(std::marker::PhantomData<fn() -> T>);

impl<T: Scalar> LayerOp for SvdOfR<T> {
    fn wire(&self) -> Option<chunked_array::Wire> {
        Some(ThinSvd::<T>::wire())
    }
    fn deps(&self, _: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[0]);
    }
    fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let r = root_r::<T>(inputs[0])?;
        let svd = ThinSvd::new(r.as_ref(), Par::rayon(0)).map_err(|e| crate::numerical("svd", "R of the TSQR", e))?;
        Ok(Arc::new(svd))
    }
}

/// Singular values or right vectors out of an [`SvdOfR`] block.
struct SvdPart<T> {
    vectors: bool,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for SvdPart<T> {
    fn deps(&self, _: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[0]);
    }
    fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let svd = block_value::<ThinSvd<T>>(inputs[0])?;
        if self.vectors {
            let v = &svd.v;
            Ok(row_major_block::<T>(v.ncols(), v.nrows(), |mut dst| dst.copy_from(v.transpose())))
        } else {
            let s = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&[svd.s.len()]), svd.s.clone()).expect("k values");
            Ok(Arc::new(s))
        }
    }
}

/// Whether singular values `s` (non-increasing) of an n-column R allow the
/// direct path: R square and invertible, and σ_max / σ_min at most `max`
/// (0: never).
fn direct_allowed<T: Scalar>(s: &[T], n: usize, max: f64) -> bool {
    match (s.first(), s.last()) {
        (Some(&hi), Some(&lo)) if s.len() == n && max > 0.0 => lo.to_f64() > 0.0 && hi.to_f64() <= max * lo.to_f64(),
        _ => false,
    }
}

/// How the leaves make their blocks of Q (or U), chosen at the root.
struct RootPlan<T: Scalar> {
    /// The direct path: a leaf's block is `A_i · m` (n x k), with `upper`
    /// when m is upper triangular (R⁻¹; see [`RootPlan::direct`]).
    direct: Option<(Mat<T>, bool)>,
    /// The Householder path: what the root pushes down (k x k), Q's own basis
    /// (the identity) or R's left singular vectors. Empty on the direct path.
    w: Mat<T>,
}

crate::kernels::intermediate_block!(impl<T: Scalar> for RootPlan<T>, |p| p.direct.as_ref().map_or(0, |(m, _)| crate::kernels::mat_bytes(m)) + crate::kernels::mat_bytes(&p.w), spill);

impl<T: Scalar> RootPlan<T> {
    /// W, then m on the direct path (`upper` is read off m again: exact zeros).
    fn spill_mats(&self) -> Vec<MatRef<'_, T>> {
        let mut mats = vec![self.w.as_ref()];
        mats.extend(self.direct.as_ref().map(|(m, _)| m.as_ref()));
        mats
    }

    fn from_spill_mats(mats: Vec<Mat<T>>) -> Option<Self> {
        let mut mats = mats.into_iter();
        let w = mats.next()?;
        Some(match mats.next() {
            Some(m) => RootPlan::direct(m),
            None => RootPlan::householder(w),
        })
    }

    /// The direct path with the leaves' factor `m` (`upper` read off its zeros).
    fn direct(m: Mat<T>) -> Self {
        let upper = is_upper_triangular(m.as_ref());
        RootPlan { direct: Some((m, upper)), w: Mat::zeros(0, 0) }
    }

    /// The Householder path, pushing `w` down.
    fn householder(w: Mat<T>) -> Self {
        RootPlan { direct: None, w }
    }

    fn identity_w(k: usize) -> Mat<T> {
        Mat::from_fn(k, k, |i, j| if i == j { T::ONE } else { T::ZERO })
    }
}

/// Whether every entry below the diagonal is zero.
fn is_upper_triangular<T: Scalar>(m: MatRef<'_, T>) -> bool {
    (0..m.ncols()).all(|j| (j + 1..m.nrows()).all(|i| m[(i, j)] == T::ZERO))
}

/// What a [`Plan`] is for.
#[derive(Clone, Copy)]
enum PlanOf {
    /// Q from the root's factor: `A_i · R⁻¹` when R is well conditioned,
    /// else the identity pushed down.
    Q,
    /// U from R's SVD ([`SvdOfR`]): `A_i · V Σ⁻¹` when well conditioned, else
    /// `U_R` pushed down.
    U,
}

/// The root's choice between the direct and the Householder path.
struct Plan<T> {
    of: PlanOf,
    n: usize,
    max_direct_condition: f64,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for Plan<T> {
    fn wire(&self) -> Option<chunked_array::Wire> {
        Some(RootPlan::<T>::wire())
    }
    fn output_bytes(&self, _: &[usize]) -> Option<usize> {
        Some(self.n * self.n * std::mem::size_of::<T>())
    }
    fn deps(&self, _: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[0]);
    }
    fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let max = self.max_direct_condition;
        Ok(Arc::new(match self.of {
            PlanOf::Q => {
                let r = root_r::<T>(inputs[0])?;
                let k = r.nrows();
                // The singular values only when they can matter.
                if max > 0.0 && k == self.n && singular_values(r.as_ref(), Par::rayon(0)).is_ok_and(|s| direct_allowed(&s, self.n, max)) {
                    let mut inverse = Mat::zeros(k, k);
                    faer::linalg::triangular_inverse::invert_upper_triangular(inverse.as_mut(), r.as_ref(), Par::rayon(0));
                    RootPlan::direct(inverse)
                } else {
                    RootPlan::householder(RootPlan::identity_w(k))
                }
            }
            PlanOf::U => {
                let svd = block_value::<ThinSvd<T>>(inputs[0])?;
                if direct_allowed(&svd.s, self.n, max) {
                    RootPlan::direct(Mat::from_fn(svd.v.nrows(), svd.v.ncols(), |i, j| svd.v[(i, j)] / svd.s[j]))
                } else {
                    RootPlan::householder(svd.u.clone())
                }
            }
        }))
    }
}

/// Top-down pass through an internal level: `E = Q_node · [W; 0]`, where W is
/// this node's rows of its parent's E (or the root plan's W). On the direct
/// path W and E are empty: nothing is pushed.
struct Down<T> {
    tree: Arc<Tree>,
    level: usize,
    _t: std::marker::PhantomData<fn() -> T>,
}

/// An intermediate block of the top-down pass.
struct Pushed<T: Scalar>(Mat<T>);

crate::kernels::intermediate_block!(impl<T: Scalar> for Pushed<T>, |p| crate::kernels::mat_bytes(&p.0), spill);

impl<T: Scalar> Pushed<T> {
    fn spill_mats(&self) -> Vec<faer::MatRef<'_, T>> {
        vec![self.0.as_ref()]
    }

    fn from_spill_mats(mats: Vec<Mat<T>>) -> Option<Self> {
        let [m]: [Mat<T>; 1] = mats.try_into().ok()?;
        Some(Pushed(m))
    }
}

/// This node's W: its [`WofParent`] block, or the plan's W at the top.
fn w_of<'a, T: Scalar>(tree: &Tree, level: usize, above: &'a Block) -> chunked_array::Result<MatRef<'a, T>> {
    if level == tree.top() {
        return Ok(block_value::<RootPlan<T>>(above)?.w.as_ref());
    }
    Ok(block_value::<Pushed<T>>(above)?.0.as_ref())
}

/// Each node's W: its k rows of its parent's E, on their own. The node's
/// top-down task reads these (k x k) instead of the parent's whole E
/// (children x k rows), so that under MPI only W travels to a child on another
/// rank, and the parent's E goes as soon as its children's Ws are taken.
struct WofParent<T> {
    tree: Arc<Tree>,
    level: usize,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for WofParent<T> {
    fn wire(&self) -> Option<chunked_array::Wire> {
        Some(Pushed::<T>::wire())
    }
    fn output_bytes(&self, idx: &[usize]) -> Option<usize> {
        Some(self.tree.levels[self.level][idx[0]].k * self.tree.root().k * std::mem::size_of::<T>())
    }
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[self.tree.levels[self.level][idx[0]].parent]);
    }
    fn run(&self, idx: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let me = &self.tree.levels[self.level][idx[0]];
        let e = &block_value::<Pushed<T>>(inputs[0])?.0;
        // The direct path's empty E (a node of no rows has k columns here).
        if e.ncols() == 0 {
            return Ok(Arc::new(Pushed(Mat::<T>::zeros(0, 0))));
        }
        Ok(Arc::new(Pushed(e.as_ref().get(me.offset_in_parent..me.offset_in_parent + me.k, ..).to_owned())))
    }
}

impl<T: Scalar> LayerOp for Down<T> {
    fn wire(&self) -> Option<chunked_array::Wire> {
        Some(Pushed::<T>::wire())
    }
    fn output_bytes(&self, idx: &[usize]) -> Option<usize> {
        // E: this node's rows x the root's k.
        Some(self.tree.levels[self.level][idx[0]].rows * self.tree.root().k * std::mem::size_of::<T>())
    }
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[idx[0]]);
        deps.push(1, &[if self.level == self.tree.top() { 0 } else { idx[0] }]);
    }
    fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let w = w_of::<T>(&self.tree, self.level, inputs[1])?;
        // The direct path's empty W (a node of no rows has k columns here).
        if w.ncols() == 0 {
            return Ok(Arc::new(Pushed(Mat::<T>::zeros(0, 0))));
        }
        let f = block_value::<Factor<T>>(inputs[0])?;
        let mut e = Mat::zeros(f.nrows(), w.ncols());
        f.q_times(w, e.as_mut(), par_for(self.level == self.tree.top()));
        Ok(Arc::new(Pushed(e)))
    }
}

/// The result's row blocks, row-major: `A_i · m` on the direct path, else
/// `Q_l · [W_l; 0]` for each leaf l of the block, from the leaf's QR taken
/// again (the same deterministic kernel on the same rows gives the R the tree
/// reduced).
struct LeafOut<T> {
    tree: Arc<Tree>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LeafOut<T> {
    /// Rows of row block `b`.
    fn block_rows(&self, b: usize) -> usize {
        self.tree.leaves_of_block[b].clone().map(|l| self.tree.levels[0][l].rows).sum()
    }
}

impl<T: Scalar> LayerOp for LeafOut<T> {
    fn output_bytes(&self, idx: &[usize]) -> Option<usize> {
        Some(self.block_rows(idx[0]) * self.tree.root().k * std::mem::size_of::<T>())
    }
    fn scratch_bytes(&self, idx: &[usize]) -> usize {
        // The Householder path's factor of one leaf at a time.
        self.tree.leaves_of_block[idx[0]].clone().map(|l| factor_bytes::<T>(&self.tree, 0, l)).max().unwrap_or(0)
    }
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[idx[0], 0]);
        deps.push(1, &[0]);
        if self.tree.top() > 0 {
            for leaf in self.tree.leaves_of_block[idx[0]].clone() {
                deps.push(2, &[leaf]);
            }
        }
    }
    fn run(&self, idx: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let plan = block_value::<RootPlan<T>>(inputs[1])?;
        let par = par_for(self.tree.leaves_of_block.len() == 1);
        let a = view(block_array::<T>(inputs[0])?).expect("2-d block");
        if let Some((m, upper)) = &plan.direct {
            return Ok(row_major_block::<T>(a.nrows(), m.ncols(), |dst| {
                use faer::linalg::matmul::triangular::{matmul, BlockStructure};
                let rhs = if *upper { BlockStructure::TriangularUpper } else { BlockStructure::Rectangular };
                matmul(dst, BlockStructure::Rectangular, faer::Accum::Replace, a, BlockStructure::Rectangular, m.as_ref(), rhs, T::ONE, par);
            }));
        }
        let leaves = self.tree.leaves_of_block[idx[0]].clone();
        let mut ws = Vec::with_capacity(leaves.len());
        for (i, _) in leaves.clone().enumerate() {
            ws.push(if self.tree.top() == 0 { plan.w.as_ref() } else { block_value::<Pushed<T>>(inputs[2 + i])?.0.as_ref() });
        }
        Ok(row_major_block::<T>(self.block_rows(idx[0]), self.tree.root().k, |mut dst| {
            // One leaf's factor at a time (what scratch_bytes counts).
            for (leaf, w) in leaves.zip(ws) {
                let (start, rows) = (self.tree.leaf_rows[leaf].start, self.tree.levels[0][leaf].rows);
                leaf_factor(&self.tree, leaf, a).q_times(w, dst.as_mut().subrows_mut(start, rows), par);
            }
        }))
    }
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
    let shape = a.shape();
    if shape.len() != 2 {
        return Err(Error::BadInput { routine: "tsqr".into(), needs: "a 2-d array".into(), shape });
    }
    if a.chunks().grid()[1] != 1 {
        return Err(Error::BadInput {
            routine: "tsqr".into(),
            needs: format!("one block along the columns (got column chunks {:?}; qr/svd rechunk, svd_compressed takes any chunking)", a.chunks().lengths()[1]),
            shape,
        });
    }
    if options.arity < 2 {
        return Err(Error::BadInput { routine: "tsqr".into(), needs: format!("arity >= 2 (got {})", options.arity), shape });
    }
    let n = shape[1];
    let row_lengths = a.chunks().lengths()[0].clone();
    if a.device().is_some() {
        return device::tsqr(a, Arc::new(Tree::new(&row_lengths, n, options.arity)), options.compute_svd);
    }
    let tree = Arc::new(Tree::with_leaf_cap(&row_lengths, n, options.arity, LEAF_ROWS.max(10 * n)));
    let k = tree.root().k;
    let phantom = std::marker::PhantomData;

    // factors[0]: the leaves' R; factors[l]: the factors of tree level l.
    let leaf_op = LeafR::<T> { tree: tree.clone(), _t: phantom };
    let mut factors = vec![Layer::new("tsqr-leaf", DType::Intermediate, Chunks::from_lengths(vec![vec![1; tree.levels[0].len()]]), &[a.layer()], leaf_op)];
    for level in 1..tree.levels.len() {
        let nodes = tree.levels[level].len();
        let below = if level == 1 {
            factors[0].clone()
        } else {
            let r_op = RofFactor::<T> { tree: tree.clone(), level: level - 1, _t: phantom };
            Layer::new("tsqr-r-part", DType::Intermediate, Chunks::from_lengths(vec![vec![1; tree.levels[level - 1].len()]]), &[factors[level - 1].clone()], r_op)
        };
        let op = StackQr::<T> { tree: tree.clone(), level, _t: phantom };
        factors.push(Layer::new("tsqr-tree", DType::Intermediate, Chunks::from_lengths(vec![vec![1; nodes]]), &[below], op));
    }
    let root = factors[tree.top()].clone();
    let r = Layer::new("tsqr-r", T::DTYPE, Chunks::from_lengths(vec![vec![k], vec![n]]), std::slice::from_ref(&root), RootR::<T>(phantom)).into_array()?;

    let q_chunks = Chunks::from_lengths(vec![row_lengths.clone(), vec![k]]);
    let one = || Chunks::from_lengths(vec![vec![1]]);
    let assemble = |plan: Layer, name: &str| -> Result<Array<T>> {
        // Top-down through the internal levels (only on the Householder path;
        // the direct path pushes empty blocks), then the leaves.
        let mut above = plan.clone();
        for level in (1..tree.levels.len()).rev() {
            let nodes = tree.levels[level].len();
            let op = Down::<T> { tree: tree.clone(), level, _t: phantom };
            let e = Layer::new("tsqr-down", DType::Intermediate, Chunks::from_lengths(vec![vec![1; nodes]]), &[factors[level].clone(), above], op);
            let below = tree.levels[level - 1].len();
            let w = WofParent::<T> { tree: tree.clone(), level: level - 1, _t: phantom };
            above = Layer::new("tsqr-w-part", DType::Intermediate, Chunks::from_lengths(vec![vec![1; below]]), &[e], w);
        }
        let mut inputs = vec![a.layer(), plan];
        if tree.top() > 0 {
            inputs.push(above);
        }
        Ok(Layer::new(name, T::DTYPE, q_chunks.clone(), &inputs, LeafOut::<T> { tree: tree.clone(), _t: phantom }).into_array()?)
    };
    let max_direct_condition = options.max_direct_condition;
    let q_plan = Layer::new("tsqr-q-plan", DType::Intermediate, one(), std::slice::from_ref(&root), Plan::<T> { of: PlanOf::Q, n, max_direct_condition, _t: phantom });
    let q = assemble(q_plan, "tsqr-q")?;
    let svd = if options.compute_svd {
        let svd_r = Layer::new("tsqr-svd-r", DType::Intermediate, one(), &[root], SvdOfR::<T>(phantom));
        let u_plan = Layer::new("svd-u-plan", DType::Intermediate, one(), std::slice::from_ref(&svd_r), Plan::<T> { of: PlanOf::U, n, max_direct_condition, _t: phantom });
        let u = assemble(u_plan, "svd-u")?;
        let s = Layer::new("svd-s", T::DTYPE, Chunks::from_lengths(vec![vec![k]]), std::slice::from_ref(&svd_r), SvdPart::<T> { vectors: false, _t: phantom }).into_array()?;
        let vt = Layer::new("svd-vt", T::DTYPE, Chunks::from_lengths(vec![vec![k], vec![n]]), &[svd_r], SvdPart::<T> { vectors: true, _t: phantom }).into_array()?;
        Some(Svd { u, s, vt })
    } else {
        None
    };
    Ok(Tsqr { q, r, svd })
}

#[cfg(test)]
mod tests {
    use super::Tree;

    #[test]
    fn tree_groups_children_and_offsets() {
        let t = Tree::new(&[5, 5, 2, 5, 5], 3, 2);
        assert_eq!(t.levels.len(), 4);
        assert_eq!(t.levels[0].iter().map(|n| n.k).collect::<Vec<_>>(), vec![3, 3, 2, 3, 3]);
        assert_eq!(t.levels[1].iter().map(|n| n.rows).collect::<Vec<_>>(), vec![6, 5, 3]);
        assert_eq!(t.levels[0][3].offset_in_parent, 2);
        assert_eq!(t.levels[0][4].parent, 2);
        assert_eq!(t.root().rows, 6);
        assert_eq!(t.root().k, 3);
    }

    #[test]
    fn tall_blocks_split_into_near_equal_leaves() {
        let t = Tree::with_leaf_cap(&[25, 4, 0, 10], 2, 2, 10);
        let rows: Vec<usize> = t.levels[0].iter().map(|n| n.rows).collect();
        assert_eq!(rows, vec![9, 8, 8, 4, 0, 10]);
        let starts: Vec<(usize, usize)> = t.leaf_rows.iter().map(|l| (l.block, l.start)).collect();
        assert_eq!(starts, vec![(0, 0), (0, 9), (0, 17), (1, 0), (2, 0), (3, 0)]);
        assert_eq!(t.leaves_of_block, vec![0..3, 3..4, 4..5, 5..6]);
    }
}
