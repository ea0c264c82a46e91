//! dask's `topk` and `argtopk` as tree reductions: each block keeps its
//! lanes' `|k|` best values with their positions along the axis, and groups
//! of [`SPLIT`] such partials merge until one is left along the axis. A task
//! holds its inputs and `|k|` values a lane, never the axis.

use std::cmp::Ordering;
use std::sync::Arc;

use super::lanes::{LaneSet, block_of_lanes, lanes_of};
use super::nan_last;
use crate::array::Array;
use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::{DType, Real};
use crate::error::{Error, Result};
use crate::graph::wire::Wire;
use crate::graph::{BlockOp, Node, block_as};

/// Partials one tree node merges.
const SPLIT: usize = 8;

/// What the layers of one `topk` share.
struct Plan {
    axis: usize,
    /// `|k|`.
    n: usize,
    /// `k > 0`: the largest values (NaN counts as the largest).
    largest: bool,
    /// `argtopk`: the positions instead of the values.
    positions: bool,
}

impl Plan {
    /// Better (earlier in the output) first; equal values by position.
    fn order<T: Real>(&self, a: &(T, i64), b: &(T, i64)) -> Ordering {
        let by_value = if self.largest { nan_last(&b.0, &a.0) } else { nan_last(&a.0, &b.0) };
        by_value.then(a.1.cmp(&b.1))
    }

    /// Whether value `v` beats `worst` outright (a later equal value loses
    /// on position).
    fn beats<T: Real>(&self, v: &T, worst: &T) -> bool {
        nan_last(v, worst) == if self.largest { Ordering::Greater } else { Ordering::Less }
    }

    /// Keeps the best `n` of `pairs`, best first.
    fn keep_best<T: Real>(&self, pairs: &mut Vec<(T, i64)>) {
        if pairs.len() > self.n {
            pairs.select_nth_unstable_by(self.n - 1, |a, b| self.order(a, b));
            pairs.truncate(self.n);
        }
        pairs.sort_unstable_by(|a, b| self.order(a, b));
    }

    /// The best `n` of one lane whose first value is at `start` along the
    /// axis. A buffer of at most `2n` candidates: when full it keeps its
    /// best `n`, and values that do not beat the `n`-th are passed over.
    fn lane_best<T: Real>(&self, lane: &[T], start: i64, buf: &mut Vec<(T, i64)>) {
        let cap = (2 * self.n).min(lane.len()).max(1);
        buf.clear();
        let mut worst: Option<T> = None;
        for (i, &v) in lane.iter().enumerate() {
            if worst.is_some_and(|w| !self.beats(&v, &w)) {
                continue;
            }
            buf.push((v, start + i as i64));
            if buf.len() == cap && cap > self.n {
                self.keep_best(buf);
                worst = buf.last().map(|p| p.0);
            }
        }
        self.keep_best(buf);
    }
}

/// The leaves: each block's best values a lane.
struct Leaves<T> {
    plan: Arc<Plan>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Real> BlockOp for Leaves<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, node.inputs[0].chunks.linear(idx)));
    }

    fn output_bytes(&self, node: &Node, idx: &[usize]) -> Option<usize> {
        Some(node.chunks.block_shape(idx).iter().product::<usize>() * self.plan.n * (std::mem::size_of::<T>() + 8))
    }

    fn wire(&self) -> Option<Wire> {
        Some(LaneSet::<T>::wire())
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let block = block_as::<T>(inputs[0], node, "block")?;
        let axis = self.plan.axis;
        let len = block.shape()[axis];
        let start = node.inputs[0].chunks.offset(axis, idx[axis]) as i64;
        let values = lanes_of(&block.view(), axis);
        let mut set = LaneSet { bounds: vec![0], values: Vec::new(), index: Vec::new(), counts: Vec::new() };
        let mut buf = Vec::new();
        let lanes: usize = node.chunks.block_shape(idx).iter().product();
        for l in 0..lanes {
            self.plan.lane_best(&values[l * len..(l + 1) * len], start, &mut buf);
            set.values.extend(buf.iter().map(|p| p.0));
            set.index.extend(buf.iter().map(|p| p.1));
            set.bounds.push(set.values.len() as u64);
        }
        Ok(Arc::new(set))
    }
}

