//! The store layer: one task per block writes that block to its target as soon as
//! it is computed, so a store streams and never holds the whole array.

use std::any::Any;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::array::Array;
use crate::block::{Block, BlockValue};
use crate::element::{DType, Element};
use crate::error::Result;
use crate::exec::Context;
use crate::exec::{Collector, run_blocks};
use crate::graph::{BlockOp, Node};
use crate::schedule::RunStats;

/// What a store does when its target already exists.
///
/// ```
/// use chunked_array::io::WriteMode;
/// use chunked_array::Array;
/// let path = std::env::temp_dir().join(format!("chunked-doc-write-mode-{}.npy", std::process::id()));
/// let x = Array::<i32>::ones(&[4], 2).unwrap();
/// x.to_npy(&path, WriteMode::Create).unwrap();
/// assert!(x.to_npy(&path, WriteMode::Create).is_err()); // never replaced by accident
/// x.to_npy(&path, WriteMode::Overwrite).unwrap();
/// assert!(x.to_npy(&path, WriteMode::Resume).is_err()); // Zarr only
/// std::fs::remove_file(&path).unwrap();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriteMode {
    /// Fail when the target exists (the default: data is never replaced by accident).
    #[default]
    Create,
    /// Replace an existing target of the same kind. A path that holds something
    /// else (a directory that is not a Zarr array, say) is never removed.
    Overwrite,
    /// Continue an interrupted store (Zarr only): chunks that an earlier run wrote
    /// completely are verified by decoding them and skipped; the others are
    /// computed and written. Creates the target when it does not exist.
    Resume,
}

/// What a store did.
///
/// ```
/// use chunked_array::io::zarr::ZarrWriteOptions;
/// use chunked_array::io::WriteMode;
/// use chunked_array::Array;
/// let dir = std::env::temp_dir().join(format!("chunked-doc-store-report-{}", std::process::id()));
/// let x = Array::<f64>::ones(&[10, 10], 5).unwrap();
/// let first = x.to_zarr(&dir, "x", &ZarrWriteOptions::default()).unwrap();
/// assert_eq!((first.chunks_written, first.chunks_skipped), (4, 0));
/// // Resuming a complete store finds every chunk written and skips it.
/// let resume = ZarrWriteOptions { mode: WriteMode::Resume, ..Default::default() };
/// let again = x.to_zarr(&dir, "x", &resume).unwrap();
/// assert_eq!((again.chunks_written, again.chunks_skipped, again.bytes_written), (0, 4, 0));
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug, Clone, Default)]
pub struct StoreReport {
    /// Chunks computed and written by this run.
    pub chunks_written: usize,
    /// Chunks found complete from an earlier run and skipped ([`WriteMode::Resume`]).
    pub chunks_skipped: usize,
    /// Bytes written to storage (after compression).
    pub bytes_written: u64,
    /// The run's task count, peak bytes held in blocks and time.
    pub stats: RunStats,
}

/// Writes one block (which is exactly one stored chunk) to the target.
pub(crate) trait ChunkWriter: Send + Sync + 'static {
    /// Writes block `idx` and returns the bytes that reached storage.
    fn write(&self, idx: &[usize], block: &Block) -> Result<u64>;
}

/// A store task's output: the bytes it wrote.
struct Written(u64);

impl BlockValue for Written {
    fn nbytes(&self) -> usize {
        std::mem::size_of::<u64>()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}

struct StoreOp<W>(W);

impl<W: ChunkWriter> BlockOp for StoreOp<W> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, node.inputs[0].chunks.linear(idx)));
    }
    fn run(&self, _node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        Ok(Arc::new(Written(self.0.write(idx, inputs[0])?)))
    }
    /// The bytes a chunk took travel to the rank that tallies it.
    fn wire(&self) -> Option<crate::graph::wire::Wire> {
        Some(crate::graph::wire::Wire {
            encode: |b| Some(b.as_any().downcast_ref::<Written>()?.0.to_le_bytes().to_vec()),
            decode: |bytes| Some(Arc::new(Written(u64::from_le_bytes(bytes.try_into().ok()?))) as Block),
        })
    }
}

#[derive(Default)]
struct Tally {
    chunks: AtomicUsize,
    bytes: AtomicU64,
}

impl Collector for Tally {
    fn accept(&self, _lin: usize, block: &Block) -> Result<()> {
        let bytes = block.as_any().downcast_ref::<Written>().map_or(0, |w| w.0);
        self.chunks.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
        Ok(())
    }
}

