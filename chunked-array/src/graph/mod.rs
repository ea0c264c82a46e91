//! The two-level graph: expression layers (nodes, built in O(layers)) and the
//! task graph materialized from them at compute time for the needed blocks only.

pub(crate) mod optimize;
mod order;
pub mod task;
pub mod wire;

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use ndarray::ArrayD;

use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::DType;
use crate::error::{Error, Result};

/// Downcasts a block to the array type a kernel expects.
pub(crate) fn block_as<'a, T: 'static>(block: &'a Block, node: &Node, what: &str) -> Result<&'a ArrayD<T>> {
    block.as_any().downcast_ref::<ArrayD<T>>().ok_or_else(|| Error::DtypeMismatch {
        key: format!("{} input of {}", what, node.label()),
        expected: std::any::type_name::<T>().to_string(),
        found: "another type".to_string(),
    })
}

/// Input position meaning "this layer itself" in [`BlockOp::deps`], for chains
/// such as a scan's carries where block j reads block j-1 of the same layer.
pub(crate) const SELF: usize = usize::MAX;

/// An elementwise layer the optimizer can fuse.
pub(crate) trait Fusable {
    /// This layer's expression (an `Arc<dyn TileExpr<T>>`) with leaf `i` renumbered to `index_of(i)`.
    fn expr_rebased(&self, index_of: &dyn Fn(usize) -> usize) -> Arc<dyn Any + Send + Sync>;
    /// This layer over `inputs`, with the inputs marked in `inline` fused into it.
    fn rebuild(&self, node: &Node, inputs: Vec<Arc<Node>>, inline: &[bool]) -> Arc<Node>;
    /// The expression in readable form.
    fn describe(&self) -> String;
    /// The concrete op, for consumers that fuse it (reductions).
    fn as_any(&self) -> &dyn Any;
    /// Per leaf, the axis permutation it is read through, if any.
    fn leaf_perms(&self) -> Vec<Option<Vec<usize>>>;
    /// Nesting depth of the expression.
    fn depth(&self) -> usize;
    /// The CUDA kernel the layer runs as on a CUDA device, if it has one.
    fn cuda_kernel_source(&self, node: &Node) -> Option<String>;
}

/// How a layer computes its blocks. Implemented once per kind of layer.
pub(crate) trait BlockOp: Send + Sync + 'static {
    /// Pushes the input blocks that output block `idx` reads, as
    /// (input position in `node.inputs`, C-order linear block number in that input).
    /// `run` receives them in the same order.
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>);
    /// Computes output block `idx` from its inputs.
    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block>;
    /// Bytes of output block `idx` when the layer holds intermediate values (for
    /// element layers the dtype and shape say it); `None`: unknown. Used by the
    /// plan-time memory check.
    fn output_bytes(&self, _node: &Node, _idx: &[usize]) -> Option<usize> {
        None
    }
    /// Bytes the kernel allocates for itself while computing block `idx`
    /// (workspace beyond its inputs and output).
    fn scratch_bytes(&self, _node: &Node, _idx: &[usize]) -> usize {
        0
    }
    /// How this layer's blocks travel to another process, for a layer of
    /// intermediate values (blocks of elements always can); `None`: they stay
    /// where they are made (see [`wire`]).
    fn wire(&self) -> Option<wire::Wire> {
        None
    }
    /// The process (of `processes`) that runs block `idx` when a graph spans
    /// processes, for a layer that lays its blocks out itself (a matmul's 2-D
    /// grid of ranks); `None` (the default): the placement's rules.
    fn process_of(&self, _node: &Node, _idx: &[usize], _processes: usize) -> Option<usize> {
        None
    }
    /// The input (its position among the task's dependencies) whose process
    /// runs this layer's task when a graph spans processes; `None` (the
    /// default): where most of its input bytes are.
    fn home_input(&self) -> Option<usize> {
        None
    }
    /// Whether `run` handles device placement itself: it takes device or host
    /// input blocks and makes its block on `node.device`. Other ops get host
    /// inputs (device blocks are copied down first) and their blocks are copied
    /// up to the layer's device after (see [`task::TaskGraph::run_task`]).
    fn has_device_kernel(&self, _node: &Node) -> bool {
        false
    }
    /// Whether `run` wants its inputs on `node.device` (so that the block
    /// store brings blocks moved down to the host back up first): ops that run
    /// on the device, except those that only copy blocks down.
    fn reads_on_device(&self, node: &Node) -> bool {
        node.device.is_some() && self.has_device_kernel(node)
    }
    /// For the optimizer: this op as an elementwise layer, if it is one.
    fn as_elementwise(&self) -> Option<&dyn Fusable> {
        None
    }
    /// Whether this is a source whose blocks depend only on their position in the
    /// array (random, constants, ranges, functions of the index, an in-memory
    /// array): such a layer can be built again on any other grid, so a rechunk
    /// of it moves no data.
    fn position_only(&self) -> bool {
        false
    }
    /// Whether this source makes a block again for less than writing it to
    /// disk and reading it back costs. Over the memory limit, such blocks are
    /// dropped instead of spilled and made again when a task reads them. By
    /// default, the position-only sources: random generation, constants,
    /// ranges, slices of an in-memory array (memory-bandwidth work); a source
    /// that runs user code (`from_fn`) says no.
    fn regenerates_cheaply(&self) -> bool {
        self.position_only()
    }
    /// For the optimizer: the axis permutation this layer applies, if that is all
    /// it does (so elementwise consumers can read its input through strides).
    fn as_permutation(&self) -> Option<&[usize]> {
        None
    }
    /// For the optimizer: this layer reading the elementwise layer `input` (its only
    /// input, consumed by nothing else) directly, without materializing it.
    fn absorb_input(&self, _node: &Node, _input: &Arc<Node>) -> Option<Arc<Node>> {
        None
    }
}

