//! What a task needs and makes: its block's size, device and wire form, and
//! running it (a panic in a layer becomes the task's error).

use std::panic::{AssertUnwindSafe, catch_unwind};

use super::TaskGraph;
use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::DType;
use crate::error::{Error, Result};
use crate::graph::Node;
use crate::graph::wire::Wire;
use chunked_gpu::Device;

impl TaskGraph {
    /// Shape of task `t`'s output block.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[5], 2)?;
    /// let g = Layer::task_graph(&[x.layer()])?; // blocks of 2, 2 and 1
    /// assert_eq!(g.block_shape(0), vec![2]);
    /// assert_eq!(g.block_shape(2), vec![1]);
    /// # Ok(()) }
    /// ```
    pub fn block_shape(&self, t: usize) -> Vec<usize> {
        let node = &self.nodes[self.task_node[t] as usize];
        node.chunks.block_shape(&node.chunks.unravel(self.task_block[t]))
    }

    /// Bytes of task `t`'s output block: from its layer's element type and block
    /// shape, or for intermediate values the layer's own estimate (0 when it
    /// has none).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert_eq!(g.estimated_bytes(1), 2 * 8); // two f64
    /// # Ok(()) }
    /// ```
    pub fn estimated_bytes(&self, t: usize) -> usize {
        let node = &self.nodes[self.task_node[t] as usize];
        if node.dtype == DType::Intermediate {
            node.op.output_bytes(node, &node.chunks.unravel(self.task_block[t])).unwrap_or(0)
        } else {
            self.block_shape(t).iter().product::<usize>() * node.dtype.size()
        }
    }

