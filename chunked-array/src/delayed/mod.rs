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
mod encode;
mod task;

use std::marker::PhantomData;
use std::sync::Arc;

pub use encode::Encode;
pub(crate) use task::{Measure, Value, value_of};

use crate::array::{ComputePart, LayerBlocks};
use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::DType;
use crate::error::Result;
use crate::exec::{Context, run_selected};
use crate::graph::Node;

use task::{Call, Kept, TakeValue, into_value, task_error};

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
    /// The task's closure, to remake it measured otherwise ([`Delayed::sized`],
    /// [`Delayed::encoded`]); `None` for an array's block.
    call: Option<Arc<Call<T>>>,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Delayed<T> {
    fn clone(&self) -> Self {
        Delayed { node: self.node.clone(), block: self.block, call: self.call.clone(), _t: PhantomData }
    }
}

impl<T> std::fmt::Debug for Delayed<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Delayed({}, block {})", self.node.label(), self.block)
    }
}

impl<T: Send + Sync + 'static> Delayed<T> {
    /// A task computing `f` over the values of `inputs`, taken in order.
    fn call<I: Send + Sync + 'static>(
        label: &str,
        inputs: &[(&Arc<Node>, usize)],
        f: impl Fn(&[&I]) -> Result<T> + Send + Sync + 'static,
    ) -> Delayed<T> {
        let what = format!("input of {label}");
        Self::call_blocks(label, inputs, move |blocks| {
            let values = blocks.iter().map(|b| value_of::<I>(b, &what)).collect::<Result<Vec<_>>>()?;
            f(&values)
        })
    }

    /// A task computing `body` over the blocks of `inputs`, each input layer
    /// listed once.
    fn call_blocks(
        label: &str,
        inputs: &[(&Arc<Node>, usize)],
        body: impl Fn(&[&Block]) -> Result<T> + Send + Sync + 'static,
    ) -> Delayed<T> {
        let (nodes, deps) = distinct_inputs(inputs.iter().map(|(node, block)| (*node, *block)));
        Self::from_call(label, nodes, Call { body: Arc::new(body), deps, measure: Measure::of_size() })
    }

    /// The value of block `block` of `node`'s layer.
    pub(crate) fn from_node(node: Arc<Node>, block: usize) -> Delayed<T> {
        Delayed { node, block, call: None, _t: PhantomData }
    }

    /// Its task's name.
    pub(crate) fn label(&self) -> String {
        self.node.label()
    }

    /// Computes it into the block holding its value.
    pub(crate) fn compute_block_on(&self, ctx: &Context) -> Result<Block> {
        let take = TakeValue::<T>::new();
        run_selected(std::slice::from_ref(&self.node), &[vec![self.block]], ctx, &[&take])?;
        take.finish_block()
    }

    /// The delayed value of `call`'s layer over `inputs`.
    fn from_call(label: &str, inputs: Vec<Arc<Node>>, call: Call<T>) -> Delayed<T> {
        let call = Arc::new(call);
        let chunks = Chunks::from_lengths(vec![]);
        let node = Node::placed(label, DType::Intermediate, chunks, inputs, call.clone(), None);
        Delayed { node, block: 0, call: Some(call), _t: PhantomData }
    }

    /// The same task, its value measured by `measure`.
    fn remeasured(&self, measure: impl FnOnce(Measure<T>) -> Measure<T>) -> Delayed<T> {
        match &self.call {
            Some(call) => {
                let call = Call { measure: measure(call.measure), ..(**call).clone() };
                Self::from_call(&self.node.name, self.node.inputs.clone(), call)
            }
            // An array's block: measured and encoded as the array's blocks are.
            None => self.clone(),
        }
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
        Self::call::<()>(label, &[], move |_| Ok(f()))
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
        Self::call::<()>(label, &[], move |_| f().map_err(|e| task_error(&name, e)))
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

    /// The same task, its value reporting `nbytes(&value)` bytes to the
    /// memory accounting (by default a value reports `size_of::<T>()`,
    /// which says nothing of what a `Vec` holds on the heap). An array's
    /// block ([`crate::Array::to_delayed`]) already reports its bytes and
    /// stays as it is.
    ///
    /// ```
    /// use chunked_array::delayed::Delayed;
    /// let v = Delayed::new("big", || vec![0u8; 1 << 20]).sized(|v| v.len());
    /// assert_eq!(v.compute().unwrap().len(), 1 << 20);
    /// ```
    pub fn sized(&self, nbytes: fn(&T) -> usize) -> Delayed<T> {
        self.remeasured(|m| Measure { nbytes, ..m })
    }

    /// The same task, its value encoded by [`Encode`] when it must leave
    /// memory: it spills to disk when memory is over the limit, and travels
    /// to consumers on other MPI ranks. Without it a value stays in memory
    /// (a run whose idle values that cannot spill hold more than the memory
    /// limit by themselves ends with [`crate::Error::ResourcesExhausted`]
    /// naming one of them), and its consumers run on the rank that made it.
    ///
    /// ```
    /// use chunked_array::{delayed::Delayed, Context};
    /// let parts: Vec<_> = (0..4)
    ///     .map(|i| Delayed::new("part", move || vec![i as f64; 1000]).sized(|v| 8 * v.len()).encoded())
    ///     .collect();
    /// let total = chunked_array::delayed::fan_in("total", &parts, |ps| ps.iter().map(|p| p.iter().sum::<f64>()).sum::<f64>());
    /// let ctx = Context::sync().with_memory_limit(10_000); // two parts at a time; the others spill
    /// assert_eq!(total.compute_on(&ctx).unwrap(), 6000.0);
    /// ```
    pub fn encoded(&self) -> Delayed<T>
    where
        T: Encode,
    {
        self.remeasured(Measure::encoded)
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
        Delayed::call(label, &[(&self.node, self.block)], move |v: &[&T]| Ok(f(v[0])))
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
        let name = label.to_string();
        Delayed::call(label, &[(&self.node, self.block)], move |v: &[&T]| f(v[0]).map_err(|e| task_error(&name, e)))
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
        Delayed::call_blocks(label, &[(&self.node, self.block), (&other.node, other.block)], move |blocks| {
            Ok(f(value_of::<T>(blocks[0], &what)?, value_of::<U>(blocks[1], &what)?))
        })
    }

    /// [`Delayed::persist_on`] with the default context.
    ///
    /// ```
    /// use chunked_array::delayed::Delayed;
    /// let d = Delayed::new("table", || vec![1, 2, 3]).persist().unwrap();
    /// assert_eq!(d.map("len", |t| t.len()).compute().unwrap(), 3);
    /// ```
    ///
    /// # Errors
    /// As [`Delayed::compute`].
    pub fn persist(&self) -> Result<Delayed<T>> {
        self.persist_on(&Context::default())
    }

    /// Computes the value now and returns a delayed value holding it (dask's
    /// `d.persist()`): graphs built on it start from the value instead of
    /// running its tasks again.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// use chunked_array::{delayed::Delayed, Context};
    /// let runs = Arc::new(AtomicUsize::new(0));
    /// let r = runs.clone();
    /// let d = Delayed::new("expensive", move || { r.fetch_add(1, Ordering::SeqCst); 21 }).persist_on(&Context::sync()).unwrap();
    /// assert_eq!(d.map("double", |v| v * 2).compute().unwrap(), 42);
    /// assert_eq!(d.compute().unwrap(), 21);
    /// assert_eq!(runs.load(Ordering::SeqCst), 1);
    /// ```
    ///
    /// # Errors
    /// As [`Delayed::compute`]; under MPI, the ranks that do not receive the
    /// result get [`crate::Error::ResultElsewhere`].
    pub fn persist_on(&self, ctx: &Context) -> Result<Delayed<T>> {
        let block = self.compute_block_on(ctx)?;
        let node = Node::placed(
            &self.node.name,
            DType::Intermediate,
            Chunks::from_lengths(vec![]),
            vec![],
            Arc::new(Kept(block)),
            None,
        );
        Ok(Delayed { node, block: 0, call: None, _t: PhantomData })
    }

    /// Its task graph's layers in Graphviz's dot language (dask's
    /// `d.visualize()`, as text): one node per task, named by its label.
    ///
    /// ```
    /// use chunked_array::delayed::Delayed;
    /// let d = Delayed::new("load", || 2).map("square", |v| v * v);
    /// let dot = d.to_dot();
    /// assert!(dot.starts_with("digraph") && dot.contains("load") && dot.contains("square"));
    /// ```
    pub fn to_dot(&self) -> String {
        crate::diagnostics::graphviz::layers_dot(std::slice::from_ref(&self.node))
    }

    /// [`Delayed::to_dot`] drawn as SVG by Graphviz's `dot` (dask's
    /// `d.visualize()`).
    ///
    /// ```
    /// use chunked_array::delayed::Delayed;
    /// match Delayed::new("load", || 2).to_svg() {
    ///     Ok(svg) => assert!(svg.contains("<svg")),
    ///     Err(e) => assert!(e.to_string().contains("dot")), // Graphviz missing
    /// }
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::Io`] when Graphviz's `dot` is missing or fails.
    pub fn to_svg(&self) -> Result<String> {
        crate::diagnostics::graphviz::svg(&self.to_dot())
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
        into_value(self.compute_block_on(ctx)?, "delayed result")
    }
}

/// The layers of `blocks` (layer, block number), each listed once, and each
/// block as (position in that list, block number): a layer's inputs and deps.
pub(crate) fn distinct_inputs<'a>(
    blocks: impl Iterator<Item = (&'a Arc<Node>, usize)>,
) -> (Vec<Arc<Node>>, Vec<(usize, usize)>) {
    let mut nodes: Vec<Arc<Node>> = Vec::new();
    let deps = blocks
        .map(|(node, block)| {
            let pos = nodes.iter().position(|n| Arc::ptr_eq(n, node)).unwrap_or_else(|| {
                nodes.push(node.clone());
                nodes.len() - 1
            });
            (pos, block)
        })
        .collect();
    (nodes, deps)
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
    Delayed::call(label, &inputs, move |values: &[&T]| Ok(f(values)))
}

/// [`fan_in`] with a closure that can fail: an `Err` is the task's error,
/// naming `label`.
///
/// ```
/// use chunked_array::delayed::{Delayed, try_fan_in};
/// let parts: Vec<_> = ["1", "2", "x"].into_iter().map(|s| Delayed::value("text", s.to_string())).collect();
/// let total = try_fan_in("parse all", &parts, |v| v.iter().map(|s| s.parse::<i32>()).sum::<Result<i32, _>>());
/// let e = total.compute().unwrap_err().to_string();
/// assert!(e.contains("parse all") && e.contains("invalid digit"), "{e}");
/// ```
pub fn try_fan_in<T: Send + Sync + 'static, U: Send + Sync + 'static, E: std::fmt::Display>(
    label: &str,
    items: &[Delayed<T>],
    f: impl Fn(&[&T]) -> std::result::Result<U, E> + Send + Sync + 'static,
) -> Delayed<U> {
    let inputs: Vec<(&Arc<Node>, usize)> = items.iter().map(|d| (&d.node, d.block)).collect();
    let name = label.to_string();
    Delayed::call(label, &inputs, move |values: &[&T]| f(values).map_err(|e| task_error(&name, e)))
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
