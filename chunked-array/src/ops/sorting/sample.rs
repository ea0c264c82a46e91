//! Sorting along an axis of several blocks: a sample sort whose tasks hold
//! about a block each, whatever the axis's length.
//!
//! Every value has a distinct sort key: (value with NaN last, its block
//! along the axis, its place in that block's sorted lane). Sorted stably,
//! equal values keep their block order, so the order of keys is the stable
//! order of the whole lane.
//!
//! 1. Runs: each block's lanes sorted (for `argsort`, with each value's
//!    position along the axis).
//! 2. Samples: `k` evenly spaced values of each sorted lane: an array of the
//!    element type whose blocks are `k` long along the axis.
//! 3. Cuts: one task per group of blocks across the axis reads their samples.
//!    Between two samples of one run lie at most `len / k` values, so a
//!    sample's rank among all values is known within bounds; per output
//!    block, the lower cut is the last sample whose rank is at most the
//!    block's first rank, the upper cut the first sample whose rank is at
//!    least its end.
//! 4. Pieces: each run gives each output block its values between the cuts
//!    (a binary search for each cut), and the count of its values before the
//!    lower cut.
//! 5. Merge: each output block merges its pieces, from its first rank (the
//!    counts say how many values lie before the pieces) for its block's
//!    length: for numbers, in segments that stay in cache (`keys`).
//!
//! An output block's pieces hold its own values and the values between its
//! ranks and the cuts' ranks: at most about `2 * len / k` per run. Where a
//! group of blocks holds so many lanes that `32 (m + 1)` samples a lane would
//! pass a quarter of the block-size limit, fewer are taken (down to one a
//! run), and the pieces grow toward whole lanes: the bound on a task's
//! memory is for lanes long against their count, the case this sort is for
//! (short lanes are sorted whole in a block).

use std::cmp::Ordering;
use std::sync::Arc;

use super::keys;
use super::lanes::{LaneSet, block_of_lanes, lane_count, lanes_of};
use super::nan_last;
use crate::array::Array;
use crate::block::Block;
use crate::block::alloc::block_vec;
use crate::chunks::Chunks;
use crate::element::{DType, Real};
use crate::error::{Error, Result};
use crate::graph::wire::Wire;
use crate::graph::{BlockOp, Node, block_as};

/// Most blocks along the axis (pieces: their square per group of blocks).
const MAX_RUNS: usize = 256;

/// What a sample sort's layers share.
struct Plan {
    axis: usize,
    /// `argsort`: carry positions and return them.
    with_index: bool,
    /// Blocks along the axis.
    m: usize,
    /// Samples per lane of each run.
    ks: Vec<usize>,
    /// The axis's block boundaries (`m + 1` of them).
    bounds: Vec<usize>,
}

impl Plan {
    /// `idx` with its axis entry `v`.
    fn at(&self, idx: &[usize], v: usize) -> Vec<usize> {
        let mut out = idx.to_vec();
        out[self.axis] = v;
        out
    }

    fn len(&self, b: usize) -> usize {
        self.bounds[b + 1] - self.bounds[b]
    }

    /// The place of sample `i` of run `b`.
    fn sample_pos(&self, b: usize, i: usize) -> usize {
        (i as u128 * self.len(b) as u128 / self.ks[b] as u128) as usize
    }
}

/// The order of sort keys (value with NaN last, block, place).
fn key_cmp<T: Real>(a: (&T, i64, i64), b: (&T, i64, i64)) -> Ordering {
    nan_last(a.0, b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
}

/// Sorts `values` ascending with NaN last.
pub(super) fn sort_values<T: Real>(values: &mut [T]) {
    let end = nan_to_end(values);
    values[..end].sort_unstable_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal));
}

/// Moves NaN to the end of `values` (in no order) and returns where they
/// start.
fn nan_to_end<T: Real>(values: &mut [T]) -> usize {
    // NaN moved to the end first, so that the rest sorts by a total order
    // without NaN's cases in every comparison.
    let mut end = values.len();
    let mut i = 0;
    while i < end {
        if values[i].partial_cmp(&values[i]).is_none() {
            end -= 1;
            values.swap(i, end);
        } else {
            i += 1;
        }
    }
    end
}