type Finish = Box<dyn FnOnce() -> Result<()> + Send>;
type Abort = Box<dyn FnOnce() + Send>;

/// What a target does after the run: `finish` makes it complete after a
/// successful run; `abort` removes its temporary files otherwise.
pub(crate) struct Completion {
    pub finish: Finish,
    pub abort: Abort,
}

/// One prepared target of a [`Store`]: its store layer, the blocks to write, and
/// what to do after the run (make the target complete) or instead of it (remove
/// temporary files).
struct Target {
    node: Arc<Node>,
    blocks: Vec<usize>,
    skipped: usize,
    parallel: bool,
    finish: Option<Finish>,
    abort: Option<Abort>,
}

impl Drop for Target {
    /// A target prepared but never run (the store was dropped, or failed) leaves
    /// no temporary file behind.
    fn drop(&mut self) {
        if let Some(abort) = self.abort.take() {
            abort();
        }
    }
}

/// Several arrays stored in one run (dask's `da.store(sources, targets)`): work
/// they share, such as the factorization behind an SVD's u, s and vt, is done
/// once, and every block is written as soon as it is computed.
///
/// Each target is prepared when it is added (its metadata written, its layout
/// checked, the chunks to write listed), so a bad target is an error before
/// anything is computed; [`Store::run`] computes and writes them all.
///
/// ```
/// use chunked_array::io::{npy, Store, WriteMode};
/// use chunked_array::Array;
/// let dir = std::env::temp_dir().join(format!("chunked-doc-store-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let x = Array::<f64>::linspace(0.0, 1.0, 1000, true, 100).unwrap();
/// let mut store = Store::new();
/// store.npy(&x.exp(), dir.join("exp.npy"), WriteMode::Create).unwrap();
/// store.npy(&x.sin(), dir.join("sin.npy"), WriteMode::Create).unwrap();
/// let reports = store.run().unwrap(); // x is generated once for both
/// assert_eq!(reports[1].chunks_written, 10);
/// let sin = npy::from_npy::<f64>(dir.join("sin.npy"), 1000).unwrap();
/// assert_eq!(sin.compute().unwrap(), x.sin().compute().unwrap());
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Default)]
pub struct Store {
    targets: Vec<Target>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = self.targets.iter().map(|t| t.node.label()).collect();
        write!(f, "Store({names:?})")
    }
}

impl Store {
    /// A store with no targets.
    ///
    /// ```
    /// use chunked_array::io::Store;
    /// let store = Store::new();
    /// assert!(store.is_empty());
    /// assert!(store.run().unwrap().is_empty()); // nothing to write
    /// ```
    pub fn new() -> Store {
        Store::default()
    }

