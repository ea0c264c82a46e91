//! Page-locked ("pinned") host memory: where device blocks go when they spill
//! past the device memory limit. The GPU copies to and from it by DMA at the
//! full bandwidth of its link, with no staging copy through a driver buffer,
//! so blocks move down and back up as fast as the hardware allows.

use std::fmt;

use cudarc::driver::PinnedHostSlice;

use crate::buffer::{DeviceBuffer, Storage};
use crate::device::{Device, Kind};
use crate::element::DeviceElement;
use crate::{Result, cuda_error};

enum PinnedStorage<T: DeviceElement> {
    /// An emulated device's "pinned" memory: an ordinary vector.
    Host(Vec<T>),
    Cuda(PinnedHostSlice<T::Raw>),
}

/// `len` elements of `T` in page-locked host memory, copied from a device
/// buffer ([`DeviceBuffer::download_pinned`]). Host memory: not counted
/// against the device's capacity.
///
/// ```
/// let dev = chunked_gpu::Device::emulated(1 << 10);
/// let pinned = dev.upload(&[1.0f64, 2.0]).unwrap().download_pinned().unwrap();
/// assert_eq!(dev.in_use(), 0); // the device buffer is dropped; the copy is host memory
/// assert_eq!(pinned.as_slice().unwrap(), &[1.0, 2.0]);
/// ```
pub struct PinnedBuffer<T: DeviceElement> {
    device: Device,
    storage: PinnedStorage<T>,
}

impl<T: DeviceElement> PinnedBuffer<T> {
    /// Number of elements.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let pinned = dev.upload(&[1u8, 2, 3]).unwrap().download_pinned().unwrap();
    /// assert_eq!(pinned.len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        match &self.storage {
            PinnedStorage::Host(v) => v.len(),
            PinnedStorage::Cuda(s) => s.len(),
        }
    }

    /// Whether it holds no elements.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let pinned = dev.zeros::<f32>(0).unwrap().download_pinned().unwrap();
    /// assert!(pinned.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes it holds.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let pinned = dev.zeros::<f64>(4).unwrap().download_pinned().unwrap();
    /// assert_eq!(pinned.nbytes(), 32);
    /// ```
    pub fn nbytes(&self) -> usize {
        self.len() * size_of::<T>()
    }

    /// The device it was copied from (and whose context pinned it).
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let pinned = dev.zeros::<f64>(1).unwrap().download_pinned().unwrap();
    /// assert!(pinned.device().same(&dev));
    /// ```
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Whether the memory is really page-locked (on a CUDA device), rather
    /// than an emulated device's vector.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let pinned = dev.zeros::<f64>(1).unwrap().download_pinned().unwrap();
    /// assert!(!pinned.is_page_locked());
    /// ```
    pub fn is_page_locked(&self) -> bool {
        matches!(self.storage, PinnedStorage::Cuda(_))
    }

    /// The elements.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let pinned = dev.upload(&[7i64, 8]).unwrap().download_pinned().unwrap();
    /// assert_eq!(pinned.as_slice().unwrap(), &[7, 8]);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::Cuda`] when the driver reports a failure of the copy.
    pub fn as_slice(&self) -> Result<&[T]> {
        match &self.storage {
            PinnedStorage::Host(v) => Ok(v),
            PinnedStorage::Cuda(s) => s.as_slice().map(T::from_raw).map_err(cuda_error("cuEventSynchronize")),
        }
    }
}

impl<T: DeviceElement> DeviceBuffer<T> {
    /// A copy of the elements in page-locked host memory (on an emulated
    /// device, a vector), complete when this returns.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let buf = dev.upload(&[1i32, 2]).unwrap();
    /// let pinned = buf.download_pinned().unwrap();
    /// assert_eq!((pinned.as_slice().unwrap(), dev.downloaded_bytes()), (&[1, 2][..], 8));
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::Cuda`] when the driver cannot pin that much memory or
    /// the copy fails.
    pub fn download_pinned(&self) -> Result<PinnedBuffer<T>> {
        let device = self.device.clone();
        let storage = match (&self.storage, &device.inner.kind) {
            (Storage::Host(v), _) => PinnedStorage::Host(v.clone()),
            // The driver refuses zero-byte allocations.
            (Storage::Cuda(_), _) if self.len == 0 => PinnedStorage::Host(Vec::new()),
            (Storage::Cuda(s), Kind::Cuda(state)) => {
                // Portable: any context may copy from it (a block can go back
                // up to another device); not write-combined, so host reads of
                // it (a host kernel, the disk tier) run at normal speed.
                // SAFETY: the memory is written by the copy below before anyone
                // reads it (as_slice waits for the copy's event).
                let mut pinned = unsafe {
                    state.ctx.alloc_pinned_with_flags::<T::Raw>(self.len, cudarc::driver::sys::CU_MEMHOSTALLOC_PORTABLE)
                }
                .map_err(cuda_error("cuMemHostAlloc"))?;
                state.stream.memcpy_dtoh(s, &mut pinned).map_err(cuda_error("cuMemcpyDtoHAsync"))?;
                // Wait for the copy: cudarc records the pinned slice's own
                // event only when a context runs several streams, and ours
                // runs one, so `as_slice` would not wait for it.
                state.stream.synchronize().map_err(cuda_error("cuStreamSynchronize"))?;
                PinnedStorage::Cuda(pinned)
            }
            (Storage::Cuda(_), Kind::Emulated) => unreachable!("CUDA memory on an emulated device"),
        };
        device.inner.downloaded.fetch_add(self.nbytes() as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(PinnedBuffer { device, storage })
    }
}

impl Device {
    /// A copy of `host` on this device, by DMA from the page-locked memory,
    /// complete when this returns (so `host` may go).
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let pinned = dev.upload(&[1.0f64, 2.0]).unwrap().download_pinned().unwrap();
    /// let back = dev.upload_pinned(&pinned).unwrap();
    /// drop(pinned);
    /// assert_eq!(back.download().unwrap(), vec![1.0, 2.0]);
    /// ```
    ///
    /// # Errors
    /// As [`Device::upload`].
    pub fn upload_pinned<T: DeviceElement>(&self, host: &PinnedBuffer<T>) -> Result<DeviceBuffer<T>> {
        match (&host.storage, &self.inner.kind) {
            (PinnedStorage::Cuda(pinned), Kind::Cuda(state)) if !host.is_empty() => {
                let bytes = host.nbytes();
                self.reserve(bytes)?;
                // The copy reads the pinned memory asynchronously: wait for it
                // before the buffer can be freed (see download_pinned).
                match state.stream.clone_htod(pinned).and_then(|slice| state.stream.synchronize().map(|()| slice)) {
                    Ok(slice) => {
                        Ok(DeviceBuffer { device: self.clone(), len: host.len(), storage: Storage::Cuda(slice) })
                    }
                    Err(e) => {
                        self.unreserve(bytes);
                        Err(cuda_error("cuMemcpyHtoDAsync")(e))
                    }
                }
            }
            _ => self.upload(host.as_slice()?),
        }
    }
}

impl<T: DeviceElement> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        if matches!(self.storage, PinnedStorage::Cuda(_)) {
            self.device.make_current_for_drop();
        }
    }
}

impl<T: DeviceElement> fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PinnedBuffer<{}>({} elements from {})", T::C_NAME, self.len(), self.device.describe())
    }
}
