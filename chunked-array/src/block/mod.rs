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
///
/// ```
/// use std::any::Any;
/// use std::sync::Arc;
/// use chunked_array::runtime::{Block, BlockValue, SpillImage};
///
/// /// A reduction's partial result: a count.
/// struct Count(u64);
/// impl BlockValue for Count {
///     fn nbytes(&self) -> usize { 8 }
///     fn as_any(&self) -> &dyn Any { self }
///     fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> { self }
///     fn spill_image(&self) -> Option<SpillImage> {
///         let bytes = self.0.to_le_bytes().to_vec();
///         Some(SpillImage { bytes, rebuild: |b| Some(Arc::new(Count(u64::from_le_bytes(b.try_into().ok()?))) as Block) })
///     }
/// }
/// let block: Block = Arc::new(Count(7));
/// let image = block.spill_image().unwrap();
/// let back = (image.rebuild)(&image.bytes).unwrap();
/// assert_eq!(back.as_any().downcast_ref::<Count>().unwrap().0, 7);
/// ```
pub trait BlockValue: Any + Send + Sync {
    /// Bytes held by the block.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use chunked_array::ndarray::{ArrayD, IxDyn};
    /// use chunked_array::runtime::{Block, BlockValue};
    /// let block: Block = Arc::new(ArrayD::<f64>::zeros(IxDyn(&[2, 3])));
    /// assert_eq!(block.nbytes(), 6 * 8);
    /// ```
    fn nbytes(&self) -> usize;
    /// The block as `Any`, to downcast to its concrete array type.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use chunked_array::ndarray::{ArrayD, IxDyn};
    /// use chunked_array::runtime::{Block, BlockValue};
    /// let block: Block = Arc::new(ArrayD::<i32>::ones(IxDyn(&[3])));
    /// let a = block.as_any().downcast_ref::<ArrayD<i32>>().unwrap();
    /// assert_eq!(a.sum(), 3);
    /// assert!(block.as_any().downcast_ref::<ArrayD<f64>>().is_none());
    /// ```
    fn as_any(&self) -> &dyn Any;
    /// The shared block as `Any`, to take it out without a copy when unshared.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use chunked_array::ndarray::{ArrayD, IxDyn};
    /// use chunked_array::runtime::{Block, BlockValue};
    /// let block: Block = Arc::new(ArrayD::<u8>::zeros(IxDyn(&[4])));
    /// let a: Arc<ArrayD<u8>> = block.into_any().downcast().unwrap();
    /// let owned = Arc::try_unwrap(a).unwrap(); // the only reference: no copy
    /// assert_eq!(owned.len(), 4);
    /// ```
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync>;
    /// The block as bytes for the disk tier, with the function that rebuilds it.
    /// `None` (the default): the block stays in memory when memory is over the
    /// limit. Arrays of elements spill without this (straight from their data).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use chunked_array::ndarray::{ArrayD, IxDyn};
    /// use chunked_array::runtime::{Block, BlockValue};
    /// let block: Block = Arc::new(ArrayD::<f64>::zeros(IxDyn(&[2])));
    /// assert!(block.spill_image().is_none()); // arrays spill straight from their data
    /// ```
    fn spill_image(&self) -> Option<SpillImage> {
        None
    }
    /// The device holding the block, for blocks in device memory (`None`: host).
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use std::sync::Arc;
    /// use chunked_array::device::{Device, DeviceBlock};
    /// use chunked_array::ndarray::{ArrayD, IxDyn};
    /// use chunked_array::runtime::{Block, BlockValue};
    /// let dev = Device::emulated(1 << 20);
    /// let on_device: Block = Arc::new(DeviceBlock { buffer: dev.upload(&[1.0f64, 2.0])?, shape: vec![2] });
    /// assert!(on_device.device().unwrap().same(&dev));
    /// let host: Block = Arc::new(ArrayD::<f64>::zeros(IxDyn(&[2])));
    /// assert!(host.device().is_none());
    /// # Ok(()) }
    /// ```
    fn device(&self) -> Option<&chunked_gpu::Device> {
        None
    }
    /// Whether this is a device block's copy in page-locked host memory
    /// ([`device::PinnedBlock`]): host memory, on its way back up to a
    /// device; host kernels read it through a plain copy.
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use std::sync::Arc;
    /// use chunked_array::device::{Device, DeviceBlock, PinnedBlock};
    /// use chunked_array::runtime::{Block, BlockValue};
    /// let dev = Device::emulated(1 << 20);
    /// let buffer = dev.upload(&[1.0f64, 2.0])?;
    /// let pinned: Block = Arc::new(PinnedBlock { buffer: buffer.download_pinned()?, shape: vec![2] });
    /// assert!(pinned.is_pinned_copy() && pinned.device().is_none());
    /// let on_device: Block = Arc::new(DeviceBlock { buffer, shape: vec![2] });
    /// assert!(!on_device.is_pinned_copy());
    /// # Ok(()) }
    /// ```
    fn is_pinned_copy(&self) -> bool {
        false
    }
}

