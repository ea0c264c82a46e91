//! The task graph: one task per needed block, materialized at compute time.
//!
//! Tasks are numbered in a depth-first post-order from the outputs: one branch of a
//! reduction tree finishes before the next one starts. The static order
//! ([`TaskGraph::order`], like `dask.order`) refines it: simulating a run, it
//! prefers among the ready tasks those that are the last reader of a held block
//! (running them frees memory), then other tasks that read held blocks, and only
//! then sources (which add memory), each class in depth-first order. Schedulers
//! use the position in that order as priority, so the blocks held at any time stay
//! few: the six reductions of one random matrix read each block right after it is
//! made, instead of all blocks being made for the first reduction.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::DType;
use crate::error::{Error, Result};
use crate::graph::order::{Rows, memory_order};
use crate::graph::wire::Wire;
use crate::graph::{Key, Node};
use chunked_gpu::Device;

/// A small multiplicative hasher for integer keys: the task map is the hot path of
/// graph construction and SipHash's DoS resistance buys nothing here.
#[derive(Default)]
pub(crate) struct FxHasher(u64);
impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}
pub(crate) type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// Task graph over the blocks needed for a set of outputs.
///
/// ```
/// # use chunked_array::{custom::Layer, Array};
/// # fn main() -> chunked_array::Result<()> {
/// let x = Array::<f64>::ones(&[4], 2)?;
/// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
/// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
/// # use chunked_array::{custom::block_array, runtime::Block};
/// // Run it by hand in the static order, as a scheduler does.
/// let mut blocks: Vec<Option<Block>> = vec![None; g.len()];
/// for &t in g.order() {
///     let t = t as usize;
///     let inputs: Vec<_> = g.deps(t).iter().map(|&d| blocks[d as usize].clone().unwrap()).collect();
///     blocks[t] = Some(g.run_task(t, &inputs.iter().collect::<Vec<_>>())?);
/// }
/// let out = blocks[g.output_tasks()[0][0] as usize].as_ref().unwrap();
/// assert_eq!(block_array::<f64>(out)?.as_slice().unwrap(), &[2.0, 2.0]);
/// # Ok(()) }
/// ```
pub struct TaskGraph {
    nodes: Vec<Arc<Node>>,
    task_node: Vec<u32>,
    task_block: Vec<usize>,
    deps: Rows,
    consumers: Rows,
    is_output: Vec<bool>,
    outputs: Vec<Vec<u32>>,
    order: Vec<u32>,
    rank: Vec<u32>,
}

/// The tasks found by walking the layers from the requested blocks, before
/// consumers and order are derived.
struct Walk {
    nodes: Vec<Arc<Node>>,
    node_index: FxMap<u64, u32>,
    task_of: FxMap<(u32, usize), u32>,
    task_node: Vec<u32>,
    task_block: Vec<usize>,
    deps: Rows,
}

impl Walk {
    /// Numbers the tasks the given blocks need in depth-first post-order, each
    /// task after the inputs it reads.
    fn run(outputs: &[(Arc<Node>, Vec<usize>)]) -> Result<Walk> {
        const VISITING: u32 = u32::MAX;
        enum Frame {
            Enter(u32, usize),
            Exit(u32, usize, usize, usize),
        }
        let mut w = Walk {
            nodes: Vec::new(),
            node_index: FxMap::default(),
            task_of: FxMap::default(),
            task_node: Vec::new(),
            task_block: Vec::new(),
            deps: Rows::new(),
        };
        // Dependencies found on entering a block, kept until its exit.
        let mut pending: Vec<(u32, usize)> = Vec::new();
        let mut scratch: Vec<(usize, usize)> = Vec::new();
        let mut idx = Vec::new();
        let mut stack: Vec<Frame> = Vec::new();
        for (node, blocks) in outputs {
            node.check()?;
            let ni = w.intern(node);
            let nblocks = node.chunks.num_blocks();
            for &b in blocks.iter().rev() {
                if b >= nblocks {
                    return Err(Error::BadBlockIndex { index: vec![b], grid: vec![nblocks] });
                }
                stack.push(Frame::Enter(ni, b));
            }
            while let Some(frame) = stack.pop() {
                match frame {
                    Frame::Enter(ni, b) => {
                        if w.task_of.contains_key(&(ni, b)) {
                            continue;
                        }
                        w.task_of.insert((ni, b), VISITING);
                        let node = w.nodes[ni as usize].clone();
                        node.check()?;
                        node.chunks.unravel_into(b, &mut idx);
                        scratch.clear();
                        node.op.deps(&node, &idx, &mut scratch);
                        let start = pending.len();
                        for &(input, lin) in &scratch {
                            let child = if input == crate::graph::SELF { &node } else { &node.inputs[input] };
                            let ci = w.intern(child);
                            pending.push((ci, lin));
                        }
                        let count = pending.len() - start;
                        stack.push(Frame::Exit(ni, b, start, count));
                        for k in (start..start + count).rev() {
                            let (ci, lin) = pending[k];
                            if !w.task_of.contains_key(&(ci, lin)) {
                                stack.push(Frame::Enter(ci, lin));
                            }
                        }
                    }
                    Frame::Exit(ni, b, start, count) => {
                        let t = w.task_node.len() as u32;
                        w.deps.push_row(pending[start..start + count].iter().map(|key| w.task_of[key]));
                        pending.truncate(start);
                        w.task_node.push(ni);
                        w.task_block.push(b);
                        w.task_of.insert((ni, b), t);
                    }
                }
            }
        }
        Ok(w)
    }

