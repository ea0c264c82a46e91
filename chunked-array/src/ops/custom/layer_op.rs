//! What a custom layer implements ([`LayerOp`]) and how it names the input
//! blocks each of its blocks reads ([`Deps`]).

use crate::block::Block;
use crate::error::{Error, Result};
use crate::graph::Node;

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
    /// The input (its position in the order [`LayerOp::deps`] pushes them)
    /// whose MPI rank runs this layer's tasks; `None` (the default): the rank
    /// where most of the task's input bytes are. A layer whose small inputs
    /// may be estimated larger than its large one (a factor that is empty on
    /// one path of the algorithm) names the large one, so that it never
    /// travels.
    ///
    /// ```
    /// use chunked_array::custom::{Deps, Layer, LayerOp};
    /// use chunked_array::runtime::Block;
    /// use chunked_array::{Array, DType};
    /// struct ScaleRows;
    /// impl LayerOp for ScaleRows {
    ///     fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
    ///         deps.push(0, &[idx[0], 0]); // the row block
    ///         deps.push(1, &[0]); // a small array every task reads
    ///     }
    ///     fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
    ///         Ok(inputs[0].clone())
    ///     }
    ///     fn home_input(&self) -> Option<usize> {
    ///         Some(0) // run where the row block is
    ///     }
    /// }
    /// let x = Array::<f64>::ones(&[8, 2], [2, 2]).unwrap();
    /// let s = Array::<f64>::ones(&[2], 2).unwrap();
    /// let y = Layer::new("scale", DType::F64, x.chunks().clone(), &[x.layer(), s.layer()], ScaleRows);
    /// let g = Layer::task_graph(&[y]).unwrap();
    /// let t = g.output_tasks()[0][0] as usize;
    /// assert_eq!(g.home_input(t), Some(g.deps(t)[0] as usize));
    /// ```
    fn home_input(&self) -> Option<usize> {
        None
    }
    /// The MPI rank (of `processes`) that runs block `idx`, for a layer that
    /// lays its blocks out itself (one copy of a small value per rank, say);
    /// `None` (the default): the placement's rules. A rank beyond
    /// `processes` counts as `None`.
    ///
    /// ```
    /// use chunked_array::custom::{Deps, Layer, LayerOp};
    /// use chunked_array::runtime::Block;
    /// use chunked_array::{Array, Chunks, DType};
    /// /// Block r: a copy of the input's only block, made on rank r.
    /// struct CopyPerRank;
    /// impl LayerOp for CopyPerRank {
    ///     fn deps(&self, _: &[usize], deps: &mut Deps<'_>) {
    ///         deps.push(0, &[0]);
    ///     }
    ///     fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
    ///         Ok(inputs[0].clone())
    ///     }
    ///     fn process_of(&self, idx: &[usize], _processes: usize) -> Option<usize> {
    ///         Some(idx[0])
    ///     }
    /// }
    /// let x = Array::<f64>::ones(&[3], 3).unwrap();
    /// let copies = Layer::new("copies", DType::F64, Chunks::from_lengths(vec![vec![3; 4]]), &[x.layer()], CopyPerRank);
    /// let g = Layer::task_graph(&[copies]).unwrap();
    /// let t = g.output_tasks()[0][2] as usize;
    /// assert_eq!(g.process_of(t, 4), Some(2));
    /// assert_eq!(g.process_of(t, 2), None); // no rank 2 of 2
    /// ```
    fn process_of(&self, _idx: &[usize], _processes: usize) -> Option<usize> {
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
    pub(super) node: &'a Node,
    pub(super) out: &'a mut Vec<(usize, usize)>,
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
