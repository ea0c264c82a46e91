//! Devices: a CUDA device or an emulated one, each with a byte count of the
//! buffers alive on it against its capacity.
//!
//! The buffers and the calls that make them (`zeros`, `upload`) are in
//! `buffer`, which builds on this module; the kernels on them further up.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::cuda::CudaState;
use crate::{Error, Result};

/// What runs a device's kernels.
///
/// ```
/// use chunked_gpu::{Backend, Device};
/// assert_eq!(Device::emulated(1 << 20).backend(), Backend::Emulated);
/// if let Ok(gpu) = Device::cuda(0) {
///     assert_eq!(gpu.backend(), Backend::Cuda);
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A CUDA GPU through the driver, NVRTC and cuBLAS.
    Cuda,
    /// Host memory behind the device interface: no kernels of its own; callers
    /// run their CPU kernels on [`DeviceBuffer::host`](crate::DeviceBuffer::host).
    Emulated,
}

pub(crate) enum Kind {
    Emulated,
    Cuda(CudaState),
}

pub(crate) struct Inner {
    id: u64,
    pub kind: Kind,
    ordinal: usize,
    name: String,
    capacity: usize,
    in_use: AtomicUsize,
    peak: AtomicUsize,
    /// Bytes asked of [`Device::reserve_pool`] (the largest ask).
    pool: AtomicUsize,
    /// Bytes copied from the device to host memory so far.
    pub(crate) downloaded: AtomicU64,
}

/// A device: where device buffers live and kernels run. Cheap to clone (shared).
///
/// ```
/// use chunked_gpu::Device;
/// let dev = Device::emulated(1 << 20);
/// let buf = dev.upload(&[1.0f64, 2.0, 3.0]).unwrap();
/// assert_eq!(buf.download().unwrap(), vec![1.0, 2.0, 3.0]);
/// assert_eq!(dev.in_use(), 24);
/// drop(buf);
/// assert_eq!(dev.in_use(), 0);
/// assert!(dev.upload(&vec![0u8; 2 << 20]).is_err()); // past its capacity
/// ```
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<Inner>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

impl Device {
    /// An emulated device of `capacity` bytes: host memory behind the device
    /// interface, so that device code paths run without a GPU.
    ///
    /// ```
    /// use chunked_gpu::Device;
    /// let dev = Device::emulated(1 << 20);
    /// assert!(dev.is_emulated());
    /// assert_eq!((dev.capacity(), dev.in_use()), (1 << 20, 0));
    /// ```
    pub fn emulated(capacity: usize) -> Device {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        Device::new(id, Kind::Emulated, 0, format!("emulated device {id}"), capacity)
    }

    /// CUDA device `ordinal` among the visible ones (`CUDA_VISIBLE_DEVICES`
    /// applies, as the driver numbers them).
    ///
    /// ```
    /// use chunked_gpu::{Device, Error};
    /// match Device::cuda(0) {
    ///     Ok(gpu) => assert!(gpu.same(&Device::cuda(0).unwrap())), // one handle per ordinal
    ///     Err(e) => assert!(matches!(e, Error::NoDevice { .. })), // no CUDA here
    /// }
    /// ```
    ///
    /// # Errors
    /// [`Error::NoDevice`] without a driver or when `ordinal` is not a visible
    /// device; [`Error::Cuda`] when the driver fails.
    ///
    /// Every call for the same ordinal returns the same device (one count of
    /// its memory, one kernel cache).
    pub fn cuda(ordinal: usize) -> Result<Device> {
        static OPENED: std::sync::Mutex<Vec<Device>> = std::sync::Mutex::new(Vec::new());
        let count = crate::device_count()?;
        if ordinal >= count {
            return Err(Error::NoDevice { reason: format!("device {ordinal} asked for, {count} visible") });
        }
        let mut opened = OPENED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(d) = opened.iter().find(|d| d.inner.ordinal == ordinal) {
            return Ok(d.clone());
        }
        let state = CudaState::new(ordinal)?;
        let name = state.ctx.name().map_err(crate::cuda_error("cuDeviceGetName"))?;
        let capacity = state.ctx.total_mem().map_err(crate::cuda_error("cuDeviceTotalMem"))?;
        let device = Device::new(NEXT_ID.fetch_add(1, Ordering::Relaxed), Kind::Cuda(state), ordinal, name, capacity);
        opened.push(device.clone());
        Ok(device)
    }

