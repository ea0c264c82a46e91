//! The host TSQR's layer ops: the leaves' and the tree nodes' factorizations
//! on the way up, the root's choice between the direct and the Householder
//! path, and the pass down that makes the row blocks of Q or U.

use std::sync::Arc;

use chunked_array::Element;
use chunked_array::custom::{Deps, LayerOp, block_array, block_value};
use chunked_array::runtime::Block;
use faer::{Mat, MatRef, Par};

use super::tree::{LeafRows, Tree};
use crate::kernels::{HouseholderQr, ThinSvd, row_major_block, singular_values, view};
use crate::pair_qr::PairQr;
use crate::{Error, Scalar};

/// Parallelism for a task: the root's work runs alone, so it may use every core.
fn par_for(alone: bool) -> Par {
    if alone { Par::rayon(0) } else { Par::Seq }
}

/// A tree node's factorization: a dense Householder QR (leaves, groups of
/// stacked R factors), the structured QR of two full triangles, or a node of
/// one child, whose R is already triangular (Q the identity): it passes up.
enum Factor<T: Scalar> {
    Dense(HouseholderQr<T>),
    Pair(PairQr<T>),
    Pass(Mat<T>),
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
            Factor::Pass(r) => vec![r.as_ref()],
        }
    }

    fn from_spill_mats(mats: Vec<Mat<T>>) -> Option<Self> {
        match mats.len() {
            1 => mats.into_iter().next().map(Factor::Pass),
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
            Factor::Pass(r) => r.nrows(),
        }
    }

    fn r(&self) -> Mat<T> {
        match self {
            Factor::Dense(f) => f.r(),
            Factor::Pair(p) => p.r.clone(),
            Factor::Pass(r) => r.clone(),
        }
    }

    /// `dst ← Q · [w; 0]`.
    fn q_times(&self, w: MatRef<'_, T>, dst: faer::MatMut<'_, T>, par: Par) {
        match self {
            Factor::Dense(f) => f.q_times(w, dst, par),
            Factor::Pair(p) => p.q_times(w, dst, par),
            Factor::Pass(_) => {
                let mut dst = dst;
                dst.copy_from(w);
            }
        }
    }
}

