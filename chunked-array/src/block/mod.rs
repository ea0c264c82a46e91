//! Blocks: the values tasks produce and read, host or device, with their
//! allocation and element-type dispatch. The first floor above the foundation:
//! it imports only `element` and `error`.

pub mod alloc;
pub mod device;

use std::any::Any;
use std::sync::Arc;

use ndarray::ArrayD;

use crate::element::DType;

/// A computed block, shared cheaply between the tasks that read it.
pub type Block = Arc<dyn BlockValue>;

/// What a block holds: an `ndarray::ArrayD` of elements or of a reduction's
/// intermediate values. Sized, so that memory can be counted.
pub trait BlockValue: Any + Send + Sync {
    /// Bytes held by the block.
    fn nbytes(&self) -> usize;
    /// The block as `Any`, to downcast to its concrete array type.
    fn as_any(&self) -> &dyn Any;
    /// The shared block as `Any`, to take it out without a copy when unshared.
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync>;
    /// The block as bytes for the disk tier, with the function that rebuilds it.
    /// `None` (the default): the block stays in memory when memory is over the
    /// limit. Arrays of elements spill without this (straight from their data).
    fn spill_image(&self) -> Option<SpillImage> {
        None
    }
    /// The device holding the block, for blocks in device memory (`None`: host).
    fn device(&self) -> Option<&chunked_gpu::Device> {
        None
    }
    /// Whether this is a device block's copy in page-locked host memory
    /// ([`device::PinnedBlock`]): host memory, on its way back up to a
    /// device; host kernels read it through a plain copy.
    fn is_pinned_copy(&self) -> bool {
        false
    }
}

/// A block as bytes for the disk tier (see [`BlockValue::spill_image`]).
pub struct SpillImage {
    /// The bytes written to the spill file.
    pub bytes: Vec<u8>,
    /// Rebuilds the block from those bytes, in the same process; `None` when they
    /// do not describe one.
    pub rebuild: Rebuild,
}

/// Rebuilds a spilled block from its bytes (see [`SpillImage`]).
pub type Rebuild = fn(&[u8]) -> Option<Block>;

impl<T: Send + Sync + 'static> BlockValue for ArrayD<T> {
    fn nbytes(&self) -> usize {
        self.len() * std::mem::size_of::<T>()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}

/// The element type of a block of elements ([`DType::Intermediate`] otherwise).
pub(crate) fn block_dtype(block: &Block) -> DType {
    let any = block.as_any();
    if any.is::<ArrayD<f64>>() {
        DType::F64
    } else if any.is::<ArrayD<f32>>() {
        DType::F32
    } else if any.is::<ArrayD<i64>>() {
        DType::I64
    } else if any.is::<ArrayD<i32>>() {
        DType::I32
    } else if any.is::<ArrayD<u8>>() {
        DType::U8
    } else if any.is::<ArrayD<bool>>() {
        DType::Bool
    } else {
        DType::Intermediate
    }
}

/// Calls `$f::<U>(args)` with `U` the Rust type of `$dtype` (None for intermediates).
macro_rules! dispatch_dtype {
    ($dtype:expr, $f:ident :: <_> ( $($arg:expr),* )) => {
        match $dtype {
            crate::element::DType::F32 => $f::<f32>($($arg),*),
            crate::element::DType::F64 => $f::<f64>($($arg),*),
            crate::element::DType::I32 => $f::<i32>($($arg),*),
            crate::element::DType::I64 => $f::<i64>($($arg),*),
            crate::element::DType::U8 => $f::<u8>($($arg),*),
            crate::element::DType::Bool => $f::<bool>($($arg),*),
            crate::element::DType::Intermediate => None,
        }
    };
}
pub(crate) use dispatch_dtype;
