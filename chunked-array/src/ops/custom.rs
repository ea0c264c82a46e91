//! Custom layers: how other crates (linear algebra, I/O) add their own kinds of
//! layer to the lazy graph, with the same scheduling, ordering, memory release and
//! diagnostics as the built-in ones.
//!
//! A [`Layer`] is an untyped handle to a layer; [`Array::layer`] gives an array's,
//! and [`Layer::into_array`] turns a layer of elements back into an [`Array`]. A
//! layer that is not an array of elements (the Householder factors of a QR, say)
//! has [`DType::Intermediate`] and blocks of any [`BlockValue`](crate::block::BlockValue) type; only other
//! custom layers read it.
//!
//! ```
//! use std::sync::Arc;
//! use chunked_array::custom::{block_array, Deps, Layer, LayerOp};
//! use chunked_array::{Array, DType, Result};
//! use chunked_array::runtime::Block;
//!
//! /// Each output block is its input block's transpose times 2.
//! struct TwiceTransposed;
//! impl LayerOp for TwiceTransposed {
//!     fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
//!         deps.push(0, &[idx[1], idx[0]]);
//!     }
//!     fn run(&self, _idx: &[usize], inputs: &[&Block]) -> Result<Block> {
//!         let a = block_array::<f64>(inputs[0])?;
//!         Ok(Arc::new(a.t().as_standard_layout().into_owned() * 2.0))
//!     }
//! }
//! let x = Array::<f64>::from_fn(&[4, 6], [2, 3], |i| (10 * i[0] + i[1]) as f64).unwrap();
//! let l = x.chunks().lengths();
//! let chunks = chunked_array::Chunks::from_lengths(vec![l[1].clone(), l[0].clone()]);
//! let y: Array<f64> = Layer::new("twice_t", DType::F64, chunks, &[x.layer()], TwiceTransposed)
//!     .into_array()
//!     .unwrap();
//! assert_eq!(y.compute().unwrap(), x.compute().unwrap().t().to_owned() * 2.0);
//! ```

use std::sync::Arc;

use ndarray::ArrayD;

use crate::array::Array;
use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node};

/// An untyped handle to a layer of the lazy graph (cheap to clone).
#[derive(Clone)]
pub struct Layer {
    node: Arc<Node>,
}

impl std::fmt::Debug for Layer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Layer({:?})", self.node)
    }
}

/// How a custom layer computes its blocks.
pub trait LayerOp: Send + Sync + 'static {
    /// Declares the input blocks that output block `idx` reads, in the order
    /// [`LayerOp::run`] receives them.
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>);
    /// Computes output block `idx` from the blocks [`LayerOp::deps`] declared. A
    /// layer of elements must return an `ndarray::ArrayD` of its element type with
    /// the block's shape (checked).
    ///
    /// # Errors
    /// Any error. It is reported as [`Error::Task`] with the task's key, except
    /// errors that name their place themselves and that callers match on
    /// (`Io`, `Device`, `NotPositiveDefinite`, `Singular`, `NoConvergence`),
    /// which pass through as they are.
    fn run(&self, idx: &[usize], inputs: &[&Block]) -> Result<Block>;
    /// Bytes of output block `idx` for a layer of intermediate values (element
    /// layers are sized from their dtype and shape); `None` (default): unknown.
    /// The plan-time memory check counts it.
    fn output_bytes(&self, _idx: &[usize]) -> Option<usize> {
        None
    }
    /// Bytes the kernel allocates for itself while computing block `idx`
    /// (default 0). The plan-time memory check counts it.
    fn scratch_bytes(&self, _idx: &[usize]) -> usize {
        0
    }
    /// For a layer of intermediate values: how its blocks travel between the
    /// processes of an MPI run. `None` (default): they stay on the rank that made
    /// them, and every task reading them runs there too.
    fn wire(&self) -> Option<crate::graph::wire::Wire> {
        None
    }
    /// Whether [`LayerOp::run_on_device`] computes this layer's blocks on a
    /// device. A layer reading a device array is placed on its device; with a
    /// device kernel its inputs are brought to the block's device and
    /// `run_on_device` runs there, without one (the default) [`LayerOp::run`]
    /// gets host copies and its element blocks are copied up after.
    fn has_device_kernel(&self) -> bool {
        false
    }
    /// Computes output block `idx` on `device` from the blocks
    /// [`LayerOp::deps`] declared, every element block among them already a
    /// [`crate::device::DeviceBlock`] on `device`. A layer of elements returns
    /// a `DeviceBlock` of its element type with the block's shape (checked).
    ///
    /// # Errors
    /// Any error; the default refuses (only called when
    /// [`LayerOp::has_device_kernel`] says so).
    fn run_on_device(&self, idx: &[usize], _inputs: &[&Block], device: &crate::device::Device) -> Result<Block> {
        Err(Error::InvalidArgument {
            name: "run_on_device".into(),
            value: format!("block {idx:?} on {}", device.describe()),
            reason: "the layer has no device kernel".into(),
        })
    }
}

