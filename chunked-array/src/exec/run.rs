//! The run driver: optimizes the layers, materializes the task graph, checks
//! the plan against the memory limits, runs it on the context's scheduler with
//! its observers, and hands output blocks to collectors.

use std::mem::MaybeUninit;
use std::sync::{Arc, Mutex};

use ndarray::{ArrayD, Slice};

use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::events::{Observers, RunInfo};
use crate::exec::Context;
use crate::graph::Node;
use crate::graph::optimize::optimize;
use crate::graph::task::TaskGraph;
use crate::memory::{check_plan, reserve_device_pools};
use crate::schedule::{Deliver, Run, RunStats, Scheduler};

/// Receives computed blocks of one output.
pub trait Collector: Sync {
    fn accept(&self, lin: usize, block: &Block) -> Result<()>;
}

/// Optimizes, materializes and runs the graph for every block of `nodes`, handing
/// each output block to the matching collector.
/// In a multi-process run that gathers results elsewhere, this process takes
/// part and then gets [`Error::ResultElsewhere`].
pub(crate) fn run(nodes: &[Arc<Node>], ctx: &Context, collectors: &[&dyn Collector]) -> Result<RunStats> {
    let all: Vec<Vec<usize>> = nodes.iter().map(|n| (0..n.chunks.num_blocks()).collect()).collect();
    run_selected(nodes, &all, ctx, collectors)
}

/// [`run`] for the listed blocks of each node (C-order numbers), as
/// [`run_blocks`] numbers them for the collectors.
pub(crate) fn run_selected(
    nodes: &[Arc<Node>],
    blocks: &[Vec<usize>],
    ctx: &Context,
    collectors: &[&dyn Collector],
) -> Result<RunStats> {
    let stats = run_blocks(nodes, blocks, ctx, Deliver::Result, collectors)?;
    let scheduler = ctx.scheduler();
    if !scheduler.receives_result() {
        return Err(Error::ResultElsewhere {
            rank: scheduler.rank(),
            ranks: scheduler.processes(),
            how: format!(
                "the {} scheduler gathers results on rank 0; use compute_root, or gather on every rank",
                scheduler.name()
            ),
        });
    }
    Ok(stats)
}

/// [`run`] for the listed blocks of each node only (C-order linear numbers); the
/// collectors receive each block's position in its list.
pub(crate) fn run_blocks(
    nodes: &[Arc<Node>],
    blocks: &[Vec<usize>],
    ctx: &Context,
    deliver: Deliver,
    collectors: &[&dyn Collector],
) -> Result<RunStats> {
    for n in nodes {
        n.check()?;
    }
    let optimized = optimize(nodes);
    let outputs: Vec<(Arc<Node>, Vec<usize>)> = optimized.into_iter().zip(blocks.iter().cloned()).collect();
    let mut graph = TaskGraph::build(&outputs)?;
    graph.cancel_with(ctx.cancel_flag());
    graph.kernels_on(ctx.kernel_backend());
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
    // A plan refused before it runs starts no observer (no progress bar left open).
    check_plan(&graph, ctx.memory())?;
    reserve_device_pools(&graph, ctx.memory())?;
    let label = nodes[0].label();
    let memory = ctx.memory();
    let info = RunInfo {
        graph: &graph,
        label: &label,
        rank: ctx.scheduler().rank(),
        memory_limit: memory.memory_limit,
        device_memory_limit: memory.device_memory_limit,
        spill_limit: memory.spill_limit,
    };
    let observer = Observers(ctx.observers().filter_map(|o| o.observe(&info)).collect());
    ctx.scheduler().execute(&Run { graph: &graph, deliver, sink: &sink, observer: &observer, memory: ctx.memory() })
}

/// Writes output blocks into one `ArrayD` as they arrive.
pub struct Assemble<T> {
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
        let out = (n != 1).then(|| crate::block::alloc::uninit_block::<T>(&chunks.shape()));
        Assemble {
            chunks: chunks.clone(),
            state: Mutex::new(AssembleState { out, single: None, written: vec![false; n] }),
        }
    }

    pub(crate) fn finish(self) -> Result<ArrayD<T>> {
        let st = self.state.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(missing) = st.written.iter().position(|w| !w) {
            return Err(Error::Task {
                key: format!("block {:?}", self.chunks.unravel(missing)),
                message: "never computed".into(),
            });
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
        let block = &crate::block::device::to_host_block(block)?;
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
    pub(crate) fn finish(self, scheduler: &dyn Scheduler) -> Result<Vec<Option<Block>>> {
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
