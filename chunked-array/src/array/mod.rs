//! [`Array`]: the lazy chunked array, its metadata, and turning it into results.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use ndarray::{ArrayD, Dimension};

use crate::block::Block;
use crate::chunks::Chunks;
use crate::diagnostics::graphviz;
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::exec::{Assemble, Context, run};
use crate::graph::{BlockOp, Node, post_order};
use crate::schedule::RunStats;
use crate::units::human_bytes;

mod computable;
mod persist;
pub(crate) use computable::LayerBlocks;
pub use computable::{Computable, ComputePart, compute};
use persist::Persisted;
pub use persist::{PersistPart, Persistable, persist};

/// A lazy n-dimensional array of `T`, split into blocks.
///
/// Operations return new arrays and do no work; [`Array::compute`] runs the block
/// graph and returns an `ndarray::ArrayD`. Cloning is cheap (a shared handle).
///
/// ```
/// use chunked_array::Array;
/// let x = Array::<f64>::arange(0.0, 10.0, 1.0, 4).unwrap();
/// let y = (&x * 2.0 + 1.0).sum(None).unwrap();
/// assert_eq!(y.compute_scalar().unwrap(), 100.0);
/// ```
pub struct Array<T> {
    pub(crate) node: Arc<Node>,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Array<T> {
    fn clone(&self) -> Self {
        Array { node: self.node.clone(), _t: PhantomData }
    }
}

impl<T: Element> Array<T> {
    pub(crate) fn from_node(node: Arc<Node>) -> Self {
        debug_assert!(node.error.is_some() || node.dtype == T::DTYPE);
        Array { node, _t: PhantomData }
    }

    /// The array of a layer just built, or the error of a failed one (a grid
    /// too large for memory: see [`Node::placed`]).
    pub(crate) fn built(node: Arc<Node>) -> Result<Self> {
        node.check()?;
        Ok(Self::from_node(node))
    }

    /// An array that carries an error, returned by operators (which cannot return
    /// `Result`) on invalid input; every use of it returns the error.
    pub(crate) fn failed(error: Error) -> Self {
        Array { node: Node::failed(error), _t: PhantomData }
    }

    pub(crate) fn from_result(r: Result<Array<T>>) -> Self {
        r.unwrap_or_else(Array::failed)
    }

    /// A new layer with this array's grid.
    pub(crate) fn source(name: &str, chunks: Chunks, op: impl BlockOp) -> Self {
        Self::from_node(Node::new(name, T::DTYPE, chunks, vec![], op))
    }

    /// The error this array carries, if it was built from invalid input by an
    /// operator such as `&a + &b`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let a = Array::<f64>::ones(&[2, 3], 2).unwrap();
    /// assert!(a.check().is_ok());
    /// assert!((&a + &Array::<f64>::ones(&[4], 2).unwrap()).check().is_err()); // shapes (2, 3) and (4,)
    /// ```
    ///
    /// # Errors
    /// The deferred error.
    pub fn check(&self) -> Result<()> {
        self.node.check()
    }

    /// The shape.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::zeros(&[4, 6], [2, 3]).unwrap();
    /// assert_eq!(x.shape(), vec![4, 6]);
    /// ```
    pub fn shape(&self) -> Vec<usize> {
        self.node.shape()
    }

    /// Number of dimensions.
    ///
    /// ```
    /// use chunked_array::Array;
    /// assert_eq!(Array::<f64>::zeros(&[4, 6, 2], 2).unwrap().ndim(), 3);
    /// ```
    pub fn ndim(&self) -> usize {
        self.node.chunks.ndim()
    }

    /// Number of elements.
    ///
    /// ```
    /// use chunked_array::Array;
    /// assert_eq!(Array::<i32>::zeros(&[4, 6], 2).unwrap().len(), 24); // NumPy's x.size
    /// ```
    pub fn len(&self) -> usize {
        self.shape().iter().product()
    }

    /// Whether the array has no elements.
    ///
    /// ```
    /// use chunked_array::Array;
    /// assert!(Array::<i32>::zeros(&[4, 0], 2).unwrap().is_empty());
    /// assert!(!Array::<i32>::zeros(&[1], 1).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Block lengths per axis (dask's `.chunks`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::zeros(&[5, 6], [2, 3]).unwrap();
    /// assert_eq!(x.chunks().lengths(), &[vec![2, 2, 1], vec![3, 3]]);
    /// ```
    pub fn chunks(&self) -> &Chunks {
        &self.node.chunks
    }