    /// Every visible CUDA device (`CUDA_VISIBLE_DEVICES` applies), for arrays
    /// spread over all of them (`Array::to_devices`), as dask-cuda's
    /// `LocalCUDACluster` starts one worker per visible GPU.
    ///
    /// ```
    /// use chunked_gpu::Device;
    /// match Device::visible() {
    ///     Ok(all) => assert_eq!(all.len(), chunked_gpu::device_count().unwrap()),
    ///     Err(_) => assert!(chunked_gpu::device_count().is_err()), // no CUDA here
    /// }
    /// ```
    ///
    /// # Errors
    /// As [`Device::cuda`].
    pub fn visible() -> Result<Vec<Device>> {
        (0..crate::device_count()?).map(Device::cuda).collect()
    }

    /// The device of an MPI rank (or any process) by its rank on its node: the
    /// visible devices in turn, as dask-cuda gives one worker per GPU.
    ///
    /// ```
    /// use chunked_gpu::Device;
    /// if let Ok(n) = chunked_gpu::device_count() {
    ///     // Local rank n wraps around to the first device.
    ///     assert_eq!(Device::for_local_rank(n).unwrap().ordinal(), 0);
    /// } else {
    ///     assert!(Device::for_local_rank(0).is_err());
    /// }
    /// ```
    ///
    /// # Errors
    /// As [`Device::cuda`].
    pub fn for_local_rank(local_rank: usize) -> Result<Device> {
        Device::cuda(local_rank % crate::device_count()?)
    }

    fn new(id: u64, kind: Kind, ordinal: usize, name: String, capacity: usize) -> Device {
        Device {
            inner: Arc::new(Inner {
                id,
                kind,
                ordinal,
                name,
                capacity,
                in_use: AtomicUsize::new(0),
                peak: AtomicUsize::new(0),
                pool: AtomicUsize::new(0),
                downloaded: AtomicU64::new(0),
            }),
        }
    }

    /// What runs its kernels.
    ///
    /// ```
    /// use chunked_gpu::{Backend, Device};
    /// assert_eq!(Device::emulated(64).backend(), Backend::Emulated);
    /// ```
    pub fn backend(&self) -> Backend {
        match self.inner.kind {
            Kind::Emulated => Backend::Emulated,
            Kind::Cuda(_) => Backend::Cuda,
        }
    }

    /// Whether this is an emulated device.
    ///
    /// ```
    /// assert!(chunked_gpu::Device::emulated(64).is_emulated());
    /// ```
    pub fn is_emulated(&self) -> bool {
        self.backend() == Backend::Emulated
    }

    /// Ordinal among the visible CUDA devices (0 for an emulated one).
    ///
    /// ```
    /// assert_eq!(chunked_gpu::Device::emulated(64).ordinal(), 0);
    /// ```
    pub fn ordinal(&self) -> usize {
        self.inner.ordinal
    }

    /// The device's name ("NVIDIA H100 80GB HBM3", "emulated device 3").
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(64);
    /// assert!(dev.name().starts_with("emulated device "));
    /// ```
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// How errors and reports name it: `cuda:0 (NVIDIA H100 …)` or `emulated device 3`.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(64);
    /// assert_eq!(dev.describe(), dev.name()); // an emulated device goes by its name
    /// ```
    pub fn describe(&self) -> String {
        match self.inner.kind {
            Kind::Emulated => self.inner.name.clone(),
            Kind::Cuda(_) => format!("cuda:{} ({})", self.inner.ordinal, self.inner.name),
        }
    }