    /// The device task `t`'s block is made on (`None`: host memory).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, device::Device, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let dev = Device::emulated(1 << 20);
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).to_device(&dev).layer()])?;
    /// let out = g.output_tasks()[0][0] as usize; // moves a product to `dev`
    /// let product = g.deps(out)[0] as usize;
    /// assert!(g.task_device(out).unwrap().same(&dev));
    /// assert!(g.task_device(product).is_none()); // on the host
    /// # Ok(()) }
    /// ```
    pub fn task_device(&self, t: usize) -> Option<&Device> {
        self.nodes[self.task_node[t] as usize].device.as_ref().map(|p| p.device_of(self.task_block[t]))
    }

    /// Whether task `t` reads its inputs on its device (see
    /// [`BlockStore::input`](crate::memory::BlockStore::input)).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, device::Device, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let dev = Device::emulated(1 << 20);
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).to_device(&dev).layer()])?;
    /// let out = g.output_tasks()[0][0] as usize; // moves a product to `dev`
    /// let product = g.deps(out)[0] as usize;
    /// assert!(g.reads_on_device(out));
    /// assert!(!g.reads_on_device(product));
    /// # Ok(()) }
    /// ```
    pub fn reads_on_device(&self, t: usize) -> bool {
        let node = &self.nodes[self.task_node[t] as usize];
        node.op.reads_on_device(node)
    }

    /// The devices the graph's layers are placed on, each once.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, device::Device, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let dev = Device::emulated(1 << 20);
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).to_device(&dev).layer()])?;
    /// let out = g.output_tasks()[0][0] as usize; // moves a product to `dev`
    /// let product = g.deps(out)[0] as usize;
    /// let devices = g.devices();
    /// assert!(devices.len() == 1 && devices[0].same(&dev));
    /// assert!(Layer::task_graph(&[x.layer()])?.devices().is_empty());
    /// # let _ = (out, product);
    /// # Ok(()) }
    /// ```
    pub fn devices(&self) -> Vec<Device> {
        let mut out: Vec<Device> = Vec::new();
        for d in self.nodes.iter().filter_map(|n| n.device.as_ref()).flat_map(|p| p.devices()) {
            if !out.iter().any(|o| o.same(d)) {
                out.push(d.clone());
            }
        }
        out
    }

    /// Whether task `t`'s block is cheaper to make again than to spill: a host
    /// source whose op says so (random, constants, ranges, in-memory arrays;
    /// not `from_fn`, whose function may cost more than the disk).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert!(g.regenerates_cheaply(0)); // a `ones` block
    /// assert!(!g.regenerates_cheaply(1)); // a product
    /// # Ok(()) }
    /// ```
    pub fn regenerates_cheaply(&self, t: usize) -> bool {
        let node = &self.nodes[self.task_node[t] as usize];
        self.deps(t).is_empty() && node.device.is_none() && node.op.regenerates_cheaply()
    }

    /// Whether task `t` makes a block of elements (which a rechunk can resize),
    /// not an intermediate value.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert!((0..g.len()).all(|t| g.holds_elements(t)));
    /// # Ok(()) }
    /// ```
    pub fn holds_elements(&self, t: usize) -> bool {
        self.nodes[self.task_node[t] as usize].dtype != DType::Intermediate
    }

    /// Bytes task `t`'s kernel allocates for itself while it runs (its layer's
    /// estimate; 0 when it has none).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert_eq!(g.scratch_bytes(1), 0); // elementwise kernels need no workspace
    /// # Ok(()) }
    /// ```
    pub fn scratch_bytes(&self, t: usize) -> usize {
        let node = &self.nodes[self.task_node[t] as usize];
        node.op.scratch_bytes(node, &node.chunks.unravel(self.task_block[t]))
    }

    /// Number of blocks in layer `layer`'s grid (an index into
    /// [`TaskGraph::layers`]), all of them, not only those this graph computes.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// let (layer, _) = g.task_layer_block(0);
    /// assert_eq!(g.layer_blocks(layer), 2);
    /// # Ok(()) }
    /// ```
    pub fn layer_blocks(&self, layer: u32) -> usize {
        self.nodes[layer as usize].chunks.num_blocks()
    }

    /// Per layer: its label (`name-id`), plain name and block grid.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// let layers = g.layers();
    /// let names: Vec<&str> = layers.iter().map(|(_, name, _)| name.as_str()).collect();
    /// assert_eq!(names, ["mul", "ones"]);
    /// assert!(layers[1].0.starts_with("ones-"));
    /// assert_eq!(layers[1].2.lengths(), &[vec![2, 2]]);
    /// # Ok(()) }
    /// ```
    pub fn layers(&self) -> Vec<(String, String, Chunks)> {
        self.nodes.iter().map(|n| (n.label(), n.name.clone(), n.chunks.clone())).collect()
    }

    /// How task `t`'s block travels to another process: as elements of its
    /// layer's dtype, or through its layer's own [`Wire`]; `None` when it
    /// cannot.
    fn wire(&self, t: usize) -> Option<Wire> {
        let node = &self.nodes[self.task_node[t] as usize];
        match node.dtype {
            DType::Intermediate => node.op.wire(),
            dtype => Some(Wire::of_dtype(dtype)),
        }
    }

    /// Whether task `t`'s block can be sent to another process: a block of
    /// elements, or an intermediate value whose layer has a [`Wire`].
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// assert!((0..g.len()).all(|t| g.can_travel(t))); // blocks of elements
    /// # Ok(()) }
    /// ```
    pub fn can_travel(&self, t: usize) -> bool {
        self.wire(t).is_some()
    }

    /// The dependency of task `t` whose process runs it when the graph spans
    /// processes, if its layer names one (see
    /// [`crate::custom::LayerOp::home_input`]).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
    /// assert!((0..g.len()).all(|t| g.home_input(t).is_none())); // built-in layers name none
    /// # Ok(()) }
    /// ```
    pub fn home_input(&self, t: usize) -> Option<usize> {
        let node = &self.nodes[self.task_node[t] as usize];
        node.op.home_input().and_then(|i| self.deps(t).get(i)).map(|&d| d as usize)
    }

    /// The process of `processes` that runs task `t`, if its layer lays its
    /// blocks out itself (a large matmul over ranks, whose block products go
    /// to a 2-D grid of ranks).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
    /// assert!((0..g.len()).all(|t| g.process_of(t, 4).is_none())); // the placement decides
    /// # Ok(()) }
    /// ```
    pub fn process_of(&self, t: usize, processes: usize) -> Option<usize> {
        let node = &self.nodes[self.task_node[t] as usize];
        let idx = node.chunks.unravel(self.task_block[t]);
        node.op.process_of(node, &idx, processes).filter(|&r| r < processes)
    }

    /// Task `t`'s block as bytes for another process of the same program.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// # use chunked_array::custom::block_array;
    /// let block = g.run_task(0, &[])?;
    /// let bytes = g.encode_block(0, &block)?;
    /// let back = g.decode_block(0, &bytes)?;
    /// assert_eq!(block_array::<f64>(&back)?, block_array::<f64>(&block)?);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::Task`] naming the task when its block cannot travel (see
    /// [`TaskGraph::can_travel`]) or is not of its layer's type.
    pub fn encode_block(&self, t: usize, block: &Block) -> Result<Vec<u8>> {
        let block = &crate::block::device::to_host_block(block)?;
        let bytes = self.wire(t).and_then(|wire| (wire.encode)(block));
        bytes.ok_or_else(|| Error::Task {
            key: self.key(t).to_string(),
            message: "its block cannot be sent to another process (a delayed value travels once `encoded()`)".into(),
        })
    }

    /// Task `t`'s block from the bytes [`TaskGraph::encode_block`] made.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// # use chunked_array::custom::block_array;
    /// let bytes = g.encode_block(1, &g.run_task(1, &[&g.run_task(0, &[])?])?)?;
    /// assert_eq!(block_array::<f64>(&g.decode_block(1, &bytes)?)?.sum(), 4.0);
    /// assert!(g.decode_block(1, &bytes[..5]).is_err()); // cut short
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::Task`] naming the task when the bytes do not describe a block of its layer.
    pub fn decode_block(&self, t: usize, bytes: &[u8]) -> Result<Block> {
        let node = &self.nodes[self.task_node[t] as usize];
        let block = self.wire(t).and_then(|wire| (wire.decode)(bytes));
        let block = block.ok_or_else(|| Error::Task {
            key: self.key(t).to_string(),
            message: format!("{} received bytes do not describe one of its blocks", bytes.len()),
        })?;
        if node.dtype != DType::Intermediate && block.nbytes() != self.estimated_bytes(t) {
            return Err(Error::Task {
                key: self.key(t).to_string(),
                message: format!("received a block of {} bytes, expected {}", block.nbytes(), self.estimated_bytes(t)),
            });
        }
        Ok(block)
    }

    /// Runs task `t` on its input blocks (in the order of [`TaskGraph::deps`]).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # fn main() -> chunked_array::Result<()> {
    /// let x = Array::<f64>::ones(&[4], 2)?;
    /// let g = Layer::task_graph(&[(&x * 2.0).layer()])?;
    /// // Tasks 0 and 2 make the `ones` blocks, 1 and 3 double them.
    /// # use chunked_array::custom::block_array;
    /// let ones = g.run_task(0, &[])?;
    /// let twice = g.run_task(1, &[&ones])?;
    /// assert_eq!(block_array::<f64>(&twice)?.as_slice().unwrap(), &[2.0, 2.0]);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::Task`] naming the task's key when the kernel fails or panics.
    pub fn run_task(&self, t: usize, inputs: &[&Block]) -> Result<Block> {
        if self.is_cancelled() {
            return Err(Error::Cancelled { key: self.key(t).to_string() });
        }
        let node = &self.nodes[self.task_node[t] as usize];
        let mut idx = Vec::with_capacity(node.chunks.ndim());
        node.chunks.unravel_into(self.task_block[t], &mut idx);
        let ran = crate::kernels::with_backend(self.kernel_backend, || {
            catch_unwind(AssertUnwindSafe(|| run_placed(node, &idx, inputs)))
        });
        match ran {
            Ok(Ok(b)) => Ok(b),
            // I/O errors already name the file or chunk, device errors the
            // device and the bytes, numerical failures the block, and callers
            // match on them.
            Ok(Err(
                e @ (Error::Task { .. }
                | Error::Cancelled { .. }
                | Error::Io { .. }
                | Error::Device(_)
                | Error::NotPositiveDefinite { .. }
                | Error::Singular { .. }
                | Error::NoConvergence { .. }),
            )) => Err(e),
            Ok(Err(e)) => Err(Error::Task { key: self.key(t).to_string(), message: e.to_string() }),
            Err(panic) => {
                let message = panic_message(&*panic).unwrap_or_else(|| "panic with a non-string payload".to_string());
                Err(Error::Task { key: self.key(t).to_string(), message: format!("panicked: {message}") })
            }
        }
    }
}