/// Sorts `values` made of sorted runs, ascending with NaN last: a merge
/// (std's stable sort finds the runs) by a plain comparison once NaN is out
/// of the way.
fn merge_values<T: Real>(values: &mut [T]) {
    let end = nan_to_end(values);
    values[..end].sort_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal));
}

/// Sorts each `lane`-long piece of `values` (`runs`: made of sorted runs),
/// through keys where `T` has them.
fn sort_lanes<T: Real>(values: Vec<T>, lane: usize, runs: bool) -> Vec<T> {
    keys::sort_lanes(values, lane, runs).unwrap_or_else(|mut values| {
        let sort = if runs { merge_values } else { sort_values };
        values.chunks_mut(lane.max(1)).for_each(sort);
        values
    })
}

/// A value and its position along the axis.
type Pair<T> = (T, i64);

/// Sorts `values` and their positions `index` by value with NaN last,
/// equal values by position; `runs`: the pairs are made of sorted runs,
/// which std's stable sort merges.
fn sort_pairs<T: Real>(values: &mut [T], index: &mut [i64], runs: bool) {
    if keys::sort_pairs(values, index, runs) {
        return;
    }
    let is_nan = |v: &T| v.partial_cmp(v).is_none();
    let (mut pairs, mut nan): (Vec<Pair<T>>, Vec<Pair<T>>) =
        values.iter().copied().zip(index.iter().copied()).partition(|p| !is_nan(&p.0));
    let order = |a: &(T, i64), b: &(T, i64)| a.0.partial_cmp(&b.0).unwrap_or(Ordering::Equal).then(a.1.cmp(&b.1));
    if runs {
        pairs.sort_by(order);
    } else {
        pairs.sort_unstable_by(order);
    }
    nan.sort_unstable_by_key(|p| p.1);
    pairs.extend(nan);
    values.iter_mut().zip(index.iter_mut()).zip(&pairs).for_each(|((v, i), p)| (*v, *i) = *p);
}

/// Layer 1: each block's lanes sorted.
struct Runs<T> {
    plan: Arc<Plan>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Real> BlockOp for Runs<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, node.inputs[0].chunks.linear(idx)));
    }

    fn output_bytes(&self, node: &Node, idx: &[usize]) -> Option<usize> {
        let per_value = std::mem::size_of::<T>() + if self.plan.with_index { 8 } else { 0 };
        Some(node.chunks.block_shape(idx).iter().product::<usize>() * per_value)
    }

    /// A lane's (value, position) pairs for `argsort`.
    fn scratch_bytes(&self, node: &Node, idx: &[usize]) -> usize {
        let lane_len = node.chunks.block_shape(idx)[self.plan.axis];
        if self.plan.with_index { lane_len * (std::mem::size_of::<T>() + 8) } else { 0 }
    }

    fn wire(&self) -> Option<Wire> {
        Some(LaneSet::<T>::wire())
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let block = block_as::<T>(inputs[0], node, "block")?;
        let axis = self.plan.axis;
        let len = block.shape()[axis];
        let lanes = lane_count(block.shape(), axis);
        let mut values = lanes_of(&block.view(), axis);
        let mut index = Vec::new();
        if self.plan.with_index {
            let start = self.plan.bounds[idx[axis]] as i64;
            index.reserve(values.len());
            let mut lane_index = Vec::with_capacity(len);
            for lane in values.chunks_mut(len.max(1)) {
                lane_index.clear();
                lane_index.extend((0..lane.len() as i64).map(|i| start + i));
                sort_pairs(lane, &mut lane_index, false);
                index.extend_from_slice(&lane_index);
            }
        } else {
            values = sort_lanes(values, len, false);
        }
        Ok(Arc::new(LaneSet::uniform(lanes, len, values, index)))
    }
}

