//! `persist`: arrays computed and kept as held blocks, later computations
//! starting from them; several arrays persist in one run
//! (`u, s, v = dask.persist(u, s, v)`).

use std::sync::Arc;

use super::{Array, LayerBlocks};
use crate::block::Block;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::exec::{Collector, Context, Hold, run_blocks};
use crate::graph::{BlockOp, Node};
use crate::schedule::Deliver;

impl<T: Element> Array<T> {
    /// Computes every block and returns an array backed by the held blocks (dask's
    /// `persist`): later computations start from them.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::ones(&[4], 2).unwrap().map(|v| v * 3.0);
    /// let held = x.persist().unwrap(); // computed once, blocks kept
    /// assert_eq!(held.num_tasks(), 2);
    /// assert_eq!(held.sum(None).unwrap().compute_scalar().unwrap(), 12.0);
    /// ```
    ///
    /// # Errors
    /// As [`Array::compute`].
    pub fn persist(&self) -> Result<Array<T>> {
        self.persist_on(&Context::default())
    }

    /// [`Array::persist`] with the given context.
    ///
    /// ```
    /// use chunked_array::{Array, Context};
    /// let x = Array::<f64>::ones(&[4], 2).unwrap().persist_on(&Context::sync()).unwrap();
    /// assert_eq!(x.compute().unwrap().sum(), 4.0);
    /// ```
    ///
    /// # Errors
    /// As [`Array::compute`].
    ///
    /// In a run over several processes (MPI), each process keeps the blocks it
    /// owns (an even spread of the block numbers over the ranks), and later runs
    /// place the tasks that read them on their owners.
    pub fn persist_on(&self, ctx: &Context) -> Result<Array<T>> {
        (self,).persist_on(ctx).map(|(x,)| x)
    }

    /// This array's layer over the held blocks of a run that persisted it.
    fn held(&self, blocks: Vec<Option<Block>>) -> Result<Array<T>> {
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
}

/// Runs the listed blocks of every layer in one run, each process keeping
/// the blocks it owns.
fn persist_layers(parts: Vec<LayerBlocks>, ctx: &Context) -> Result<Vec<Vec<Option<Block>>>> {
    let (nodes, blocks): (Vec<Arc<Node>>, Vec<Vec<usize>>) = parts.into_iter().map(|p| (p.0, p.1)).unzip();
    let holds: Vec<Hold> = blocks.iter().map(|b| Hold::new(b.len())).collect();
    let collectors: Vec<&dyn Collector> = holds.iter().map(|h| h as _).collect();
    run_blocks(&nodes, &blocks, ctx, Deliver::Owners, &collectors)?;
    holds.into_iter().map(|h| h.finish(ctx.scheduler())).collect()
}

/// One array of a tuple given to [`persist`]: `&Array<T>` or `Array<T>`.
///
/// ```
/// use chunked_array::{persist, Array};
/// let x = Array::<f64>::ones(&[4], 2).unwrap();
/// let (a, b) = persist((&x, (&x * 2.0))).unwrap(); // a reference and an owned array
/// assert_eq!(b.sum(None).unwrap().compute_scalar().unwrap(), 8.0);
/// assert_eq!(a.num_tasks(), 2);
/// ```
pub trait PersistPart {
    /// The persisted array.
    type Output;
    /// The array's layer and all its blocks.
    #[doc(hidden)]
    fn persist_blocks(&self) -> LayerBlocks;
    /// The array over its held blocks.
    #[doc(hidden)]
    fn persisted(&self, blocks: Vec<Option<Block>>) -> Result<Self::Output>;
}

impl<T: Element> PersistPart for &Array<T> {
    type Output = Array<T>;
    fn persist_blocks(&self) -> LayerBlocks {
        LayerBlocks(self.node.clone(), (0..self.num_blocks()).collect())
    }
    fn persisted(&self, blocks: Vec<Option<Block>>) -> Result<Array<T>> {
        self.held(blocks)
    }
}

impl<T: Element> PersistPart for Array<T> {
    type Output = Array<T>;
    fn persist_blocks(&self) -> LayerBlocks {
        LayerBlocks(self.node.clone(), (0..self.num_blocks()).collect())
    }
    fn persisted(&self, blocks: Vec<Option<Block>>) -> Result<Array<T>> {
        self.held(blocks)
    }
}

/// Several arrays persisted in one run, each shared task once
/// (`dask.persist(u, s, v)`); see [`persist`].
///
/// ```
/// use chunked_array::{Array, Context, Persistable};
/// let x = Array::<f64>::ones(&[6], 2).unwrap().map(|v| v + 1.0);
/// let (a, b) = (&x, &x.sum(None).unwrap()).persist_on(&Context::sync()).unwrap();
/// assert_eq!((a.num_tasks(), b.compute_scalar().unwrap()), (3, 12.0));
/// ```
pub trait Persistable {
    /// The persisted arrays.
    type Output;
    /// Computes every block of every array in one run with `ctx` and keeps
    /// them.
    ///
    /// ```
    /// use chunked_array::{Array, Context, Persistable};
    /// let x = Array::<i32>::ones(&[4], 2).unwrap();
    /// let (y,) = (&x,).persist_on(&Context::default()).unwrap();
    /// assert_eq!(y.compute().unwrap().sum(), 4);
    /// ```
    ///
    /// # Errors
    /// As [`Array::compute`].
    fn persist_on(self, ctx: &Context) -> Result<Self::Output>;
}

macro_rules! persistable_tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: PersistPart),+> Persistable for ($($t,)+) {
            type Output = ($($t::Output,)+);
            fn persist_on(self, ctx: &Context) -> Result<Self::Output> {
                let mut held = persist_layers(vec![$(self.$i.persist_blocks()),+], ctx)?.into_iter();
                Ok(($(self.$i.persisted(held.next().expect("one per array"))?,)+))
            }
        }
    };
}
persistable_tuple!(A 0);
persistable_tuple!(A 0, B 1);
persistable_tuple!(A 0, B 1, C 2);
persistable_tuple!(A 0, B 1, C 2, D 3);
persistable_tuple!(A 0, B 1, C 2, D 3, E 4);
persistable_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);

/// Persists several arrays in one run with the default context (dask's
/// `u, s, v = dask.persist(u, s, v)`): every block computed once and kept,
/// later computations starting from them.
///
/// ```
/// use chunked_array::{persist, Array};
/// let x = Array::<f64>::ones(&[8], 4).unwrap();
/// let (total, doubled) = persist((&x.sum(None).unwrap(), &(&x * 2.0))).unwrap();
/// assert_eq!(total.compute_scalar().unwrap(), 8.0);
/// assert_eq!(doubled.num_tasks(), 2); // the held blocks
/// ```
///
/// # Errors
/// As [`Array::compute`].
pub fn persist<P: Persistable>(arrays: P) -> Result<P::Output> {
    arrays.persist_on(&Context::default())
}

/// A source backed by blocks already computed.
///
/// In a multi-process run each process holds only the blocks it owns (`None`
/// for the others); the MPI placement runs each block's task on its owner.
pub(super) struct Persisted {
    pub blocks: Vec<Option<Block>>,
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