    fn intern(&mut self, n: &Arc<Node>) -> u32 {
        let nodes = &mut self.nodes;
        *self.node_index.entry(n.id).or_insert_with(|| {
            nodes.push(n.clone());
            (nodes.len() - 1) as u32
        })
    }
}

impl TaskGraph {
    /// Materializes the tasks that the given blocks of the given nodes need.
    /// `outputs[i]` = (node, linear block numbers); see [`TaskGraph::output_tasks`].
    pub(crate) fn build(outputs: &[(Arc<Node>, Vec<usize>)]) -> Result<TaskGraph> {
        let w = Walk::run(outputs)?;
        let n = w.task_node.len();
        let mut is_output = vec![false; n];
        let mut output_tasks = Vec::with_capacity(outputs.len());
        for (node, blocks) in outputs {
            let ni = w.node_index[&node.id];
            let ts: Vec<u32> = blocks.iter().map(|&b| w.task_of[&(ni, b)]).collect();
            for &t in &ts {
                is_output[t as usize] = true;
            }
            output_tasks.push(ts);
        }
        // An input listed twice is a consumer twice, which keeps the schedulers'
        // counters consistent with the dependency lists.
        let consumers = w.deps.transpose(n);
        let order = memory_order(&w.deps, &consumers);
        let mut rank = vec![0; n];
        for (pos, &t) in order.iter().enumerate() {
            rank[t as usize] = pos as u32;
        }
        Ok(TaskGraph {
            nodes: w.nodes,
            task_node: w.task_node,
            task_block: w.task_block,
            deps: w.deps,
            consumers,
            is_output,
            outputs: output_tasks,
            order,
            rank,
        })
    }

    /// Every task, in the static memory-aware order (a topological order).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// let order = g.order();
    /// assert_eq!(order.len(), 4);
    /// for (pos, &t) in order.iter().enumerate() {
    ///     assert!(g.deps(t as usize).iter().all(|d| order[..pos].contains(d)));
    /// }
    /// # Ok(()) }
    /// ```
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// Position of task `t` in [`TaskGraph::order`]: its priority (lower first).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// for (pos, &t) in g.order().iter().enumerate() {
    ///     assert_eq!(g.rank(t as usize), pos as u32);
    /// }
    /// # Ok(()) }
    /// ```
    pub fn rank(&self, t: usize) -> u32 {
        self.rank[t]
    }

    /// Number of tasks.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert_eq!(g.len(), 4);
    /// # Ok(()) }
    /// ```
    pub fn len(&self) -> usize {
        self.task_node.len()
    }

    /// Whether there are no tasks.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert!(!g.is_empty());
    /// # Ok(()) }
    /// ```
    pub fn is_empty(&self) -> bool {
        self.task_node.is_empty()
    }

    /// Tasks that `t` reads, in the order its kernel expects them.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert_eq!(g.deps(1), &[0]);
    /// assert!(g.deps(0).is_empty());
    /// # Ok(()) }
    /// ```
    pub fn deps(&self, t: usize) -> &[u32] {
        self.deps.row(t)
    }

    /// Tasks that read `t` (a task reading `t` twice is listed twice).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert_eq!(g.consumers(2), &[3]);
    /// assert!(g.consumers(3).is_empty());
    /// # Ok(()) }
    /// ```
    pub fn consumers(&self, t: usize) -> &[u32] {
        self.consumers.row(t)
    }

