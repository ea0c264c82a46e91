//! Elementwise layers: NumPy broadcasting, chunk unification by common refinement,
//! and the fused tile kernel.

pub(crate) mod expr;
mod ops;

pub use ops::{where_, Operand};
pub(crate) use ops::unary as unary_named;

use std::any::Any;
use std::sync::Arc;

use ndarray::ArrayD;

use crate::chunks::{refine, Chunks};
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::fuse::Fusable;
use crate::graph::{Block, BlockOp, Node};
use expr::{Expr, LeafRow, Rebind, TileCtx, TILE};

/// How one leaf's blocks line up with the output grid.
struct LeafMap {
    /// Output axes minus leaf axes (leaves are aligned to the right, as in NumPy).
    lead: usize,
    /// Per leaf axis: `None` when broadcast (length 1 against a longer output axis),
    /// else the leaf block holding each output block.
    axes: Vec<Option<Vec<usize>>>,
}

impl LeafMap {
    fn new(leaf: &Node, out: &Chunks) -> LeafMap {
        let lshape = leaf.shape();
        let oshape = out.shape();
        let lead = oshape.len() - lshape.len();
        let axes = (0..lshape.len())
            .map(|la| {
                let a = la + lead;
                if lshape[la] == 1 && oshape[a] != 1 {
                    None
                } else {
                    Some((0..out.lengths()[a].len()).map(|i| leaf.chunks.block_of(la, out.offset(a, i))).collect())
                }
            })
            .collect();
        LeafMap { lead, axes }
    }

    fn leaf_block(&self, idx: &[usize], out: &mut Vec<usize>) {
        out.clear();
        for (la, m) in self.axes.iter().enumerate() {
            out.push(m.as_ref().map_or(0, |m| m[idx[la + self.lead]]));
        }
    }
}

/// The broadcast shape and unified chunks of several operands.
pub(crate) fn broadcast_chunks(op: &str, leaves: &[&Node]) -> Result<Chunks> {
    let ndim = leaves.iter().map(|n| n.chunks.ndim()).max().unwrap_or(0);
    let mut lengths = Vec::with_capacity(ndim);
    for a in 0..ndim {
        let mut dim = 1usize;
        let mut owner: Option<&Node> = None;
        for n in leaves {
            let shape = n.shape();
            let Some(la) = (a + shape.len()).checked_sub(ndim) else { continue };
            let d = shape[la];
            if d != 1 {
                if dim != 1 && d != dim {
                    return Err(Error::shape(op, &owner.map(|o| o.shape()).unwrap_or_default(), &shape));
                }
                dim = d;
                owner = Some(n);
            }
        }
        let bounds: Vec<&[usize]> = leaves
            .iter()
            .filter_map(|n| {
                let la = (a + n.chunks.ndim()).checked_sub(ndim)?;
                (n.shape()[la] == dim).then(|| n.chunks.boundaries(la))
            })
            .collect();
        lengths.push(refine(&bounds));
    }
    Ok(Chunks::from_lengths(lengths))
}

/// The elementwise layer: output block = expression over the leaf blocks holding it.
pub(crate) struct ElementwiseOp<T: Element> {
    expr: Expr<T>,
    maps: Vec<LeafMap>,
}

/// Builds an elementwise layer over `leaves` (duplicates allowed) computing `expr`.
pub(crate) fn build<T: Element>(name: &str, leaves: Vec<Arc<Node>>, expr: Expr<T>) -> Result<Arc<Node>> {
    for l in &leaves {
        l.check()?;
    }
    let refs: Vec<&Node> = leaves.iter().map(|n| &**n).collect();
    let chunks = broadcast_chunks(name, &refs)?;
    let mut unique: Vec<Arc<Node>> = Vec::new();
    let positions: Vec<usize> = leaves
        .iter()
        .map(|l| match unique.iter().position(|u| u.id == l.id) {
            Some(p) => p,
            None => {
                unique.push(l.clone());
                unique.len() - 1
            }
        })
        .collect();
    let expr = if unique.len() == leaves.len() { expr } else { expr.rebind(&|i| Rebind::Index(positions[i])) };
    Ok(make_node(name, chunks, unique, expr))
}

