//! Device buffers: elements in a device's memory, counted against its capacity
//! from allocation to drop.

use std::fmt;

use cudarc::driver::CudaSlice;

use crate::device::{Device, DeviceElement, Kind};
use crate::Result;

pub(crate) enum Storage<T: DeviceElement> {
    /// An emulated device's memory.
    Host(Vec<T>),
    Cuda(CudaSlice<T>),
}

/// `len` elements of `T` on a device.
pub struct DeviceBuffer<T: DeviceElement> {
    pub(crate) device: Device,
    pub(crate) len: usize,
    pub(crate) storage: Storage<T>,
}

impl<T: DeviceElement> DeviceBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes it takes on the device.
    pub fn nbytes(&self) -> usize {
        self.len * size_of::<T>()
    }

    /// The device it lives on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The elements, on an emulated device (whose memory is the host's); `None`
    /// on a CUDA device.
    pub fn host(&self) -> Option<&[T]> {
        match &self.storage {
            Storage::Host(v) => Some(v),
            Storage::Cuda(_) => None,
        }
    }

    /// The elements, writable, on an emulated device; `None` on a CUDA device.
    pub fn host_mut(&mut self) -> Option<&mut [T]> {
        match &mut self.storage {
            Storage::Host(v) => Some(v),
            Storage::Cuda(_) => None,
        }
    }

    pub(crate) fn cuda(&self) -> Option<&CudaSlice<T>> {
        match &self.storage {
            Storage::Cuda(s) => Some(s),
            Storage::Host(_) => None,
        }
    }

    pub(crate) fn cuda_mut(&mut self) -> Option<&mut CudaSlice<T>> {
        match &mut self.storage {
            Storage::Cuda(s) => Some(s),
            Storage::Host(_) => None,
        }
    }

    /// Copies the elements into `out` (of the same length), waiting for the
    /// device's queued work first.
    ///
    /// # Errors
    /// [`crate::Error::Unsupported`] when the lengths differ; [`crate::Error::Cuda`].
    pub fn download_into(&self, out: &mut [T]) -> Result<()> {
        if out.len() != self.len {
            return Err(self.device.unsupported(format!("download of {} elements into {} places", self.len, out.len())));
        }
        self.count_download();
        match (&self.storage, &self.device.inner.kind) {
            (Storage::Host(v), _) => {
                out.copy_from_slice(v);
                Ok(())
            }
            (Storage::Cuda(s), Kind::Cuda(state)) => state.download(s, out),
            (Storage::Cuda(_), Kind::Emulated) => unreachable!("CUDA memory on an emulated device"),
        }
    }

    /// The elements as a host vector.
    ///
    /// # Errors
    /// As [`DeviceBuffer::download_into`].
    pub fn download(&self) -> Result<Vec<T>> {
        if let Storage::Host(v) = &self.storage {
            self.count_download();
            return Ok(v.clone());
        }
        let mut out = vec![T::default(); self.len];
        self.download_into(&mut out)?;
        Ok(out)
    }

    /// The elements as a host vector, without a copy on an emulated device.
    ///
    /// # Errors
    /// As [`DeviceBuffer::download_into`].
    pub fn into_host(mut self) -> Result<Vec<T>> {
        match &mut self.storage {
            Storage::Host(v) => {
                let v = std::mem::take(v);
                self.device.inner.downloaded.fetch_add((v.len() * size_of::<T>()) as u64, std::sync::atomic::Ordering::Relaxed);
                Ok(v)
            }
            Storage::Cuda(_) => self.download(),
        }
    }
}

impl<T: DeviceElement> DeviceBuffer<T> {
    fn count_download(&self) {
        self.device.inner.downloaded.fetch_add(self.nbytes() as u64, std::sync::atomic::Ordering::Relaxed);
    }
}

impl<T: DeviceElement> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        self.device.unreserve(self.nbytes());
    }
}

impl<T: DeviceElement> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DeviceBuffer<{}>({} elements on {})", T::C_NAME, self.len, self.device.describe())
    }
}