    /// The element type.
    ///
    /// ```
    /// use chunked_array::{Array, DType};
    /// assert_eq!(Array::<u8>::zeros(&[3], 3).unwrap().dtype(), DType::U8);
    /// ```
    pub fn dtype(&self) -> DType {
        T::DTYPE
    }

    /// Bytes of the whole array.
    ///
    /// ```
    /// use chunked_array::Array;
    /// assert_eq!(Array::<f32>::zeros(&[10, 10], 5).unwrap().nbytes(), 400);
    /// ```
    pub fn nbytes(&self) -> usize {
        self.len() * std::mem::size_of::<T>()
    }

    /// Number of blocks.
    ///
    /// ```
    /// use chunked_array::Array;
    /// assert_eq!(Array::<f64>::zeros(&[5, 6], [2, 3]).unwrap().num_blocks(), 6); // 3 x 2 blocks
    /// ```
    pub fn num_blocks(&self) -> usize {
        self.node.chunks.num_blocks()
    }

    /// The layer's name, e.g. `random_uniform-3`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::ones(&[4], 2).unwrap();
    /// assert!(x.name().starts_with("ones-"));
    /// ```
    pub fn name(&self) -> String {
        self.node.label()
    }

    /// Number of tasks in the unoptimized graph that computes every block.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::ones(&[4], 2).unwrap(); // 2 tasks
    /// assert_eq!((&x + 1.0).num_tasks(), 4); // and 2 more for the addition
    /// ```
    pub fn num_tasks(&self) -> usize {
        post_order(std::slice::from_ref(&self.node)).iter().map(|n| n.chunks.num_blocks()).sum()
    }

    /// Computes the whole array with the default (threaded) scheduler.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::arange(0, 6, 1, 4).unwrap();
    /// let y = (&x * 10).compute().unwrap(); // an ndarray::ArrayD
    /// assert_eq!(y.as_slice().unwrap(), &[0, 10, 20, 30, 40, 50]);
    /// ```
    ///
    /// # Errors
    /// Deferred build errors, and task errors naming the failing task.
    pub fn compute(&self) -> Result<ArrayD<T>> {
        self.compute_on(&Context::default())
    }

    /// Computes the whole array with the given context.
    ///
    /// ```
    /// use chunked_array::{Array, Context};
    /// let x = Array::<f64>::ones(&[4], 2).unwrap();
    /// let y = x.compute_on(&Context::sync()).unwrap(); // dask's scheduler="synchronous"
    /// assert_eq!(y.sum(), 4.0);
    /// ```
    ///
    /// # Errors
    /// As [`Array::compute`].
    ///
    /// In a run over several processes (MPI) that gathers results on one rank
    /// only, the other ranks take part and then get [`Error::ResultElsewhere`];
    /// [`Array::compute_root`] is the call for such programs.
    pub fn compute_on(&self, ctx: &Context) -> Result<ArrayD<T>> {
        let out = Assemble::<T>::new(&self.node.chunks);
        run(std::slice::from_ref(&self.node), ctx, &[&out])?;
        out.finish()
    }

    /// Computes the whole array; `Some` on the processes that receive results
    /// (every one, except in an MPI run gathering on rank 0, where the other
    /// ranks compute their share and get `None`).
    ///
    /// ```
    /// use chunked_array::{Array, Context};
    /// // Outside MPI every process receives the result.
    /// let x = Array::<f64>::ones(&[4], 2).unwrap();
    /// assert_eq!(x.compute_root(&Context::default()).unwrap().unwrap().len(), 4);
    /// ```
    ///
    /// # Errors
    /// As [`Array::compute`].
    pub fn compute_root(&self, ctx: &Context) -> Result<Option<ArrayD<T>>> {
        received_here(self.compute_on(ctx))
    }