    /// Number of targets added.
    ///
    /// ```
    /// use chunked_array::io::{Store, WriteMode};
    /// use chunked_array::Array;
    /// let dir = std::env::temp_dir().join(format!("chunked-doc-store-len-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let x = Array::<u8>::zeros(&[4], 2).unwrap();
    /// let mut store = Store::new();
    /// store.npy(&x, dir.join("a.npy"), WriteMode::Create).unwrap().npy(&x, dir.join("b.npy"), WriteMode::Create).unwrap();
    /// assert_eq!(store.len(), 2);
    /// drop(store); // never run: no file is left behind
    /// assert!(!dir.join("a.npy").exists());
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    /// Whether no target was added.
    ///
    /// ```
    /// use chunked_array::io::{Store, WriteMode};
    /// use chunked_array::Array;
    /// let path = std::env::temp_dir().join(format!("chunked-doc-store-is-empty-{}.npy", std::process::id()));
    /// let mut store = Store::new();
    /// assert!(store.is_empty());
    /// store.npy(&Array::<f64>::ones(&[3], 3).unwrap(), &path, WriteMode::Create).unwrap();
    /// assert!(!store.is_empty());
    /// store.run().unwrap();
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// Adds a prepared target: `writer` receives the listed blocks of `array`
    /// (`skipped` others were already written). `parallel`: whether several
    /// processes (MPI ranks) may write its chunks at once.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push<T: Element>(
        &mut self,
        array: &Array<T>,
        name: &str,
        parallel: bool,
        writer: impl ChunkWriter,
        (blocks, skipped): (Vec<usize>, usize),
        completion: Completion,
    ) {
        let node =
            Node::new(name, DType::Intermediate, array.chunks().clone(), vec![array.node.clone()], StoreOp(writer));
        let (finish, abort) = (Some(completion.finish), Some(completion.abort));
        self.targets.push(Target { node, blocks, skipped, parallel, finish, abort });
    }

    /// Computes and writes every target with the default (threaded) scheduler;
    /// one report per target, in the order they were added.
    ///
    /// ```
    /// use chunked_array::io::{npy, Store, WriteMode};
    /// use chunked_array::Array;
    /// let dir = std::env::temp_dir().join(format!("chunked-doc-store-run-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let x = Array::<f64>::arange(0.0, 6.0, 1.0, 2).unwrap();
    /// let mut store = Store::new();
    /// store.npy(&x, dir.join("x.npy"), WriteMode::Create).unwrap();
    /// store.npy(&(&x * 2.0), dir.join("2x.npy"), WriteMode::Create).unwrap();
    /// let reports = store.run().unwrap();
    /// assert_eq!((reports[0].chunks_written, reports[1].chunks_written), (3, 3));
    /// let twice = npy::from_npy::<f64>(dir.join("2x.npy"), 6).unwrap().compute().unwrap();
    /// assert_eq!(twice.as_slice().unwrap(), &[0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    ///
    /// # Errors
    /// The first task or write error ([`Error::Io`](crate::error::Error::Io) names the
    /// file or chunk). Targets are then left as their formats document: Zarr
    /// arrays marked incomplete (resumable), `.npy` files and HDF5 datasets not
    /// created.
    pub fn run(self) -> Result<Vec<StoreReport>> {
        self.run_on(&Context::default())
    }

    /// [`Store::run`] with the given context.
    ///
    /// ```
    /// use chunked_array::io::{Store, WriteMode};
    /// use chunked_array::{Array, Context};
    /// let path = std::env::temp_dir().join(format!("chunked-doc-store-run-on-{}.npy", std::process::id()));
    /// let mut store = Store::new();
    /// store.npy(&Array::<i64>::arange(0, 10, 1, 5).unwrap(), &path, WriteMode::Create).unwrap();
    /// let reports = store.run_on(&Context::sync()).unwrap(); // one thread
    /// assert_eq!(reports[0].chunks_written, 2);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`Store::run`].
    ///
    /// With a context over several processes (MPI), only Zarr targets can be
    /// written (each chunk from the rank that computes it); `.npy` and HDF5
    /// targets are an error on every rank before anything runs.
    pub fn run_on(mut self, ctx: &Context) -> Result<Vec<StoreReport>> {
        if ctx.scheduler().processes() > 1
            && let Some(t) = self.targets.iter().find(|t| !t.parallel)
        {
            return Err(crate::error::Error::invalid(
                "store target",
                t.node.label(),
                format!(
                    "is written from one process, and this run has {} (MPI): store to Zarr instead",
                    ctx.scheduler().processes()
                ),
            ));
        }
        let active: Vec<usize> = (0..self.targets.len()).filter(|&i| !self.targets[i].blocks.is_empty()).collect();
        let tallies: Vec<Tally> = active.iter().map(|_| Tally::default()).collect();
        let stats = if active.is_empty() {
            RunStats::default()
        } else {
            let nodes: Vec<Arc<Node>> = active.iter().map(|&i| self.targets[i].node.clone()).collect();
            let blocks: Vec<Vec<usize>> = active.iter().map(|&i| self.targets[i].blocks.clone()).collect();
            let collectors: Vec<&dyn Collector> = tallies.iter().map(|t| t as &dyn Collector).collect();
            run_blocks(&nodes, &blocks, ctx, crate::schedule::Deliver::Owners, &collectors)?
        };
        let mut reports = Vec::with_capacity(self.targets.len());
        for (i, target) in self.targets.iter_mut().enumerate() {
            if let Some(finish) = target.finish.take() {
                target.abort = None;
                finish()?;
            }
            let tally = active.iter().position(|&a| a == i).map(|k| &tallies[k]);
            reports.push(StoreReport {
                chunks_written: tally.map_or(0, |t| t.chunks.load(Ordering::Relaxed)),
                chunks_skipped: target.skipped,
                bytes_written: tally.map_or(0, |t| t.bytes.load(Ordering::Relaxed)),
                stats: stats.clone(),
            });
        }
        Ok(reports)
    }
}

/// One target stored alone.
pub(crate) fn store_one(store: Store, ctx: &Context) -> Result<StoreReport> {
    Ok(store.run_on(ctx)?.pop().expect("one target"))
}
