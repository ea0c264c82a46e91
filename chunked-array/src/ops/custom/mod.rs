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

mod layer_op;
pub use layer_op::{Deps, LayerOp};

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

    fn home_input(&self) -> Option<usize> {
        self.0.home_input()
    }

    fn process_of(&self, _node: &Node, idx: &[usize], processes: usize) -> Option<usize> {
        self.0.process_of(idx, processes)
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