    /// Whether `t` computes a requested output block.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert!(g.is_output(1) && g.is_output(3));
    /// assert!(!g.is_output(0));
    /// # Ok(()) }
    /// ```
    pub fn is_output(&self, t: usize) -> bool {
        self.is_output[t]
    }

    /// For each requested output, the tasks of its requested blocks, in the order given.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert_eq!(g.output_tasks(), &[vec![1, 3]]);
    /// # Ok(()) }
    /// ```
    pub fn output_tasks(&self) -> &[Vec<u32>] {
        &self.outputs
    }

    /// The key (layer and block index) of task `t`.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// let key = g.key(2);
    /// assert!(key.layer.starts_with("ones-"));
    /// assert_eq!(key.block, vec![1]);
    /// # Ok(()) }
    /// ```
    pub fn key(&self, t: usize) -> Key {
        let node = &self.nodes[self.task_node[t] as usize];
        Key { layer: node.label(), block: node.chunks.unravel(self.task_block[t]) }
    }

    /// Name of the layer of task `t` (for profiles and pictures).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert_eq!(g.layer_name(0), "ones");
    /// assert_eq!(g.layer_name(1), "mul");
    /// # Ok(()) }
    /// ```
    pub fn layer_name(&self, t: usize) -> &str {
        &self.nodes[self.task_node[t] as usize].name
    }

    /// The layer number of task `t` (an index into [`TaskGraph::layers`]) and its
    /// C-order block number: a cheap stand-in for its key.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// let (layer, block) = g.task_layer_block(2);
    /// assert_eq!(block, 1);
    /// assert_eq!(g.layers()[layer as usize].1, "ones");
    /// # Ok(()) }
    /// ```
    pub fn task_layer_block(&self, t: usize) -> (u32, usize) {
        (self.task_node[t], self.task_block[t])
    }

    /// Shape of task `t`'s output block.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[5], 2)?;
    /// let g = Layer::task_graph(&[x.layer()])?; // blocks of 2, 2 and 1
    /// assert_eq!(g.block_shape(0), vec![2]);
    /// assert_eq!(g.block_shape(2), vec![1]);
    /// # Ok(()) }
    /// ```
    pub fn block_shape(&self, t: usize) -> Vec<usize> {
        let node = &self.nodes[self.task_node[t] as usize];
        node.chunks.block_shape(&node.chunks.unravel(self.task_block[t]))
    }

    /// Bytes of task `t`'s output block: from its layer's element type and block
    /// shape, or for intermediate values the layer's own estimate (0 when it
    /// has none).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert_eq!(g.estimated_bytes(1), 2 * 8); // two f64
    /// # Ok(()) }
    /// ```
    pub fn estimated_bytes(&self, t: usize) -> usize {
        let node = &self.nodes[self.task_node[t] as usize];
        if node.dtype == DType::Intermediate {
            node.op.output_bytes(node, &node.chunks.unravel(self.task_block[t])).unwrap_or(0)
        } else {
            self.block_shape(t).iter().product::<usize>() * node.dtype.size()
        }
    }

