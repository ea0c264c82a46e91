//! The layers that move arrays between host and device.

use std::sync::Arc;

use crate::array::Array;
use crate::block::Block;
use crate::block::device::{to_device_block, to_host_block};
use crate::device::Device;
use crate::element::Element;
use crate::error::Result;
use crate::graph::{BlockOp, Node, Placement};

/// Moves each block to where the layer is placed: up to its device, or down
/// to host memory for a layer on the host.
struct Move;

impl BlockOp for Move {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, node.chunks.linear(idx)));
    }
    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        match node.device_at(idx) {
            Some(device) => to_device_block(inputs[0].clone(), device),
            None => to_host_block(inputs[0]),
        }
    }
    fn has_device_kernel(&self, _node: &Node) -> bool {
        true
    }
}

fn move_to_device(node: &Arc<Node>, placement: Placement) -> Arc<Node> {
    if node.error.is_some() || node.device.as_ref().is_some_and(|p| p.same(&placement)) {
        return node.clone();
    }
    // A source whose blocks depend only on their position makes them on the
    // device itself: no host copy of the array ever exists.
    if node.inputs.is_empty() && node.op.position_only() {
        return Node::placed(
            node.name.clone(),
            node.dtype,
            node.chunks.clone(),
            vec![],
            node.op.clone(),
            Some(placement),
        );
    }
    Node::placed("to_device", node.dtype, node.chunks.clone(), vec![node.clone()], Arc::new(Move), Some(placement))
}

fn move_to_host(node: &Arc<Node>) -> Arc<Node> {
    if node.device.is_none() {
        return node.clone();
    }
    if node.inputs.is_empty() && node.op.position_only() {
        return Node::placed(node.name.clone(), node.dtype, node.chunks.clone(), vec![], node.op.clone(), None);
    }
    Node::placed("to_host", node.dtype, node.chunks.clone(), vec![node.clone()], Arc::new(Move), None)
}

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
        Array::from_node(move_to_device(&self.node, Placement::one(device)))
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
            Some(placement) => Array::from_node(move_to_device(&self.node, placement)),
            None => self.clone(),
        }
    }

    /// This array with its blocks in host memory (`cupy.asnumpy` per block).
    ///
    /// ```
    /// use chunked_array::{device::Device, Array};
    /// let dev = Device::emulated(1 << 20);
    /// let x = Array::<f64>::ones(&[4], 2).unwrap().to_device(&dev);
    /// let back = x.to_host();
    /// assert!(x.device().is_some() && back.device().is_none());
    /// assert_eq!(back.compute().unwrap().as_slice().unwrap(), &[1.0; 4]);
    /// ```
    pub fn to_host(&self) -> Array<T> {
        Array::from_node(move_to_host(&self.node))
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
        let optimized = crate::graph::optimize::optimize(std::slice::from_ref(&self.node));
        let node = optimized.first()?;
        node.op.as_elementwise()?.cuda_kernel_source(node)
    }

    /// The device the array's (first) block lives on (`None`: host memory).
    ///
    /// ```
    /// use chunked_array::{device::Device, Array};
    /// let dev = Device::emulated(1 << 20);
    /// let x = Array::<f64>::ones(&[4], 2).unwrap();
    /// assert!(x.device().is_none()); // host memory
    /// assert!(x.to_device(&dev).device().unwrap().same(&dev));
    /// ```
    pub fn device(&self) -> Option<Device> {
        self.node.device.as_ref().map(|p| p.device_of(0).clone())
    }

    /// The devices the array's blocks live on, in turn (empty: host memory).
    ///
    /// ```
    /// use chunked_array::{device::Device, Array};
    /// let gpus = [Device::emulated(1 << 20), Device::emulated(1 << 20)];
    /// let x = Array::<f64>::ones(&[4], 1).unwrap();
    /// assert!(x.devices().is_empty()); // host memory
    /// let spread = x.to_devices(&gpus).devices();
    /// assert!(spread.len() == 2 && spread[0].same(&gpus[0]) && spread[1].same(&gpus[1]));
    /// ```
    pub fn devices(&self) -> Vec<Device> {
        self.node.device.as_ref().map_or_else(Vec::new, |p| p.devices().to_vec())
    }
}
