//! Device blocks, and the copies of blocks between host and device.

use std::any::Any;
use std::sync::Arc;

use chunked_gpu::{Device, DeviceBuffer, DeviceElement, PinnedBuffer};
use ndarray::{ArrayD, IxDyn};

use crate::block::{Block, BlockValue};
use crate::error::Result;

/// A block of elements in a device's memory, C order.
///
/// ```
/// # fn main() -> chunked_array::Result<()> {
/// use chunked_array::device::{Device, DeviceBlock};
/// use chunked_array::ndarray::arr2;
/// let dev = Device::emulated(1 << 20);
/// let block = DeviceBlock { buffer: dev.upload(&[1i32, 2, 3, 4])?, shape: vec![2, 2] };
/// assert_eq!(block.buffer.nbytes(), 16);
/// assert_eq!(block.to_host()?, arr2(&[[1, 2], [3, 4]]).into_dyn());
/// # Ok(()) }
/// ```
pub struct DeviceBlock<T: DeviceElement> {
    /// The elements.
    pub buffer: DeviceBuffer<T>,
    /// The block's shape.
    pub shape: Vec<usize>,
}

impl<T: DeviceElement> DeviceBlock<T> {
    /// A copy of the block in host memory.
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::device::{Device, DeviceBlock};
    /// let dev = Device::emulated(1 << 20);
    /// let block = DeviceBlock { buffer: dev.upload(&[0.5f64, 1.5, 2.5])?, shape: vec![3] };
    /// assert_eq!(block.to_host()?.as_slice().unwrap(), &[0.5, 1.5, 2.5]);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`crate::error::Error::Device`] when the copy fails.
    pub fn to_host(&self) -> Result<ArrayD<T>> {
        let data = self.buffer.download()?;
        let len = data.len();
        ArrayD::from_shape_vec(IxDyn(&self.shape), data)
            .map_err(|_| crate::error::Error::shape("device block to host", &self.shape, &[len]))
    }
}

impl<T: DeviceElement> BlockValue for DeviceBlock<T> {
    fn nbytes(&self) -> usize {
        self.buffer.nbytes()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
    fn device(&self) -> Option<&Device> {
        Some(self.buffer.device())
    }
}

/// A device block moved to page-locked host memory past the device memory
/// limit (dask-cuda's device -> host spilling, into pinned buffers): host
/// memory, counted in the host tier and spilled on to disk from there; it goes
/// back to a device by DMA when a task there reads it.
///
/// ```
/// # fn main() -> chunked_array::Result<()> {
/// use chunked_array::device::{Device, PinnedBlock};
/// let dev = Device::emulated(1 << 20);
/// let pinned = dev.upload(&[1.5f32, 2.5, 3.5, 4.5])?.download_pinned()?;
/// let block = PinnedBlock { buffer: pinned, shape: vec![2, 2] };
/// assert_eq!(block.to_array()?.shape(), &[2, 2]);
/// # Ok(()) }
/// ```
pub struct PinnedBlock<T: DeviceElement> {
    /// The elements, C order.
    pub buffer: PinnedBuffer<T>,
    /// The block's shape.
    pub shape: Vec<usize>,
}

impl<T: DeviceElement> PinnedBlock<T> {
    /// The elements as a host array (a copy).
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::device::{Device, PinnedBlock};
    /// let dev = Device::emulated(1 << 20);
    /// let block = PinnedBlock { buffer: dev.upload(&[7u8, 8])?.download_pinned()?, shape: vec![2] };
    /// assert_eq!(block.to_array()?.as_slice().unwrap(), &[7, 8]);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`crate::error::Error::Device`] when waiting for the copy into it fails.
    pub fn to_array(&self) -> Result<ArrayD<T>> {
        let data = self.buffer.as_slice()?.to_vec();
        let len = data.len();
        ArrayD::from_shape_vec(IxDyn(&self.shape), data)
            .map_err(|_| crate::error::Error::shape("pinned block to host", &self.shape, &[len]))
    }