/// Runs `node`'s op on block `idx` where the node is placed: ops without device
/// kernels get host copies of device inputs, and their block is copied up to
/// the node's device after (see [`crate::device`]).
fn run_placed(node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
    if node.op.has_device_kernel(node) {
        return node.op.run(node, idx, inputs);
    }
    let block = if inputs.iter().any(|b| b.device().is_some() || b.is_pinned_copy()) {
        let host = inputs.iter().map(|b| crate::block::device::to_host_block(b)).collect::<Result<Vec<Block>>>()?;
        let refs: Vec<&Block> = host.iter().collect();
        node.op.run(node, idx, &refs)?
    } else {
        node.op.run(node, idx, inputs)?
    };
    match node.device_at(idx) {
        Some(device) if node.dtype != DType::Intermediate => crate::block::device::to_device_block(block, device),
        _ => Ok(block),
    }
}

/// The message of a caught panic, when it carried a string (for schedulers
/// that catch panics outside tasks and report them as errors).
///
/// ```
/// use chunked_array::runtime::panic_message;
/// let caught = std::panic::catch_unwind(|| panic!("bad block {}", 3)).unwrap_err();
/// assert_eq!(panic_message(&*caught).as_deref(), Some("bad block 3"));
/// let opaque = std::panic::catch_unwind(|| std::panic::panic_any(7)).unwrap_err();
/// assert_eq!(panic_message(&*opaque), None);
/// ```
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> Option<String> {
    panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned())
}
