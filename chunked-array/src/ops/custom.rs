//! Custom layers: how other crates (linear algebra, I/O) add their own kinds of
//! layer to the lazy graph, with the same scheduling, ordering, memory release and
//! diagnostics as the built-in ones (dask's hand-written graph layers, wrapped
//! with `da.Array(graph, name, chunks, dtype)`).
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
///
/// ```
/// use chunked_array::{custom::Layer, Array, DType};
/// let x = Array::<f64>::ones(&[5], 2).unwrap();
/// let l: Layer = x.layer();
/// assert_eq!((l.dtype(), l.chunks().grid()), (DType::F64, vec![3]));
/// let back: Array<f64> = l.into_array().unwrap();
/// assert_eq!(back.compute().unwrap(), x.compute().unwrap());
/// ```
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
///
/// ```
/// use std::sync::Arc;
/// use chunked_array::custom::{block_array, Deps, Layer, LayerOp};
/// use chunked_array::{runtime::Block, Array, DType, Result};
/// /// Output block i: the sum of input blocks 0..=i (blocks of equal shape).
/// struct BlockPrefix;
/// impl LayerOp for BlockPrefix {
///     fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
///         (0..=idx[0]).for_each(|b| deps.push(0, &[b]));
///     }
///     fn run(&self, _idx: &[usize], inputs: &[&Block]) -> Result<Block> {
///         let mut acc = block_array::<i64>(inputs[0])?.clone();
///         for b in &inputs[1..] {
///             acc += block_array::<i64>(b)?;
///         }
///         Ok(Arc::new(acc))
///     }
/// }
/// let x = Array::from_vec(&[6], vec![1i64, 2, 3, 4, 5, 6], 2).unwrap();
/// let l = Layer::new("block_prefix", DType::I64, x.chunks().clone(), &[x.layer()], BlockPrefix);
/// let y: Array<i64> = l.into_array().unwrap();
/// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[1, 2, 4, 6, 9, 12]);
/// ```
pub trait LayerOp: Send + Sync + 'static {
    /// Declares the input blocks that output block `idx` reads, in the order
    /// [`LayerOp::run`] receives them.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use chunked_array::custom::{block_array, Deps, Layer, LayerOp};
    /// # use chunked_array::{runtime::Block, Array, DType, Result};
    /// /// The blocks in reverse order: output block i reads input block n - 1 - i.
    /// struct ReverseBlocks(usize);
    /// impl LayerOp for ReverseBlocks {
    ///     fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
    ///         deps.push(0, &[self.0 - 1 - idx[0]]);
    ///     }
    /// #     fn run(&self, _: &[usize], inputs: &[&Block]) -> Result<Block> {
    /// #         Ok(Arc::new(block_array::<i64>(inputs[0])?.clone()))
    /// #     }
    /// }
    /// let x = Array::from_vec(&[4], vec![1i64, 2, 3, 4], 2).unwrap();
    /// let l = Layer::new("reverse_blocks", DType::I64, x.chunks().clone(), &[x.layer()], ReverseBlocks(2));
    /// assert_eq!(l.into_array::<i64>().unwrap().compute().unwrap().as_slice().unwrap(), &[3, 4, 1, 2]);
    /// ```
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>);
    /// Computes output block `idx` from the blocks [`LayerOp::deps`] declared. A
    /// layer of elements must return an `ndarray::ArrayD` of its element type with
    /// the block's shape (checked).
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use chunked_array::custom::{block_array, Deps, Layer, LayerOp};
    /// # use chunked_array::{runtime::Block, Array, DType, Result};
    /// /// Every element squared.
    /// struct Squared;
    /// impl LayerOp for Squared {
    /// #     fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
    /// #         deps.push(0, idx);
    /// #     }
    ///     fn run(&self, _idx: &[usize], inputs: &[&Block]) -> Result<Block> {
    ///         let a = block_array::<f64>(inputs[0])?;
    ///         Ok(Arc::new(a * a))
    ///     }
    /// }
    /// let x = Array::from_slice(&[3], &[1.0, 2.0, 3.0], 2).unwrap();
    /// let l = Layer::new("squared", DType::F64, x.chunks().clone(), &[x.layer()], Squared);
    /// assert_eq!(l.into_array::<f64>().unwrap().compute().unwrap().as_slice().unwrap(), &[1.0, 4.0, 9.0]);
    /// ```
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
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use chunked_array::custom::{block_array, Deps, Layer, LayerOp};
    /// # use chunked_array::{runtime::Block, ndarray::arr1, Array, DType, Result};
    /// /// Each block's sum, an intermediate value (a 1-element array).
    /// struct Partial;
    /// impl LayerOp for Partial {
    /// #     fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
    /// #         deps.push(0, idx);
    /// #     }
    /// #     fn run(&self, _: &[usize], inputs: &[&Block]) -> Result<Block> {
    /// #         Ok(Arc::new(arr1(&[block_array::<f64>(inputs[0])?.sum()]).into_dyn()))
    /// #     }
    ///     fn output_bytes(&self, _idx: &[usize]) -> Option<usize> {
    ///         Some(8)
    ///     }
    /// }
    /// let x = Array::<f64>::ones(&[4], 2).unwrap();
    /// let p = Layer::new("partial", DType::Intermediate, x.chunks().clone(), &[x.layer()], Partial);
    /// let g = Layer::task_graph(&[p]).unwrap();
    /// let t = g.output_tasks()[0][0] as usize;
    /// assert_eq!(g.estimated_bytes(t), 8);
    /// ```
    fn output_bytes(&self, _idx: &[usize]) -> Option<usize> {
        None
    }
    /// Bytes the kernel allocates for itself while computing block `idx`
    /// (default 0). The plan-time memory check counts it.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use chunked_array::custom::{block_array, Deps, Layer, LayerOp};
    /// # use chunked_array::{runtime::Block, Array, DType, Result};
    /// /// Sorts each block, in a work copy the kernel allocates.
    /// struct SortBlocks;
    /// impl LayerOp for SortBlocks {
    /// #     fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
    /// #         deps.push(0, idx);
    /// #     }
    /// #     fn run(&self, _: &[usize], inputs: &[&Block]) -> Result<Block> {
    /// #         let a = block_array::<i64>(inputs[0])?;
    /// #         let mut v = a.iter().copied().collect::<Vec<_>>();
    /// #         v.sort();
    /// #         Ok(Arc::new(chunked_array::ndarray::ArrayD::from_shape_vec(a.raw_dim(), v).unwrap()))
    /// #     }
    ///     fn scratch_bytes(&self, idx: &[usize]) -> usize {
    ///         if idx[0] == 0 { 16 } else { 8 } // blocks of two and one i64
    ///     }
    /// }
    /// let x = Array::from_vec(&[3], vec![3i64, 1, 2], 2).unwrap();
    /// let l = Layer::new("sort_blocks", DType::I64, x.chunks().clone(), &[x.layer()], SortBlocks);
    /// let g = Layer::task_graph(&[l.clone()]).unwrap();
    /// assert_eq!(g.scratch_bytes(g.output_tasks()[0][0] as usize), 16);
    /// assert_eq!(l.into_array::<i64>().unwrap().compute().unwrap().as_slice().unwrap(), &[1, 3, 2]);
    /// ```
    fn scratch_bytes(&self, _idx: &[usize]) -> usize {
        0
    }
    /// For a layer of intermediate values: how its blocks travel between the
    /// processes of an MPI run. `None` (default): they stay on the rank that made
    /// them, and every task reading them runs there too.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use chunked_array::custom::{block_array, Deps, Layer, LayerOp};
    /// # use chunked_array::{runtime::{Block, Wire}, ndarray::arr1, Array, DType, Result};
    /// /// Each block's sum, an intermediate value that other ranks may read.
    /// struct Partial;
    /// impl LayerOp for Partial {
    /// #     fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
    /// #         deps.push(0, idx);
    /// #     }
    /// #     fn run(&self, _: &[usize], inputs: &[&Block]) -> Result<Block> {
    /// #         Ok(Arc::new(arr1(&[block_array::<f64>(inputs[0])?.sum()]).into_dyn()))
    /// #     }
    ///     fn wire(&self) -> Option<Wire> {
    ///         Some(Wire::elements::<f64>()) // its blocks are arrays of f64
    ///     }
    /// }
    /// let x = Array::<f64>::ones(&[4], 2).unwrap();
    /// let p = Layer::new("partial", DType::Intermediate, x.chunks().clone(), &[x.layer()], Partial);
    /// let g = Layer::task_graph(&[p]).unwrap();
    /// let t = g.output_tasks()[0][0] as usize;
    /// let block: Block = Arc::new(arr1(&[2.0]).into_dyn());
    /// let back = g.decode_block(t, &g.encode_block(t, &block).unwrap()).unwrap();
    /// assert_eq!(block_array::<f64>(&back).unwrap()[[0]], 2.0);
    /// ```
    fn wire(&self) -> Option<crate::graph::wire::Wire> {
        None
    }
    /// Whether [`LayerOp::run_on_device`] computes this layer's blocks on a
    /// device. A layer reading a device array is placed on its device; with a
    /// device kernel its inputs are brought to the block's device and
    /// `run_on_device` runs there, without one (the default) [`LayerOp::run`]
    /// gets host copies and its element blocks are copied up after.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use chunked_array::custom::{block_array, Deps, Layer, LayerOp};
    /// # use chunked_array::{device::Device, runtime::Block, Array, DType, Result};
    /// /// Negates each block; without a device kernel, `run` gets host copies.
    /// struct Negate;
    /// impl LayerOp for Negate {
    /// #     fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
    /// #         deps.push(0, idx);
    /// #     }
    ///     fn run(&self, _idx: &[usize], inputs: &[&Block]) -> Result<Block> {
    ///         Ok(Arc::new(-block_array::<f64>(inputs[0])?))
    ///     }
    /// }
    /// assert!(!Negate.has_device_kernel());
    /// let dev = Device::emulated(1 << 20);
    /// let x = Array::from_slice(&[3], &[1.0, 2.0, 3.0], 2).unwrap().to_device(&dev);
    /// let y: Array<f64> = Layer::new("negate", DType::F64, x.chunks().clone(), &[x.layer()], Negate).into_array().unwrap();
    /// assert!(y.device().is_some()); // placed on the device, its blocks made on the host
    /// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[-1.0, -2.0, -3.0]);
    /// ```
    fn has_device_kernel(&self) -> bool {
        false
    }
    /// Computes output block `idx` on `device` from the blocks
    /// [`LayerOp::deps`] declared, every element block among them already a
    /// [`crate::device::DeviceBlock`] on `device`. A layer of elements returns
    /// a `DeviceBlock` of its element type with the block's shape (checked).
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use chunked_array::custom::{block_value, Deps, Layer, LayerOp};
    /// # use chunked_array::device::{Device, DeviceBlock};
    /// # use chunked_array::{runtime::Block, Array, DType, Result};
    /// /// Doubles each block on its device.
    /// struct Twice;
    /// impl LayerOp for Twice {
    /// #     fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
    /// #         deps.push(0, idx);
    /// #     }
    /// #     fn run(&self, _: &[usize], _: &[&Block]) -> Result<Block> {
    /// #         unreachable!("the device kernel runs")
    /// #     }
    ///     fn has_device_kernel(&self) -> bool {
    ///         true
    ///     }
    ///     fn run_on_device(&self, _idx: &[usize], inputs: &[&Block], device: &Device) -> Result<Block> {
    ///         let a = block_value::<DeviceBlock<f64>>(inputs[0])?;
    ///         // An emulated device's memory is host memory: download, double, upload.
    ///         let doubled: Vec<f64> = a.buffer.download()?.iter().map(|v| v * 2.0).collect();
    ///         Ok(Arc::new(DeviceBlock { buffer: device.upload(&doubled)?, shape: a.shape.clone() }))
    ///     }
    /// }
    /// let dev = Device::emulated(1 << 20);
    /// let x = Array::from_slice(&[4], &[1.0, 2.0, 3.0, 4.0], 2).unwrap().to_device(&dev);
    /// let y: Array<f64> = Layer::new("twice", DType::F64, x.chunks().clone(), &[x.layer()], Twice).into_array().unwrap();
    /// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[2.0, 4.0, 6.0, 8.0]);
    /// ```
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
///
/// ```
/// use std::sync::Arc;
/// use chunked_array::custom::{block_array, Deps, Layer, LayerOp};
/// use chunked_array::{runtime::Block, Array, DType, Result};
/// /// The sum of two arrays on the same grid: each output block reads two blocks.
/// struct Add;
/// impl LayerOp for Add {
///     fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
///         deps.push(0, idx);
///         deps.push(1, idx);
///     }
///     fn run(&self, _idx: &[usize], inputs: &[&Block]) -> Result<Block> {
///         Ok(Arc::new(block_array::<i64>(inputs[0])? + block_array::<i64>(inputs[1])?))
///     }
/// }
/// let x = Array::from_vec(&[3], vec![1i64, 2, 3], 2).unwrap();
/// let l = Layer::new("add", DType::I64, x.chunks().clone(), &[x.layer(), x.layer()], Add);
/// assert_eq!(l.into_array::<i64>().unwrap().compute().unwrap().as_slice().unwrap(), &[2, 4, 6]);
/// ```
pub struct Deps<'a> {
    node: &'a Node,
    out: &'a mut Vec<(usize, usize)>,
}

