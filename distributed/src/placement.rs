//! Deterministic block placement: contiguous, balanced ranges of C-order block
//! numbers per rank, so that neighbouring blocks (which reductions and TSQR trees
//! combine first) share a rank; and the plan of a run built on it (which rank
//! runs each task, where each block is sent, where outputs gather), which the
//! run and the scheduler above it follow.

use chunked_array::Chunks;
use chunked_array::runtime::{Deliver, TaskGraph, owner_of};

/// Where [`Deliver::Result`] runs (`compute`) gather their output blocks.
///
/// ```
/// use chunked_array::{custom::Layer, runtime::Deliver, Array};
/// use chunked_distributed::{plan_run, Gather};
/// assert_eq!(Gather::default(), Gather::Root);
/// let g = Layer::task_graph(&[Array::<f64>::ones(&[8], 2).unwrap().layer()]).unwrap();
/// let out = g.output_tasks()[0][0] as usize;
/// assert_eq!(plan_run(&g, 3, Deliver::Result, Gather::Root).delivered[out], vec![0]);
/// assert_eq!(plan_run(&g, 3, Deliver::Result, Gather::All).delivered[out], vec![0, 1, 2]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Gather {
    /// On rank 0 only (default): the other ranks' `compute_root` gives `None`.
    #[default]
    Root,
    /// On every rank: `compute` returns the result everywhere.
    All,
}

/// What the last run sent from this rank (for benchmarks and the cost model).
///
/// ```
/// use chunked_array::{custom::Layer, runtime::Deliver, Array};
/// use chunked_distributed::{traffic, Gather, TransferStats};
/// let g = Layer::task_graph(&[Array::<f64>::ones(&[8], 2).unwrap().layer()]).unwrap();
/// // Rank 1 makes blocks 2 and 3 (16 bytes each) and sends them to rank 0.
/// let per_rank = traffic(&g, 2, Deliver::Result, Gather::Root);
/// assert_eq!(per_rank[1], TransferStats { tasks: 2, messages: 2, bytes: 32 });
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TransferStats {
    /// Tasks this rank ran.
    pub tasks: usize,
    /// Messages it sent (one per block and destination, plus the closing ones).
    pub messages: u64,
    /// Bytes it sent.
    pub bytes: u64,
}

/// The rank that runs each task of `graph` over `ranks` ranks. Every rank
/// computes the same answer from the same graph, so no rank has to tell the
/// others.
///
/// - A source task (no inputs) goes to the owner of its block in the even
///   spread of its layer's blocks ([`owner_of`]): neighbouring blocks share a
///   rank, and a persisted array's block is where `persist` left it.
/// - A task whose layer names a home input
///   ([`chunked_array::custom::LayerOp::home_input`]) goes where that input is;
///   one whose layer lays its blocks out itself
///   ([`chunked_array::runtime::TaskGraph::process_of`]: a large matmul's block
///   products on a 2-D grid of ranks) goes where the layer says.
/// - Any other task goes where most of its input bytes are, so elementwise
///   chains and the first levels of reduction and TSQR trees stay on one rank
///   and only partials and R factors travel. Ties go to the task's own rank in
///   the even spread of its layer's blocks when that rank is among them (a
///   rechunk's blocks, made of equal shares from every rank, spread over the
///   ranks), else to the rank of its first input.
/// - Tasks tied by blocks that cannot travel (intermediate values of a custom
///   layer without a [`chunked_array::runtime::Wire`], delayed values not
///   `encoded()`) run on one rank: the rank the first of them gets, or rank 0
///   (which receives results) when one of them is an output. Every built-in
///   array layer's blocks travel.
///
/// ```
/// use chunked_array::{custom::Layer, runtime::Deliver, Array};
/// use chunked_distributed::{owner_of, place_tasks};
/// let x = Array::<f64>::ones(&[8], 2).unwrap(); // 4 source blocks
/// let g = Layer::task_graph(&[x.layer()]).unwrap();
/// let owner = place_tasks(&g, 2);
/// for t in 0..g.len() {
///     let (_, block) = g.task_layer_block(t);
///     assert_eq!(owner[t] as usize, owner_of(block, 4, 2)); // blocks 0, 1 on rank 0
/// }
/// ```
pub fn place_tasks(graph: &TaskGraph, ranks: usize) -> Vec<u32> {
    place_tasks_for(graph, ranks, Deliver::Result)
}

