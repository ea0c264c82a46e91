//! Device blocks, and the copies of blocks between host and device.

use std::any::Any;
use std::sync::Arc;

use chunked_gpu::{Device, DeviceBuffer, DeviceElement};
use ndarray::{ArrayD, IxDyn};

use crate::error::Result;
use crate::graph::{Block, BlockValue};

/// A block of elements in a device's memory, C order.
pub struct DeviceBlock<T: DeviceElement> {
    /// The elements.
    pub buffer: DeviceBuffer<T>,
    /// The block's shape.
    pub shape: Vec<usize>,
}

impl<T: DeviceElement> DeviceBlock<T> {
    /// A copy of the block in host memory.
    ///
    /// # Errors
    /// [`crate::Error::Device`] when the copy fails.
    pub fn to_host(&self) -> Result<ArrayD<T>> {
        let data = self.buffer.download()?;
        let len = data.len();
        ArrayD::from_shape_vec(IxDyn(&self.shape), data).map_err(|_| crate::Error::shape("device block to host", &self.shape, &[len]))
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
    };
}

/// `block` in host memory: a device block copied down, any other block as it is.
///
/// # Errors
/// [`crate::Error::Device`] when the copy fails.
pub fn to_host_block(block: &Block) -> Result<Block> {
    if block.device().is_none() {
        return Ok(block.clone());
    }
    let any = block.as_any();
    macro_rules! down {
        ($t:ty) => {
            if let Some(d) = any.downcast_ref::<DeviceBlock<$t>>() {
                return Ok(Arc::new(d.to_host()?));
            }
        };
    }
    for_device_types!(down);
    Err(crate::Error::DtypeMismatch { key: "device block".into(), expected: "f64, f32, i64, i32 or u8 elements".into(), found: "another element type".into() })
}

/// `block` on `device`: a host array of a device element type copied up (moved,
/// without a copy, onto an emulated device when the block is not shared); a
/// block already there, or one a device cannot hold (bool arrays, intermediate
/// values), as it is. A block on another device goes through the host.
///
/// # Errors
/// [`crate::Error::Device`] when the device is out of memory or the copy fails.
pub fn to_device_block(block: Block, device: &Device) -> Result<Block> {
    match block.device() {
        Some(d) if d.same(device) => return Ok(block),
        Some(_) => return to_device_block(to_host_block(&block)?, device),
        None => {}
    }
    macro_rules! up {
        ($t:ty) => {
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
