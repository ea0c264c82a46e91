//! Device buffers: elements in a device's memory, counted against its capacity
//! from allocation to drop, and the device's calls that make them.

use std::fmt;

use cudarc::driver::CudaSlice;

use crate::Result;
use crate::device::{Device, Kind};
use crate::element::DeviceElement;

pub(crate) enum Storage<T: DeviceElement> {
    /// An emulated device's memory.
    Host(Vec<T>),
    Cuda(CudaSlice<T::Raw>),
}

/// `len` elements of `T` on a device, counted against the device's capacity
/// until dropped.
///
/// ```
/// use chunked_gpu::Device;
/// let dev = Device::emulated(1 << 10);
/// let buf = dev.upload(&[1u8, 2, 3]).unwrap();
/// assert_eq!((buf.len(), dev.in_use()), (3, 3));
/// assert_eq!(buf.download().unwrap(), vec![1, 2, 3]);
/// ```
pub struct DeviceBuffer<T: DeviceElement> {
    pub(crate) device: Device,
    pub(crate) len: usize,
    pub(crate) storage: Storage<T>,
}

impl<T: DeviceElement> DeviceBuffer<T> {
    /// Number of elements.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// assert_eq!(dev.zeros::<f64>(7).unwrap().len(), 7);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no elements.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// assert!(dev.zeros::<f64>(0).unwrap().is_empty());
    /// assert!(!dev.zeros::<f64>(1).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes it takes on the device.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// assert_eq!(dev.zeros::<i32>(5).unwrap().nbytes(), 20);
    /// ```
    pub fn nbytes(&self) -> usize {
        self.len * size_of::<T>()
    }