/// Level 0: the R of every leaf's QR. The Householder vectors are dropped:
/// a leaf's block of Q is made from its rows of the input (see [`LeafOut`]),
/// which the tree holds anyway.
pub(super) struct LeafR<T> {
    pub(super) tree: Arc<Tree>,
    pub(super) _t: std::marker::PhantomData<fn() -> T>,
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
    fn wire(&self) -> Option<chunked_array::runtime::Wire> {
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
pub(super) struct StackQr<T> {
    pub(super) tree: Arc<Tree>,
    pub(super) level: usize,
    pub(super) _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for StackQr<T> {
    fn wire(&self) -> Option<chunked_array::runtime::Wire> {
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
        // One child: its R is this node's.
        if let [only] = inputs {
            return Ok(Arc::new(Factor::Pass(block_value::<Pushed<T>>(only)?.0.clone())));
        }
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
pub(super) struct RofFactor<T> {
    pub(super) tree: Arc<Tree>,
    pub(super) level: usize,
    pub(super) _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for RofFactor<T> {
    fn wire(&self) -> Option<chunked_array::runtime::Wire> {
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
pub(super) struct RootR<T>(pub(super) std::marker::PhantomData<fn() -> T>);

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
pub(super) struct SvdOfR<T>(pub(super) std::marker::PhantomData<fn() -> T>);

impl<T: Scalar> LayerOp for SvdOfR<T> {
    fn wire(&self) -> Option<chunked_array::runtime::Wire> {
        Some(ThinSvd::<T>::wire())
    }
    fn deps(&self, _: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[0]);
    }
    fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let r = root_r::<T>(inputs[0])?;
        let svd = ThinSvd::new(r.as_ref(), Par::rayon(0)).map_err(|e| Error::NoConvergence {
            routine: "svd".into(),
            what: "R of the TSQR".into(),
            reason: e.to_string(),
        })?;
        Ok(Arc::new(svd))
    }
}

/// Singular values or right vectors out of an [`SvdOfR`] block.
pub(super) struct SvdPart<T> {
    pub(super) vectors: bool,
    pub(super) _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for SvdPart<T> {
    fn deps(&self, _: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[0]);
    }
    fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let svd = block_value::<ThinSvd<T>>(inputs[0])?;
        if self.vectors {
            let v = &svd.v;
            Ok(row_major_block::<T>(v.ncols(), v.nrows(), |mut dst| dst.copy_from(v.adjoint())))
        } else {
            let s = svd.s.iter().map(|&x| x.re()).collect();
            Ok(Arc::new(
                ndarray::ArrayD::<T::RealPart>::from_shape_vec(ndarray::IxDyn(&[svd.s.len()]), s).expect("k values"),
            ))
        }
    }
}

/// Whether singular values `s` (non-increasing) of an n-column R allow the
/// direct path: R square and invertible, and σ_max / σ_min at most `max`
/// (0: never).
fn direct_allowed<T: Scalar>(s: &[T], n: usize, max: f64) -> bool {
    match (s.first(), s.last()) {
        (Some(&hi), Some(&lo)) if s.len() == n && max > 0.0 => {
            let (hi, lo) = (hi.re().to_f64(), lo.re().to_f64());
            lo > 0.0 && hi <= max * lo
        }
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
pub(super) enum PlanOf {
    /// Q from the root's factor: `A_i · R⁻¹` when R is well conditioned,
    /// else the identity pushed down.
    Q,
    /// U from R's SVD ([`SvdOfR`]): `A_i · V Σ⁻¹` when well conditioned, else
    /// `U_R` pushed down.
    U,
}

/// The root's choice between the direct and the Householder path.
pub(super) struct Plan<T> {
    pub(super) of: PlanOf,
    pub(super) n: usize,
    pub(super) max_direct_condition: f64,
    pub(super) _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for Plan<T> {
    fn wire(&self) -> Option<chunked_array::runtime::Wire> {
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
                if max > 0.0
                    && k == self.n
                    && singular_values(r.as_ref(), Par::rayon(0)).is_ok_and(|s| direct_allowed(&s, self.n, max))
                {
                    let mut inverse = Mat::zeros(k, k);
                    faer::linalg::triangular_inverse::invert_upper_triangular(
                        inverse.as_mut(),
                        r.as_ref(),
                        Par::rayon(0),
                    );
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

/// What the leaves read of the root's plan: on the direct path the whole plan
/// (the n x n matrix each row block is multiplied by), on the Householder path
/// only that it is that path (W goes down the tree, not to every leaf). One
/// copy per rank holding rows, each made on its rank, passed down a binary
/// tree of ranks ([`super::tree::broadcast_slot`]), one level of it per
/// layer: under MPI each rank receives one copy and sends at most two, where
/// the root would send every copy itself.
pub(super) struct LeafPlan<T> {
    pub(super) tree: Arc<Tree>,
    /// The level of the broadcast this layer holds.
    pub(super) level: usize,
    pub(super) _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for LeafPlan<T> {
    fn wire(&self) -> Option<chunked_array::runtime::Wire> {
        Some(RootPlan::<T>::wire())
    }
    fn output_bytes(&self, _: &[usize]) -> Option<usize> {
        Some(self.tree.n * self.tree.n * std::mem::size_of::<T>())
    }
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        // Level 0 reads the plan; copy k of a later level reads copy (k - 1) / 2.
        let parent =
            if self.level == 0 { 0 } else { (self.level_start() + idx[0] - 1) / 2 + 1 - (1 << (self.level - 1)) };
        deps.push(0, &[parent]);
    }
    fn process_of(&self, idx: &[usize], _processes: usize) -> Option<usize> {
        self.tree.ranks.get(self.level_start() + idx[0]).copied()
    }
    fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        if self.level > 0 {
            return Ok(inputs[0].clone());
        }
        let plan = block_value::<RootPlan<T>>(inputs[0])?;
        Ok(Arc::new(match &plan.direct {
            Some((m, _)) => RootPlan::direct(m.clone()),
            None => RootPlan::householder(Mat::zeros(0, 0)),
        }))
    }
}

impl<T> LeafPlan<T> {
    /// The copy number of this level's first block.
    fn level_start(&self) -> usize {
        (1 << self.level) - 1
    }
}

/// Top-down pass through an internal level: `E = Q_node · [W; 0]`, where W is
/// this node's rows of its parent's E (or the root plan's W). On the direct
/// path W and E are empty: nothing is pushed.
pub(super) struct Down<T> {
    pub(super) tree: Arc<Tree>,
    pub(super) level: usize,
    pub(super) _t: std::marker::PhantomData<fn() -> T>,
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
pub(super) struct WofParent<T> {
    pub(super) tree: Arc<Tree>,
    pub(super) level: usize,
    pub(super) _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for WofParent<T> {
    fn wire(&self) -> Option<chunked_array::runtime::Wire> {
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
    fn wire(&self) -> Option<chunked_array::runtime::Wire> {
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

/// The levels of the plan's broadcast to the ranks holding rows.
pub(super) fn broadcast_levels(tree: &Tree) -> usize {
    super::tree::broadcast_slot(tree.ranks.len().max(1) - 1).0 + 1
}

/// The result's row blocks, row-major: `A_i · m` on the direct path, else
/// `Q_l · [W_l; 0]` for each leaf l of the block, from the leaf's QR taken
/// again (the same deterministic kernel on the same rows gives the R the tree
/// reduced). Its inputs: the row blocks, then the root's plan when one leaf is
/// the whole tree, else the levels of the [`LeafPlan`] broadcast and the
/// leaves' W (each task reads its rank's copy of the plan).
pub(super) struct LeafOut<T> {
    pub(super) tree: Arc<Tree>,
    pub(super) _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LeafOut<T> {
    /// Rows of row block `b`.
    fn block_rows(&self, b: usize) -> usize {
        self.tree.leaves_of_block[b].clone().map(|l| self.tree.levels[0][l].rows).sum()
    }
}

impl<T: Scalar> LayerOp for LeafOut<T> {
    fn home_input(&self) -> Option<usize> {
        // The row block: the plan and W are n x n at most, and one of them is
        // empty, but each is estimated at its full size.
        Some(0)
    }
    fn output_bytes(&self, idx: &[usize]) -> Option<usize> {
        Some(self.block_rows(idx[0]) * self.tree.root().k * std::mem::size_of::<T>())
    }
    fn scratch_bytes(&self, idx: &[usize]) -> usize {
        // The Householder path's factor of one leaf at a time.
        self.tree.leaves_of_block[idx[0]].clone().map(|l| factor_bytes::<T>(&self.tree, 0, l)).max().unwrap_or(0)
    }
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[idx[0], 0]);
        if self.tree.top() == 0 {
            deps.push(1, &[0]);
            return;
        }
        // Inputs 1.. are the plan's broadcast levels, then the leaves' W.
        let (level, position) = super::tree::broadcast_slot(self.tree.rank_of_block[idx[0]]);
        deps.push(1 + level, &[position]);
        let w_input = 1 + broadcast_levels(&self.tree);
        for leaf in self.tree.leaves_of_block[idx[0]].clone() {
            deps.push(w_input, &[leaf]);
        }
    }
    fn run(&self, idx: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let plan = block_value::<RootPlan<T>>(inputs[1])?;
        let par = par_for(self.tree.leaves_of_block.len() == 1);
        let a = view(block_array::<T>(inputs[0])?).expect("2-d block");
        if let Some((m, upper)) = &plan.direct {
            return Ok(row_major_block::<T>(a.nrows(), m.ncols(), |dst| {
                use faer::linalg::matmul::triangular::{BlockStructure, matmul};
                let rhs = if *upper { BlockStructure::TriangularUpper } else { BlockStructure::Rectangular };
                matmul(
                    dst,
                    BlockStructure::Rectangular,
                    faer::Accum::Replace,
                    a,
                    BlockStructure::Rectangular,
                    m.as_ref(),
                    rhs,
                    T::ONE,
                    par,
                );
            }));
        }
        let leaves = self.tree.leaves_of_block[idx[0]].clone();
        let mut ws = Vec::with_capacity(leaves.len());
        for (i, _) in leaves.clone().enumerate() {
            ws.push(if self.tree.top() == 0 {
                plan.w.as_ref()
            } else {
                block_value::<Pushed<T>>(inputs[2 + i])?.0.as_ref()
            });
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