/// Layer 2: `k` samples of each sorted lane, an array of elements.
struct Samples<T> {
    plan: Arc<Plan>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Real> BlockOp for Samples<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, node.inputs[0].chunks.linear(idx)));
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let run = LaneSet::<T>::of(inputs[0], node, self.plan.with_index)?;
        let shape = node.chunks.block_shape(idx);
        if run.lanes() != lane_count(&shape, self.plan.axis) {
            return Err(short_run(node, run.lanes()));
        }
        let b = idx[self.plan.axis];
        let k = self.plan.ks[b];
        let mut values = Vec::with_capacity(run.lanes() * k);
        for l in 0..run.lanes() {
            let lane = run.lane(l);
            for i in 0..k {
                let v = lane.get(self.plan.sample_pos(b, i)).ok_or_else(|| short_run(node, lane.len()))?;
                values.push(*v);
            }
        }
        Ok(Arc::new(block_of_lanes(values, &shape, self.plan.axis)?))
    }
}

fn short_run(node: &Node, len: usize) -> Error {
    Error::invalid("sorted run", len, format!("is shorter than its block in {}", node.label()))
}

/// One sample in a lane: its value, run and index among the run's samples.
struct Sample<T> {
    value: T,
    run: usize,
    i: usize,
}

/// A cut: a sort key (value, block, place); block -1 is below every key,
/// block `m` above every key.
type Cut<T> = (T, i64, i64);

/// Layer 3: per group of blocks across the axis, each output block's cuts.
struct Cuts<T> {
    plan: Arc<Plan>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Real> Cuts<T> {
    /// The lower and upper cut of each output block of one lane, from its
    /// samples sorted by key.
    fn lane_cuts(&self, samples: &[Sample<T>]) -> Vec<Cut<T>> {
        let plan = &self.plan;
        let m = plan.m;
        let place = |s: &Sample<T>| plan.sample_pos(s.run, s.i);
        // Per run, the bounds its samples passed so far put on how many of
        // its values lie below the current key.
        let mut below_at_least = vec![0usize; m];
        let mut below_at_most: Vec<usize> = (0..m).map(|b| if plan.ks[b] > 0 { 0 } else { plan.len(b) }).collect();
        let (mut sum_least, mut sum_most) = (0usize, below_at_most.iter().sum::<usize>());
        let mut least = Vec::with_capacity(samples.len());
        let mut most = Vec::with_capacity(samples.len());
        for s in samples {
            let p = place(s);
            least.push(sum_least - below_at_least[s.run] + p);
            most.push(sum_most - below_at_most[s.run] + p);
            let next = if s.i + 1 < plan.ks[s.run] { plan.sample_pos(s.run, s.i + 1) } else { plan.len(s.run) };
            sum_least = sum_least - below_at_least[s.run] + p + 1;
            sum_most = sum_most - below_at_most[s.run] + next;
            below_at_least[s.run] = p + 1;
            below_at_most[s.run] = next;
        }
        // Bounds of later keys bound earlier ones from above, of earlier
        // keys later ones from below: both made monotone.
        for t in (1..most.len()).rev() {
            most[t - 1] = most[t - 1].min(most[t]);
        }
        for t in 1..least.len() {
            least[t] = least[t].max(least[t - 1]);
        }
        let cut = |t: usize| (samples[t].value, samples[t].run as i64, place(&samples[t]) as i64);
        let mut cuts = Vec::with_capacity(2 * m);
        for j in 0..m {
            let (first, end) = (plan.bounds[j], plan.bounds[j + 1]);
            let t = most.partition_point(|&r| r <= first);
            cuts.push(if t == 0 { (T::default(), -1, 0) } else { cut(t - 1) });
            let t = least.partition_point(|&r| r < end);
            cuts.push(if t == samples.len() { (T::default(), m as i64, 0) } else { cut(t) });
        }
        cuts
    }
}

impl<T: Real> BlockOp for Cuts<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.extend((0..self.plan.m).map(|b| (0, node.inputs[0].chunks.linear(&self.plan.at(idx, b)))));
    }

    fn output_bytes(&self, node: &Node, idx: &[usize]) -> Option<usize> {
        let lanes: usize = node.chunks.block_shape(idx).iter().product();
        Some(lanes * 2 * self.plan.m * (std::mem::size_of::<T>() + 16))
    }

    fn scratch_bytes(&self, node: &Node, idx: &[usize]) -> usize {
        let lanes: usize = node.chunks.block_shape(idx).iter().product();
        lanes * self.plan.ks.iter().sum::<usize>() * (std::mem::size_of::<T>() + 32)
    }

    fn wire(&self) -> Option<Wire> {
        Some(LaneSet::<T>::wire())
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let axis = self.plan.axis;
        let blocks = inputs.iter().map(|b| block_as::<T>(b, node, "samples")).collect::<Result<Vec<_>>>()?;
        let lanes: Vec<Vec<T>> = blocks.iter().map(|b| lanes_of(&b.view(), axis)).collect();
        let n_lanes: usize = node.chunks.block_shape(idx).iter().product();
        let (mut values, mut index) = (Vec::new(), Vec::new());
        let mut samples = Vec::new();
        for l in 0..n_lanes {
            samples.clear();
            for (run, lane) in lanes.iter().enumerate() {
                let k = self.plan.ks[run];
                let lane = lane.get(l * k..(l + 1) * k).ok_or_else(|| short_run(node, lane.len()))?;
                samples.extend(lane.iter().enumerate().map(|(i, &value)| Sample { value, run, i }));
            }
            samples.sort_unstable_by(|a, b| {
                key_cmp((&a.value, a.run as i64, a.i as i64), (&b.value, b.run as i64, b.i as i64))
            });
            for (v, b, p) in self.lane_cuts(&samples) {
                values.push(v);
                index.extend([b, p]);
            }
        }
        Ok(Arc::new(LaneSet::uniform(n_lanes, 2 * self.plan.m, values, index)))
    }
}