static NEXT_NODE_ID: AtomicU64 = AtomicU64::new(1);

/// One expression layer: its output grid, its inputs and how it computes a block.
pub(crate) struct Node {
    pub id: u64,
    pub name: String,
    pub dtype: DType,
    pub chunks: Chunks,
    pub inputs: Vec<Arc<Node>>,
    pub op: Arc<dyn BlockOp>,
    /// Set on arrays built from invalid input by an operator that cannot return
    /// `Result` (`&a + &b` with mismatched shapes): the error surfaces on use.
    pub error: Option<Error>,
    /// The devices its blocks live on (`None`: host memory). A layer is
    /// placed where its first device-placed input is, so work on device arrays
    /// stays on the devices; [`crate::Array::to_device`],
    /// [`crate::Array::to_devices`] and [`crate::Array::to_host`] move arrays.
    pub device: Option<Placement>,
}

/// The devices of a layer's blocks: block `b` (C-order number) lives on
/// device `b % n`, so that an array spread over several GPUs keeps each
/// device busy (dask-cuda's one worker per GPU). Cheap to clone.
///
/// ```
/// use chunked_array::device::Device;
/// use chunked_array::runtime::Placement;
/// let gpus = [Device::emulated(1 << 20), Device::emulated(1 << 20)];
/// let p = Placement::spread(&gpus).unwrap();
/// assert!(p.device_of(3).same(&gpus[1])); // block 3 on device 3 % 2
/// assert!(!p.is_cuda());
/// ```
#[derive(Clone, Debug)]
pub struct Placement {
    devices: Arc<[chunked_gpu::Device]>,
}

impl Placement {
    /// Every block on `device`.
    ///
    /// ```
    /// use chunked_array::{device::Device, runtime::Placement};
    /// let dev = Device::emulated(1 << 20);
    /// let p = Placement::one(&dev);
    /// assert_eq!(p.devices().len(), 1);
    /// assert!(p.device_of(5).same(&dev));
    /// ```
    pub fn one(device: &chunked_gpu::Device) -> Placement {
        Placement { devices: Arc::from(vec![device.clone()]) }
    }

