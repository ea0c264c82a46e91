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
use crate::exec::{Assemble, Collector, Context, Hold, run, run_blocks};
use crate::graph::{BlockOp, Node, post_order};
use crate::schedule::{Deliver, RunStats};
use crate::units::human_bytes;

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
    /// # Errors
    /// The deferred error.
    pub fn check(&self) -> Result<()> {
        self.node.check()
    }

    /// The shape.
    pub fn shape(&self) -> Vec<usize> {
        self.node.shape()
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.node.chunks.ndim()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape().iter().product()
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Block lengths per axis (dask's `.chunks`).
    pub fn chunks(&self) -> &Chunks {
        &self.node.chunks
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        T::DTYPE
    }

    /// Bytes of the whole array.
    pub fn nbytes(&self) -> usize {
        self.len() * std::mem::size_of::<T>()
    }

    /// Number of blocks.
    pub fn num_blocks(&self) -> usize {
        self.node.chunks.num_blocks()
    }

    /// The layer's name, e.g. `random_uniform-3`.
    pub fn name(&self) -> String {
        self.node.label()
    }

    /// Number of tasks in the unoptimized graph that computes every block.
    pub fn num_tasks(&self) -> usize {
        post_order(std::slice::from_ref(&self.node)).iter().map(|n| n.chunks.num_blocks()).sum()
    }

    /// Computes the whole array with the default (threaded) scheduler.
    ///
    /// # Errors
    /// Deferred build errors, and task errors naming the failing task.
    pub fn compute(&self) -> Result<ArrayD<T>> {
        self.compute_on(&Context::default())
    }

    /// Computes the whole array with the given context.
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
    /// # Errors
    /// As [`Array::compute`].
    pub fn compute_root(&self, ctx: &Context) -> Result<Option<ArrayD<T>>> {
        received_here(self.compute_on(ctx))
    }

    /// Computes the whole array and also returns what the run did (tasks, peak bytes
    /// held in blocks, time).
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
    /// use chunked_array::{Array, Context, SyncScheduler, ndarray::Ix1};
    /// let ctx = Context::new(SyncScheduler);
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
        let shape = self.shape();
        self.compute_on(ctx)?
            .into_dimensionality::<D>()
            .map_err(|e| Error::invalid("dimension", D::NDIM, format!("does not fit shape {shape:?}: {e}")))
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

    /// Computes every block and returns an array backed by the held blocks (dask's
    /// `persist`): later computations start from them.
    ///
    /// # Errors
    /// As [`Array::compute`].
    pub fn persist(&self) -> Result<Array<T>> {
        self.persist_on(&Context::default())
    }

    /// [`Array::persist`] with the given context.
    ///
    /// # Errors
    /// As [`Array::compute`].
    ///
    /// In a run over several processes (MPI), each process keeps the blocks it
    /// owns (an even spread of the block numbers over the ranks), and later runs
    /// place the tasks that read them on their owners.
    pub fn persist_on(&self, ctx: &Context) -> Result<Array<T>> {
        let held = Hold::new(self.num_blocks());
        run_blocks(
            std::slice::from_ref(&self.node),
            &[(0..self.num_blocks()).collect()],
            ctx,
            Deliver::Owners,
            &[&held],
        )?;
        let blocks = held.finish(ctx.scheduler())?;
        // Blocks persisted on a device stay there, and so does the array.
        Self::built(Node::placed(
            self.node.name.clone(),
            T::DTYPE,
            self.node.chunks.clone(),
            vec![],
            Arc::new(Persisted { blocks }),
            self.node.device.clone(),
        ))
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
    pub fn to_dot(&self) -> String {
        graphviz::layers_dot(std::slice::from_ref(&self.node))
    }

    /// The expression layers as an SVG picture, drawn by Graphviz's `dot`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `dot` is not installed or fails.
    pub fn to_svg(&self) -> Result<String> {
        graphviz::svg(&self.to_dot())
    }

    /// The task graph as an SVG picture (see [`Array::task_graph_dot`]).
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

/// A source backed by blocks already computed.
///
/// In a multi-process run each process holds only the blocks it owns (`None`
/// for the others); the MPI placement runs each block's task on its owner.
struct Persisted {
    blocks: Vec<Option<Block>>,
}
impl BlockOp for Persisted {
    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}
    fn run(&self, node: &Node, idx: &[usize], _: &[&Block]) -> Result<Block> {
        self.blocks[node.chunks.linear(idx)].clone().ok_or_else(|| {
            Error::invalid(
                "persisted block",
                format!("{idx:?}"),
                "is held by another process of the run that persisted it (run the graph with the same scheduler)",
            )
        })
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

/// Several arrays computed together, sharing their common subgraph
/// (`dask.compute(u, s, v)`); see [`compute`].
pub trait Computable {
    /// The computed results.
    type Output;
    /// Computes everything in one graph with the given context.
    ///
    /// # Errors
    /// Deferred build errors, and task errors naming the failing task.
    fn compute_on(self, ctx: &Context) -> Result<Self::Output>;
    /// Computes everything; `Some` where results are received (see
    /// [`Array::compute_root`]), `None` on the other ranks of an MPI run.
    ///
    /// # Errors
    /// As [`Computable::compute_on`].
    fn compute_root(self, ctx: &Context) -> Result<Option<Self::Output>>
    where
        Self: Sized,
    {
        received_here(self.compute_on(ctx))
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

/// Computes several arrays in one run, each shared intermediate once.
///
/// ```
/// use chunked_array::{compute, Array};
/// let x = Array::<f64>::ones(&[6], 2).unwrap();
/// let s = x.sum(None).unwrap();
/// let m = x.mean(None).unwrap();
/// let (s, m) = compute((&s, &m)).unwrap();
/// assert_eq!((s[[]], m[[]]), (6.0, 1.0));
/// ```
///
/// # Errors
/// As [`Array::compute`].
pub fn compute<C: Computable>(arrays: C) -> Result<C::Output> {
    arrays.compute_on(&Context::default())
}

macro_rules! computable_tuple {
    ($($t:ident $a:ident $i:tt),+) => {
        impl<'a, $($t: Element),+> Computable for ($(&'a Array<$t>,)+) {
            type Output = ($(ArrayD<$t>,)+);
            fn compute_on(self, ctx: &Context) -> Result<Self::Output> {
                $(let $a = Assemble::<$t>::new(&self.$i.node.chunks);)+
                let nodes = [$(self.$i.node.clone()),+];
                run(&nodes, ctx, &[$(&$a),+])?;
                Ok(($($a.finish()?,)+))
            }
        }
    };
}
computable_tuple!(A a 0);
computable_tuple!(A a 0, B b 1);
computable_tuple!(A a 0, B b 1, C c 2);
computable_tuple!(A a 0, B b 1, C c 2, D d 3);
computable_tuple!(A a 0, B b 1, C c 2, D d 3, E e 4);
computable_tuple!(A a 0, B b 1, C c 2, D d 3, E e 4, F f 5);

impl<T: Element> Computable for &[Array<T>] {
    type Output = Vec<ArrayD<T>>;
    fn compute_on(self, ctx: &Context) -> Result<Self::Output> {
        let outs: Vec<Assemble<T>> = self.iter().map(|a| Assemble::new(&a.node.chunks)).collect();
        let refs: Vec<&dyn Collector> = outs.iter().map(|o| o as &dyn Collector).collect();
        run(&self.iter().map(|a| a.node.clone()).collect::<Vec<_>>(), ctx, &refs)?;
        outs.into_iter().map(Assemble::finish).collect()
    }
}
