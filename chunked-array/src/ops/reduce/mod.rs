//! Reductions as trees: a partial reduction per block, then combine levels that
//! merge `split_every` partials at a time (dask's `split_every`), the last level
//! finishing into the result type.

mod api;
mod complex;
mod cumulative;
mod nanfuncs;
mod quantile;
mod reducers;
pub(crate) mod user;

pub use api::ReduceOptions;
pub use quantile::{QuantileMethod, QuantileOptions};
pub use user::ReductionOptions;

use std::sync::Arc;

use ndarray::{ArrayD, IxDyn};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{Chunks, for_each_in_box, for_each_run_start};
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};

/// Default number of partials merged per tree node, as dask.
pub const DEFAULT_SPLIT_EVERY: usize = 4;

/// Which global index an arg-reduction sees for each element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IndexMode {
    /// Not needed.
    None,
    /// Position along the one reduced axis.
    Axis,
    /// Flat C-order index in the whole array.
    Flat,
}

/// One kind of reduction: per-element accumulation, merging, finishing.
pub(crate) trait Reducer: Send + Sync + 'static {
    type In: Element;
    /// Plain values, so that partials can travel between MPI ranks.
    type Acc: crate::element::WireValue;
    type Out: Element;
    const INDEX: IndexMode = IndexMode::None;
    /// Whether reducing an empty set has a value (min/max do not).
    const HAS_IDENTITY: bool = true;
    fn identity(&self) -> Self::Acc;
    /// Folds a contiguous run of reduced elements; `index` is the global index of `lane[0]`.
    fn fold_lane(&self, acc: &mut Self::Acc, lane: &[Self::In], index: i64);
    /// Folds one element into each accumulator; `index` is the row's global index.
    fn fold_row(&self, accs: &mut [Self::Acc], row: &[Self::In], index: i64);
    fn merge(&self, a: &mut Self::Acc, b: &Self::Acc);
    fn finish(&self, a: &Self::Acc) -> Self::Out;
    /// The CUDA kernel computing this reduction's partials, for reducers
    /// whose accumulator is their output and whose `finish` is the identity
    /// (`None`, the default: partials of device blocks are made on the host).
    fn device_op(&self) -> Option<chunked_gpu::reduce::ReduceOp> {
        None
    }
}

/// Where a partial reduction reads its block, in C order: a computed block, or an
/// elementwise layer's tiles (so the elementwise result is never materialized).
pub(crate) trait Source<T> {
    /// The next at most `max` values (fewer is fine; never empty before the end).
    fn pull(&mut self, max: usize) -> &[T];
}

struct SliceSource<'a, T> {
    data: &'a [T],
    pos: usize,
}

impl<T> Source<T> for SliceSource<'_, T> {
    #[inline]
    fn pull(&mut self, max: usize) -> &[T] {
        let n = max.min(self.data.len() - self.pos);
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        out
    }
}

impl<T: Element> Source<T> for crate::ops::elementwise::TileStream<'_, T> {
    #[inline]
    fn pull(&mut self, max: usize) -> &[T] {
        crate::ops::elementwise::TileStream::pull(self, max)
    }
}

/// Partial reduction of one block of shape `shape`, read from `src`, over the
/// `reduced` axes, keeping them as length-1 axes.
pub(crate) fn reduce_block<R: Reducer>(
    r: &R,
    src: &mut impl Source<R::In>,
    shape: &[usize],
    reduced: &[bool],
    start: &[usize],
    full: &[usize],
) -> ArrayD<R::Acc> {
    let out_shape: Vec<usize> = shape.iter().zip(reduced).map(|(&n, &red)| if red { 1 } else { n }).collect();
    let out_len: usize = out_shape.iter().product();
    let mut acc = vec![r.identity(); out_len];
    if shape.iter().product::<usize>() > 0 {
        if R::INDEX == IndexMode::Flat {
            fold_flat(r, &mut acc[0], src, shape, start, full);
        } else {
            fold_groups(r, &mut acc, src, shape, reduced, start);
        }
    }
    ArrayD::from_shape_vec(IxDyn(&out_shape), acc).expect("length matches shape")
}

