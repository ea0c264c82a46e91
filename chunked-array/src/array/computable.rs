//! Several arrays computed in one run (`dask.compute(a, b)`): [`Computable`]
//! for tuples of arrays and slices of them, and [`compute`].

use ndarray::ArrayD;

use super::{Array, received_here};
use crate::element::Element;
use crate::error::Result;
use crate::exec::{Assemble, Collector, Context, run};

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
