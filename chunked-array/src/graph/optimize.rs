//! Graph optimization on expression layers: fuse chains of elementwise layers into
//! one layer (one pass over memory per block).
//!
//! An elementwise layer is inlined into its consumer when that consumer is
//! elementwise too, it has no other consumer, it is not itself requested, and it has
//! the consumer's shape (inlining a broadcast operand would recompute it per
//! output element), and the fused expression stays within [`MAX_FUSED_DEPTH`]. A
//! reduction whose input is such a layer reads it tile by tile as it is
//! evaluated, so the elementwise result is never materialized.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::graph::{Node, post_order};

/// Deepest fused expression: each level keeps up to three 512-element tile
/// buffers on the stack while it evaluates (12 KiB for f64), so 32 levels stay
/// well inside a worker thread's stack; longer chains are cut into several layers.
pub(crate) const MAX_FUSED_DEPTH: usize = 32;

/// Returns the outputs of the optimized graph, one per input output.
pub(crate) fn optimize(outputs: &[Arc<Node>]) -> Vec<Arc<Node>> {
    let order = post_order(outputs);
    let mut consumers: HashMap<u64, HashSet<u64>> = HashMap::new();
    for n in &order {
        for i in &n.inputs {
            consumers.entry(i.id).or_default().insert(n.id);
        }
    }
    let requested: HashSet<u64> = outputs.iter().map(|n| n.id).collect();
    // An elementwise layer read by one consumer only and not requested itself.
    let single_private = |orig: &Arc<Node>, new: &Arc<Node>| {
        new.op.as_elementwise().is_some()
            && consumers.get(&orig.id).is_some_and(|c| c.len() == 1)
            && !requested.contains(&orig.id)
    };
    let mut rebuilt: HashMap<u64, Arc<Node>> = HashMap::new();
    for n in &order {
        let inputs: Vec<Arc<Node>> = n.inputs.iter().map(|i| rebuilt[&i.id].clone()).collect();
        let changed = inputs.iter().zip(&n.inputs).any(|(a, b)| !Arc::ptr_eq(a, b));
        let new = match n.op.as_elementwise() {
            Some(ew) => {
                let inline: Vec<bool> = n
                    .inputs
                    .iter()
                    .zip(&inputs)
                    .map(|(orig, new)| {
                        let private =
                            consumers.get(&orig.id).is_some_and(|c| c.len() == 1) && !requested.contains(&orig.id);
                        let shallow =
                            new.op.as_elementwise().is_some_and(|c| c.depth() + ew.depth() <= MAX_FUSED_DEPTH);
                        (single_private(orig, new) && shallow && new.shape() == n.shape())
                            || (private && new.op.as_permutation().is_some())
                    })
                    .collect();
                if changed || inline.iter().any(|&b| b) { ew.rebuild(n, inputs, &inline) } else { n.clone() }
            }
            None => {
                // A consumer that reads an elementwise input tile by tile (a reduction).
                let absorbed = match (n.inputs.as_slice(), inputs.as_slice()) {
                    ([orig], [new]) if single_private(orig, new) => n.op.absorb_input(n, new),
                    _ => None,
                };
                match absorbed {
                    Some(node) => node,
                    None if changed => n.with_inputs(inputs),
                    None => n.clone(),
                }
            }
        };
        rebuilt.insert(n.id, new);
    }
    outputs.iter().map(|n| rebuilt[&n.id].clone()).collect()
}