/// Every axis reduced, each element seen with its global flat index.
fn fold_flat<R: Reducer>(
    r: &R,
    acc: &mut R::Acc,
    src: &mut impl Source<R::In>,
    shape: &[usize],
    start: &[usize],
    full: &[usize],
) {
    let inner = shape.last().copied().unwrap_or(1);
    let outer = &shape[..shape.len().saturating_sub(1)];
    for_each_run_start(full, start, outer, |g| {
        let mut done = 0;
        while done < inner {
            let piece = src.pull(inner - done);
            r.fold_lane(acc, piece, g as i64 + done as i64);
            done += piece.len();
        }
    });
}

/// Axes merged into alternating groups of reduced and kept axes; the innermost
/// group is folded as lanes (reduced) or rows (kept), piece by piece.
fn fold_groups<R: Reducer>(
    r: &R,
    acc: &mut [R::Acc],
    src: &mut impl Source<R::In>,
    shape: &[usize],
    reduced: &[bool],
    start: &[usize],
) {
    let mut groups: Vec<(usize, bool)> = Vec::new();
    let mut axis_start = 0i64;
    for (a, (&n, &red)) in shape.iter().zip(reduced).enumerate() {
        if red {
            axis_start = start[a] as i64;
        }
        // Reducing a length-1 axis is the identity: treating it as kept merges it
        // with its neighbours, so that the other axes fold in long runs.
        let red = red && n != 1;
        match groups.last_mut() {
            Some((len, g)) if *g == red => *len *= n,
            _ => groups.push((n, red)),
        }
    }
    if groups.is_empty() {
        groups.push((1, false));
    }
    // Element strides of the kept groups in the output.
    let mut out_stride = vec![0usize; groups.len()];
    let mut so = 1usize;
    for (g, &(len, red)) in groups.iter().enumerate().rev() {
        if !red {
            out_stride[g] = so;
            so *= len;
        }
    }
    let (inner_len, inner_red) = *groups.last().expect("at least one group");
    let outer = &groups[..groups.len() - 1];
    let nrows: usize = outer.iter().map(|g| g.0).product();
    let mut counter = vec![0usize; outer.len()];
    let mut off_out = 0usize;
    for _ in 0..nrows {
        // The reduced position of this row (arg-reductions have one reduced group).
        let row_pos = outer.iter().zip(&counter).find(|(g, _)| g.1).map_or(0, |(_, &c)| c as i64);
        let mut done = 0;
        while done < inner_len {
            let piece = src.pull(inner_len - done);
            let k = piece.len();
            if inner_red {
                r.fold_lane(&mut acc[off_out], piece, axis_start + done as i64);
            } else {
                r.fold_row(&mut acc[off_out + done..off_out + done + k], piece, axis_start + row_pos);
            }
            done += k;
        }
        for g in (0..outer.len()).rev() {
            counter[g] += 1;
            if !outer[g].1 {
                off_out += out_stride[g];
            }
            if counter[g] < outer[g].0 {
                break;
            }
            if !outer[g].1 {
                off_out -= out_stride[g] * outer[g].0;
            }
            counter[g] = 0;
        }
    }
}

/// Drops the reduced (length-1) axes unless `keepdims`.
fn finish_block<R: Reducer>(r: &R, acc: &ArrayD<R::Acc>, reduced: &[bool], keepdims: bool) -> ArrayD<R::Out> {
    let out = acc.map(|a| r.finish(a));
    if keepdims {
        return out;
    }
    let shape: Vec<usize> = out.shape().iter().zip(reduced).filter(|&(_, &red)| !red).map(|(&n, _)| n).collect();
    out.into_shape_with_order(IxDyn(&shape)).expect("removing length-1 axes")
}

