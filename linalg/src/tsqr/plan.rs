//! The root's plan: the choice between forming Q (or U) directly from the
//! input's row blocks and pushing the root's W down the tree, and the copies
//! of it the leaves read, one per rank holding rows.

use std::sync::Arc;

use chunked_array::Element;
use chunked_array::custom::{Deps, LayerOp, block_value};
use chunked_array::runtime::Block;
use faer::{Mat, MatRef, Par};

use super::layers::root_r;
use super::tree::Tree;
use crate::Scalar;
use crate::kernels::{ThinSvd, singular_values};

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
pub(super) struct RootPlan<T: Scalar> {
    /// The direct path: a leaf's block is `A_i · m` (n x k), with `upper`
    /// when m is upper triangular (R⁻¹; see [`RootPlan::direct`]).
    pub(super) direct: Option<(Mat<T>, bool)>,
    /// The Householder path: what the root pushes down (k x k), Q's own basis
    /// (the identity) or R's left singular vectors. Empty on the direct path.
    pub(super) w: Mat<T>,
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
    /// U from R's SVD ([`SvdOfR`](super::layers::SvdOfR)): `A_i · V Σ⁻¹` when well conditioned, else
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