    /// Computes the whole array and also returns what the run did (tasks, peak bytes
    /// held in blocks, time).
    ///
    /// ```
    /// use chunked_array::{Array, Context};
    /// let x = Array::<f64>::ones(&[4], 2).unwrap().sum(None).unwrap();
    /// let (total, stats) = x.compute_stats(&Context::default()).unwrap();
    /// assert_eq!(total[[]], 4.0);
    /// assert!(stats.tasks >= 3 && stats.tiers.spilled == 0);
    /// ```
    ///
    /// # Errors
    /// As [`Array::compute`].
    pub fn compute_stats(&self, ctx: &Context) -> Result<(ArrayD<T>, RunStats)> {
        let out = Assemble::<T>::new(&self.node.chunks);
        let stats = run(std::slice::from_ref(&self.node), ctx, &[&out])?;
        Ok((out.finish()?, stats))
    }

    /// Computes the whole array as an ndarray of a fixed dimension: `Ix2` for a
    /// matrix, `Ix1` for a vector (NumPy's and dask's results have no static
    /// dimension; Rust code usually wants one). The dimension is checked before
    /// anything runs.
    ///
    /// ```
    /// use chunked_array::{Array, ndarray::{Ix2, array}, s};
    /// let x = Array::<f64>::from_ndarray(array![[1.0, 2.0], [3.0, 4.0]], [1, 2]).unwrap();
    /// let corner = x.slice(s![..1, ..]).unwrap().compute_as::<Ix2>().unwrap();
    /// assert_eq!(corner, array![[1.0, 2.0]]);
    /// assert!(x.compute_as::<chunked_array::ndarray::Ix1>().is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming both dimensions when `D` is not the
    /// array's; otherwise as [`Array::compute`].
    pub fn compute_as<D: Dimension>(&self) -> Result<ndarray::Array<T, D>> {
        self.compute_as_on(&Context::default())
    }

    /// [`Array::compute_as`] with the given context.
    ///
    /// ```
    /// use chunked_array::{Array, Context, ndarray::Ix1};
    /// let ctx = Context::sync();
    /// let v = Array::<i64>::arange(0, 4, 1, 2).unwrap().compute_as_on::<Ix1>(&ctx).unwrap();
    /// assert_eq!(v.to_vec(), vec![0, 1, 2, 3]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::compute_as`].
    pub fn compute_as_on<D: Dimension>(&self, ctx: &Context) -> Result<ndarray::Array<T, D>> {
        self.check()?;
        if let Some(want) = D::NDIM.filter(|&n| n != self.ndim()) {
            return Err(Error::invalid(
                "dimension",
                want,
                format!("was asked of an array of {} dimensions (shape {:?})", self.ndim(), self.shape()),
            ));
        }
        // The dimension agrees (or `D` is dynamic), so ndarray's conversion
        // cannot fail; its error is passed on rather than unwrapped.
        self.compute_on(ctx)?
            .into_dimensionality::<D>()
            .map_err(|e| Error::invalid("dimension", D::NDIM, e.to_string()))
    }

    /// Computes a 0-d (or one-element) array and returns its value.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let total = Array::<i64>::arange(0, 5, 1, 2).unwrap().sum(None).unwrap();
    /// assert_eq!(total.compute_scalar().unwrap(), 10);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the array does not hold exactly one element.
    pub fn compute_scalar(&self) -> Result<T> {
        if self.len() != 1 {
            return Err(Error::invalid("shape", self.shape(), "compute_scalar needs exactly one element"));
        }
        let a = self.compute()?;
        Ok(*a.iter().next().expect("one element"))
    }

    /// An array over blocks already computed (every block present, on the
    /// host), as [`Array::persist`] leaves one.
    pub(crate) fn from_computed(name: &str, chunks: Chunks, blocks: Vec<Block>) -> Self {
        let op = Persisted { blocks: blocks.into_iter().map(Some).collect() };
        Self::from_node(Node::new(name, T::DTYPE, chunks, vec![], op))
    }

