//! Elementwise layers: NumPy broadcasting, chunk unification by common refinement,
//! and the fused tile kernel.

pub(crate) mod cuda;
pub(crate) mod expr;
mod arith;
mod loops;
mod ops;
pub(crate) mod ufunc;
mod stream;

pub use ops::{Operand, where_};
pub(crate) use ops::{binary, unary};
pub(crate) use stream::{TileStream, stream};
pub use ufunc::CloseOptions;

use std::any::Any;
use std::sync::Arc;

use ndarray::ArrayD;

use crate::block::Block;
use crate::block::device::device_parts;
use crate::chunks::{Chunks, refine};
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::Fusable;
use crate::graph::{BlockOp, Node};
use expr::{Expr, Rebind};

/// How one leaf's blocks line up with the output grid. A leaf may be read through
/// an axis permutation (a transpose fused into the kernel: no copy is made).
struct LeafMap {
    /// Output axes minus leaf axes (leaves are aligned to the right, as in NumPy).
    lead: usize,
    /// Leaf view axis `la` is axis `perm[la]` of the leaf node.
    perm: Vec<usize>,
    /// Per view axis: `None` when broadcast (length 1 against a longer output axis),
    /// else the leaf block (along the node's axis) holding each output block.
    axes: Vec<Option<Vec<usize>>>,
}

impl LeafMap {
    fn new(leaf: &Node, perm: Option<&[usize]>, out: &Chunks) -> LeafMap {
        let src = leaf.shape();
        let perm: Vec<usize> = perm.map_or_else(|| (0..src.len()).collect(), <[usize]>::to_vec);
        let oshape = out.shape();
        let lead = oshape.len() - src.len();
        let axes = perm
            .iter()
            .enumerate()
            .map(|(la, &sa)| {
                let a = la + lead;
                if src[sa] == 1 && oshape[a] != 1 {
                    None
                } else {
                    Some((0..out.lengths()[a].len()).map(|i| leaf.chunks.block_of(sa, out.offset(a, i))).collect())
                }
            })
            .collect();
        LeafMap { lead, perm, axes }
    }

    /// The leaf node's block index (in its own axis order) for output block `idx`.
    /// Where output block `idx` (starting at `start`, `ndim` axes) reads this
    /// leaf: the element offset of its first element in the leaf block and the
    /// element stride along each output axis (0 where broadcast), given the
    /// leaf block's own strides. `li` is scratch for the leaf block's index.
    fn output_view(
        &self,
        leaf: &Node,
        idx: &[usize],
        start: &[usize],
        leaf_strides: &[isize],
        li: &mut Vec<usize>,
    ) -> (isize, Vec<isize>) {
        self.leaf_block(idx, li);
        let leaf_start = leaf.chunks.block_start(li);
        let mut strides = vec![0isize; start.len()];
        let mut offset = 0isize;
        for (la, axis_map) in self.axes.iter().enumerate() {
            if axis_map.is_some() {
                let (a, sa) = (la + self.lead, self.perm[la]);
                strides[a] = leaf_strides[sa];
                offset += (start[a] - leaf_start[sa]) as isize * leaf_strides[sa];
            }
        }
        (offset, strides)
    }

    fn leaf_block(&self, idx: &[usize], out: &mut Vec<usize>) {
        out.clear();
        out.resize(self.perm.len(), 0);
        for (la, m) in self.axes.iter().enumerate() {
            out[self.perm[la]] = m.as_ref().map_or(0, |m| m[idx[la + self.lead]]);
        }
    }
}

/// The broadcast shape and unified chunks of several operands.
pub(crate) fn broadcast_chunks(op: &str, leaves: &[&Node]) -> Result<Chunks> {
    let ndim = leaves.iter().map(|n| n.chunks.ndim()).max().unwrap_or(0);
    let mut lengths = Vec::with_capacity(ndim);
    for a in 0..ndim {
        let mut dim = 1usize;
        let mut owner: Option<&Node> = None;
        for n in leaves {
            let shape = n.shape();
            let Some(la) = (a + shape.len()).checked_sub(ndim) else {
                continue;
            };
            let d = shape[la];
            if d != 1 {
                if dim != 1 && d != dim {
                    return Err(Error::shape(op, &owner.map(|o| o.shape()).unwrap_or_default(), &shape));
                }
                dim = d;
                owner = Some(n);
            }
        }
        let bounds: Vec<&[usize]> = leaves
            .iter()
            .filter_map(|n| {
                let la = (a + n.chunks.ndim()).checked_sub(ndim)?;
                (n.shape()[la] == dim).then(|| n.chunks.boundaries(la))
            })
            .collect();
        lengths.push(refine(&bounds));
    }
    Ok(Chunks::from_lengths(lengths))
}

/// The elementwise layer: output block = expression over the leaf blocks holding it.
pub(crate) struct ElementwiseOp<T: Element> {
    expr: Expr<T>,
    maps: Vec<LeafMap>,
    /// The CUDA kernel of the whole expression, made on first use on a CUDA
    /// device (`None`: some part has no exact device form).
    cuda_source: std::sync::OnceLock<Option<String>>,
}