    /// The disk tier's image: the shape, then the elements.
    fn image_bytes(&self) -> Option<Vec<u8>> {
        let data = self.buffer.as_slice().ok()?;
        let mut out = Vec::with_capacity(8 * (self.shape.len() + 1) + std::mem::size_of_val(data));
        out.extend_from_slice(&(self.shape.len() as u64).to_le_bytes());
        self.shape.iter().for_each(|&d| out.extend_from_slice(&(d as u64).to_le_bytes()));
        // SAFETY: device element types are plain numbers without padding.
        out.extend_from_slice(unsafe {
            std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data))
        });
        Some(out)
    }

    /// The block an image describes, as a host array (it comes back from disk
    /// as any spilled array does).
    fn from_image(bytes: &[u8]) -> Option<Block> {
        let word = |i: usize| Some(u64::from_le_bytes(bytes.get(8 * i..8 * i + 8)?.try_into().ok()?) as usize);
        let ndim = word(0)?;
        let shape = (1..=ndim).map(word).collect::<Option<Vec<usize>>>()?;
        let body = bytes.get(8 * (ndim + 1)..)?;
        let len: usize = shape.iter().product();
        if body.len() != len * size_of::<T>() {
            return None;
        }
        let mut data = vec![T::default(); len];
        // SAFETY: `body` holds exactly len elements' bytes, written by image_bytes.
        unsafe { std::ptr::copy_nonoverlapping(body.as_ptr(), data.as_mut_ptr().cast::<u8>(), body.len()) };
        Some(Arc::new(ArrayD::from_shape_vec(IxDyn(&shape), data).ok()?))
    }
}