/// [`place_tasks`] for a run whose outputs go where `deliver` says: with
/// [`Deliver::Owners`] (`persist`, `store`) an output block counts as bytes
/// at the rank it is delivered to, so that a block whose inputs are spread
/// (a rechunk's) is assembled where it stays, each element moving once.
///
/// ```
/// use chunked_array::runtime::{Deliver, owner_of};
/// use chunked_array::{custom::Layer, Array};
/// use chunked_distributed::place_tasks_for;
/// let x = Array::<f64>::ones(&[8], 2).unwrap();
/// let g = Layer::task_graph(&[(&x * 2.0).layer()]).unwrap();
/// let owner = place_tasks_for(&g, 2, Deliver::Owners);
/// for &t in &g.output_tasks()[0] {
///     let (_, block) = g.task_layer_block(t as usize);
///     assert_eq!(owner[t as usize] as usize, owner_of(block, 4, 2));
/// }
/// ```
pub fn place_tasks_for(graph: &TaskGraph, ranks: usize, deliver: Deliver) -> Vec<u32> {
    let n = graph.len();
    let mut groups = UnionFind::new(n);
    for t in 0..n {
        for &d in graph.deps(t) {
            if !graph.can_travel(d as usize) {
                groups.union(t, d as usize);
            }
        }
    }
    const UNSET: u32 = u32::MAX;
    let mut group_owner = vec![UNSET; n];
    // A result that cannot travel is made where results are received.
    for t in (0..n).filter(|&t| graph.is_output(t) && !graph.can_travel(t)) {
        let root = groups.find(t);
        group_owner[root] = 0;
    }
    let mut owner = vec![0u32; n];
    let mut bytes_at: Vec<(u32, usize)> = Vec::new();
    for &t in graph.order() {
        let t = t as usize;
        let root = groups.find(t);
        if group_owner[root] != UNSET {
            owner[t] = group_owner[root];
            continue;
        }
        let deps = graph.deps(t);
        let rank = if let Some(home) = graph.home_input(t) {
            owner[home]
        } else if let Some(rank) = graph.process_of(t, ranks) {
            rank as u32
        } else if deps.is_empty() {
            let (layer, block) = graph.task_layer_block(t);
            owner_of(block, graph.layer_blocks(layer), ranks) as u32
        } else {
            let delivered_to = (deliver == Deliver::Owners && graph.is_output(t)).then(|| {
                let (layer, block) = graph.task_layer_block(t);
                owner_of(block, graph.layer_blocks(layer), ranks) as u32
            });
            by_input_bytes(graph, &owner, t, ranks, delivered_to, &mut bytes_at)
        };
        owner[t] = rank;
        group_owner[root] = rank;
    }
    owner
}

/// The rank with the most of task `t`'s input bytes (and its output's, at
/// `delivered_to`, where it must end up). Ties go to the task's own rank in
/// the even spread of its layer when tied, else to the earliest input's.
fn by_input_bytes(
    graph: &TaskGraph,
    owner: &[u32],
    t: usize,
    ranks: usize,
    delivered_to: Option<u32>,
    bytes_at: &mut Vec<(u32, usize)>,
) -> u32 {
    bytes_at.clear();
    let mut add = |r: u32, b: usize| match bytes_at.iter_mut().find(|(q, _)| *q == r) {
        Some((_, total)) => *total += b,
        None => bytes_at.push((r, b)),
    };
    for &d in graph.deps(t) {
        // +1: inputs of unknown size still count.
        add(owner[d as usize], graph.estimated_bytes(d as usize) + 1);
    }
    if let Some(r) = delivered_to {
        add(r, graph.estimated_bytes(t) + 1);
    }
    let most = bytes_at.iter().map(|&(_, b)| b).max().unwrap_or(0);
    let (layer, block) = graph.task_layer_block(t);
    let spread = owner_of(block, graph.layer_blocks(layer), ranks) as u32;
    let tied = |r: u32| bytes_at.iter().any(|&(q, b)| q == r && b == most);
    if tied(spread) { spread } else { bytes_at.iter().find(|&&(_, b)| b == most).map_or(0, |&(r, _)| r) }
}

/// Disjoint sets of tasks (path halving, union by size).
struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind { parent: (0..n as u32).collect(), size: vec![1; n] }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] as usize != x {
            self.parent[x] = self.parent[self.parent[x] as usize];
            x = self.parent[x] as usize;
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size[a] < self.size[b] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b] = a as u32;
        self.size[a] += self.size[b];
    }
}

/// Where every block of a run goes, as every rank computes it.
///
/// ```
/// use chunked_array::{custom::Layer, runtime::Deliver, Array};
/// use chunked_distributed::{plan_run, Gather};
/// let g = Layer::task_graph(&[Array::<f64>::ones(&[8], 2).unwrap().layer()]).unwrap();
/// let plan = plan_run(&g, 2, Deliver::Result, Gather::Root);
/// for t in 0..g.len() {
///     // Rank 1's blocks go to rank 0, which gathers the result.
///     let to: Vec<u32> = if plan.owner[t] == 1 { vec![0] } else { vec![] };
///     assert_eq!(plan.destinations[t], to);
/// }
/// ```
#[derive(Debug, Clone)]
pub struct RunPlan {
    /// Per task, the rank that runs it ([`place_tasks`]).
    pub owner: Vec<u32>,
    /// Per task, the other ranks its block is sent to: where it is read, and
    /// where it is delivered as an output.
    pub destinations: Vec<Vec<u32>>,
    /// Per task, the ranks whose sink receives it (empty unless an output).
    pub delivered: Vec<Vec<u32>>,
}