    /// Bytes of memory the device has.
    ///
    /// ```
    /// assert_eq!(chunked_gpu::Device::emulated(4096).capacity(), 4096);
    /// ```
    pub fn capacity(&self) -> usize {
        self.inner.capacity
    }

    /// Bytes of the buffers alive on it.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(4096);
    /// let buf = dev.zeros::<f32>(10).unwrap();
    /// assert_eq!(dev.in_use(), 40);
    /// drop(buf);
    /// assert_eq!(dev.in_use(), 0);
    /// ```
    pub fn in_use(&self) -> usize {
        self.inner.in_use.load(Ordering::Relaxed)
    }

    /// Most bytes alive on it at once so far.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(4096);
    /// drop(dev.zeros::<f64>(100).unwrap());
    /// let _small = dev.zeros::<f64>(10).unwrap();
    /// assert_eq!((dev.in_use(), dev.peak()), (80, 800));
    /// ```
    pub fn peak(&self) -> usize {
        self.inner.peak.load(Ordering::Relaxed)
    }

    /// Bytes copied from the device to host memory so far: results, blocks
    /// copied down for ops without device kernels, blocks moved to host
    /// memory past the device memory limit. On an emulated device, the bytes
    /// such copies would move.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(4096);
    /// let buf = dev.upload(&[1i64, 2, 3]).unwrap();
    /// assert_eq!(dev.downloaded_bytes(), 0);
    /// buf.download().unwrap();
    /// assert_eq!(dev.downloaded_bytes(), 24);
    /// ```
    pub fn downloaded_bytes(&self) -> u64 {
        self.inner.downloaded.load(Ordering::Relaxed)
    }

    /// Keeps `bytes` of device memory for reuse once freed, reserved at once,
    /// as RMM's pool (dask-cuda's `rmm_pool_size`): allocations up to that
    /// size are served from the pool without the driver mapping memory, and
    /// freed blocks go back to it rather than to the driver. On a CUDA device
    /// this is the stream-ordered allocator's default pool, with its release
    /// threshold at `bytes`; an emulated device (host memory) only records the
    /// size, as [`Device::pool_reserved`] shows. The pool only grows: a smaller
    /// ask than an earlier one changes nothing.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 20);
    /// dev.reserve_pool(1 << 16).unwrap();
    /// assert_eq!(dev.pool_reserved(), 1 << 16);
    /// assert!(dev.reserve_pool(2 << 20).is_err()); // more than the device has
    /// ```
    ///
    /// A CUDA device without CUDA's stream-ordered allocator keeps no pool
    /// (each allocation asks the driver) and only records the size.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when `bytes` exceeds the device's capacity less
    /// what is in use, or its free memory (the pool then stays as it was);
    /// [`Error::Cuda`] when the driver refuses the pool's settings.
    pub fn reserve_pool(&self, bytes: usize) -> Result<()> {
        if bytes <= self.inner.pool.load(Ordering::Relaxed) {
            return Ok(());
        }
        let in_use = self.in_use();
        if bytes > self.inner.capacity.saturating_sub(in_use) {
            return Err(self.out_of_memory(bytes, in_use));
        }
        if let Kind::Cuda(state) = &self.inner.kind
            && let crate::cuda::Pooled::OutOfMemory = state.keep_in_pool(bytes)?
        {
            return Err(self.out_of_memory(bytes, in_use));
        }
        self.inner.pool.fetch_max(bytes, Ordering::Relaxed);
        Ok(())
    }

