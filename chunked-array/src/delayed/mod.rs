//! `dask.delayed`: lazy values of any type made by Rust closures, run as
//! tasks of the same graphs as arrays (the same schedulers, memory
//! accounting, progress bar and profiler; errors and panics name the task).
//!
//! A [`Delayed<T>`] is one task's value. It is made from a closure
//! ([`Delayed::new`]), from other delayed values ([`Delayed::map`],
//! [`Delayed::zip`], [`fan_in`]), or from an array's blocks
//! ([`crate::Array::to_delayed`]); [`crate::Array::from_delayed`] turns one
//! back into an array. `compute((&a, &d))` runs arrays and delayed values in
//! one graph, each shared task once.
//!
//! ```
//! use chunked_array::delayed::{Delayed, fan_in};
//! // dask: inc = delayed(lambda x: x + 1); total = delayed(sum)([inc(i) for i in range(10)])
//! let parts: Vec<Delayed<i64>> = (0..10).map(|i| Delayed::value("i", i).map("inc", |x| x + 1)).collect();
//! let total = fan_in("sum", &parts, |xs| xs.iter().copied().sum::<i64>());
//! assert_eq!(total.compute().unwrap(), 55);
//! ```

mod bridge;
mod task;

use std::marker::PhantomData;
use std::sync::Arc;

use crate::array::{ComputePart, LayerBlocks};
use crate::chunks::Chunks;
use crate::element::DType;
use crate::error::Result;
use crate::exec::{Context, run_selected};
use crate::graph::Node;

use task::{Body, Call, TakeValue, task_error, value_of};

/// A lazy value of type `T`: one task of a graph (dask's `Delayed`). Cheap
/// to clone (a shared handle); computed by [`Delayed::compute`] or with
/// arrays by [`crate::compute`].
///
/// ```
/// use chunked_array::delayed::Delayed;
/// let a = Delayed::new("load", || vec![1.0, 2.0, 3.0]);
/// let n = a.map("len", |v| v.len());
/// assert_eq!(n.compute().unwrap(), 3);
/// ```
pub struct Delayed<T> {
    node: Arc<Node>,
    /// Which block of `node` holds the value (0 for a delayed task's own
    /// layer; an array's block for [`crate::Array::to_delayed`]).
    block: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Delayed<T> {
    fn clone(&self) -> Self {
        Delayed { node: self.node.clone(), block: self.block, _t: PhantomData }
    }
}

impl<T> std::fmt::Debug for Delayed<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Delayed({}, block {})", self.node.label(), self.block)
    }
}

/// The bytes a value of `T` reports when it has no better measure: its size.
fn size_of_value<T>(_: &T) -> usize {
    std::mem::size_of::<T>()
}

