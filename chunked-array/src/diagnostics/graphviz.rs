//! Graph pictures in Graphviz DOT: the expression layers, and the task graph.

use std::collections::HashMap;
use std::fmt::Write;
use std::sync::Arc;

use crate::error::Result;
use crate::graph::optimize::optimize;
use crate::graph::task::TaskGraph;
use crate::graph::{Node, post_order};

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// One vertex per layer, labelled with name, shape, blocks and element type.
pub(crate) fn layers_dot(roots: &[Arc<Node>]) -> String {
    let mut out = String::from("digraph layers {\n  rankdir=BT;\n  node [shape=box, fontname=\"monospace\"];\n");
    for n in post_order(roots) {
        let detail = n.op.as_elementwise().map(|e| format!("\\n{}", escape(&e.describe()))).unwrap_or_default();
        let _ = writeln!(
            out,
            "  n{} [label=\"{}\\nshape={:?} blocks={:?}\\n{}{}\"];",
            n.id,
            escape(&n.label()),
            n.shape(),
            n.chunks.grid(),
            n.dtype,
            detail
        );
        for i in &n.inputs {
            let _ = writeln!(out, "  n{} -> n{};", i.id, n.id);
        }
    }
    out.push_str("}\n");
    out
}

/// One vertex per task of the optimized graph; a layer with more than
/// `max_per_layer` tasks becomes one vertex labelled with its task count.
pub(crate) fn tasks_dot(roots: &[Arc<Node>], max_per_layer: usize) -> Result<String> {
    let optimized = optimize(roots);
    let outputs: Vec<_> = optimized.iter().map(|n| (n.clone(), (0..n.chunks.num_blocks()).collect())).collect();
    let g = TaskGraph::build(&outputs)?;
    let mut per_layer: HashMap<String, usize> = HashMap::new();
    for t in 0..g.len() {
        *per_layer.entry(g.key(t).layer).or_default() += 1;
    }
    let vertex = |t: usize| -> String {
        let key = g.key(t);
        if per_layer[&key.layer] > max_per_layer {
            format!("\"{}\"", escape(&key.layer))
        } else {
            format!("\"{}\"", escape(&key.to_string()))
        }
    };
    let mut out = String::from("digraph tasks {\n  rankdir=BT;\n  node [shape=box, fontname=\"monospace\"];\n");
    let mut edges = std::collections::BTreeSet::new();
    let mut vertices = std::collections::BTreeMap::new();
    for t in 0..g.len() {
        let v = vertex(t);
        let layer = g.key(t).layer;
        let label = if per_layer[&layer] > max_per_layer {
            format!("{layer}\\n({} tasks)", per_layer[&layer])
        } else {
            g.key(t).to_string()
        };
        vertices.insert(v.clone(), label);
        for &d in g.deps(t) {
            edges.insert((vertex(d as usize), v.clone()));
        }
    }
    for (v, label) in &vertices {
        let _ = writeln!(out, "  {v} [label=\"{}\"];", escape(label).replace("\\\\n", "\\n"));
    }
    for (a, b) in &edges {
        let _ = writeln!(out, "  {a} -> {b};");
    }
    out.push_str("}\n");
    Ok(out)
}

/// Runs Graphviz's `dot -Tsvg` on a DOT text.
pub(crate) fn svg(dot: &str) -> Result<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let fail = |why: String| crate::error::Error::invalid("dot", "graphviz", why);
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| fail(format!("cannot run Graphviz's dot (is graphviz installed?): {e}")))?;
    child.stdin.take().expect("piped").write_all(dot.as_bytes()).map_err(|e| fail(e.to_string()))?;
    let out = child.wait_with_output().map_err(|e| fail(e.to_string()))?;
    if !out.status.success() {
        return Err(fail(String::from_utf8_lossy(&out.stderr).into_owned()));
    }
    String::from_utf8(out.stdout).map_err(|e| fail(e.to_string()))
}