    /// Blocks spread over `devices` in turn; `None` when there are none.
    ///
    /// ```
    /// use chunked_array::{device::Device, runtime::Placement};
    /// let gpus = [Device::emulated(1 << 20), Device::emulated(1 << 20)];
    /// assert_eq!(Placement::spread(&gpus).unwrap().devices().len(), 2);
    /// assert!(Placement::spread(&[]).is_none());
    /// ```
    pub fn spread(devices: &[chunked_gpu::Device]) -> Option<Placement> {
        (!devices.is_empty()).then(|| Placement { devices: Arc::from(devices.to_vec()) })
    }

    /// The device of block `block` (C-order number in the layer's grid).
    ///
    /// ```
    /// use chunked_array::{device::Device, runtime::Placement};
    /// let gpus = [Device::emulated(1 << 20), Device::emulated(1 << 20)];
    /// let p = Placement::spread(&gpus).unwrap();
    /// assert!(p.device_of(0).same(&gpus[0]));
    /// assert!(p.device_of(1).same(&gpus[1]));
    /// assert!(p.device_of(2).same(&gpus[0]));
    /// ```
    pub fn device_of(&self, block: usize) -> &chunked_gpu::Device {
        &self.devices[block % self.devices.len()]
    }

    /// The devices, in turn.
    ///
    /// ```
    /// use chunked_array::{device::Device, runtime::Placement};
    /// let gpus = [Device::emulated(1 << 20), Device::emulated(1 << 20)];
    /// let p = Placement::spread(&gpus).unwrap();
    /// assert!(p.devices()[0].same(&gpus[0]) && p.devices()[1].same(&gpus[1]));
    /// ```
    pub fn devices(&self) -> &[chunked_gpu::Device] {
        &self.devices
    }

    /// Whether both place blocks on the same devices in the same turn.
    ///
    /// ```
    /// use chunked_array::{device::Device, runtime::Placement};
    /// let (a, b) = (Device::emulated(1 << 20), Device::emulated(1 << 20));
    /// assert!(Placement::one(&a).same(&Placement::one(&a.clone())));
    /// assert!(!Placement::one(&a).same(&Placement::one(&b)));
    /// let ab = Placement::spread(&[a.clone(), b.clone()]).unwrap();
    /// assert!(!ab.same(&Placement::spread(&[b, a]).unwrap())); // another turn
    /// ```
    pub fn same(&self, other: &Placement) -> bool {
        self.devices.len() == other.devices.len()
            && self.devices.iter().zip(other.devices.iter()).all(|(a, b)| a.same(b))
    }

    /// Whether every device is a CUDA device (kernels run there).
    ///
    /// ```
    /// use chunked_array::{device::Device, runtime::Placement};
    /// assert!(!Placement::one(&Device::emulated(1 << 20)).is_cuda());
    /// ```
    pub fn is_cuda(&self) -> bool {
        self.devices.iter().all(|d| !d.is_emulated())
    }
}

impl Node {
    pub fn new(
        name: impl Into<String>,
        dtype: DType,
        chunks: Chunks,
        inputs: Vec<Arc<Node>>,
        op: impl BlockOp,
    ) -> Arc<Node> {
        let device = inputs.iter().find_map(|n| n.device.clone());
        Node::placed(name, dtype, chunks, inputs, Arc::new(op), device)
    }

    /// A layer on `device` (`None`: host), whatever its inputs' placement.
    ///
    /// A grid too large for any memory gives a failed layer (see
    /// [`Chunks::size_error`]): every use of it returns that error.
    pub fn placed(
        name: impl Into<String>,
        dtype: DType,
        chunks: Chunks,
        inputs: Vec<Arc<Node>>,
        op: Arc<dyn BlockOp>,
        device: Option<Placement>,
    ) -> Arc<Node> {
        if let Some(error) = chunks.size_error(dtype.size()) {
            return Node::failed(error);
        }
        Arc::new(Node {
            id: NEXT_NODE_ID.fetch_add(1, Ordering::Relaxed),
            name: name.into(),
            dtype,
            chunks,
            inputs,
            op,
            error: None,
            device,
        })
    }