impl Deps<'_> {
    /// Output block reads block `block` (a multi-index) of input `input`.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use chunked_array::custom::{block_array, Deps, Layer, LayerOp};
    /// # use chunked_array::{runtime::Block, Array, DType, Result};
    /// /// Adds block 0 of input 1 to every block of input 0.
    /// struct AddFirst;
    /// impl LayerOp for AddFirst {
    ///     fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
    ///         deps.push(0, idx); // the block at the same place in input 0
    ///         deps.push(1, &[0]); // block 0 of input 1, for every output block
    ///     }
    /// #     fn run(&self, _: &[usize], inputs: &[&Block]) -> Result<Block> {
    /// #         Ok(Arc::new(block_array::<i64>(inputs[0])? + block_array::<i64>(inputs[1])?))
    /// #     }
    /// }
    /// let x = Array::from_vec(&[4], vec![1i64, 2, 3, 4], 2).unwrap();
    /// let v = Array::from_vec(&[2], vec![10i64, 20], 2).unwrap();
    /// let l = Layer::new("add_first", DType::I64, x.chunks().clone(), &[x.layer(), v.layer()], AddFirst);
    /// assert_eq!(l.into_array::<i64>().unwrap().compute().unwrap().as_slice().unwrap(), &[11, 22, 13, 24]);
    /// ```
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
    /// ```
    /// # use std::sync::Arc;
    /// # use chunked_array::custom::{block_array, Deps, Layer, LayerOp};
    /// # use chunked_array::{runtime::Block, Array, DType, Result};
    /// /// A running sum: block i continues from the last element of output block i - 1.
    /// struct RunningSum;
    /// impl LayerOp for RunningSum {
    ///     fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
    ///         deps.push(0, idx);
    ///         if idx[0] > 0 {
    ///             deps.push_self(&[idx[0] - 1]);
    ///         }
    ///     }
    ///     fn run(&self, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
    ///         let mut acc = if idx[0] > 0 { *block_array::<i64>(inputs[1])?.iter().last().unwrap() } else { 0 };
    ///         Ok(Arc::new(block_array::<i64>(inputs[0])?.mapv(|v| { acc += v; acc })))
    ///     }
    /// }
    /// let x = Array::from_vec(&[5], vec![1i64; 5], 2).unwrap();
    /// let l = Layer::new("running_sum", DType::I64, x.chunks().clone(), &[x.layer()], RunningSum);
    /// assert_eq!(l.into_array::<i64>().unwrap().compute().unwrap().as_slice().unwrap(), &[1, 2, 3, 4, 5]);
    /// ```
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
    /// ```
    /// use chunked_array::{custom::Layer, Array};
    /// let x = Array::<f64>::ones(&[6], 2).unwrap();
    /// let y = x.sum(None).unwrap();
    /// let g = Layer::task_graph(&[x.layer(), y.layer()]).unwrap();
    /// // Per layer asked for, its tasks: three blocks of `x`, one of `y`.
    /// assert_eq!((g.output_tasks()[0].len(), g.output_tasks()[1].len()), (3, 1));
    /// assert!(g.output_tasks()[1].iter().all(|&t| g.layer_name(t as usize).starts_with("sum")));
    /// ```
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
    ///
    /// ```
    /// use std::sync::Arc;
    /// use chunked_array::custom::{Deps, Layer, LayerOp};
    /// use chunked_array::{ndarray::ArrayD, runtime::Block, Array, Chunks, DType, Result};
    /// /// A source (no inputs): every element of block i is i.
    /// struct BlockNumber;
    /// impl LayerOp for BlockNumber {
    ///     fn deps(&self, _idx: &[usize], _deps: &mut Deps<'_>) {}
    ///     fn run(&self, idx: &[usize], _inputs: &[&Block]) -> Result<Block> {
    ///         Ok(Arc::new(ArrayD::from_elem(vec![2], idx[0] as i64)))
    ///     }
    /// }
    /// let chunks = Chunks::from_lengths(vec![vec![2, 2, 2]]);
    /// let y: Array<i64> = Layer::new("block_number", DType::I64, chunks, &[], BlockNumber).into_array().unwrap();
    /// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[0, 0, 1, 1, 2, 2]);
    /// ```
    pub fn new(name: &str, dtype: DType, chunks: Chunks, inputs: &[Layer], op: impl LayerOp) -> Layer {
        let nodes = inputs.iter().map(|l| l.node.clone()).collect();
        Layer { node: Node::new(name, dtype, chunks, nodes, Custom(op)) }
    }

    /// The output grid.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::ones(&[5], 2).unwrap();
    /// assert_eq!(x.layer().chunks().lengths(), &[vec![2, 2, 1]]);
    /// ```
    pub fn chunks(&self) -> &Chunks {
        &self.node.chunks
    }

    /// What the blocks hold.
    ///
    /// ```
    /// use chunked_array::{Array, DType};
    /// let x = Array::<f32>::zeros(&[3], 3).unwrap();
    /// assert_eq!(x.layer().dtype(), DType::F32);
    /// ```
    pub fn dtype(&self) -> DType {
        self.node.dtype
    }

    /// The layer's name and id, as task keys show it.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::ones(&[4], 2).unwrap();
    /// let doubled = &x * 2.0;
    /// assert_eq!(doubled.layer().name(), doubled.name());
    /// assert_ne!(doubled.layer().name(), x.layer().name()); // each layer has its id
    /// ```
    pub fn name(&self) -> String {
        self.node.label()
    }

    /// This layer as an array of `T`.
    ///
    /// ```
    /// use chunked_array::{Array, Error};
    /// let x = Array::<f64>::ones(&[4], 2).unwrap();
    /// assert_eq!(x.layer().into_array::<f64>().unwrap().compute().unwrap(), x.compute().unwrap());
    /// assert!(matches!(x.layer().into_array::<i64>(), Err(Error::DtypeMismatch { .. })));
    /// ```
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
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::ones(&[4, 4], 2).unwrap();
    /// let l = x.layer();
    /// assert_eq!((l.name(), l.chunks()), (x.name(), x.chunks()));
    /// ```
    pub fn layer(&self) -> Layer {
        Layer { node: self.node.clone() }
    }
}

/// A block of elements as the `ndarray` it is.
///
/// ```
/// use std::sync::Arc;
/// use chunked_array::{custom::block_array, ndarray::arr1, runtime::Block};
/// let b: Block = Arc::new(arr1(&[1.0, 2.0]).into_dyn());
/// assert_eq!(block_array::<f64>(&b).unwrap().sum(), 3.0);
/// assert!(block_array::<i64>(&b).is_err()); // not an array of i64
/// ```
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
/// ```
/// use std::sync::Arc;
/// use chunked_array::{custom::block_value, ndarray::ArrayD, runtime::Block};
/// // An intermediate block: (index, value) pairs, as an arg-reduction keeps them.
/// let b: Block = Arc::new(ArrayD::from_elem(vec![2], (1usize, 0.5f64)));
/// let pairs = block_value::<ArrayD<(usize, f64)>>(&b).unwrap();
/// assert_eq!(pairs[[1]], (1, 0.5));
/// assert!(block_value::<ArrayD<f64>>(&b).is_err());
/// ```
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