impl<T: Send + Sync + 'static> Delayed<T> {
    /// A task running `body` over the values of `inputs`, taken in order.
    fn call(label: &str, inputs: &[(&Arc<Node>, usize)], nbytes: fn(&T) -> usize, body: Body<T>) -> Delayed<T> {
        let mut nodes: Vec<Arc<Node>> = Vec::new();
        let deps = inputs
            .iter()
            .map(|(node, block)| {
                let pos = nodes.iter().position(|n| Arc::ptr_eq(n, node)).unwrap_or_else(|| {
                    nodes.push((*node).clone());
                    nodes.len() - 1
                });
                (pos, *block)
            })
            .collect();
        let op = Call { body, deps, nbytes };
        let node = Node::placed(label, DType::Intermediate, Chunks::from_lengths(vec![]), nodes, Arc::new(op), None);
        Delayed { node, block: 0, _t: PhantomData }
    }

    /// A task computing `f()` (dask's `delayed(f)()`). A panic in `f` is the
    /// task's error, naming `label`.
    ///
    /// ```
    /// use chunked_array::delayed::Delayed;
    /// let d = Delayed::new("answer", || 6 * 7);
    /// assert_eq!(d.compute().unwrap(), 42);
    /// let bad = Delayed::new("fails", || -> i32 { panic!("no data") });
    /// assert!(bad.compute().unwrap_err().to_string().contains("fails"));
    /// ```
    pub fn new(label: &str, f: impl Fn() -> T + Send + Sync + 'static) -> Delayed<T> {
        Self::call(label, &[], size_of_value, Box::new(move |_| Ok(f())))
    }

    /// A task computing `f()` that can fail: an `Err` is the task's error,
    /// naming `label` and carrying the message.
    ///
    /// ```
    /// use chunked_array::delayed::Delayed;
    /// let d = Delayed::try_new("parse", || "12x".parse::<i32>());
    /// let e = d.compute().unwrap_err().to_string();
    /// assert!(e.contains("parse") && e.contains("invalid digit"), "{e}");
    /// ```
    pub fn try_new<E: std::fmt::Display>(
        label: &str,
        f: impl Fn() -> std::result::Result<T, E> + Send + Sync + 'static,
    ) -> Delayed<T> {
        let name = label.to_string();
        Self::call(label, &[], size_of_value, Box::new(move |_| f().map_err(|e| task_error(&name, e))))
    }

    /// A value known now, as a task (dask's `delayed(obj)`), so that tasks
    /// can share it.
    ///
    /// ```
    /// use chunked_array::delayed::Delayed;
    /// let table = Delayed::value("table", vec![3, 1, 2]);
    /// assert_eq!(table.map("max", |t| *t.iter().max().unwrap()).compute().unwrap(), 3);
    /// ```
    pub fn value(label: &str, v: T) -> Delayed<T>
    where
        T: Clone,
    {
        Self::new(label, move || v.clone())
    }

    /// A task holding a copy of the value that reports `nbytes(&value)`
    /// bytes to the memory accounting (by default a value reports
    /// `size_of::<T>()`, which says nothing of what a `Vec` holds on the
    /// heap).
    ///
    /// ```
    /// use chunked_array::delayed::Delayed;
    /// let v = Delayed::new("big", || vec![0u8; 1 << 20]).sized(|v| v.len());
    /// assert_eq!(v.compute().unwrap().len(), 1 << 20);
    /// ```
    pub fn sized(&self, nbytes: fn(&T) -> usize) -> Delayed<T>
    where
        T: Clone,
    {
        let label = self.node.name.clone();
        Delayed::call(
            &label,
            &[(&self.node, self.block)],
            nbytes,
            Box::new(|inputs| Ok(value_of::<T>(inputs[0], "sized input")?.clone())),
        )
    }

    /// A task computing `f(&value)` (dask's `delayed(f)(d)`).
    ///
    /// ```
    /// use chunked_array::delayed::Delayed;
    /// let x = Delayed::value("x", 4.0f64);
    /// assert_eq!(x.map("sqrt", |v| v.sqrt()).compute().unwrap(), 2.0);
    /// ```
    pub fn map<U: Send + Sync + 'static>(
        &self,
        label: &str,
        f: impl Fn(&T) -> U + Send + Sync + 'static,
    ) -> Delayed<U> {
        let what = format!("input of {label}");
        Delayed::call(
            label,
            &[(&self.node, self.block)],
            size_of_value,
            Box::new(move |inputs| Ok(f(value_of::<T>(inputs[0], &what)?))),
        )
    }

    /// A task computing `f(&value)` that can fail (an `Err` is the task's
    /// error, naming `label`).
    ///
    /// ```
    /// use chunked_array::delayed::Delayed;
    /// let x = Delayed::value("x", -1.0f64);
    /// let r = x.try_map("checked sqrt", |v| if *v < 0.0 { Err("negative") } else { Ok(v.sqrt()) });
    /// assert!(r.compute().unwrap_err().to_string().contains("negative"));
    /// ```
    pub fn try_map<U: Send + Sync + 'static, E: std::fmt::Display>(
        &self,
        label: &str,
        f: impl Fn(&T) -> std::result::Result<U, E> + Send + Sync + 'static,
    ) -> Delayed<U> {
        let (what, name) = (format!("input of {label}"), label.to_string());
        Delayed::call(
            label,
            &[(&self.node, self.block)],
            size_of_value,
            Box::new(move |inputs| f(value_of::<T>(inputs[0], &what)?).map_err(|e| task_error(&name, e))),
        )
    }

    /// A task computing `f(&self, &other)`.
    ///
    /// ```
    /// use chunked_array::delayed::Delayed;
    /// let (a, b) = (Delayed::value("a", 2), Delayed::value("b", 3));
    /// assert_eq!(a.zip(&b, "mul", |x, y| x * y).compute().unwrap(), 6);
    /// ```
    pub fn zip<U: Send + Sync + 'static, V: Send + Sync + 'static>(
        &self,
        other: &Delayed<U>,
        label: &str,
        f: impl Fn(&T, &U) -> V + Send + Sync + 'static,
    ) -> Delayed<V> {
        let what = format!("input of {label}");
        Delayed::call(
            label,
            &[(&self.node, self.block), (&other.node, other.block)],
            size_of_value,
            Box::new(move |inputs| Ok(f(value_of::<T>(inputs[0], &what)?, value_of::<U>(inputs[1], &what)?))),
        )
    }

    /// The value, computed with the default context.
    ///
    /// ```
    /// use chunked_array::delayed::Delayed;
    /// assert_eq!(Delayed::new("s", || String::from("hi")).compute().unwrap(), "hi");
    /// ```
    ///
    /// # Errors
    /// The first failing task's error (a panic or an `Err` of a closure,
    /// naming its label), or the memory plan's refusal.
    pub fn compute(&self) -> Result<T>
    where
        T: Clone,
    {
        self.compute_on(&Context::default())
    }

    /// The value, computed with `ctx` (its scheduler, memory limits,
    /// observers).
    ///
    /// ```
    /// use chunked_array::{delayed::Delayed, Context};
    /// let d = Delayed::new("one", || 1u8).map("two", |x| x + 1);
    /// assert_eq!(d.compute_on(&Context::sync()).unwrap(), 2);
    /// ```
    ///
    /// # Errors
    /// As [`Delayed::compute`].
    pub fn compute_on(&self, ctx: &Context) -> Result<T>
    where
        T: Clone,
    {
        let take = TakeValue::<T>::new();
        run_selected(std::slice::from_ref(&self.node), &[vec![self.block]], ctx, &[&take])?;
        take.finish()
    }
}