/// Collects the input blocks an output block reads (see [`LayerOp::deps`]).
pub struct Deps<'a> {
    node: &'a Node,
    out: &'a mut Vec<(usize, usize)>,
}

impl Deps<'_> {
    /// Output block reads block `block` (a multi-index) of input `input`.
    ///
    /// # Panics
    /// When `input` or `block` is out of range: a bug in the layer, not bad data.
    pub fn push(&mut self, input: usize, block: &[usize]) {
        let lin = self.node.inputs[input].chunks.linear(block);
        self.out.push((input, lin));
    }

    /// Output block reads block `block` of this same layer (a chain or a
    /// staged algorithm: the task graph must stay acyclic, which the layer
    /// guarantees by reading only blocks computed at earlier steps).
    ///
    /// # Panics
    /// When `block` is out of range: a bug in the layer.
    pub fn push_self(&mut self, block: &[usize]) {
        let lin = self.node.chunks.linear(block);
        self.out.push((crate::graph::SELF, lin));
    }
}

struct Custom<O>(O);

impl<O: LayerOp> BlockOp for Custom<O> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        self.0.deps(idx, &mut Deps { node, out });
    }

    fn output_bytes(&self, _node: &Node, idx: &[usize]) -> Option<usize> {
        self.0.output_bytes(idx)
    }

    fn scratch_bytes(&self, _node: &Node, idx: &[usize]) -> usize {
        self.0.scratch_bytes(idx)
    }

    fn wire(&self) -> Option<crate::graph::wire::Wire> {
        self.0.wire()
    }

    fn has_device_kernel(&self, node: &Node) -> bool {
        node.device.is_some() && self.0.has_device_kernel()
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        // Off a device, `run` gets host blocks: `run_placed` copies device
        // inputs down for ops that do not run on the device.
        let block = match node.device_at(idx) {
            Some(device) if self.0.has_device_kernel() => {
                let moved = inputs
                    .iter()
                    .map(|&b| crate::block::device::to_device_block(b.clone(), device))
                    .collect::<Result<Vec<Block>>>()?;
                let refs: Vec<&Block> = moved.iter().collect();
                self.0.run_on_device(idx, &refs, device)?
            }
            _ => self.0.run(idx, inputs)?,
        };
        if node.dtype != DType::Intermediate {
            let want = node.chunks.block_shape(idx);
            match element_block_shape(&block, node.dtype) {
                Some(got) if got == want => {}
                Some(got) => {
                    return Err(Error::shape(&format!("{} block (declared, returned)", node.label()), &want, &got));
                }
                None => {
                    return Err(Error::DtypeMismatch {
                        key: format!("{} block {idx:?}", node.label()),
                        expected: node.dtype.to_string(),
                        found: "another type".into(),
                    });
                }
            }
        }
        Ok(block)
    }
}

