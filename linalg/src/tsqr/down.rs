//! The pass down the tree that makes the row blocks of Q or U: each node's
//! W pushed through its factor, the W pieces of its children, and the
//! leaves' blocks of the result, formed directly from the input's row blocks
//! or through the leaves' factors.

use std::sync::Arc;

use chunked_array::custom::{Deps, LayerOp, block_array, block_value};
use chunked_array::runtime::Block;
use faer::{Mat, MatRef};

use super::layers::{Factor, Pushed, factor_bytes, leaf_factor, par_for};
use super::plan::RootPlan;
use super::tree::Tree;
use crate::Scalar;
use crate::kernels::{row_major_block, view};

/// Top-down pass through an internal level: `E = Q_node · [W; 0]`, where W is
/// this node's rows of its parent's E (or the root plan's W). On the direct
/// path W and E are empty: nothing is pushed.
pub(super) struct Down<T> {
    pub(super) tree: Arc<Tree>,
    pub(super) level: usize,
    pub(super) _t: std::marker::PhantomData<fn() -> T>,
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
/// the whole tree, else the levels of the [`LeafPlan`](super::plan::LeafPlan) broadcast and the
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
