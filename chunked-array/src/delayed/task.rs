//! How a delayed value is computed and held: the layer op that runs a
//! closure on its inputs' values, the block that holds the value, and the
//! collector that takes it out of a run.

use std::any::Any;
use std::fmt::Display;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use super::encode::{Encode, from_bytes, to_bytes};
use crate::block::{Block, BlockValue, Rebuild, SpillImage};
use crate::error::{Error, Result};
use crate::exec::Collector;
use crate::graph::wire::Wire;
use crate::graph::{BlockOp, Node};

/// How a delayed task's value is measured and stored: the bytes it reports
/// to the memory accounting, and its encoding, if it has one (then it can
/// spill to disk and travel between processes).
pub(crate) struct Measure<T> {
    pub nbytes: fn(&T) -> usize,
    pub codec: Option<Codec<T>>,
}

/// A value's encoding, and the function that rebuilds its block.
pub(crate) type Codec<T> = (fn(&T) -> Vec<u8>, Rebuild);

impl<T> Clone for Measure<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Measure<T> {}

impl<T: Send + Sync + 'static> Measure<T> {
    /// A value reporting its own size (what a `Vec` holds on the heap is
    /// not seen), with no encoding.
    pub fn of_size() -> Self {
        Measure { nbytes: |_| std::mem::size_of::<T>(), codec: None }
    }

    /// Encoded with [`Encode`].
    pub fn encoded(self) -> Self
    where
        T: Encode,
    {
        fn rebuild<T: Encode + Send + Sync + 'static>(bytes: &[u8]) -> Option<Block> {
            let value = from_bytes::<T>(bytes)?;
            Some(Value::block(value, Measure::<T>::of_size().encoded()))
        }
        Measure { codec: Some((to_bytes::<T>, rebuild::<T>)), ..self }
    }
}

/// The block a delayed task makes: its value and how it is measured.
pub(crate) struct Value<T> {
    pub value: T,
    nbytes: usize,
    codec: Option<Codec<T>>,
}

impl<T: Send + Sync + 'static> Value<T> {
    pub(crate) fn block(value: T, measure: Measure<T>) -> Block {
        let nbytes = (measure.nbytes)(&value);
        Arc::new(Value { value, nbytes, codec: measure.codec })
    }
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
    fn spill_image(&self) -> Option<SpillImage> {
        self.codec.map(|(encode, rebuild)| SpillImage { bytes: encode(&self.value), rebuild })
    }
}

/// The value of type `T` a block holds: a delayed task's [`Value`], or the
/// block itself (an array's block, `T` an `ArrayD`).
pub(crate) fn value_of<'a, T: 'static>(block: &'a Block, what: &str) -> Result<&'a T> {
    let any = block.as_any();
    any.downcast_ref::<Value<T>>().map(|v| &v.value).or_else(|| any.downcast_ref::<T>()).ok_or_else(|| not_a::<T>(what))
}

/// The error for a block that holds no `T`.
fn not_a<T>(what: &str) -> Error {
    Error::DtypeMismatch {
        key: what.to_string(),
        expected: std::any::type_name::<T>().to_string(),
        found: "a value of another type".into(),
    }
}

/// A closure of the input blocks' values, as the layer runs it.
pub(crate) type Body<T> = Arc<dyn Fn(&[&Block]) -> Result<T> + Send + Sync>;

/// A layer of one block: `body` over the blocks `deps` names.
pub(crate) struct Call<T> {
    pub body: Body<T>,
    pub deps: Vec<(usize, usize)>,
    pub measure: Measure<T>,
}

impl<T> Clone for Call<T> {
    fn clone(&self) -> Self {
        Call { body: self.body.clone(), deps: self.deps.clone(), measure: self.measure }
    }
}

impl<T: Send + Sync + 'static> BlockOp for Call<T> {
    fn deps(&self, _: &Node, _: &[usize], out: &mut Vec<(usize, usize)>) {
        out.extend_from_slice(&self.deps);
    }
    fn run(&self, _: &Node, _: &[usize], inputs: &[&Block]) -> Result<Block> {
        Ok(Value::block((self.body)(inputs)?, self.measure))
    }
    fn wire(&self) -> Option<Wire> {
        self.measure.codec.map(|(_, rebuild)| Wire::spill_image(rebuild))
    }
}

/// The layer of a persisted delayed value: the block computed before.
pub(crate) struct Kept(pub Block);

impl BlockOp for Kept {
    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}
    fn run(&self, _: &Node, _: &[usize], _: &[&Block]) -> Result<Block> {
        Ok(self.0.clone())
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

impl<T: Clone + Send + Sync + 'static> TakeValue<T> {
    pub(crate) fn finish(self) -> Result<T> {
        into_value(self.finish_block()?, "delayed result")
    }
}

impl<T> TakeValue<T> {
    pub(crate) fn new() -> Self {
        TakeValue { block: Mutex::new(None), _t: PhantomData }
    }

    /// The block holding the value.
    pub(crate) fn finish_block(self) -> Result<Block> {
        let block = self.block.into_inner().unwrap_or_else(|p| p.into_inner());
        block.ok_or_else(|| Error::Task { key: "delayed value".into(), message: "never computed".into() })
    }
}

/// The value `block` holds, moved out when no one else holds the block.
pub(crate) fn into_value<T: Clone + Send + Sync + 'static>(block: Block, what: &str) -> Result<T> {
    match block.into_any().downcast::<Value<T>>() {
        Ok(v) => Ok(Arc::try_unwrap(v).map(|v| v.value).unwrap_or_else(|shared| shared.value.clone())),
        Err(any) => match any.downcast::<T>() {
            Ok(v) => Ok(Arc::try_unwrap(v).unwrap_or_else(|shared| (*shared).clone())),
            Err(_) => Err(not_a::<T>(what)),
        },
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