    /// The device it lives on.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let buf = dev.zeros::<f64>(2).unwrap();
    /// assert!(buf.device().same(&dev));
    /// ```
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The elements, on an emulated device (whose memory is the host's); `None`
    /// on a CUDA device.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let buf = dev.upload(&[1.5f64, 2.5]).unwrap();
    /// assert_eq!(buf.host(), Some(&[1.5, 2.5][..]));
    /// ```
    pub fn host(&self) -> Option<&[T]> {
        match &self.storage {
            Storage::Host(v) => Some(v),
            Storage::Cuda(_) => None,
        }
    }

    /// The elements, writable, on an emulated device; `None` on a CUDA device.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let mut buf = dev.zeros::<i64>(3).unwrap();
    /// buf.host_mut().unwrap()[1] = 7; // a CPU kernel writing the emulated device's memory
    /// assert_eq!(buf.download().unwrap(), vec![0, 7, 0]);
    /// ```
    pub fn host_mut(&mut self) -> Option<&mut [T]> {
        match &mut self.storage {
            Storage::Host(v) => Some(v),
            Storage::Cuda(_) => None,
        }
    }

    pub(crate) fn cuda(&self) -> Option<&CudaSlice<T::Raw>> {
        match &self.storage {
            Storage::Cuda(s) => Some(s),
            Storage::Host(_) => None,
        }
    }

    pub(crate) fn cuda_mut(&mut self) -> Option<&mut CudaSlice<T::Raw>> {
        match &mut self.storage {
            Storage::Cuda(s) => Some(s),
            Storage::Host(_) => None,
        }
    }

    /// Copies the elements into `out` (of the same length), waiting for the
    /// device's queued work first.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let buf = dev.upload(&[4i32, 5]).unwrap();
    /// let mut out = [0; 2];
    /// buf.download_into(&mut out).unwrap();
    /// assert_eq!(out, [4, 5]);
    /// assert!(buf.download_into(&mut [0; 3]).is_err()); // lengths differ
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::Unsupported`] when the lengths differ; [`crate::Error::Cuda`].
    pub fn download_into(&self, out: &mut [T]) -> Result<()> {
        if out.len() != self.len {
            return Err(self.device.unsupported(format!(
                "download of {} elements into {} places",
                self.len,
                out.len()
            )));
        }
        self.count_download();
        match (&self.storage, &self.device.inner.kind) {
            (Storage::Host(v), _) => {
                out.copy_from_slice(v);
                Ok(())
            }
            (Storage::Cuda(s), Kind::Cuda(state)) => state.download(s, T::as_raw_mut(out)),
            (Storage::Cuda(_), Kind::Emulated) => unreachable!("CUDA memory on an emulated device"),
        }
    }

    /// The elements as a host vector.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let buf = dev.upload(&[1.0f32, -1.0]).unwrap();
    /// assert_eq!(buf.download().unwrap(), vec![1.0, -1.0]);
    /// ```
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
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let buf = dev.upload_vec(vec![1u64, 2, 3]).unwrap();
    /// assert_eq!(buf.into_host().unwrap(), vec![1, 2, 3]);
    /// assert_eq!(dev.in_use(), 0); // the buffer is gone
    /// ```
    ///
    /// # Errors
    /// As [`DeviceBuffer::download_into`].
    pub fn into_host(mut self) -> Result<Vec<T>> {
        match &mut self.storage {
            Storage::Host(v) => {
                let v = std::mem::take(v);
                self.device
                    .inner
                    .downloaded
                    .fetch_add((v.len() * size_of::<T>()) as u64, std::sync::atomic::Ordering::Relaxed);
                Ok(v)
            }
            Storage::Cuda(_) => self.download(),
        }
    }
}

impl Device {
    /// A buffer of `len` zeros.
    ///
    /// ```
    /// use chunked_gpu::Device;
    /// let dev = Device::emulated(64);
    /// assert_eq!(dev.zeros::<f64>(3).unwrap().download().unwrap(), vec![0.0; 3]);
    /// assert!(dev.zeros::<f64>(9).is_err()); // 72 bytes do not fit 64
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::OutOfMemory`] past the device's capacity; [`crate::Error::Cuda`].
    pub fn zeros<T: DeviceElement>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = len * size_of::<T>();
        self.reserve(bytes)?;
        let storage = match &self.inner.kind {
            // The driver refuses zero-byte allocations: an empty buffer holds none.
            _ if len == 0 => Ok(Storage::Host(Vec::new())),
            Kind::Emulated => Ok(Storage::Host(vec![T::default(); len])),
            Kind::Cuda(state) => state.zeros::<T::Raw>(len).map(Storage::Cuda),
        };
        self.buffer(storage, len, bytes)
    }

    /// A copy of `host` on the device.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let host = [3i32, 1, 2];
    /// let buf = dev.upload(&host).unwrap();
    /// assert_eq!((buf.download().unwrap(), dev.in_use()), (host.to_vec(), 12));
    /// ```
    ///
    /// # Errors
    /// As [`Device::zeros`].
    pub fn upload<T: DeviceElement>(&self, host: &[T]) -> Result<DeviceBuffer<T>> {
        let bytes = std::mem::size_of_val(host);
        self.reserve(bytes)?;
        let storage = match &self.inner.kind {
            _ if host.is_empty() => Ok(Storage::Host(Vec::new())),
            Kind::Emulated => Ok(Storage::Host(host.to_vec())),
            Kind::Cuda(state) => state.upload(T::as_raw(host)).map(Storage::Cuda),
        };
        self.buffer(storage, host.len(), bytes)
    }

    /// `host` moved onto the device: an emulated device keeps the vector itself.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let buf = dev.upload_vec(vec![0.5f64; 4]).unwrap();
    /// assert_eq!((buf.len(), dev.in_use()), (4, 32));
    /// ```
    ///
    /// # Errors
    /// As [`Device::zeros`].
    pub fn upload_vec<T: DeviceElement>(&self, host: Vec<T>) -> Result<DeviceBuffer<T>> {
        match self.inner.kind {
            Kind::Emulated => {
                let bytes = host.len() * size_of::<T>();
                self.reserve(bytes)?;
                let len = host.len();
                self.buffer(Ok(Storage::Host(host)), len, bytes)
            }
            Kind::Cuda(_) => self.upload(&host),
        }
    }

    fn buffer<T: DeviceElement>(
        &self,
        storage: Result<Storage<T>>,
        len: usize,
        bytes: usize,
    ) -> Result<DeviceBuffer<T>> {
        match storage {
            Ok(storage) => Ok(DeviceBuffer { device: self.clone(), len, storage }),
            Err(e) => {
                self.unreserve(bytes);
                Err(e)
            }
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
        if matches!(self.storage, Storage::Cuda(_)) {
            self.device.make_current_for_drop();
        }
        self.device.unreserve(self.nbytes());
    }
}

impl<T: DeviceElement> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DeviceBuffer<{}>({} elements on {})", T::C_NAME, self.len, self.device.describe())
    }
}
