//! Several arrays computed in one run (`dask.compute(a, b)`): [`Computable`]
//! for tuples of arrays (and other [`ComputePart`]s) and slices of them, and
//! [`compute`].

use std::sync::Arc;

use ndarray::ArrayD;

use super::{Array, received_here};
use crate::element::Element;
use crate::error::Result;
use crate::exec::{Assemble, Collector, Context, run, run_selected};
use crate::graph::Node;

/// Several arrays computed together, sharing their common subgraph
/// (`dask.compute(u, s, v)`); see [`compute`].
///
/// ```
/// use chunked_array::{Array, Computable, Context};
/// let x = Array::<f64>::ones(&[4], 2).unwrap();
/// let (s, m) = (&x.sum(None).unwrap(), &x.mean(None).unwrap()).compute_on(&Context::sync()).unwrap();
/// assert_eq!((s[[]], m[[]]), (4.0, 1.0));
/// ```
pub trait Computable {
    /// The computed results.
    type Output;
    /// Computes everything in one graph with the given context.
    ///
    /// ```
    /// use chunked_array::{Array, Computable, Context};
    /// let parts = vec![Array::<i32>::ones(&[2], 1).unwrap(), Array::<i32>::zeros(&[3], 2).unwrap()];
    /// let out = parts.as_slice().compute_on(&Context::default()).unwrap();
    /// assert_eq!((out[0].sum(), out[1].len()), (2, 3));
    /// ```
    ///
    /// # Errors
    /// Deferred build errors, and task errors naming the failing task.
    fn compute_on(self, ctx: &Context) -> Result<Self::Output>;
    /// Computes everything; `Some` where results are received (see
    /// [`Array::compute_root`]), `None` on the other ranks of an MPI run.
    ///
    /// ```
    /// use chunked_array::{Array, Computable, Context};
    /// let x = Array::<f64>::ones(&[4], 2).unwrap();
    /// let got = (&x,).compute_root(&Context::default()).unwrap(); // Some outside MPI
    /// assert_eq!(got.unwrap().0.len(), 4);
    /// ```
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

/// One item of a tuple given to [`compute`]: an array, or a lazy value of
/// another kind (a `Delayed`), with how its computed blocks are collected.
/// Implemented by `&Array<T>` and `&Delayed<T>`; a tuple of them computes in
/// one run, each shared task once.
///
/// ```
/// use chunked_array::{compute, Array};
/// let x = Array::<f64>::ones(&[4], 2).unwrap();
/// let t = x.sum(None).unwrap().to_delayed().remove(0).map("twice", |s| 2.0 * s[[]]);
/// let (s, t) = compute((&x.sum(None).unwrap(), &t)).unwrap();
/// assert_eq!((s[[]], t), (4.0, 8.0));
/// ```
pub trait ComputePart {
    /// The computed value.
    type Output;
    /// Gathers the computed blocks.
    #[doc(hidden)]
    type Collect: Collector;
    /// The layer and the blocks (C-order numbers) of it that make the value.
    #[doc(hidden)]
    fn layer_blocks(&self) -> LayerBlocks;
    /// A collector for those blocks.
    #[doc(hidden)]
    fn collector(&self) -> Self::Collect;
    /// The value from the collected blocks.
    #[doc(hidden)]
    fn finish(collected: Self::Collect) -> Result<Self::Output>;
}

impl<T: Element> ComputePart for &Array<T> {
    type Output = ArrayD<T>;
    type Collect = Assemble<T>;
    fn layer_blocks(&self) -> LayerBlocks {
        LayerBlocks(self.node.clone(), (0..self.node.chunks.num_blocks()).collect())
    }
    fn collector(&self) -> Assemble<T> {
        Assemble::new(&self.node.chunks)
    }
    fn finish(collected: Assemble<T>) -> Result<ArrayD<T>> {
        collected.finish()
    }
}

/// A layer and the blocks of it that one [`ComputePart`] needs.
#[doc(hidden)]
pub struct LayerBlocks(pub(crate) Arc<Node>, pub(crate) Vec<usize>);

macro_rules! computable_tuple {
    ($($t:ident $a:ident $i:tt),+) => {
        impl<$($t: ComputePart),+> Computable for ($($t,)+) {
            type Output = ($($t::Output,)+);
            fn compute_on(self, ctx: &Context) -> Result<Self::Output> {
                $(let $a = self.$i.collector();)+
                let (nodes, blocks): (Vec<_>, Vec<_>) = [$(self.$i.layer_blocks()),+].into_iter().map(|p| (p.0, p.1)).unzip();
                run_selected(&nodes, &blocks, ctx, &[$(&$a),+])?;
                Ok(($($t::finish($a)?,)+))
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
