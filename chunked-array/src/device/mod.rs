//! Arrays on a device: blocks in GPU memory (or an emulated device's), as
//! dask users get with CuPy-backed arrays and dask-cuda.
//!
//! An array is placed on a device by [`Array::to_device`]; every layer built on
//! it is placed there too, so a chain of operations stays on the device and
//! [`Array::compute`] copies only the result to the host. Sources moved to a
//! device (random arrays, constants) make their blocks there directly.
//!
//! How a layer on a device runs its blocks:
//! - ops with device kernels take device blocks and make device blocks:
//!   random generation, fused elementwise chains, the partials of sum,
//!   nansum, prod, mean, min and max (var and std take two passes of them),
//!   matmul's block products, custom layers
//!   with a device kernel ([`crate::custom::LayerOp::has_device_kernel`]; the
//!   TSQR, QR and SVD of chunked-linalg are such layers), and the moves;
//! - every other op gets its input blocks copied to the host, runs its CPU
//!   kernel, and its block is copied up to the device. On an emulated device
//!   those copies are memory copies; on a CUDA device they are PCIe/NVLink
//!   transfers, correct but slower than a device kernel would be.
//!
//! Device blocks are counted in the block store against the device memory
//! limit ([`crate::Context::with_device_memory_limit`]); past it the least
//! recently used idle ones move to pinned host buffers ([`PinnedBlock`]),
//! from where they spill on to disk under the host limit, and come back to the
//! device when a task reads them. A task that still finds its device out of
//! memory (kernels allocate scratch the limit does not see) moves idle blocks
//! down and runs again.

pub(crate) mod block;
mod ops;

pub use block::{DeviceBlock, PinnedBlock};
pub use chunked_gpu::{Backend, Device, DeviceBuffer, DeviceElement, PinnedBuffer};

use crate::array::Array;
use crate::element::Element;
use crate::graph::Placement;

impl<T: Element> Array<T> {
    /// This array with its blocks on `device` (CuPy's `asarray`, dask's
    /// `map_blocks(cupy.asarray)`). Random and other position-only sources are
    /// generated on the device directly; other arrays are copied block by block.
    /// Layers built on the result are placed on the device too.
    ///
    /// ```
    /// use chunked_array::{device::Device, random::RandomState};
    /// let dev = Device::emulated(64 << 20);
    /// let x = RandomState::new(1).uniform::<f64>(&[100, 10], [25, 10]).unwrap();
    /// let on_dev = x.to_device(&dev);
    /// assert!(on_dev.device().is_some());
    /// let y = (&on_dev * 2.0).compute().unwrap(); // the result comes back to the host
    /// assert_eq!(y, x.compute().unwrap() * 2.0);
    /// ```
    pub fn to_device(&self, device: &Device) -> Array<T> {
        Array::from_node(ops::to_device(&self.node, Placement::one(device)))
    }

    /// This array with its blocks spread over `devices` in turn (block `b` in
    /// C order on `devices[b % n]`), as dask-cuda's `LocalCUDACluster` gives
    /// each visible GPU a worker; [`Device::visible`] lists them. Layers built
    /// on it follow the same turn; blocks a kernel reads from another device
    /// go through host memory. With no devices, the array stays as it is.
    ///
    /// ```
    /// use chunked_array::{device::Device, random::RandomState};
    /// let gpus = [Device::emulated(16 << 20), Device::emulated(16 << 20)];
    /// let x = RandomState::new(3).uniform::<f64>(&[400, 10], [100, 10]).unwrap();
    /// let kept = x.to_devices(&gpus).persist().unwrap(); // 2 blocks on each
    /// assert_eq!((gpus[0].in_use(), gpus[1].in_use()), (16_000, 16_000));
    /// assert_eq!(kept.sum(None).unwrap().compute_scalar().unwrap(), x.sum(None).unwrap().compute_scalar().unwrap());
    /// ```
    pub fn to_devices(&self, devices: &[Device]) -> Array<T> {
        match Placement::spread(devices) {
            Some(placement) => Array::from_node(ops::to_device(&self.node, placement)),
            None => self.clone(),
        }
    }

    /// This array with its blocks in host memory (`cupy.asnumpy` per block).
    pub fn to_host(&self) -> Array<T> {
        Array::from_node(ops::to_host(&self.node))
    }

    /// The CUDA C++ kernel this array's last layer runs as on a CUDA device,
    /// after fusion: one kernel for the whole elementwise chain (see
    /// [`chunked_gpu::kernels`] for its signature). `None` when the layer is
    /// not elementwise or has a part without an exact device form (integer
    /// arithmetic, user closures); such layers run through host copies.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::ones(&[4, 4], 2).unwrap();
    /// let source = ((&x * 2.0).sin() + &x).cuda_kernel_source().unwrap();
    /// assert!(source.contains("sin(") && source.contains("chunked_elementwise"));
    /// assert!(x.map(|v| v * 3.0).cuda_kernel_source().is_none()); // a closure
    /// ```
    pub fn cuda_kernel_source(&self) -> Option<String> {
        let optimized = crate::graph::fuse::optimize(std::slice::from_ref(&self.node));
        let node = optimized.first()?;
        node.op.as_elementwise()?.cuda_kernel_source(node)
    }

    /// The device the array's (first) block lives on (`None`: host memory).
    pub fn device(&self) -> Option<Device> {
        self.node.device.as_ref().map(|p| p.device_of(0).clone())
    }

    /// The devices the array's blocks live on, in turn (empty: host memory).
    pub fn devices(&self) -> Vec<Device> {
        self.node.device.as_ref().map_or_else(Vec::new, |p| p.devices().to_vec())
    }
}