fn make_node<T: Element>(name: &str, chunks: Chunks, leaves: Vec<Arc<Node>>, expr: Expr<T>) -> Arc<Node> {
    let maps = leaves.iter().map(|l| LeafMap::new(l, &chunks)).collect();
    Node::new(name, T::DTYPE, chunks, leaves, ElementwiseOp { expr, maps })
}

/// A leaf block's memory, as the kernel reads it.
struct RawView {
    ptr: *const u8,
    len: usize,
    /// Offset of the logical first element from `ptr`.
    base: isize,
    strides: Vec<isize>,
    start: Vec<usize>,
}

fn raw_view<U: Element>(block: &Block, copies: &mut Vec<Block>) -> Option<RawView> {
    let mut a = block.as_any().downcast_ref::<ArrayD<U>>()?;
    if a.as_slice_memory_order().is_none() {
        copies.push(Arc::new(a.as_standard_layout().into_owned()));
        a = copies.last()?.as_any().downcast_ref::<ArrayD<U>>()?;
    }
    let s = a.as_slice_memory_order()?;
    let base = (a.as_ptr() as isize - s.as_ptr() as isize) / std::mem::size_of::<U>() as isize;
    Some(RawView { ptr: s.as_ptr() as *const u8, len: s.len(), base, strides: a.strides().to_vec(), start: vec![] })
}

macro_rules! dispatch_dtype {
    ($dtype:expr, $f:ident :: <_> ( $($arg:expr),* )) => {
        match $dtype {
            DType::F32 => $f::<f32>($($arg),*),
            DType::F64 => $f::<f64>($($arg),*),
            DType::I32 => $f::<i32>($($arg),*),
            DType::I64 => $f::<i64>($($arg),*),
            DType::U8 => $f::<u8>($($arg),*),
            DType::Bool => $f::<bool>($($arg),*),
            DType::Intermediate => None,
        }
    };
}

