//! The layers that move arrays between host and device.

use std::sync::Arc;

use super::block::{to_device_block, to_host_block};
use crate::error::Result;
use crate::graph::{Block, BlockOp, Node, Placement};

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
    fn runs_on_device(&self, _node: &Node) -> bool {
        true
    }
}

pub(super) fn to_device(node: &Arc<Node>, placement: Placement) -> Arc<Node> {
    if node.error.is_some() || node.device.as_ref().is_some_and(|p| p.same(&placement)) {
        return node.clone();
    }
    // A source whose blocks depend only on their position makes them on the
    // device itself: no host copy of the array ever exists.
    if node.inputs.is_empty() && node.op.position_only() {
        return Node::placed(node.name.clone(), node.dtype, node.chunks.clone(), vec![], node.op.clone(), Some(placement));
    }
    Node::placed("to_device", node.dtype, node.chunks.clone(), vec![node.clone()], Arc::new(Move), Some(placement))
}

pub(super) fn to_host(node: &Arc<Node>) -> Arc<Node> {
    if node.device.is_none() {
        return node.clone();
    }
    if node.inputs.is_empty() && node.op.position_only() {
        return Node::placed(node.name.clone(), node.dtype, node.chunks.clone(), vec![], node.op.clone(), None);
    }
    Node::placed("to_host", node.dtype, node.chunks.clone(), vec![node.clone()], Arc::new(Move), None)
}