/// Layer 4: the part of run `b` bound for output block `j`, at axis index
/// `b * m + j` of its grid.
struct Pieces<T> {
    plan: Arc<Plan>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Real> Pieces<T> {
    /// How many values of run `b`'s sorted `lane` have keys below `cut`.
    fn below(&self, lane: &[T], b: i64, cut: Cut<T>) -> usize {
        let (value, block, place) = cut;
        if block < 0 {
            return 0;
        }
        if block >= self.plan.m as i64 {
            return lane.len();
        }
        match block.cmp(&b) {
            // The cut's run comes first: this run's equal values are above it.
            Ordering::Less => lane.partition_point(|x| nan_last(x, &value) == Ordering::Less),
            Ordering::Greater => lane.partition_point(|x| nan_last(x, &value) != Ordering::Greater),
            Ordering::Equal => (place.max(0) as usize).min(lane.len()),
        }
    }
}

impl<T: Real> BlockOp for Pieces<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let b = idx[self.plan.axis] / self.plan.m;
        out.push((0, node.inputs[0].chunks.linear(&self.plan.at(idx, b))));
        out.push((1, node.inputs[1].chunks.linear(&self.plan.at(idx, 0))));
    }

    fn output_bytes(&self, node: &Node, idx: &[usize]) -> Option<usize> {
        let plan = &self.plan;
        let (b, j) = (idx[plan.axis] / plan.m, idx[plan.axis] % plan.m);
        let lanes: usize = node.chunks.block_shape(idx).iter().product();
        let total = plan.bounds[plan.m].max(1);
        let per_value = std::mem::size_of::<T>() + if plan.with_index { 8 } else { 0 };
        Some(lanes.saturating_mul(plan.len(b).saturating_mul(plan.len(j)).div_ceil(total)).saturating_mul(per_value))
    }

    fn wire(&self) -> Option<Wire> {
        Some(LaneSet::<T>::wire())
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let plan = &self.plan;
        let (b, j) = (idx[plan.axis] / plan.m, idx[plan.axis] % plan.m);
        let run = LaneSet::<T>::of(inputs[0], node, plan.with_index)?;
        let cuts = LaneSet::<T>::of(inputs[1], node, false)?;
        if cuts.lanes() != run.lanes()
            || cuts.values.len() != cuts.lanes() * 2 * plan.m
            || cuts.index.len() != 2 * cuts.values.len()
        {
            return Err(Error::invalid(
                "sort cuts",
                cuts.lanes(),
                format!("do not match the run's {} lanes", run.lanes()),
            ));
        }
        // Each lane's part first, so that the piece is allocated once.
        let parts: Vec<(usize, usize)> = (0..run.lanes())
            .map(|l| {
                let cut = |c: usize| {
                    let at = l * 2 * plan.m + 2 * j + c;
                    (cuts.values[at], cuts.index[2 * at], cuts.index[2 * at + 1])
                };
                let lane = run.lane(l);
                let lo = self.below(lane, b as i64, cut(0));
                (lo, self.below(lane, b as i64, cut(1)).max(lo))
            })
            .collect();
        let total: usize = parts.iter().map(|(lo, hi)| hi - lo).sum();
        let mut piece = LaneSet {
            bounds: Vec::with_capacity(parts.len() + 1),
            values: block_vec(total),
            index: block_vec(if plan.with_index { total } else { 0 }),
            counts: Vec::with_capacity(parts.len()),
        };
        piece.bounds.push(0);
        for (l, &(lo, hi)) in parts.iter().enumerate() {
            piece.values.extend_from_slice(&run.lane(l)[lo..hi]);
            if plan.with_index {
                let start = run.range(l).start;
                let index = run.index.get(start + lo..start + hi).ok_or_else(|| short_run(node, run.index.len()))?;
                piece.index.extend_from_slice(index);
            }
            piece.bounds.push(piece.values.len() as u64);
            piece.counts.push(lo as i64);
        }
        Ok(Arc::new(piece))
    }
}

