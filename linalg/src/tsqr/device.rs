//! TSQR on a device: the same tree as the host TSQR, with explicit Q factors
//! (cuSOLVER's geqrf + orgqr, as dask's TSQR on CuPy) and cuBLAS products for
//! the top-down pass, so that no block leaves the device until the result is
//! computed.
//!
//! Every layer here is a layer of elements, so device blocks spill to host and
//! disk, come back, and travel between MPI ranks like any array's:
//! - a node's factorization is one 1-d block, its Q (`rows x k`, row-major)
//!   followed by its R (`k x n`): the *packed factor*;
//! - the R parts, W parts and E blocks are ordinary 2-d blocks.

use std::sync::Arc;

use chunked_array::custom::{Deps, Layer, LayerOp};
use chunked_array::device::{Device, DeviceBlock, DeviceBuffer};
use chunked_array::runtime::Block;
use chunked_array::{Array, Chunks};
use chunked_gpu::Operand;

use super::tree::{Tree, TreeNode};
use super::{Svd, Tsqr};
use crate::device_kernels;
use crate::{RealScalar, Result};

/// What one layer of the device TSQR computes.
#[derive(Clone, Copy)]
enum Step {
    /// Packed factor of every row block (level 0).
    LeafQr,
    /// The R part of each packed factor of a level.
    RPart { level: usize },
    /// Packed factor of each node of a level above 0, from its children's R parts.
    StackQr { level: usize },
    /// The root's R.
    RootR,
    /// The root R's SVD, packed: U (`k x k`), s (`k`), Vᵀ (`k x n`).
    SvdOfR,
    /// s or Vᵀ out of the packed SVD.
    SvdPart { vectors: bool },
    /// `E = Q_node · W` for the nodes of a level above 0.
    Down { level: usize, svd: bool },
    /// Each node's rows of its parent's E: its W.
    WPart { level: usize },
    /// The leaves' blocks of the result, `Q_i · W_i`.
    LeafOut { has_above: bool },
}

struct DeviceStep<T> {
    tree: Arc<Tree>,
    step: Step,
    _t: std::marker::PhantomData<fn() -> T>,
}

fn device_buffer<T: RealScalar>(block: &Block) -> chunked_array::Result<&DeviceBuffer<T>> {
    block.as_any().downcast_ref::<DeviceBlock<T>>().map(|b| &b.buffer).ok_or_else(|| {
        chunked_array::Error::DtypeMismatch {
            key: "device TSQR input".into(),
            expected: format!("a device block of {}", std::any::type_name::<T>()),
            found: "another block".into(),
        }
    })
}

fn block<T: RealScalar>(buffer: DeviceBuffer<T>, shape: &[usize]) -> Block {
    Arc::new(DeviceBlock { buffer, shape: shape.to_vec() })
}

impl<T: RealScalar> DeviceStep<T> {
    fn node(&self, level: usize, i: usize) -> &TreeNode {
        &self.tree.levels[level][i]
    }

    /// Where a node's R starts in its packed factor.
    fn r_offset(&self, level: usize, i: usize) -> usize {
        let node = self.node(level, i);
        node.rows * node.k
    }

    fn root_k(&self) -> usize {
        self.tree.root().k
    }

    /// `Q_node · W` with Q in the packed factor `packed` and W the
    /// `k_node x k_root` matrix `w` (the identity when `None`).
    fn q_times(
        &self,
        device: &Device,
        level: usize,
        i: usize,
        packed: &DeviceBuffer<T>,
        w: Option<Operand<'_, T>>,
    ) -> chunked_array::Result<DeviceBuffer<T>> {
        let node = self.node(level, i);
        match w {
            Some(w) => {
                device_kernels::product(device, (node.rows, self.root_k(), node.k), Operand::whole(packed, node.k), w)
            }
            None => Ok(device.gather(&[(packed, 0..node.rows * node.k)])?),
        }
    }
}