struct Plan {
    reduced: Vec<bool>,
    keepdims: bool,
}

impl Plan {
    /// The index in a grid with every axis from an output index that may lack the
    /// reduced axes (the last level without `keepdims`).
    fn full_index(&self, idx: &[usize], last: bool) -> Vec<usize> {
        if !last || self.keepdims {
            return idx.to_vec();
        }
        let mut it = idx.iter();
        self.reduced.iter().map(|&red| if red { 0 } else { *it.next().expect("kept axis") }).collect()
    }
}

/// First level: reduce each block (finishing at once when it is the only level).
/// With `fused`, the block is the output of that elementwise layer, folded tile by
/// tile as it is evaluated; the layer's inputs are then this layer's inputs.
struct Partial<R> {
    r: Arc<R>,
    plan: Arc<Plan>,
    last: bool,
    fused: Option<Arc<Node>>,
}

impl<R: Reducer> Partial<R> {
    fn finish(&self, acc: ArrayD<R::Acc>) -> Block {
        if self.last {
            Arc::new(finish_block(&*self.r, &acc, &self.plan.reduced, self.plan.keepdims))
        } else {
            Arc::new(acc)
        }
    }
}

impl<R: Reducer> Partial<R> {
    /// Whether this layer's partials run as a CUDA kernel: a reducer with
    /// one, reading device element blocks (not bool) on a CUDA device.
    fn on_cuda(&self, node: &Node) -> bool {
        self.r.device_op().is_some()
            && self.fused.is_none()
            && crate::block::device::is_device_dtype(R::In::DTYPE)
            && crate::block::device::is_device_dtype(R::Out::DTYPE)
            && node.device.as_ref().is_some_and(|p| p.is_cuda())
    }

    /// The partial (or, at the last level, the result) of block `idx` by the
    /// reduction kernels: the block stays on the device, and so does its
    /// partial, until a combine level takes the (small) partials to the host.
    fn run_cuda(&self, node: &Node, idx: &[usize], inputs: &[&Block], device: &chunked_gpu::Device) -> Result<Block> {
        use chunked_gpu::reduce::{ReduceLayout, launch_reduce, source};
        let op = self.r.device_op().expect("on_cuda checked");
        let full = self.plan.full_index(idx, self.last);
        let block = crate::block::device::to_device_block(inputs[0].clone(), device)?;
        let (in_shape, input) = crate::block::device::device_parts(&block).ok_or_else(|| Error::DtypeMismatch {
            key: format!("{} input block {full:?}", node.label()),
            expected: R::In::DTYPE.to_string(),
            found: "a block the device cannot hold".into(),
        })?;
        let layout = ReduceLayout::new(in_shape, &self.plan.reduced);
        let in_c = crate::ops::elementwise::cuda::c_type(R::In::DTYPE).expect("device element type");
        let shape = node.chunks.block_shape(idx);
        fn launch<A: chunked_gpu::DeviceElement>(
            device: &chunked_gpu::Device,
            op: chunked_gpu::reduce::ReduceOp,
            in_c: &str,
            input: &dyn chunked_gpu::kernels::KernelInput,
            layout: &ReduceLayout,
            shape: Vec<usize>,
        ) -> Result<Block> {
            let mut buffer = device.zeros::<A>(layout.outputs())?;
            launch_reduce(&source::<A>(op, in_c), input, layout, &mut buffer)?;
            Ok(Arc::new(crate::device::DeviceBlock { buffer, shape }))
        }
        // on_cuda refuses bool outputs.
        crate::block::device::dispatch_device_dtype!(
            R::Out::DTYPE,
            launch::<_>(device, op, in_c, input, &layout, shape)
        )
    }
}