/// The plan of a run of `graph` over `ranks` ranks (see [`chunked_array::runtime::Deliver`]
/// and [`Gather`] for where outputs go).
///
/// ```
/// use chunked_array::{custom::Layer, runtime::Deliver, Array};
/// use chunked_distributed::{plan_run, Gather};
/// let g = Layer::task_graph(&[Array::<f64>::ones(&[8], 2).unwrap().layer()]).unwrap();
/// // persist: each output block stays with its owner, so nothing travels.
/// let plan = plan_run(&g, 2, Deliver::Owners, Gather::Root);
/// assert!(plan.destinations.iter().all(|d| d.is_empty()));
/// assert_eq!(plan.owner.iter().filter(|&&r| r == 1).count(), 2);
/// ```
pub fn plan_run(graph: &TaskGraph, ranks: usize, deliver: Deliver, gather: Gather) -> RunPlan {
    let n = graph.len();
    let owner = place_tasks_for(graph, ranks, deliver);
    let mut destinations = Vec::with_capacity(n);
    let mut delivered = Vec::with_capacity(n);
    for t in 0..n {
        let to: Vec<u32> = if !graph.is_output(t) {
            Vec::new()
        } else {
            match (deliver, gather) {
                (Deliver::Result, Gather::Root) => vec![0],
                (Deliver::Result, Gather::All) => (0..ranks as u32).collect(),
                (Deliver::Owners, _) => {
                    let (layer, block) = graph.task_layer_block(t);
                    vec![owner_of(block, graph.layer_blocks(layer), ranks) as u32]
                }
            }
        };
        let mut dest: Vec<u32> =
            graph.consumers(t).iter().map(|&c| owner[c as usize]).chain(to.iter().copied()).collect();
        dest.sort_unstable();
        dest.dedup();
        dest.retain(|&r| r != owner[t]);
        destinations.push(dest);
        delivered.push(to);
    }
    RunPlan { owner, destinations, delivered }
}

/// What each rank would run and send in a run of `graph` over `ranks` ranks,
/// from the plan alone (blocks sized by their layers' estimates; closing
/// messages left out): the communication volume of a job too large to run
/// where it is planned.
///
/// ```
/// use chunked_array::{custom::Layer, runtime::Deliver, Array};
/// use chunked_distributed::{traffic, Gather};
/// let x = Array::<f64>::ones(&[8], 2).unwrap(); // 4 blocks of 16 bytes
/// let g = Layer::task_graph(&[x.layer()]).unwrap();
/// // Gathering on every rank of 2: each rank sends its 2 blocks to the other.
/// let per_rank = traffic(&g, 2, Deliver::Result, Gather::All);
/// assert!(per_rank.iter().all(|r| (r.tasks, r.messages, r.bytes) == (2, 2, 32)));
/// ```
pub fn traffic(graph: &TaskGraph, ranks: usize, deliver: Deliver, gather: Gather) -> Vec<TransferStats> {
    let plan = plan_run(graph, ranks, deliver, gather);
    let mut per_rank = vec![TransferStats::default(); ranks];
    for t in 0..graph.len() {
        let r = &mut per_rank[plan.owner[t] as usize];
        r.tasks += 1;
        let copies = plan.destinations[t].len() as u64;
        r.messages += copies;
        r.bytes += copies * graph.estimated_bytes(t) as u64;
    }
    per_rank
}

/// The least a rechunk from the grid `old` to the grid `new` must move
/// between `ranks` ranks, in bytes (`itemsize` per element), when the old
/// blocks lie in the even spread ([`owner_of`]) and new block `b` is
/// assembled on rank `assembled_on(b)`: per new block, the elements of each
/// old block it overlaps whose rank differs. A rechunk over ranks moves
/// exactly this (see `Array::rechunk`); a cost model or a test compares
/// against it.
///
/// ```
/// use chunked_array::Chunks;
/// use chunked_distributed::rechunk_least_bytes;
/// // Two row blocks of 2 x 4 to two column blocks of 4 x 2, over 2 ranks,
/// // new block b assembled on rank b: each receives a 2 x 2 piece.
/// let old = Chunks::from_lengths(vec![vec![2, 2], vec![4]]);
/// let new = Chunks::from_lengths(vec![vec![4], vec![2, 2]]);
/// assert_eq!(rechunk_least_bytes(&old, &new, 8, 2, |b| b), 2 * 4 * 8);
/// ```
pub fn rechunk_least_bytes(
    old: &Chunks,
    new: &Chunks,
    itemsize: usize,
    ranks: usize,
    assembled_on: impl Fn(usize) -> usize,
) -> u64 {
    let block_box = |c: &Chunks, b: usize| {
        let idx = c.unravel(b);
        (0..idx.len()).map(|a| (c.offset(a, idx[a]), c.offset(a, idx[a] + 1))).collect::<Vec<_>>()
    };
    let mut least = 0u64;
    for nb in 0..new.num_blocks() {
        let target = block_box(new, nb);
        for ob in (0..old.num_blocks()).filter(|&ob| owner_of(ob, old.num_blocks(), ranks) != assembled_on(nb)) {
            let source = block_box(old, ob);
            let overlap: usize =
                target.iter().zip(&source).map(|(t, s)| t.1.min(s.1).saturating_sub(t.0.max(s.0))).product();
            least += (overlap * itemsize) as u64;
        }
    }
    least
}