/// Builds an elementwise layer over `leaves` (duplicates allowed) computing `expr`.
pub(crate) fn build<T: Element>(name: &str, leaves: Vec<Arc<Node>>, expr: Expr<T>) -> Result<Arc<Node>> {
    for l in &leaves {
        l.check()?;
    }
    let refs: Vec<&Node> = leaves.iter().map(|n| &**n).collect();
    let chunks = broadcast_chunks(name, &refs)?;
    let mut unique: Vec<Arc<Node>> = Vec::new();
    let positions: Vec<usize> = leaves
        .iter()
        .map(|l| match unique.iter().position(|u| u.id == l.id) {
            Some(p) => p,
            None => {
                unique.push(l.clone());
                unique.len() - 1
            }
        })
        .collect();
    let expr = if unique.len() == leaves.len() { expr } else { expr.rebind(&|i| Rebind::Index(positions[i])) };
    Ok(make_node(name, chunks, unique.into_iter().map(|l| (l, None)).collect(), expr))
}

/// A leaf: a node, read through an axis permutation or not.
type LeafSpec = (Arc<Node>, Option<Vec<usize>>);

fn make_node<T: Element>(name: &str, chunks: Chunks, leaves: Vec<LeafSpec>, expr: Expr<T>) -> Arc<Node> {
    let maps = leaves.iter().map(|(l, p)| LeafMap::new(l, p.as_deref(), &chunks)).collect();
    let nodes = leaves.into_iter().map(|(l, _)| l).collect();
    Node::new(name, T::DTYPE, chunks, nodes, ElementwiseOp { expr, maps, cuda_source: std::sync::OnceLock::new() })
}

/// A leaf block's memory, as the kernel reads it.
struct RawView {
    ptr: *const u8,
    len: usize,
    /// Offset of the logical first element from `ptr`.
    base: isize,
    strides: Vec<isize>,
}

fn raw_view<U: Element>(block: &Block, copies: &mut Vec<Block>) -> Option<RawView> {
    let mut a = block.as_any().downcast_ref::<ArrayD<U>>()?;
    if a.as_slice_memory_order().is_none() {
        copies.push(Arc::new(crate::block::alloc::owned_block(a.view())));
        a = copies.last()?.as_any().downcast_ref::<ArrayD<U>>()?;
    }
    let s = a.as_slice_memory_order()?;
    let base = (a.as_ptr() as isize - s.as_ptr() as isize) / std::mem::size_of::<U>() as isize;
    Some(RawView { ptr: s.as_ptr() as *const u8, len: s.len(), base, strides: a.strides().to_vec() })
}

impl<T: Element> BlockOp for ElementwiseOp<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let mut li = Vec::new();
        for (k, m) in self.maps.iter().enumerate() {
            m.leaf_block(idx, &mut li);
            out.push((k, node.inputs[k].chunks.linear(&li)));
        }
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        if let Some(device) = node.device_at(idx)
            && self.has_device_kernel(node)
        {
            return self.run_cuda(node, idx, inputs, device);
        }
        let shape = node.chunks.block_shape(idx);
        let mut stream = TileStream::new(self, node, idx, inputs)?;
        let mut out: Vec<T> = crate::block::alloc::block_vec(stream.remaining);
        loop {
            let tile = stream.pull(usize::MAX);
            if tile.is_empty() {
                break;
            }
            out.extend_from_slice(tile);
        }
        let arr = ArrayD::from_shape_vec(shape, out).map_err(|e| Error::invalid("block", idx, e.to_string()))?;
        Ok(Arc::new(arr))
    }

    fn as_elementwise(&self) -> Option<&dyn Fusable> {
        Some(self)
    }

    /// On a CUDA device, a chain with a device form runs as one generated
    /// kernel; anything else goes through host copies.
    fn has_device_kernel(&self, node: &Node) -> bool {
        node.device.as_ref().is_some_and(|p| p.is_cuda()) && self.cuda_kernel(node).is_some()
    }
}

impl<T: Element> ElementwiseOp<T> {
    /// The layer's CUDA kernel (see [`cuda`]): inputs of device element types
    /// and an output a device holds (not bool).
    pub(crate) fn cuda_kernel(&self, node: &Node) -> Option<&str> {
        self.cuda_source
            .get_or_init(|| {
                let dtypes: Vec<DType> = node.inputs.iter().map(|n| n.dtype).collect();
                let on_device = crate::block::device::is_device_dtype;
                if !on_device(T::DTYPE) || !dtypes.iter().all(|&d| on_device(d)) {
                    return None;
                }
                cuda::kernel_source(T::DTYPE, &dtypes, &self.expr.cuda()?)
            })
            .as_deref()
    }