/// A block as bytes for the disk tier (see [`BlockValue::spill_image`]).
///
/// ```
/// use std::sync::Arc;
/// use chunked_array::ndarray::arr1;
/// use chunked_array::runtime::{Block, BlockValue, SpillImage};
/// let image = SpillImage { bytes: vec![1, 2, 3], rebuild: |b| Some(Arc::new(arr1(b).into_dyn()) as Block) };
/// let block = (image.rebuild)(&image.bytes).unwrap();
/// assert_eq!(block.nbytes(), 3);
/// ```
pub struct SpillImage {
    /// The bytes written to the spill file.
    pub bytes: Vec<u8>,
    /// Rebuilds the block from those bytes, in the same process; `None` when they
    /// do not describe one.
    pub rebuild: Rebuild,
}

/// Rebuilds a spilled block from its bytes (see [`SpillImage`]).
pub type Rebuild = fn(&[u8]) -> Option<Block>;

/// Blocks of elements (and of a reduction's plain partial values).
impl<T: Send + Sync + 'static> BlockValue for ArrayD<T> {
    /// The elements' bytes: length times element size.
    ///
    /// ```
    /// use chunked_array::ndarray::{ArrayD, IxDyn};
    /// use chunked_array::runtime::BlockValue;
    /// assert_eq!(ArrayD::<i32>::zeros(IxDyn(&[3, 2])).nbytes(), 6 * 4);
    /// ```
    fn nbytes(&self) -> usize {
        self.len() * std::mem::size_of::<T>()
    }
    /// The array itself, to downcast to `ArrayD<T>`.
    ///
    /// ```
    /// use chunked_array::ndarray::{ArrayD, IxDyn};
    /// use chunked_array::runtime::BlockValue;
    /// let a = ArrayD::<f32>::ones(IxDyn(&[2]));
    /// assert_eq!(a.as_any().downcast_ref::<ArrayD<f32>>().unwrap().sum(), 2.0);
    /// ```
    fn as_any(&self) -> &dyn Any {
        self
    }
    /// The shared array, to downcast to `Arc<ArrayD<T>>`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use chunked_array::ndarray::{ArrayD, IxDyn};
    /// use chunked_array::runtime::BlockValue;
    /// let a = Arc::new(ArrayD::<u8>::zeros(IxDyn(&[5])));
    /// assert_eq!(a.into_any().downcast::<ArrayD<u8>>().unwrap().len(), 5);
    /// ```
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}

/// The element type of a block of elements ([`DType::Intermediate`] otherwise).
pub(crate) fn block_dtype(block: &Block) -> DType {
    macro_rules! is {
        ($($t:ty),*) => {$(
            if block.as_any().is::<ArrayD<$t>>() {
                return <$t as crate::element::Element>::DTYPE;
            }
        )*};
    }
    is!(f64, f32, i64, i32, u8, bool, i8, i16, u16, u32, u64, crate::element::Complex32, crate::element::Complex64);
    DType::Intermediate
}

/// Calls `$f::<U>(args)` with `U` the Rust type of `$dtype` (None for intermediates).
macro_rules! dispatch_dtype {
    ($dtype:expr, $f:ident :: <_> ( $($arg:expr),* )) => {
        match $dtype {
            crate::element::DType::Bool => $f::<bool>($($arg),*),
            crate::element::DType::I8 => $f::<i8>($($arg),*),
            crate::element::DType::I16 => $f::<i16>($($arg),*),
            crate::element::DType::I32 => $f::<i32>($($arg),*),
            crate::element::DType::I64 => $f::<i64>($($arg),*),
            crate::element::DType::U8 => $f::<u8>($($arg),*),
            crate::element::DType::U16 => $f::<u16>($($arg),*),
            crate::element::DType::U32 => $f::<u32>($($arg),*),
            crate::element::DType::U64 => $f::<u64>($($arg),*),
            crate::element::DType::F32 => $f::<f32>($($arg),*),
            crate::element::DType::F64 => $f::<f64>($($arg),*),
            crate::element::DType::Complex64 => $f::<crate::element::Complex32>($($arg),*),
            crate::element::DType::Complex128 => $f::<crate::element::Complex64>($($arg),*),
            crate::element::DType::Intermediate => None,
        }
    };
}
pub(crate) use dispatch_dtype;