/// A tree node: up to [`SPLIT`] partials merged; the last level makes the
/// output block (values or positions).
struct Merge<T> {
    plan: Arc<Plan>,
    last: bool,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Real> BlockOp for Merge<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let input = &node.inputs[0].chunks;
        let axis = self.plan.axis;
        let first = idx[axis] * SPLIT;
        let end = (first + SPLIT).min(input.lengths()[axis].len());
        let mut at = idx.to_vec();
        for i in first..end {
            at[axis] = i;
            out.push((0, input.linear(&at)));
        }
    }

    fn output_bytes(&self, node: &Node, idx: &[usize]) -> Option<usize> {
        Some(node.chunks.block_shape(idx).iter().product::<usize>() * self.plan.n * (std::mem::size_of::<T>() + 8))
    }

    fn wire(&self) -> Option<Wire> {
        (!self.last).then(LaneSet::<T>::wire)
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let parts = inputs.iter().map(|b| LaneSet::<T>::of(b, node, true)).collect::<Result<Vec<_>>>()?;
        let lanes = parts[0].lanes();
        if parts.iter().any(|p| p.lanes() != lanes) {
            return Err(Error::invalid("topk partials", lanes, format!("disagree on their lanes in {}", node.label())));
        }
        let mut set = LaneSet { bounds: vec![0], values: Vec::new(), index: Vec::new(), counts: Vec::new() };
        let mut pairs = Vec::new();
        for l in 0..lanes {
            pairs.clear();
            for p in &parts {
                let r = p.range(l);
                pairs.extend(p.values[r.clone()].iter().copied().zip(p.index[r].iter().copied()));
            }
            self.plan.keep_best(&mut pairs);
            set.values.extend(pairs.iter().map(|p| p.0));
            set.index.extend(pairs.iter().map(|p| p.1));
            set.bounds.push(set.values.len() as u64);
        }
        if !self.last {
            return Ok(Arc::new(set));
        }
        let shape = node.chunks.block_shape(idx);
        if set.values.len() != shape.iter().product::<usize>() {
            return Err(Error::invalid(
                "topk result",
                set.values.len(),
                format!("does not fill a block of shape {shape:?}"),
            ));
        }
        let axis = self.plan.axis;
        Ok(if self.plan.positions {
            Arc::new(block_of_lanes(set.index, &shape, axis)?)
        } else {
            Arc::new(block_of_lanes(set.values, &shape, axis)?)
        })
    }
}

/// `x`'s `|k|` best values along `axis` (or their positions), as a tree
/// reduction; `n = |k|`, checked by the caller.
pub(super) fn top<T: Real>(x: &Array<T>, k: isize, n: usize, axis: usize, positions: bool) -> Result<Arc<Node>> {
    let plan = Arc::new(Plan { axis, n, largest: k > 0, positions });
    let lengths = x.chunks().lengths().to_vec();
    let with_axis = |v: Vec<usize>| {
        let mut l = lengths.clone();
        l[axis] = v;
        Chunks::from_lengths(l)
    };
    let mut blocks = lengths[axis].len();
    let p = std::marker::PhantomData;
    let mut node = Node::new(
        "topk-leaves",
        DType::Intermediate,
        with_axis(vec![1; blocks]),
        vec![x.node.clone()],
        Leaves::<T> { plan: plan.clone(), _t: p },
    );
    loop {
        blocks = blocks.div_ceil(SPLIT);
        let last = blocks == 1;
        let (name, dtype, chunks) = match (last, positions) {
            (false, _) => ("topk-merge", DType::Intermediate, with_axis(vec![1; blocks])),
            (true, false) => ("topk", T::DTYPE, with_axis(vec![n])),
            (true, true) => ("argtopk", DType::I64, with_axis(vec![n])),
        };
        node = Node::new(name, dtype, chunks, vec![node], Merge::<T> { plan: plan.clone(), last, _t: p });
        if last {
            return Ok(node);
        }
    }
}
