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
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::{Error, Result};
use crate::graph::order::{Rows, memory_order};
use crate::graph::{Key, Node};

mod execution;
pub use execution::panic_message;

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
    /// Set when the run is cancelled: tasks not yet started fail with
    /// [`Error::Cancelled`].
    cancel: Option<Arc<AtomicBool>>,
    /// The kernel backend its tasks run with, where its context names one.
    kernel_backend: Option<crate::kernels::Backend>,
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
                        // Task numbers are u32 below the VISITING mark.
                        let t = u32::try_from(w.task_node.len()).ok().filter(|&t| t < VISITING).ok_or_else(|| {
                            Error::invalid(
                                "task graph",
                                w.task_node.len(),
                                "has more tasks than a graph can number (2^32 - 1)",
                            )
                        })?;
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
            cancel: None,
            kernel_backend: None,
        })
    }

    /// Tasks that start after `flag` is set fail with [`Error::Cancelled`].
    pub(crate) fn cancel_with(&mut self, flag: Option<Arc<AtomicBool>>) {
        self.cancel = flag;
    }

    /// Its tasks run their dense kernels on `backend` (where `Some`).
    pub(crate) fn kernels_on(&mut self, backend: Option<crate::kernels::Backend>) {
        self.kernel_backend = backend;
    }

    /// Whether the run was cancelled.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
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
}