impl<T: RealScalar> LayerOp for DeviceStep<T> {
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        let i = idx[0];
        let top = self.tree.top();
        match self.step {
            Step::LeafQr => deps.push(0, &[i, 0]),
            Step::RPart { .. } => deps.push(0, &[i]),
            Step::RootR => deps.push(0, &[0]),
            Step::StackQr { level } => {
                for c in self.node(level, i).children.clone() {
                    deps.push(0, &[c, 0]);
                }
            }
            Step::SvdOfR => deps.push(0, &[0, 0]),
            Step::SvdPart { .. } => deps.push(0, &[0]),
            Step::Down { level, svd } => {
                deps.push(0, &[i]);
                if level != top {
                    deps.push(1, &[i, 0]);
                } else if svd {
                    deps.push(1, &[0]);
                }
            }
            Step::WPart { level } => deps.push(0, &[self.node(level, i).parent, 0]),
            Step::LeafOut { has_above } => {
                deps.push(0, &[i]);
                if has_above {
                    deps.push(1, &if top == 0 { vec![0] } else { vec![i, 0] });
                }
            }
        }
    }

    fn scratch_bytes(&self, idx: &[usize]) -> usize {
        // A QR factors a column-major copy (the CPU kernel its own copy); a
        // stack QR stacks its inputs first; the SVD factors a copy and makes
        // its three factors before packing them.
        let size = std::mem::size_of::<T>();
        let n = self.tree.n;
        let qr = |node: &TreeNode| node.rows * n * size;
        match self.step {
            Step::LeafQr => qr(self.node(0, idx[0])),
            Step::StackQr { level } => qr(self.node(level, idx[0])) + self.node(level, idx[0]).rows * n * size,
            Step::SvdOfR => 2 * (self.root_k() * n + self.root_k() * self.root_k()) * size,
            _ => 0,
        }
    }

    fn has_device_kernel(&self) -> bool {
        true
    }

    fn run(&self, idx: &[usize], _inputs: &[&Block]) -> chunked_array::Result<Block> {
        Err(chunked_array::Error::InvalidArgument {
            name: "device TSQR".into(),
            value: format!("block {idx:?}"),
            reason: "its layers run on the device of their input (the host TSQR takes host arrays)".into(),
        })
    }

    fn run_on_device(&self, idx: &[usize], inputs: &[&Block], device: &Device) -> chunked_array::Result<Block> {
        let i = idx[0];
        let n = self.tree.n;
        let input = |j: usize| device_buffer::<T>(inputs[j]);
        Ok(match self.step {
            Step::LeafQr => {
                let rows = self.node(0, i).rows;
                let packed = device_kernels::qr_packed(device, input(0)?, (rows, n))?;
                let len = packed.len();
                block(packed, &[len])
            }
            Step::RPart { level } => {
                let k = self.node(level, i).k;
                let start = self.r_offset(level, i);
                block(device.gather(&[(input(0)?, start..start + k * n)])?, &[k, n])
            }
            Step::RootR => {
                let top = self.tree.top();
                let k = self.root_k();
                let start = self.r_offset(top, 0);
                block(device.gather(&[(input(0)?, start..start + k * n)])?, &[k, n])
            }
            Step::StackQr { level } => {
                let node = self.node(level, i);
                let parts: Vec<(&DeviceBuffer<T>, std::ops::Range<usize>)> = (0..inputs.len())
                    .map(|j| input(j).map(|b| (b, 0..b.len())))
                    .collect::<chunked_array::Result<_>>()?;
                let stacked = device.gather(&parts)?;
                let packed = device_kernels::qr_packed(device, &stacked, (node.rows, n))?;
                let len = packed.len();
                block(packed, &[len])
            }
            Step::SvdOfR => {
                let f = device_kernels::svd(device, input(0)?, (self.root_k(), n))?;
                let len = f.u.len() + f.s.len() + f.vt.len();
                block(device.gather(&[(&f.u, 0..f.u.len()), (&f.s, 0..f.s.len()), (&f.vt, 0..f.vt.len())])?, &[len])
            }
            Step::SvdPart { vectors } => {
                let k = self.root_k();
                let svd = input(0)?;
                if vectors {
                    block(device.gather(&[(svd, k * k + k..svd.len())])?, &[k, n])
                } else {
                    block(device.gather(&[(svd, k * k..k * k + k)])?, &[k])
                }
            }
            Step::Down { level, svd } => {
                let packed = input(0)?;
                let k_root = self.root_k();
                // W: this node's W part, U of R at the root of an SVD, or the
                // identity at the root of a QR.
                let w = if level != self.tree.top() || svd { Some(Operand::whole(input(1)?, k_root)) } else { None };
                block(self.q_times(device, level, i, packed, w)?, &[self.node(level, i).rows, k_root])
            }
            Step::WPart { level } => {
                let node = self.node(level, i);
                let k_root = self.root_k();
                let start = node.offset_in_parent * k_root;
                block(device.gather(&[(input(0)?, start..start + node.k * k_root)])?, &[node.k, k_root])
            }
            Step::LeafOut { has_above } => {
                let packed = input(0)?;
                let k_root = self.root_k();
                let w = if has_above { Some(Operand::whole(input(1)?, k_root)) } else { None };
                block(self.q_times(device, 0, i, packed, w)?, &[self.node(0, i).rows, k_root])
            }
        })
    }
}