    /// Bytes the device's pool holds: in use or kept for reuse (on a CUDA
    /// device as the driver counts them, or [`Device::reserve_pool`]'s size
    /// where the device has no stream-ordered allocator; on an emulated one,
    /// that size or the bytes in use, whichever is more).
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 20);
    /// let _held = dev.zeros::<u8>(1000).unwrap();
    /// assert_eq!(dev.pool_reserved(), 1000); // no pool: what is in use
    /// ```
    pub fn pool_reserved(&self) -> usize {
        let asked = self.inner.pool.load(Ordering::Relaxed);
        match &self.inner.kind {
            Kind::Cuda(state) => state.pool_reserved().ok().flatten().unwrap_or(asked),
            Kind::Emulated => asked.max(self.in_use()),
        }
    }

    /// Whether `other` is the same device (the same handle, or a clone of it).
    ///
    /// ```
    /// use chunked_gpu::Device;
    /// let a = Device::emulated(64);
    /// assert!(a.same(&a.clone()));
    /// assert!(!a.same(&Device::emulated(64))); // another device of the same size
    /// ```
    pub fn same(&self, other: &Device) -> bool {
        self.inner.id == other.inner.id
    }

    /// Counts `bytes` against the capacity, or refuses them (a refused
    /// request never counts, even for a moment).
    pub(crate) fn reserve(&self, bytes: usize) -> Result<()> {
        let in_use = &self.inner.in_use;
        let mut before = in_use.load(Ordering::Relaxed);
        loop {
            let after = before.saturating_add(bytes);
            if after > self.inner.capacity {
                return Err(self.out_of_memory(bytes, before));
            }
            match in_use.compare_exchange_weak(before, after, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => {
                    self.inner.peak.fetch_max(after, Ordering::Relaxed);
                    return Ok(());
                }
                Err(now) => before = now,
            }
        }
    }

    pub(crate) fn out_of_memory(&self, requested: usize, in_use: usize) -> Error {
        Error::OutOfMemory { device: self.describe(), requested, in_use, capacity: self.inner.capacity }
    }

    pub(crate) fn unreserve(&self, bytes: usize) {
        self.inner.in_use.fetch_sub(bytes, Ordering::Relaxed);
    }

    /// Makes a CUDA device's context current on this thread, for the frees
    /// of a buffer's drop: cudarc's drops of device and pinned memory call
    /// the driver without binding the context, so a thread that never ran
    /// CUDA work (the one collecting a run's results, say) would make the
    /// free fail with `CUDA_ERROR_INVALID_CONTEXT`, an error cudarc keeps and
    /// returns from the context's next call, whichever task makes it.
    pub(crate) fn make_current_for_drop(&self) {
        if let Kind::Cuda(state) = &self.inner.kind {
            let ctx = state.ctx.cu_ctx();
            // Failures here leave the drop's own error to cudarc, as before.
            if cudarc::driver::result::ctx::get_current().ok().flatten() != Some(ctx) {
                // SAFETY: the context lives as long as `state`, which this
                // device holds.
                let _ = unsafe { cudarc::driver::result::ctx::set_current(ctx) };
            }
        }
    }

    pub(crate) fn unsupported(&self, what: impl Into<String>) -> Error {
        Error::Unsupported { device: self.describe(), what: what.into() }
    }

    pub(crate) fn cuda_state(&self, what: &str) -> Result<&CudaState> {
        match &self.inner.kind {
            Kind::Cuda(state) => Ok(state),
            Kind::Emulated => Err(self
                .unsupported(format!("{what} is a CUDA kernel; an emulated device runs the CPU's on its host slices"))),
        }
    }

    /// Waits for the device's queued work.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(64);
    /// dev.synchronize().unwrap(); // an emulated device has no queue: returns at once
    /// ```
    ///
    /// # Errors
    /// [`Error::Cuda`] when the driver reports a failure of that work.
    pub fn synchronize(&self) -> Result<()> {
        match &self.inner.kind {
            Kind::Emulated => Ok(()),
            Kind::Cuda(state) => state.stream.synchronize().map_err(crate::cuda_error("cuStreamSynchronize")),
        }
    }
}

impl PartialEq for Device {
    fn eq(&self, other: &Device) -> bool {
        self.same(other)
    }
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({}, {} of {} bytes in use)", self.describe(), self.in_use(), self.capacity())
    }
}