impl<R: Reducer> BlockOp for Partial<R> {
    fn has_device_kernel(&self, node: &Node) -> bool {
        self.on_cuda(node)
    }

    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let full = self.plan.full_index(idx, self.last);
        match &self.fused {
            Some(ew) => ew.op.deps(ew, &full, out),
            None => out.push((0, node.inputs[0].chunks.linear(&full))),
        }
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        if let Some(device) = node.device_at(idx).filter(|_| self.on_cuda(node)) {
            return self.run_cuda(node, idx, inputs, device);
        }
        let full = self.plan.full_index(idx, self.last);
        let grid_node = self.fused.as_ref().unwrap_or(&node.inputs[0]);
        let start = grid_node.chunks.block_start(&full);
        let shape = grid_node.chunks.block_shape(&full);
        let global = grid_node.shape();
        let acc = match &self.fused {
            Some(ew) => {
                let mut src = crate::ops::elementwise::stream::<R::In>(ew, &full, inputs)?;
                reduce_block(&*self.r, &mut src, &shape, &self.plan.reduced, &start, &global)
            }
            None => {
                let block = block_as::<R::In>(inputs[0], node, "reduction")?;
                let data = block.as_standard_layout();
                let data = data.as_slice().expect("standard layout");
                let mut src = SliceSource { data, pos: 0 };
                reduce_block(&*self.r, &mut src, &shape, &self.plan.reduced, &start, &global)
            }
        };
        Ok(self.finish(acc))
    }

    fn wire(&self) -> Option<crate::graph::wire::Wire> {
        Some(crate::graph::wire::Wire::values::<R::Acc>())
    }

    fn absorb_input(&self, node: &Node, input: &Arc<Node>) -> Option<Arc<Node>> {
        if self.fused.is_some() || input.op.as_elementwise().is_none() || input.dtype != R::In::DTYPE {
            return None;
        }
        // On a CUDA device the chain runs as its own kernel and the partials
        // as the reduction's, both on the device; fused, they would run on
        // host copies.
        if self.on_cuda(node) {
            return None;
        }
        let op = Partial { r: self.r.clone(), plan: self.plan.clone(), last: self.last, fused: Some(input.clone()) };
        Some(Node::new(
            format!("{}-{}", input.name, node.name),
            node.dtype,
            node.chunks.clone(),
            input.inputs.clone(),
            op,
        ))
    }
}

/// A tree level: merges up to `group[a]` partials along each reduced axis.
struct Combine<R> {
    r: Arc<R>,
    plan: Arc<Plan>,
    group: Vec<usize>,
    last: bool,
}

impl<R: Reducer> BlockOp for Combine<R> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let input = &node.inputs[0].chunks;
        let grid = input.grid();
        let full = self.plan.full_index(idx, self.last);
        let lo: Vec<usize> = full.iter().zip(&self.group).map(|(&i, &k)| i * k).collect();
        let hi: Vec<usize> = lo.iter().zip(&self.group).zip(&grid).map(|((&l, &k), &g)| (l + k).min(g)).collect();
        for_each_in_box(&lo, &hi, |b| out.push((0, input.linear(b))));
    }

    fn wire(&self) -> Option<crate::graph::wire::Wire> {
        Some(crate::graph::wire::Wire::values::<R::Acc>())
    }

    fn run(&self, node: &Node, _: &[usize], inputs: &[&Block]) -> Result<Block> {
        let mut acc = block_as::<R::Acc>(inputs[0], node, "partial")?.clone();
        for b in &inputs[1..] {
            let other = block_as::<R::Acc>(b, node, "partial")?;
            if other.shape() != acc.shape() {
                return Err(Error::shape("combine partials", acc.shape(), other.shape()));
            }
            acc.zip_mut_with(other, |a, b| self.r.merge(a, b));
        }
        if self.last {
            Ok(Arc::new(finish_block(&*self.r, &acc, &self.plan.reduced, self.plan.keepdims)))
        } else {
            Ok(Arc::new(acc))
        }
    }
}

