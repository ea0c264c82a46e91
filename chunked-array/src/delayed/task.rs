//! How a delayed value is computed and held: the layer op that runs a
//! closure on its inputs' values, the block that holds the value, and the
//! collector that takes it out of a run.

use std::any::Any;
use std::fmt::Display;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use crate::block::{Block, BlockValue};
use crate::error::{Error, Result};
use crate::exec::Collector;
use crate::graph::{BlockOp, Node};

/// The block a delayed task makes: its value and the bytes it reports.
pub(crate) struct Value<T> {
    pub value: T,
    pub nbytes: usize,
}

impl<T: Send + Sync + 'static> BlockValue for Value<T> {
    fn nbytes(&self) -> usize {
        self.nbytes
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}

/// The value of type `T` a block holds: a delayed task's [`Value`], or the
/// block itself (an array's block, `T` an `ArrayD`).
pub(crate) fn value_of<'a, T: 'static>(block: &'a Block, what: &str) -> Result<&'a T> {
    let any = block.as_any();
    any.downcast_ref::<Value<T>>().map(|v| &v.value).or_else(|| any.downcast_ref::<T>()).ok_or_else(|| {
        Error::DtypeMismatch {
            key: what.to_string(),
            expected: std::any::type_name::<T>().to_string(),
            found: "a value of another type".into(),
        }
    })
}

/// A closure of the input blocks' values, as the layer runs it.
pub(crate) type Body<T> = Box<dyn Fn(&[&Block]) -> Result<T> + Send + Sync>;

/// A layer of one block: `body` over the blocks `deps` names.
pub(crate) struct Call<T> {
    pub body: Body<T>,
    pub deps: Vec<(usize, usize)>,
    /// The bytes of the value, measured once it is made.
    pub nbytes: fn(&T) -> usize,
}

impl<T: Send + Sync + 'static> BlockOp for Call<T> {
    fn deps(&self, _: &Node, _: &[usize], out: &mut Vec<(usize, usize)>) {
        out.extend_from_slice(&self.deps);
    }
    fn run(&self, _: &Node, _: &[usize], inputs: &[&Block]) -> Result<Block> {
        let value = (self.body)(inputs)?;
        let nbytes = (self.nbytes)(&value);
        Ok(Arc::new(Value { value, nbytes }))
    }
}

/// A user closure's error as the task's error.
pub(crate) fn task_error(label: &str, e: impl Display) -> Error {
    Error::Task { key: label.to_string(), message: e.to_string() }
}

/// Takes the one block of a delayed value out of a run.
pub struct TakeValue<T> {
    block: Mutex<Option<Block>>,
    _t: PhantomData<fn() -> T>,
}

impl<T: Clone + 'static> TakeValue<T> {
    pub(crate) fn new() -> Self {
        TakeValue { block: Mutex::new(None), _t: PhantomData }
    }

    pub(crate) fn finish(self) -> Result<T> {
        let block = self.block.into_inner().unwrap_or_else(|p| p.into_inner());
        let block =
            block.ok_or_else(|| Error::Task { key: "delayed value".into(), message: "never computed".into() })?;
        value_of::<T>(&block, "delayed result").cloned()
    }
}

impl<T> Collector for TakeValue<T> {
    fn accept(&self, _: usize, block: &Block) -> Result<()> {
        // An array's block on a device comes back to the host here.
        let block = crate::block::device::to_host_block(block)?;
        *self.block.lock().unwrap_or_else(|p| p.into_inner()) = Some(block);
        Ok(())
    }
}
