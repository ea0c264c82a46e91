//! The host TSQR's layer ops: the leaves' and the tree nodes' factorizations
//! on the way up, the root's choice between the direct and the Householder
//! path, and the pass down that makes the row blocks of Q or U.

use std::sync::Arc;

use chunked_array::custom::{Deps, LayerOp, block_array, block_value};
use chunked_array::runtime::Block;
use faer::{Mat, MatRef, Par};

use super::tree::{LeafRows, Tree};
use crate::kernels::{HouseholderQr, ThinSvd, row_major_block, view};
use crate::pair_qr::PairQr;
use crate::{Error, Scalar};

/// Parallelism for a task: the root's work runs alone, so it may use every core.
pub(super) fn par_for(alone: bool) -> Par {
    if alone { Par::rayon(0) } else { Par::Seq }
}

/// A tree node's factorization: a dense Householder QR (leaves, groups of
/// stacked R factors), the structured QR of two full triangles, or a node of
/// one child, whose R is already triangular (Q the identity): it passes up.
pub(super) enum Factor<T: Scalar> {
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
    pub(super) fn nrows(&self) -> usize {
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
    pub(super) fn q_times(&self, w: MatRef<'_, T>, dst: faer::MatMut<'_, T>, par: Par) {
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
/// a leaf's block of Q is made from its rows of the input (see [`LeafOut`](super::down::LeafOut)),
/// which the tree holds anyway.
pub(super) struct LeafR<T> {
    pub(super) tree: Arc<Tree>,
    pub(super) _t: std::marker::PhantomData<fn() -> T>,
}

/// Bytes of a node's factor: its rows x n, held as Householder vectors.
pub(super) fn factor_bytes<T>(tree: &Tree, level: usize, node: usize) -> usize {
    tree.levels[level][node].rows * tree.n * std::mem::size_of::<T>()
}

/// The QR of a leaf's rows of its row block `a`, on one core unless the leaf
/// is the root.
pub(super) fn leaf_factor<T: Scalar>(tree: &Tree, leaf: usize, a: MatRef<'_, T>) -> HouseholderQr<T> {
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
pub(super) fn root_r<T: Scalar>(block: &Block) -> chunked_array::Result<Mat<T>> {
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

/// An intermediate block of the top-down pass.
pub(super) struct Pushed<T: Scalar>(pub(super) Mat<T>);

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