impl<T: DeviceElement> BlockValue for PinnedBlock<T> {
    fn nbytes(&self) -> usize {
        self.buffer.nbytes()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
    fn spill_image(&self) -> Option<crate::block::SpillImage> {
        Some(crate::block::SpillImage { bytes: self.image_bytes()?, rebuild: Self::from_image })
    }
    fn is_pinned_copy(&self) -> bool {
        true
    }
}

/// The elements of a host array as a vector in C order, without a copy when the
/// array owns exactly them in that order.
pub(crate) fn into_c_vec<T: Clone>(a: ArrayD<T>) -> Vec<T> {
    if a.is_standard_layout() {
        let len = a.len();
        let (v, offset) = a.into_raw_vec_and_offset();
        if v.len() == len && offset.unwrap_or(0) == 0 {
            return v;
        }
        let offset = offset.unwrap_or(0);
        return v[offset..offset + len].to_vec();
    }
    a.iter().cloned().collect()
}

/// Runs `$body` with `$t` bound to the element type of a device block or host
/// array block, for the element types a device holds.
macro_rules! for_device_types {
    ($mac:ident) => {
        $mac!(f64);
        $mac!(f32);
        $mac!(i64);
        $mac!(i32);
        $mac!(u8);
        $mac!(i8);
        $mac!(i16);
        $mac!(u16);
        $mac!(u32);
        $mac!(u64);
        $mac!(crate::element::Complex32);
        $mac!(crate::element::Complex64);
    };
}

/// Calls `$f::<T>(args)` with `T` the device element type of `$dtype` (the
/// numbers; see [`is_device_dtype`]), for kernels that make device blocks of a layer's
/// dtype; bool and intermediate layers have no device form (a caller's bug).
macro_rules! dispatch_device_dtype {
    ($dtype:expr, $f:ident :: <_> ( $($arg:expr),* )) => {
        match $dtype {
            crate::element::DType::F64 => $f::<f64>($($arg),*),
            crate::element::DType::F32 => $f::<f32>($($arg),*),
            crate::element::DType::I64 => $f::<i64>($($arg),*),
            crate::element::DType::I32 => $f::<i32>($($arg),*),
            crate::element::DType::U8 => $f::<u8>($($arg),*),
            crate::element::DType::I8 => $f::<i8>($($arg),*),
            crate::element::DType::I16 => $f::<i16>($($arg),*),
            crate::element::DType::U16 => $f::<u16>($($arg),*),
            crate::element::DType::U32 => $f::<u32>($($arg),*),
            crate::element::DType::U64 => $f::<u64>($($arg),*),
            crate::element::DType::Complex64 => $f::<crate::element::Complex32>($($arg),*),
            crate::element::DType::Complex128 => $f::<crate::element::Complex64>($($arg),*),
            other @ (crate::element::DType::Bool | crate::element::DType::Intermediate) => {
                unreachable!("{other} has no device element type")
            }
        }
    };
}
pub(crate) use dispatch_device_dtype;

/// Whether a device holds elements of `dtype`: the numbers (bool blocks and
/// intermediate values stay on the host).
pub(crate) fn is_device_dtype(dtype: crate::element::DType) -> bool {
    use crate::element::DType;
    !matches!(dtype, DType::Bool | DType::Intermediate)
}

/// The dtype of a device block's elements; `None` for other blocks.
pub(crate) fn device_dtype(block: &Block) -> Option<crate::element::DType> {
    macro_rules! dtype {
        ($t:ty) => {
            if block.as_any().is::<DeviceBlock<$t>>() {
                return Some(<$t as crate::element::Element>::DTYPE);
            }
        };
    }
    for_device_types!(dtype);
    None
}

/// `block` in host memory as a host array: a device block (or its pinned copy)
/// copied, any other block as it is.
///
/// # Errors
/// [`crate::error::Error::Device`] when the copy fails.
pub fn to_host_block(block: &Block) -> Result<Block> {
    if block.device().is_none() && !block.is_pinned_copy() {
        return Ok(block.clone());
    }
    let any = block.as_any();
    macro_rules! down {
        ($t:ty) => {
            if let Some(d) = any.downcast_ref::<DeviceBlock<$t>>() {
                return Ok(Arc::new(d.to_host()?));
            }
            if let Some(p) = any.downcast_ref::<PinnedBlock<$t>>() {
                return Ok(Arc::new(p.to_array()?));
            }
        };
    }
    for_device_types!(down);
    Err(crate::error::Error::DtypeMismatch {
        key: "device block".into(),
        expected: "elements of a device element type (numbers)".into(),
        found: "another element type".into(),
    })
}

/// `block` on `device`: a host array of a device element type copied up (moved,
/// without a copy, onto an emulated device when the block is not shared); a
/// block already there, or one a device cannot hold (bool arrays, intermediate
/// values), as it is. A block on another device goes through the host.
///
/// # Errors
/// [`crate::error::Error::Device`] when the device is out of memory or the copy fails.
pub fn to_device_block(block: Block, device: &Device) -> Result<Block> {
    match block.device() {
        Some(d) if d.same(device) => return Ok(block),
        Some(_) => return to_device_block(to_host_block(&block)?, device),
        None => {}
    }
    macro_rules! up {
        ($t:ty) => {
            if let Some(p) = block.as_any().downcast_ref::<PinnedBlock<$t>>() {
                let buffer = device.upload_pinned(&p.buffer)?;
                return Ok(Arc::new(DeviceBlock { buffer, shape: p.shape.clone() }));
            }
            if block.as_any().is::<ArrayD<$t>>() {
                let host = block.into_any().downcast::<ArrayD<$t>>().expect("checked just above");
                let shape = host.shape().to_vec();
                let buffer = match Arc::try_unwrap(host) {
                    Ok(owned) if device.is_emulated() => device.upload_vec(into_c_vec(owned))?,
                    Ok(owned) => upload_array(device, &owned)?,
                    Err(shared) => upload_array(device, &shared)?,
                };
                return Ok(Arc::new(DeviceBlock { buffer, shape }));
            }
        };
    }
    for_device_types!(up);
    Ok(block)
}

/// A device block copied into page-locked host memory (where the device tier
/// spills to); any other block as it is.
///
/// # Errors
/// [`crate::error::Error::Device`] when the driver cannot pin the memory or the copy fails.
pub(crate) fn to_pinned_block(block: &Block) -> Result<Block> {
    let any = block.as_any();
    macro_rules! down {
        ($t:ty) => {
            if let Some(d) = any.downcast_ref::<DeviceBlock<$t>>() {
                return Ok(Arc::new(PinnedBlock { buffer: d.buffer.download_pinned()?, shape: d.shape.clone() }));
            }
        };
    }
    for_device_types!(down);
    Ok(block.clone())
}

fn upload_array<T: DeviceElement>(device: &Device, a: &ArrayD<T>) -> Result<DeviceBuffer<T>> {
    Ok(match a.as_slice() {
        Some(s) => device.upload(s)?,
        None => device.upload_vec(a.iter().copied().collect())?,
    })
}

/// A device block's shape and buffer (as a kernel argument); `None` for other blocks.
pub(crate) fn device_parts(block: &Block) -> Option<(&[usize], &dyn chunked_gpu::kernels::KernelInput)> {
    let any = block.as_any();
    macro_rules! parts {
        ($t:ty) => {
            if let Some(d) = any.downcast_ref::<DeviceBlock<$t>>() {
                return Some((&d.shape, &d.buffer));
            }
        };
    }
    for_device_types!(parts);
    None
}