/// The device TSQR of `a` (checked by [`super::tsqr`]) over `tree`.
pub(super) fn tsqr<T: RealScalar>(a: &Array<T>, tree: Arc<Tree>, compute_svd: bool) -> Result<Tsqr<T>> {
    let n = tree.n;
    let k = tree.root().k;
    let row_lengths = a.chunks().lengths()[0].clone();
    let layer = |name: &str, chunks: Vec<Vec<usize>>, inputs: &[Layer], step: Step| {
        Layer::new(
            name,
            T::DTYPE,
            Chunks::from_lengths(chunks),
            inputs,
            DeviceStep::<T> { tree: tree.clone(), step, _t: std::marker::PhantomData },
        )
    };
    let packed_lengths =
        |level: usize| tree.levels[level].iter().map(|node| node.rows * node.k + node.k * n).collect::<Vec<_>>();
    let ks = |level: usize| tree.levels[level].iter().map(|node| node.k).collect::<Vec<_>>();
    let rows = |level: usize| tree.levels[level].iter().map(|node| node.rows).collect::<Vec<_>>();

    let mut factors = vec![layer("tsqr-leaf", vec![packed_lengths(0)], &[a.layer()], Step::LeafQr)];
    for level in 1..tree.levels.len() {
        let below = layer(
            "tsqr-r-part",
            vec![ks(level - 1), vec![n]],
            &[factors[level - 1].clone()],
            Step::RPart { level: level - 1 },
        );
        factors.push(layer("tsqr-tree", vec![packed_lengths(level)], &[below], Step::StackQr { level }));
    }
    let top = tree.top();
    let r = layer("tsqr-r", vec![vec![k], vec![n]], &[factors[top].clone()], Step::RootR);

    let assemble = |svd: Option<&Layer>, name: &str| -> Result<Array<T>> {
        let mut above: Option<Layer> = svd.cloned();
        for level in (1..tree.levels.len()).rev() {
            let mut inputs = vec![factors[level].clone()];
            inputs.extend(above.clone());
            let e = layer("tsqr-down", vec![rows(level), vec![k]], &inputs, Step::Down { level, svd: svd.is_some() });
            above = Some(layer("tsqr-w-part", vec![ks(level - 1), vec![k]], &[e], Step::WPart { level: level - 1 }));
        }
        let mut inputs = vec![factors[0].clone()];
        inputs.extend(above.clone());
        layer(name, vec![row_lengths.clone(), vec![k]], &inputs, Step::LeafOut { has_above: above.is_some() })
            .into_array()
    };
    let q = assemble(None, "tsqr-q")?;
    let svd = if compute_svd {
        let packed = layer("tsqr-svd-r", vec![vec![k * k + k + k * n]], std::slice::from_ref(&r), Step::SvdOfR);
        // The pass down starts from U of R (k x k at the packed block's start).
        let u = assemble(Some(&packed), "svd-u")?;
        let s = layer("svd-s", vec![vec![k]], std::slice::from_ref(&packed), Step::SvdPart { vectors: false })
            .into_array()?;
        let vt = layer("svd-vt", vec![vec![k], vec![n]], &[packed], Step::SvdPart { vectors: true }).into_array()?;
        Some(Svd { u, s, vt })
    } else {
        None
    };
    Ok(Tsqr { q, r: r.into_array()?, svd })
}