/// Layer 5: each output block from its pieces.
struct Merge<T> {
    plan: Arc<Plan>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Real> BlockOp for Merge<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let j = idx[self.plan.axis];
        let pieces = &node.inputs[0].chunks;
        out.extend((0..self.plan.m).map(|b| (0, pieces.linear(&self.plan.at(idx, b * self.plan.m + j)))));
    }

    fn scratch_bytes(&self, node: &Node, idx: &[usize]) -> usize {
        let elems: usize = node.chunks.block_shape(idx).iter().product();
        if self.plan.with_index {
            // The merged pieces (a little over the block) and the sort's buffer.
            2 * elems * (std::mem::size_of::<T>() + 8)
        } else {
            // The merge's two buffers of keys (a lane's merge by comparison
            // where `T` has no keys).
            2 * elems.min(keys::MERGE_SEGMENT) * 8
        }
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let plan = &self.plan;
        let j = idx[plan.axis];
        let shape = node.chunks.block_shape(idx);
        let len = shape[plan.axis];
        let pieces = inputs.iter().map(|b| LaneSet::<T>::of(b, node, plan.with_index)).collect::<Result<Vec<_>>>()?;
        let lanes = lane_count(&shape, plan.axis);
        if pieces.iter().any(|p| p.lanes() != lanes || p.counts.len() != lanes) {
            return Err(Error::invalid("sort pieces", lanes, format!("disagree on their lanes in {}", node.label())));
        }
        let mut values = if plan.with_index { Vec::new() } else { block_vec(lanes * len) };
        let mut index = if plan.with_index { block_vec(lanes * len) } else { Vec::new() };
        let mut merged: Vec<T> = Vec::new();
        let mut merged_index: Vec<i64> = Vec::new();
        for l in 0..lanes {
            let base = pieces.iter().try_fold(0i64, |sum, p| sum.checked_add(p.counts[l]));
            let total: usize = pieces.iter().map(|p| p.range(l).len()).sum();
            let skip = base.and_then(|base| (plan.bounds[j] as i64).checked_sub(base)).unwrap_or(-1);
            if skip < 0 || skip as usize + len > total {
                return Err(Error::invalid(
                    "sort pieces",
                    (base, total),
                    format!(
                        "do not hold ranks {}..{} (the source changed between reads?)",
                        plan.bounds[j],
                        plan.bounds[j + 1]
                    ),
                ));
            }
            let keep = skip as usize..skip as usize + len;
            let runs: Vec<&[T]> = pieces.iter().map(|p| p.lane(l)).collect();
            if !plan.with_index && keys::merge_runs(&runs, keep.clone(), &mut values) {
                continue;
            }
            merged.clear();
            merged.reserve(total);
            runs.iter().for_each(|run| merged.extend_from_slice(run));
            if plan.with_index {
                merged_index.clear();
                merged_index.reserve(total);
                for p in &pieces {
                    merged_index
                        .extend_from_slice(p.index.get(p.range(l)).ok_or_else(|| short_run(node, p.index.len()))?);
                }
                // Equal values by position: run order, then place order.
                sort_pairs(&mut merged, &mut merged_index, true);
                index.extend_from_slice(&merged_index[keep]);
            } else {
                merged = sort_lanes(std::mem::take(&mut merged), usize::MAX, true);
                values.extend_from_slice(&merged[keep]);
            }
        }
        if plan.with_index {
            Ok(Arc::new(block_of_lanes(index, &shape, plan.axis)?))
        } else {
            Ok(Arc::new(block_of_lanes(values, &shape, plan.axis)?))
        }
    }
}