impl<T: Element> BlockOp for ElementwiseOp<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let mut li = Vec::new();
        for (k, m) in self.maps.iter().enumerate() {
            m.leaf_block(idx, &mut li);
            out.push((k, node.inputs[k].chunks.linear(&li)));
        }
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let shape = node.chunks.block_shape(idx);
        let start = node.chunks.block_start(idx);
        let ndim = shape.len();
        let total: usize = shape.iter().product();
        let mut copies = Vec::new();
        let mut views = Vec::with_capacity(inputs.len());
        let mut li = Vec::new();
        for (k, leaf) in node.inputs.iter().enumerate() {
            let mut v = dispatch_dtype!(leaf.dtype, raw_view::<_>(inputs[k], &mut copies)).ok_or_else(|| {
                Error::DtypeMismatch {
                    key: format!("leaf {k} of {}", node.label()),
                    expected: leaf.dtype.to_string(),
                    found: "another type".into(),
                }
            })?;
            self.maps[k].leaf_block(idx, &mut li);
            v.start = leaf.chunks.block_start(&li);
            views.push(v);
        }
        // Per leaf, the element stride along every output axis and the offset of the
        // output block's first element.
        let mut strides: Vec<Vec<isize>> = Vec::with_capacity(views.len());
        let mut rows: Vec<LeafRow> = Vec::with_capacity(views.len());
        for (k, v) in views.iter().enumerate() {
            let m = &self.maps[k];
            let mut s = vec![0isize; ndim];
            let mut offset = v.base;
            for (la, axis_map) in m.axes.iter().enumerate() {
                if axis_map.is_some() {
                    let a = la + m.lead;
                    s[a] = v.strides[la];
                    offset += (start[a] - v.start[la]) as isize * v.strides[la];
                }
            }
            strides.push(s);
            rows.push(LeafRow { ptr: v.ptr, len: v.len, dtype: node.inputs[k].dtype, offset, stride: 0 });
        }
        // Coalesce: drop length-1 axes, merge neighbours that are contiguous for every leaf.
        let mut dims: Vec<usize> = Vec::new();
        let mut cs: Vec<Vec<isize>> = vec![Vec::new(); rows.len()];
        for a in 0..ndim {
            if shape[a] == 1 {
                continue;
            }
            let mergeable = !dims.is_empty()
                && strides.iter().zip(&cs).all(|(s, c)| *c.last().unwrap() == s[a] * shape[a] as isize);
            if mergeable {
                *dims.last_mut().unwrap() *= shape[a];
                for (c, s) in cs.iter_mut().zip(&strides) {
                    *c.last_mut().unwrap() = s[a];
                }
            } else {
                dims.push(shape[a]);
                for (c, s) in cs.iter_mut().zip(&strides) {
                    c.push(s[a]);
                }
            }
        }
        if dims.is_empty() {
            dims.push(1);
            for c in cs.iter_mut() {
                c.push(0);
            }
        }
        let inner = *dims.last().unwrap();
        let outer = &dims[..dims.len() - 1];
        for (r, c) in rows.iter_mut().zip(&cs) {
            r.stride = *c.last().unwrap();
        }
        let mut out: Vec<T> = Vec::with_capacity(total);
        if total > 0 {
            let nrows: usize = outer.iter().product();
            let mut counter = vec![0usize; outer.len()];
            let mut buf = [T::default(); TILE];
            for _ in 0..nrows {
                let mut pos = 0;
                while pos < inner {
                    let m = TILE.min(inner - pos);
                    let ctx = TileCtx { leaves: &rows, pos };
                    out.extend_from_slice(self.expr.eval(&ctx, &mut buf[..m]));
                    pos += m;
                }
                for j in (0..outer.len()).rev() {
                    counter[j] += 1;
                    for (r, c) in rows.iter_mut().zip(&cs) {
                        r.offset += c[j];
                    }
                    if counter[j] < outer[j] {
                        break;
                    }
                    for (r, c) in rows.iter_mut().zip(&cs) {
                        r.offset -= c[j] * outer[j] as isize;
                    }
                    counter[j] = 0;
                }
            }
        }
        let arr = ArrayD::from_shape_vec(shape, out).map_err(|e| Error::invalid("block", idx, e.to_string()))?;
        Ok(Arc::new(arr))
    }

    fn as_elementwise(&self) -> Option<&dyn Fusable> {
        Some(self)
    }
}

impl<T: Element> Fusable for ElementwiseOp<T> {
    fn expr_rebased(&self, index_of: &dyn Fn(usize) -> usize) -> Arc<dyn Any + Send + Sync> {
        let e: Expr<T> = self.expr.rebind(&|i| Rebind::Index(index_of(i)));
        Arc::new(e)
    }

    fn rebuild(&self, node: &Node, inputs: Vec<Arc<Node>>, inline: &[bool]) -> Arc<Node> {
        let mut leaves: Vec<Arc<Node>> = Vec::new();
        let mut intern = |n: &Arc<Node>| -> usize {
            leaves.iter().position(|l| l.id == n.id).unwrap_or_else(|| {
                leaves.push(n.clone());
                leaves.len() - 1
            })
        };
        let mut binds: Vec<Rebind> = Vec::with_capacity(inputs.len());
        let mut name = node.name.clone();
        for (k, input) in inputs.iter().enumerate() {
            let fusable = if inline[k] { input.op.as_elementwise() } else { None };
            match fusable {
                Some(child) => {
                    let idx: Vec<usize> = input.inputs.iter().map(&mut intern).collect();
                    binds.push(Rebind::Inline(child.expr_rebased(&|j| idx[j])));
                    name = format!("{}-{}", input.name, name);
                }
                None => binds.push(Rebind::Index(intern(input))),
            }
        }
        let expr = self.expr.rebind(&|k| match &binds[k] {
            Rebind::Index(i) => Rebind::Index(*i),
            Rebind::Inline(e) => Rebind::Inline(e.clone()),
        });
        make_node(&name, node.chunks.clone(), leaves, expr)
    }

    fn describe(&self) -> String {
        self.expr.describe()
    }
}