/// Normalizes axes (negative counts from the end) and rejects repeats.
pub(crate) fn normalize_axes(axes: &[isize], ndim: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = if a < 0 { a + ndim as isize } else { a };
        if n < 0 || n >= ndim as isize {
            return Err(Error::BadAxis { axis: a, ndim, detail: String::new() });
        }
        if out.contains(&(n as usize)) {
            return Err(Error::BadAxis { axis: a, ndim, detail: " (given twice)".into() });
        }
        out.push(n as usize);
    }
    Ok(out)
}

/// Builds the reduction tree of `r` over `x`.
pub(crate) fn reduction<R: Reducer>(
    name: &str,
    x: &Array<R::In>,
    r: R,
    axes: Option<&[isize]>,
    keepdims: bool,
    split_every: usize,
) -> Result<Array<R::Out>> {
    x.check()?;
    let ndim = x.ndim();
    let shape = x.shape();
    let axes = match axes {
        Some(a) => normalize_axes(a, ndim)?,
        None => (0..ndim).collect(),
    };
    if split_every < 2 {
        return Err(Error::invalid("split_every", split_every, "must be at least 2"));
    }
    if R::INDEX == IndexMode::Axis && axes.len() != 1 {
        return Err(Error::invalid("axis", &axes, "an arg-reduction takes one axis or none"));
    }
    if !R::HAS_IDENTITY && axes.iter().any(|&a| shape[a] == 0) {
        return Err(Error::invalid(
            "axis",
            &axes,
            format!("{name} of an empty axis of shape {shape:?} has no identity"),
        ));
    }
    let reduced: Vec<bool> = (0..ndim).map(|a| axes.contains(&a)).collect();
    let plan = Arc::new(Plan { reduced: reduced.clone(), keepdims });
    let r = Arc::new(r);
    let final_chunks = {
        let lengths = x.chunks().lengths();
        let kept = (0..ndim).filter_map(|a| match (reduced[a], keepdims) {
            (false, _) => Some(lengths[a].clone()),
            (true, true) => Some(vec![1]),
            (true, false) => None,
        });
        Chunks::from_lengths(kept.collect())
    };
    // Per reduced axis, how many partials one tree node merges (dask's rule).
    let per_axis = ((split_every as f64).powf(1.0 / axes.len().max(1) as f64) as usize).max(2);
    let mut grid = x.chunks().grid();
    let level_chunks = |grid: &[usize]| -> Chunks {
        let lengths = x.chunks().lengths();
        Chunks::from_lengths(
            (0..ndim).map(|a| if reduced[a] { vec![1; grid[a]] } else { lengths[a].clone() }).collect(),
        )
    };
    let done = |grid: &[usize]| (0..ndim).all(|a| !reduced[a] || grid[a] == 1);
    let last = done(&grid);
    let (chunks, dtype, label) = if last {
        (final_chunks.clone(), R::Out::DTYPE, name.to_string())
    } else {
        (level_chunks(&grid), DType::Intermediate, format!("{name}-partial"))
    };
    let mut node = Node::new(
        label,
        dtype,
        chunks,
        vec![x.node.clone()],
        Partial { r: r.clone(), plan: plan.clone(), last, fused: None },
    );
    if last {
        return Array::built(node);
    }
    loop {
        let group: Vec<usize> = (0..ndim).map(|a| if reduced[a] { per_axis } else { 1 }).collect();
        grid = grid.iter().zip(&group).map(|(&g, &k)| g.div_ceil(k)).collect();
        let last = done(&grid);
        let (chunks, dtype, label) = if last {
            (final_chunks.clone(), R::Out::DTYPE, name.to_string())
        } else {
            (level_chunks(&grid), DType::Intermediate, format!("{name}-combine"))
        };
        node = Node::new(label, dtype, chunks, vec![node], Combine { r: r.clone(), plan: plan.clone(), group, last });
        if last {
            return Array::built(node);
        }
    }
}