    /// This source layer on another grid (see [`BlockOp::position_only`]).
    pub fn regrid(&self, chunks: Chunks) -> Arc<Node> {
        Arc::new(Node {
            id: NEXT_NODE_ID.fetch_add(1, Ordering::Relaxed),
            name: self.name.clone(),
            dtype: self.dtype,
            chunks,
            inputs: vec![],
            op: self.op.clone(),
            error: None,
            device: self.device.clone(),
        })
    }

    /// The same layer (same id, so the same task keys) over other input nodes with
    /// the same grids, as the optimizer produces.
    pub fn with_inputs(&self, inputs: Vec<Arc<Node>>) -> Arc<Node> {
        Arc::new(Node {
            id: self.id,
            name: self.name.clone(),
            dtype: self.dtype,
            chunks: self.chunks.clone(),
            inputs,
            op: self.op.clone(),
            error: self.error.clone(),
            device: self.device.clone(),
        })
    }

    pub fn failed(error: Error) -> Arc<Node> {
        Arc::new(Node {
            id: NEXT_NODE_ID.fetch_add(1, Ordering::Relaxed),
            name: "error".into(),
            dtype: DType::Intermediate,
            chunks: Chunks::from_lengths(vec![]),
            inputs: vec![],
            op: Arc::new(FailedOp),
            error: Some(error),
            device: None,
        })
    }

    pub fn shape(&self) -> Vec<usize> {
        self.chunks.shape()
    }

    /// The device of block `idx` (`None`: host memory).
    pub fn device_at(&self, idx: &[usize]) -> Option<&chunked_gpu::Device> {
        self.device.as_ref().map(|p| p.device_of(self.chunks.linear(idx)))
    }

    /// `name-id`, as task keys and graph pictures show the layer.
    pub fn label(&self) -> String {
        format!("{}-{}", self.name, self.id)
    }

    /// Returns the deferred error of this node, if any.
    pub fn check(&self) -> Result<()> {
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }
}

impl fmt::Debug for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{:?}", self.label(), self.shape())
    }
}

struct FailedOp;
impl BlockOp for FailedOp {
    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}
    fn run(&self, node: &Node, _: &[usize], _: &[&Block]) -> Result<Block> {
        Err(node.error.clone().unwrap_or_else(|| Error::invalid("array", "error", "invalid array")))
    }
}

/// A task's key: the layer and the block index, as errors and profiles name tasks.
///
/// ```
/// use chunked_array::runtime::Key;
/// let key = Key { layer: "add-12".into(), block: vec![0, 3] };
/// assert_eq!(key.to_string(), "('add-12', [0, 3])");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    /// The layer's name and id, e.g. `add-12`.
    pub layer: String,
    /// The block's multi-index in the layer's grid.
    pub block: Vec<usize>,
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "('{}', {:?})", self.layer, self.block)
    }
}

/// Visits every node reachable from `roots` once, inputs before consumers.
pub(crate) fn post_order(roots: &[Arc<Node>]) -> Vec<Arc<Node>> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut stack: Vec<(Arc<Node>, bool)> = roots.iter().rev().map(|n| (n.clone(), false)).collect();
    while let Some((n, expanded)) = stack.pop() {
        if expanded {
            out.push(n);
            continue;
        }
        if !seen.insert(n.id) {
            continue;
        }
        stack.push((n.clone(), true));
        for i in n.inputs.iter().rev() {
            if !seen.contains(&i.id) {
                stack.push((i.clone(), false));
            }
        }
    }
    out
}