/// The shape of a block of elements of `dtype`, or None when it is not one.
fn element_block_shape(block: &Block, dtype: DType) -> Option<Vec<usize>> {
    fn shape<T: 'static>(b: &Block) -> Option<Vec<usize>> {
        b.as_any().downcast_ref::<ArrayD<T>>().map(|a| a.shape().to_vec())
    }
    if let Some((shape, _)) = crate::block::device::device_parts(block) {
        return (crate::block::device::device_dtype(block) == Some(dtype)).then(|| shape.to_vec());
    }
    crate::block::dispatch_dtype!(dtype, shape::<_>(block))
}

impl Layer {
    /// The task graph that computing every block of `layers` together runs
    /// (optimized, as `compute` builds it): for planning and cost models, such
    /// as what an MPI run of it would send between ranks.
    ///
    /// # Errors
    /// Deferred build errors.
    pub fn task_graph(layers: &[Layer]) -> Result<crate::graph::task::TaskGraph> {
        let nodes: Vec<Arc<Node>> = layers.iter().map(|l| l.node.clone()).collect();
        for n in &nodes {
            n.check()?;
        }
        let optimized = crate::graph::optimize::optimize(&nodes);
        let outputs: Vec<(Arc<Node>, Vec<usize>)> = optimized
            .into_iter()
            .map(|n| {
                let all = (0..n.chunks.num_blocks()).collect();
                (n, all)
            })
            .collect();
        crate::graph::task::TaskGraph::build(&outputs)
    }

    /// A new layer named `name` with output grid `chunks`, reading `inputs`.
    pub fn new(name: &str, dtype: DType, chunks: Chunks, inputs: &[Layer], op: impl LayerOp) -> Layer {
        let nodes = inputs.iter().map(|l| l.node.clone()).collect();
        Layer { node: Node::new(name, dtype, chunks, nodes, Custom(op)) }
    }

    /// The output grid.
    pub fn chunks(&self) -> &Chunks {
        &self.node.chunks
    }

    /// What the blocks hold.
    pub fn dtype(&self) -> DType {
        self.node.dtype
    }

    /// The layer's name and id, as task keys show it.
    pub fn name(&self) -> String {
        self.node.label()
    }

    /// This layer as an array of `T`.
    ///
    /// # Errors
    /// [`Error::DtypeMismatch`] when the layer does not hold elements of `T`.
    pub fn into_array<T: Element>(self) -> Result<Array<T>> {
        self.node.check()?;
        if self.node.dtype != T::DTYPE {
            return Err(Error::DtypeMismatch {
                key: self.node.label(),
                expected: T::DTYPE.to_string(),
                found: self.node.dtype.to_string(),
            });
        }
        Array::built(self.node)
    }
}

impl<T: Element> Array<T> {
    /// This array's layer, as input of a custom layer (see [`crate::ops::custom`]).
    pub fn layer(&self) -> Layer {
        Layer { node: self.node.clone() }
    }
}

/// A block of elements as the `ndarray` it is.
///
/// # Errors
/// [`Error::DtypeMismatch`] when the block holds something else.
pub fn block_array<T: 'static>(block: &Block) -> Result<&ArrayD<T>> {
    block.as_any().downcast_ref::<ArrayD<T>>().ok_or_else(|| Error::DtypeMismatch {
        key: "custom layer input".into(),
        expected: std::any::type_name::<T>().into(),
        found: "another type".into(),
    })
}

/// An intermediate block as the type a custom layer stored.
///
/// # Errors
/// [`Error::DtypeMismatch`] when the block holds something else.
pub fn block_value<V: 'static>(block: &Block) -> Result<&V> {
    block.as_any().downcast_ref::<V>().ok_or_else(|| Error::DtypeMismatch {
        key: "custom layer input".into(),
        expected: std::any::type_name::<V>().into(),
        found: "another type".into(),
    })
}