    /// The device task `t`'s block is made on (`None`: host memory).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, device::Device, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let dev = Device::emulated(1 << 20);
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).to_device(&dev).layer()])?;
    /// let out = g.output_tasks()[0][0] as usize; // moves a product to `dev`
    /// let product = g.deps(out)[0] as usize;
    /// assert!(g.task_device(out).unwrap().same(&dev));
    /// assert!(g.task_device(product).is_none()); // on the host
    /// # Ok(()) }
    /// ```
    pub fn task_device(&self, t: usize) -> Option<&Device> {
        self.nodes[self.task_node[t] as usize].device.as_ref().map(|p| p.device_of(self.task_block[t]))
    }

    /// Whether task `t` reads its inputs on its device (see
    /// [`BlockStore::input`](crate::memory::BlockStore::input)).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, device::Device, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let dev = Device::emulated(1 << 20);
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).to_device(&dev).layer()])?;
    /// let out = g.output_tasks()[0][0] as usize; // moves a product to `dev`
    /// let product = g.deps(out)[0] as usize;
    /// assert!(g.reads_on_device(out));
    /// assert!(!g.reads_on_device(product));
    /// # Ok(()) }
    /// ```
    pub fn reads_on_device(&self, t: usize) -> bool {
        let node = &self.nodes[self.task_node[t] as usize];
        node.op.reads_on_device(node)
    }

    /// The devices the graph's layers are placed on, each once.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, device::Device, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let dev = Device::emulated(1 << 20);
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).to_device(&dev).layer()])?;
    /// let out = g.output_tasks()[0][0] as usize; // moves a product to `dev`
    /// let product = g.deps(out)[0] as usize;
    /// let devices = g.devices();
    /// assert!(devices.len() == 1 && devices[0].same(&dev));
    /// assert!(Layer::task_graph(&[x.layer()])?.devices().is_empty());
    /// # let _ = (out, product);
    /// # Ok(()) }
    /// ```
    pub fn devices(&self) -> Vec<Device> {
        let mut out: Vec<Device> = Vec::new();
        for d in self.nodes.iter().filter_map(|n| n.device.as_ref()).flat_map(|p| p.devices()) {
            if !out.iter().any(|o| o.same(d)) {
                out.push(d.clone());
            }
        }
        out
    }

    /// Whether task `t`'s block is cheaper to make again than to spill: a host
    /// source whose op says so (random, constants, ranges, in-memory arrays;
    /// not `from_fn`, whose function may cost more than the disk).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert!(g.regenerates_cheaply(0)); // a `ones` block
    /// assert!(!g.regenerates_cheaply(1)); // a product
    /// # Ok(()) }
    /// ```
    pub fn regenerates_cheaply(&self, t: usize) -> bool {
        let node = &self.nodes[self.task_node[t] as usize];
        self.deps(t).is_empty() && node.device.is_none() && node.op.regenerates_cheaply()
    }

    /// Whether task `t` makes a block of elements (which a rechunk can resize),
    /// not an intermediate value.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert!((0..g.len()).all(|t| g.holds_elements(t)));
    /// # Ok(()) }
    /// ```
    pub fn holds_elements(&self, t: usize) -> bool {
        self.nodes[self.task_node[t] as usize].dtype != DType::Intermediate
    }

    /// Bytes task `t`'s kernel allocates for itself while it runs (its layer's
    /// estimate; 0 when it has none).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert_eq!(g.scratch_bytes(1), 0); // elementwise kernels need no workspace
    /// # Ok(()) }
    /// ```
    pub fn scratch_bytes(&self, t: usize) -> usize {
        let node = &self.nodes[self.task_node[t] as usize];
        node.op.scratch_bytes(node, &node.chunks.unravel(self.task_block[t]))
    }

    /// Number of blocks in layer `layer`'s grid (an index into
    /// [`TaskGraph::layers`]), all of them, not only those this graph computes.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// let (layer, _) = g.task_layer_block(0);
    /// assert_eq!(g.layer_blocks(layer), 2);
    /// # Ok(()) }
    /// ```
    pub fn layer_blocks(&self, layer: u32) -> usize {
        self.nodes[layer as usize].chunks.num_blocks()
    }

    /// Per layer: its label (`name-id`), plain name and block grid.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// let layers = g.layers();
    /// let names: Vec<&str> = layers.iter().map(|(_, name, _)| name.as_str()).collect();
    /// assert_eq!(names, ["mul", "ones"]);
    /// assert!(layers[1].0.starts_with("ones-"));
    /// assert_eq!(layers[1].2.lengths(), &[vec![2, 2]]);
    /// # Ok(()) }
    /// ```
    pub fn layers(&self) -> Vec<(String, String, Chunks)> {
        self.nodes.iter().map(|n| (n.label(), n.name.clone(), n.chunks.clone())).collect()
    }

    /// How task `t`'s block travels to another process: as elements of its
    /// layer's dtype, or through its layer's own [`Wire`]; `None` when it
    /// cannot.
    fn wire(&self, t: usize) -> Option<Wire> {
        let node = &self.nodes[self.task_node[t] as usize];
        match node.dtype {
            DType::Intermediate => node.op.wire(),
            dtype => Some(Wire::of_dtype(dtype)),
        }
    }

    /// Whether task `t`'s block can be sent to another process: a block of
    /// elements, or an intermediate value whose layer has a [`Wire`].
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert!((0..g.len()).all(|t| g.can_travel(t))); // blocks of elements
    /// # Ok(()) }
    /// ```
    pub fn can_travel(&self, t: usize) -> bool {
        self.wire(t).is_some()
    }

    /// Task `t`'s block as bytes for another process of the same program.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// # use chunked_array::custom::block_array;
    /// let block = g.run_task(0, &[])?;
    /// let bytes = g.encode_block(0, &block)?;
    /// let back = g.decode_block(0, &bytes)?;
    /// assert_eq!(block_array::<f64>(&back)?, block_array::<f64>(&block)?);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::Task`] naming the task when its block cannot travel (see
    /// [`TaskGraph::can_travel`]) or is not of its layer's type.
    pub fn encode_block(&self, t: usize, block: &Block) -> Result<Vec<u8>> {
        let block = &crate::block::device::to_host_block(block)?;
        let bytes = self.wire(t).and_then(|wire| (wire.encode)(block));
        bytes.ok_or_else(|| Error::Task {
            key: self.key(t).to_string(),
            message: "its block cannot be sent to another process".into(),
        })
    }

    /// Task `t`'s block from the bytes [`TaskGraph::encode_block`] made.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// # use chunked_array::custom::block_array;
    /// let bytes = g.encode_block(1, &g.run_task(1, &[&g.run_task(0, &[])?])?)?;
    /// assert_eq!(block_array::<f64>(&g.decode_block(1, &bytes)?)?.sum(), 4.0);
    /// assert!(g.decode_block(1, &bytes[..5]).is_err()); // cut short
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::Task`] naming the task when the bytes do not describe a block of its layer.
    pub fn decode_block(&self, t: usize, bytes: &[u8]) -> Result<Block> {
        let node = &self.nodes[self.task_node[t] as usize];
        let block = self.wire(t).and_then(|wire| (wire.decode)(bytes));
        let block = block.ok_or_else(|| Error::Task {
            key: self.key(t).to_string(),
            message: format!("{} received bytes do not describe one of its blocks", bytes.len()),
        })?;
        if node.dtype != DType::Intermediate && block.nbytes() != self.estimated_bytes(t) {
            return Err(Error::Task {
                key: self.key(t).to_string(),
                message: format!("received a block of {} bytes, expected {}", block.nbytes(), self.estimated_bytes(t)),
            });
        }
        Ok(block)
    }

    /// Runs task `t` on its input blocks (in the order of [`TaskGraph::deps`]).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// # use chunked_array::custom::block_array;
    /// let ones = g.run_task(0, &[])?;
    /// let twice = g.run_task(1, &[&ones])?;
    /// assert_eq!(block_array::<f64>(&twice)?.as_slice().unwrap(), &[2.0, 2.0]);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::Task`] naming the task's key when the kernel fails or panics.
    pub fn run_task(&self, t: usize, inputs: &[&Block]) -> Result<Block> {
        let node = &self.nodes[self.task_node[t] as usize];
        let mut idx = Vec::with_capacity(node.chunks.ndim());
        node.chunks.unravel_into(self.task_block[t], &mut idx);
        match catch_unwind(AssertUnwindSafe(|| run_placed(node, &idx, inputs))) {
            Ok(Ok(b)) => Ok(b),
            // I/O errors already name the file or chunk, device errors the
            // device and the bytes, numerical failures the block, and callers
            // match on them.
            Ok(Err(
                e @ (Error::Task { .. }
                | Error::Io { .. }
                | Error::Device(_)
                | Error::NotPositiveDefinite { .. }
                | Error::Singular { .. }
                | Error::NoConvergence { .. }),
            )) => Err(e),
            Ok(Err(e)) => Err(Error::Task { key: self.key(t).to_string(), message: e.to_string() }),
            Err(panic) => {
                let message = panic_message(&*panic).unwrap_or_else(|| "panic with a non-string payload".to_string());
                Err(Error::Task { key: self.key(t).to_string(), message: format!("panicked: {message}") })
            }
        }
    }
}

/// Runs `node`'s op on block `idx` where the node is placed: ops without device
/// kernels get host copies of device inputs, and their block is copied up to
/// the node's device after (see [`crate::device`]).
fn run_placed(node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
    if node.op.has_device_kernel(node) {
        return node.op.run(node, idx, inputs);
    }
    let block = if inputs.iter().any(|b| b.device().is_some() || b.is_pinned_copy()) {
        let host = inputs.iter().map(|b| crate::block::device::to_host_block(b)).collect::<Result<Vec<Block>>>()?;
        let refs: Vec<&Block> = host.iter().collect();
        node.op.run(node, idx, &refs)?
    } else {
        node.op.run(node, idx, inputs)?
    };
    match node.device_at(idx) {
        Some(device) if node.dtype != DType::Intermediate => crate::block::device::to_device_block(block, device),
        _ => Ok(block),
    }
}

/// The message of a caught panic, when it carried a string.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> Option<String> {
    panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned())
}