/// A task computing `f` of every value of `items`, in order (a fan-in:
/// dask's `delayed(f)([d1, d2, ...])`).
///
/// ```
/// use chunked_array::delayed::{Delayed, fan_in};
/// let squares: Vec<_> = (1..=3).map(|i| Delayed::new("sq", move || i * i)).collect();
/// assert_eq!(fan_in("total", &squares, |v| v.iter().copied().sum::<i32>()).compute().unwrap(), 14);
/// ```
pub fn fan_in<T: Send + Sync + 'static, U: Send + Sync + 'static>(
    label: &str,
    items: &[Delayed<T>],
    f: impl Fn(&[&T]) -> U + Send + Sync + 'static,
) -> Delayed<U> {
    let inputs: Vec<(&Arc<Node>, usize)> = items.iter().map(|d| (&d.node, d.block)).collect();
    let what = format!("input of {label}");
    Delayed::call(
        label,
        &inputs,
        size_of_value,
        Box::new(move |blocks| {
            let values = blocks.iter().map(|b| value_of::<T>(b, &what)).collect::<Result<Vec<_>>>()?;
            Ok(f(&values))
        }),
    )
}

impl<T: Clone + Send + Sync + 'static> ComputePart for &Delayed<T> {
    type Output = T;
    type Collect = TakeValue<T>;
    fn layer_blocks(&self) -> LayerBlocks {
        LayerBlocks(self.node.clone(), vec![self.block])
    }
    fn collector(&self) -> TakeValue<T> {
        TakeValue::new()
    }
    fn finish(collected: TakeValue<T>) -> Result<T> {
        collected.finish()
    }
}