    /// The block by the generated kernel on a CUDA device: each input's
    /// offset and strides along the output block's axes go in `meta`.
    fn run_cuda(&self, node: &Node, idx: &[usize], inputs: &[&Block], device: &chunked_gpu::Device) -> Result<Block> {
        let source = self.cuda_kernel(node).expect("has_device_kernel checked the kernel");
        let shape = node.chunks.block_shape(idx);
        let start = node.chunks.block_start(idx);
        let ndim = shape.len();
        let mut meta: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let mut held: Vec<Block> = Vec::with_capacity(inputs.len());
        let mut contiguous = true;
        // The output block's own C-order strides: a leaf read with them (and
        // no offset) is read as the kernel writes.
        let own = c_strides(&shape);
        let mut li = Vec::new();
        for (k, leaf) in node.inputs.iter().enumerate() {
            let block = crate::block::device::to_device_block(inputs[k].clone(), device)?;
            let leaf_shape =
                device_parts(&block).map(|(shape, _)| shape.to_vec()).ok_or_else(|| Error::DtypeMismatch {
                    key: format!("leaf {k} of {}", node.label()),
                    expected: leaf.dtype.to_string(),
                    found: "a block the device cannot hold".into(),
                })?;
            let (offset, strides) = self.maps[k].output_view(leaf, idx, &start, &c_strides(&leaf_shape), &mut li);
            contiguous &= offset == 0 && (0..ndim).all(|a| shape[a] == 1 || strides[a] == own[a]);
            meta.push(offset as i64);
            meta.extend(strides.iter().map(|&s| s as i64));
            held.push(block);
        }
        let args: Vec<&dyn chunked_gpu::kernels::KernelInput> =
            held.iter().map(|b| device_parts(b).expect("device element blocks").1).collect();
        fn launch<X: chunked_gpu::DeviceElement>(
            device: &chunked_gpu::Device,
            source: &str,
            shape: Vec<usize>,
            ndim: usize,
            meta: &[i64],
            contiguous: bool,
            args: &[&dyn chunked_gpu::kernels::KernelInput],
        ) -> Result<Block> {
            let mut buffer = device.zeros::<X>(shape.iter().product())?;
            chunked_gpu::kernels::launch_elementwise(source, &mut buffer, ndim, meta, contiguous, args)?;
            Ok(Arc::new(crate::device::DeviceBlock { buffer, shape }))
        }
        crate::block::device::dispatch_device_dtype!(
            T::DTYPE,
            launch::<_>(device, source, shape, ndim, &meta, contiguous, &args)
        )
    }
}

/// Element strides of a C-order array of `shape`.
fn c_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for a in (0..shape.len()).rev() {
        strides[a] = acc;
        acc *= shape[a] as isize;
    }
    strides
}

impl<T: Element> Fusable for ElementwiseOp<T> {
    fn cuda_kernel_source(&self, node: &Node) -> Option<String> {
        self.cuda_kernel(node).map(str::to_string)
    }

    fn expr_rebased(&self, index_of: &dyn Fn(usize) -> usize) -> Arc<dyn Any + Send + Sync> {
        let e: Expr<T> = self.expr.rebind(&|i| Rebind::Index(index_of(i)));
        Arc::new(e)
    }

    fn rebuild(&self, node: &Node, inputs: Vec<Arc<Node>>, inline: &[bool]) -> Arc<Node> {
        let mut leaves: Vec<LeafSpec> = Vec::new();
        let mut intern = |n: &Arc<Node>, perm: Option<Vec<usize>>| -> usize {
            leaves.iter().position(|(l, p)| l.id == n.id && *p == perm).unwrap_or_else(|| {
                leaves.push((n.clone(), perm));
                leaves.len() - 1
            })
        };
        let mut binds: Vec<Rebind> = Vec::with_capacity(inputs.len());
        let mut name = node.name.clone();
        for (k, input) in inputs.iter().enumerate() {
            // This op's own leaf k may already be read through a permutation.
            let own_perm = self.maps[k].perm.clone();
            let identity = own_perm.iter().enumerate().all(|(i, &p)| i == p);
            if inline[k] && identity {
                if let Some(child) = input.op.as_elementwise() {
                    let child_maps = child.leaf_perms();
                    let idx: Vec<usize> = input.inputs.iter().zip(child_maps).map(|(l, p)| intern(l, p)).collect();
                    binds.push(Rebind::Inline(child.expr_rebased(&|j| idx[j])));
                    name = format!("{}-{}", input.name, name);
                    continue;
                }
                if let Some(perm) = input.op.as_permutation() {
                    binds.push(Rebind::Index(intern(&input.inputs[0], Some(perm.to_vec()))));
                    name = format!("transpose-{name}");
                    continue;
                }
            }
            binds.push(Rebind::Index(intern(input, (!identity).then_some(own_perm))));
        }
        let expr = self.expr.rebind(&|k| match &binds[k] {
            Rebind::Index(i) => Rebind::Index(*i),
            Rebind::Inline(e) => Rebind::Inline(e.clone()),
        });
        make_node(&name, node.chunks.clone(), leaves, expr)
    }

    fn leaf_perms(&self) -> Vec<Option<Vec<usize>>> {
        self.maps.iter().map(|m| (!m.perm.iter().enumerate().all(|(i, &p)| i == p)).then(|| m.perm.clone())).collect()
    }

    fn describe(&self) -> String {
        self.expr.describe()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn depth(&self) -> usize {
        self.expr.depth()
    }
}