    /// The block with multi-index `index`, as a one-block array (dask's
    /// `x.blocks[i, j]`). Computing it runs only what that block needs.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::arange(0, 10, 1, 4).unwrap(); // blocks 0..4, 4..8, 8..10
    /// assert_eq!(x.block(&[2]).unwrap().compute().unwrap().as_slice().unwrap(), &[8, 9]);
    /// assert!(x.block(&[3]).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::BadBlockIndex`] when `index` is outside the grid.
    pub fn block(&self, index: &[usize]) -> Result<Array<T>> {
        self.check()?;
        let grid = self.node.chunks.grid();
        if index.len() != grid.len() || index.iter().zip(&grid).any(|(i, g)| i >= g) {
            return Err(Error::BadBlockIndex { index: index.to_vec(), grid });
        }
        let lengths = self.node.chunks.block_shape(index).into_iter().map(|l| vec![l]).collect();
        let lin = self.node.chunks.linear(index);
        Self::built(Node::new(
            "block",
            T::DTYPE,
            Chunks::from_lengths(lengths),
            vec![self.node.clone()],
            SelectBlock { lin },
        ))
    }

    /// The expression layers as a Graphviz DOT digraph (one vertex per layer).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::ones(&[4], 2).unwrap();
    /// let dot = (&x + 1.0).to_dot();
    /// assert!(dot.starts_with("digraph") && dot.contains("ones"));
    /// ```
    pub fn to_dot(&self) -> String {
        graphviz::layers_dot(std::slice::from_ref(&self.node))
    }

    /// The expression layers as an SVG picture, drawn by Graphviz's `dot`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::ones(&[4], 2).unwrap();
    /// // Needs Graphviz's `dot` on the PATH; without it, an error says so.
    /// match x.to_svg() {
    ///     Ok(svg) => assert!(svg.contains("<svg")),
    ///     Err(e) => assert!(e.to_string().contains("dot")),
    /// }
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `dot` is not installed or fails.
    pub fn to_svg(&self) -> Result<String> {
        graphviz::svg(&self.to_dot())
    }

    /// The task graph as an SVG picture (see [`Array::task_graph_dot`]).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::ones(&[4], 2).unwrap();
    /// if let Ok(svg) = (&x * 2.0).task_graph_svg(10) {
    ///     assert!(svg.contains("<svg")); // Graphviz's `dot` was found
    /// }
    /// ```
    ///
    /// # Errors
    /// As [`Array::to_svg`].
    pub fn task_graph_svg(&self, max_tasks_per_layer: usize) -> Result<String> {
        graphviz::svg(&self.task_graph_dot(max_tasks_per_layer)?)
    }

    /// The task graph (after optimization) as a Graphviz DOT digraph, one vertex
    /// per task; layers with more than `max_tasks_per_layer` tasks are collapsed
    /// into one vertex.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::ones(&[4], 2).unwrap();
    /// let dot = (&x * 2.0).task_graph_dot(10).unwrap(); // one vertex per task
    /// assert!(dot.starts_with("digraph"));
    /// ```
    ///
    /// # Errors
    /// Deferred build errors.
    pub fn task_graph_dot(&self, max_tasks_per_layer: usize) -> Result<String> {
        graphviz::tasks_dot(std::slice::from_ref(&self.node), max_tasks_per_layer)
    }
}

impl<T: Element> fmt::Display for Array<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(e) = &self.node.error {
            return write!(f, "chunked.Array<error: {e}>");
        }
        let chunksize: Vec<usize> =
            self.node.chunks.lengths().iter().map(|l| l.iter().copied().max().unwrap_or(0)).collect();
        write!(
            f,
            "chunked.Array<{}, shape={}, dtype={}, chunksize={}, blocks={}, bytes={}, tasks={}>",
            self.node.label(),
            tuple(&self.shape()),
            T::DTYPE,
            tuple(&chunksize),
            self.num_blocks(),
            human_bytes(self.nbytes()),
            self.num_tasks()
        )
    }
}

impl<T: Element> fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

fn tuple(v: &[usize]) -> String {
    match v.len() {
        1 => format!("({},)", v[0]),
        _ => format!("({})", v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

/// One block of another array, shared without a copy.
struct SelectBlock {
    lin: usize,
}
impl BlockOp for SelectBlock {
    fn deps(&self, _: &Node, _: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, self.lin));
    }
    fn run(&self, _: &Node, _: &[usize], inputs: &[&Block]) -> Result<Block> {
        Ok(inputs[0].clone())
    }
}

/// A result as the processes that do not receive it see it: `None` instead of
/// [`Error::ResultElsewhere`].
fn received_here<T>(result: Result<T>) -> Result<Option<T>> {
    match result {
        Ok(out) => Ok(Some(out)),
        Err(Error::ResultElsewhere { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}
