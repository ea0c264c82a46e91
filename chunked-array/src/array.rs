//! [`Array`]: the lazy chunked array, its metadata, and turning it into results.

use std::fmt;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::sync::{Arc, Mutex};

use ndarray::{ArrayD, Slice};

use crate::chunks::Chunks;
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::fuse::optimize;
use crate::graph::task::TaskGraph;
use crate::graph::{post_order, Block, BlockOp, Node};
use crate::schedule::{Context, Deliver, RunStats};

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
        self.compute_with(&Context::default())
    }

    /// Computes the whole array with the given context.
    ///
    /// # Errors
    /// As [`Array::compute`].
    ///
    /// In a run over several processes (MPI) that gathers results on one rank
    /// only, the other ranks take part and then get [`Error::ResultElsewhere`];
    /// [`Array::compute_root`] is the call for such programs.
    pub fn compute_with(&self, ctx: &Context) -> Result<ArrayD<T>> {
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
        received_here(self.compute_with(ctx))
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

    /// Computes a 0-d (or one-element) array and returns its value.
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
        self.persist_with(&Context::default())
    }

    /// [`Array::persist`] with the given context.
    ///
    /// # Errors
    /// As [`Array::compute`].
    ///
    /// In a run over several processes (MPI), each process keeps the blocks it
    /// owns (an even spread of the block numbers over the ranks), and later runs
    /// place the tasks that read them on their owners.
    pub fn persist_with(&self, ctx: &Context) -> Result<Array<T>> {
        let held = Hold::new(self.num_blocks());
        run_blocks(std::slice::from_ref(&self.node), &[(0..self.num_blocks()).collect()], ctx, Deliver::Owners, &[&held])?;
        let blocks = held.finish(ctx.scheduler())?;
        // Blocks persisted on a device stay there, and so does the array.
        Self::built(Node::placed(self.node.name.clone(), T::DTYPE, self.node.chunks.clone(), vec![], Arc::new(Persisted { blocks }), self.node.device.clone()))
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
        Self::built(Node::new("block", T::DTYPE, Chunks::from_lengths(lengths), vec![self.node.clone()], SelectBlock { lin }))
    }

    /// The expression layers as a Graphviz DOT digraph (one vertex per layer).
    pub fn to_dot(&self) -> String {
        crate::dot::layers_dot(std::slice::from_ref(&self.node))
    }

    /// The expression layers as an SVG picture, drawn by Graphviz's `dot`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `dot` is not installed or fails.
    pub fn to_svg(&self) -> Result<String> {
        crate::dot::svg(&self.to_dot())
    }

    /// The task graph as an SVG picture (see [`Array::task_graph_dot`]).
    ///
    /// # Errors
    /// As [`Array::to_svg`].
    pub fn task_graph_svg(&self, max_tasks_per_layer: usize) -> Result<String> {
        crate::dot::svg(&self.task_graph_dot(max_tasks_per_layer)?)
    }

    /// The task graph (after optimization) as a Graphviz DOT digraph, one vertex
    /// per task; layers with more than `max_tasks_per_layer` tasks are collapsed
    /// into one vertex.
    ///
    /// # Errors
    /// Deferred build errors.
    pub fn task_graph_dot(&self, max_tasks_per_layer: usize) -> Result<String> {
        crate::dot::tasks_dot(std::slice::from_ref(&self.node), max_tasks_per_layer)
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

/// Bytes in binary units, as dask prints them (`762.94 MiB`).
pub(crate) fn human_bytes(b: usize) -> String {
    const UNITS: [&str; 6] = ["B", "kiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 { format!("{b} B") } else { format!("{v:.2} {}", UNITS[u]) }
}

/// Receives computed blocks of one output.
pub(crate) trait Collector: Sync {
    fn accept(&self, lin: usize, block: &Block) -> Result<()>;
}

/// Optimizes, materializes and runs the graph for every block of `nodes`, handing
/// each output block to the matching collector.
/// In a multi-process run that gathers results elsewhere, this process takes
/// part and then gets [`Error::ResultElsewhere`].
pub(crate) fn run(nodes: &[Arc<Node>], ctx: &Context, collectors: &[&dyn Collector]) -> Result<RunStats> {
    let all: Vec<Vec<usize>> = nodes.iter().map(|n| (0..n.chunks.num_blocks()).collect()).collect();
    let stats = run_blocks(nodes, &all, ctx, Deliver::Result, collectors)?;
    let scheduler = ctx.scheduler();
    if !scheduler.receives_result() {
        return Err(Error::ResultElsewhere {
            rank: scheduler.rank(),
            ranks: scheduler.processes(),
            how: format!("the {} scheduler gathers results on rank 0; use compute_root, or gather on every rank", scheduler.name()),
        });
    }
    Ok(stats)
}

/// [`run`] for the listed blocks of each node only (C-order linear numbers); the
/// collectors receive each block's position in its list.
pub(crate) fn run_blocks(nodes: &[Arc<Node>], blocks: &[Vec<usize>], ctx: &Context, deliver: Deliver, collectors: &[&dyn Collector]) -> Result<RunStats> {
    for n in nodes {
        n.check()?;
    }
    let optimized = optimize(nodes);
    let outputs: Vec<(Arc<Node>, Vec<usize>)> = optimized.into_iter().zip(blocks.iter().cloned()).collect();
    let graph = TaskGraph::build(&outputs)?;
    // (task, output number, block number), sorted by task for lookup from the sink.
    let mut routes: Vec<(u32, u32, usize)> = Vec::new();
    for (o, tasks) in graph.output_tasks().iter().enumerate() {
        routes.extend(tasks.iter().enumerate().map(|(lin, &t)| (t, o as u32, lin)));
    }
    routes.sort_unstable();
    let sink = |t: usize, block: &Block| -> Result<()> {
        let first = routes.partition_point(|r| (r.0 as usize) < t);
        for &(_, o, lin) in routes[first..].iter().take_while(|r| r.0 as usize == t) {
            collectors[o as usize].accept(lin, block)?;
        }
        Ok(())
    };
    // In a run over several processes, rank 0 draws one bar for all of them.
    let bar = if ctx.scheduler().rank() == 0 { crate::diagnostics::ProgressBar::new(ctx.progress(), &nodes[0].label()) } else { None };
    let recorders: Vec<crate::diagnostics::Recorder> = ctx
        .profilers()
        .iter()
        .map(|p| {
            let mut r = p.recorder();
            r.prepare(&graph, ctx.memory().memory_limit, ctx.scheduler().rank());
            r
        })
        .collect();
    let mut observers: Vec<&dyn crate::schedule::RunObserver> = recorders.iter().map(|r| r as &dyn crate::schedule::RunObserver).collect();
    if let Some(b) = &bar {
        observers.push(b);
    }
    crate::schedule::memory::check_plan(&graph, ctx.memory())?;
    ctx.scheduler().execute(&graph, deliver, &sink, &crate::diagnostics::Observers(observers), ctx.memory())
}

/// Writes output blocks into one `ArrayD` as they arrive.
pub(crate) struct Assemble<T> {
    chunks: Chunks,
    state: Mutex<AssembleState<T>>,
}

struct AssembleState<T> {
    out: Option<ArrayD<MaybeUninit<T>>>,
    single: Option<Block>,
    written: Vec<bool>,
}

impl<T: Element> Assemble<T> {
    pub(crate) fn new(chunks: &Chunks) -> Self {
        let n = chunks.num_blocks();
        let out = (n != 1).then(|| crate::schedule::uninit_block::<T>(&chunks.shape()));
        Assemble { chunks: chunks.clone(), state: Mutex::new(AssembleState { out, single: None, written: vec![false; n] }) }
    }

    pub(crate) fn finish(self) -> Result<ArrayD<T>> {
        let st = self.state.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(missing) = st.written.iter().position(|w| !w) {
            return Err(Error::Task { key: format!("block {:?}", self.chunks.unravel(missing)), message: "never computed".into() });
        }
        if let Some(block) = st.single {
            let arr = block.into_any().downcast::<ArrayD<T>>().expect("checked on accept");
            return Ok(Arc::try_unwrap(arr).unwrap_or_else(|shared| (*shared).clone()));
        }
        // SAFETY: every block was written (checked above) and the blocks tile the array.
        Ok(unsafe { st.out.expect("multi-block output").assume_init() })
    }
}

impl<T: Element> Collector for Assemble<T> {
    fn accept(&self, lin: usize, block: &Block) -> Result<()> {
        // A result on a device comes back to the host here, block by block.
        let block = &crate::device::block::to_host_block(block)?;
        let arr = block.as_any().downcast_ref::<ArrayD<T>>().ok_or_else(|| Error::DtypeMismatch {
            key: format!("output block {lin}"),
            expected: T::DTYPE.to_string(),
            found: "another type".into(),
        })?;
        let idx = self.chunks.unravel(lin);
        let shape = self.chunks.block_shape(&idx);
        if arr.shape() != shape.as_slice() {
            return Err(Error::shape("assemble output block", &shape, arr.shape()));
        }
        let start = self.chunks.block_start(&idx);
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        st.written[lin] = true;
        match st.out.as_mut() {
            None => st.single = Some(block.clone()),
            Some(out) => {
                let mut region = out.slice_each_axis_mut(|ax| {
                    let a = ax.axis.index();
                    Slice::from(start[a]..start[a] + shape[a])
                });
                arr.assign_to(&mut region);
            }
        }
        Ok(())
    }
}

/// Keeps output blocks (for `persist`).
pub(crate) struct Hold {
    blocks: Mutex<Vec<Option<Block>>>,
}

impl Hold {
    pub(crate) fn new(n: usize) -> Self {
        Hold { blocks: Mutex::new(vec![None; n]) }
    }
    /// The blocks; in a multi-process run only those this process owns are
    /// present.
    pub(crate) fn finish(self, scheduler: &dyn crate::Scheduler) -> Result<Vec<Option<Block>>> {
        let v = self.blocks.into_inner().unwrap_or_else(|p| p.into_inner());
        if scheduler.processes() == 1
            && let Some(i) = v.iter().position(Option::is_none)
        {
            return Err(Error::Task { key: format!("block {i}"), message: "never computed".into() });
        }
        Ok(v)
    }
}

impl Collector for Hold {
    fn accept(&self, lin: usize, block: &Block) -> Result<()> {
        self.blocks.lock().unwrap_or_else(|p| p.into_inner())[lin] = Some(block.clone());
        Ok(())
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
            Error::invalid("persisted block", format!("{idx:?}"), "is held by another process of the run that persisted it (run the graph with the same scheduler)")
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
    fn compute_with(self, ctx: &Context) -> Result<Self::Output>;
    /// Computes everything; `Some` where results are received (see
    /// [`Array::compute_root`]), `None` on the other ranks of an MPI run.
    ///
    /// # Errors
    /// As [`Computable::compute_with`].
    fn compute_root(self, ctx: &Context) -> Result<Option<Self::Output>>
    where
        Self: Sized,
    {
        received_here(self.compute_with(ctx))
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
    arrays.compute_with(&Context::default())
}

macro_rules! computable_tuple {
    ($($t:ident $a:ident $i:tt),+) => {
        impl<'a, $($t: Element),+> Computable for ($(&'a Array<$t>,)+) {
            type Output = ($(ArrayD<$t>,)+);
            fn compute_with(self, ctx: &Context) -> Result<Self::Output> {
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
    fn compute_with(self, ctx: &Context) -> Result<Self::Output> {
        let outs: Vec<Assemble<T>> = self.iter().map(|a| Assemble::new(&a.node.chunks)).collect();
        let refs: Vec<&dyn Collector> = outs.iter().map(|o| o as &dyn Collector).collect();
        run(&self.iter().map(|a| a.node.clone()).collect::<Vec<_>>(), ctx, &refs)?;
        outs.into_iter().map(Assemble::finish).collect()
    }
}