/// Samples per run: `32 (m + 1)` a lane, fewer where the samples of a group
/// of blocks (and their sort in the cuts' task) would pass a quarter of
/// `limit`, never more than the run.
fn samples_per_run(lens: &[usize], lanes: usize, item: usize, limit: usize) -> Vec<usize> {
    let m = lens.len();
    let budget = (limit / 4 / (item + 32) / (lanes.max(1) * m)).max(1);
    let k = (32 * (m + 1)).min(budget);
    lens.iter().map(|&len| k.min(len)).collect()
}

/// `x` sorted along `axis` (or, `with_index`, the positions that sort it) by
/// the sample sort of the module's docs, in blocks of `x`'s grid (the axis
/// regrouped first where it has more than [`MAX_RUNS`] blocks).
pub(super) fn sample_sort<T: Real>(x: &Array<T>, axis: usize, with_index: bool, limit: usize) -> Result<Arc<Node>> {
    let item = std::mem::size_of::<T>() + if with_index { 8 } else { 0 };
    let mut work = x.clone();
    if x.chunks().lengths()[axis].len() > MAX_RUNS {
        let lengths = x.chunks().lengths();
        let n = x.shape()[axis];
        let others: usize =
            (0..x.ndim()).filter(|&a| a != axis).map(|a| lengths[a].iter().copied().max().unwrap_or(0)).product();
        let len = (limit / item / others.max(1)).max(n.div_ceil(MAX_RUNS)).max(1);
        let mut spec: Vec<crate::chunks::AxisChunks> =
            lengths.iter().map(|l| crate::chunks::AxisChunks::Explicit(l.clone())).collect();
        spec[axis] = crate::chunks::AxisChunks::Size(len);
        work = x.rechunk(crate::chunks::ChunkSpec::per_axis(spec))?;
    }
    let chunks = work.chunks().clone();
    let lens = chunks.lengths()[axis].clone();
    let m = lens.len();
    let lanes = chunks.max_block_elems() / lens.iter().copied().max().unwrap_or(1).max(1);
    let ks = samples_per_run(&lens, lanes, item, limit);
    let plan = Arc::new(Plan { axis, with_index, m, ks: ks.clone(), bounds: chunks.boundaries(axis).to_vec() });
    let with_axis = |v: Vec<usize>| {
        let mut lengths = chunks.lengths().to_vec();
        lengths[axis] = v;
        Chunks::from_lengths(lengths)
    };
    let p = std::marker::PhantomData;
    let runs = Node::new(
        "sort-runs",
        DType::Intermediate,
        chunks.clone(),
        vec![work.node.clone()],
        Runs::<T> { plan: plan.clone(), _t: p },
    );
    let samples = Node::new(
        "sort-samples",
        T::DTYPE,
        with_axis(ks),
        vec![runs.clone()],
        Samples::<T> { plan: plan.clone(), _t: p },
    );
    let cuts = Node::new(
        "sort-cuts",
        DType::Intermediate,
        with_axis(vec![1]),
        vec![samples],
        Cuts::<T> { plan: plan.clone(), _t: p },
    );
    let pieces = Node::new(
        "sort-pieces",
        DType::Intermediate,
        with_axis(vec![1; m * m]),
        vec![runs, cuts],
        Pieces::<T> { plan: plan.clone(), _t: p },
    );
    let (name, dtype) = if with_index { ("argsort", DType::I64) } else { ("sort", T::DTYPE) };
    Ok(Node::new(name, dtype, chunks, vec![pieces], Merge::<T> { plan, _t: p }))
}
