//! Evaluating an elementwise layer's block as a stream of tiles in C order.

use crate::block::Block;
use crate::block::dispatch_dtype;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::Node;
use crate::ops::elementwise::expr;
use crate::ops::elementwise::expr::{LeafRow, TILE, TileCtx};
use crate::ops::elementwise::{ElementwiseOp, raw_view};

/// Pulls the values of one output block of an elementwise layer in C order, a
/// tile at a time, without materializing the block: the elementwise kernel
/// collects the tiles, and a fused reduction folds them directly.
pub(crate) struct TileStream<'a, T: Element> {
    expr: &'a dyn expr::TileExpr<T>,
    /// Where each leaf's current run starts in the leaf block.
    rows: Vec<LeafRow>,
    /// What the expression reads: `rows`, with panel leaves pointing at their panel.
    view: Vec<LeafRow>,
    panels: Vec<Panel>,
    /// Per leaf, the element stride along each coalesced axis.
    strides: Vec<Vec<isize>>,
    outer: Vec<usize>,
    inner: usize,
    counter: Vec<usize>,
    pos: usize,
    /// Elements not yet pulled.
    pub remaining: usize,
    buf: Box<[T; TILE]>,
    /// Contiguous copies of non-contiguous leaf blocks, kept alive for `rows`.
    _copies: Vec<Block>,
    _inputs: std::marker::PhantomData<&'a Block>,
}

impl<'a, T: Element> TileStream<'a, T> {
    pub(crate) fn new(op: &'a ElementwiseOp<T>, node: &Node, idx: &[usize], inputs: &[&'a Block]) -> Result<Self> {
        let shape = node.chunks.block_shape(idx);
        let start = node.chunks.block_start(idx);
        let ndim = shape.len();
        let mut copies = Vec::new();
        let mut li = Vec::new();
        // Per leaf, the element stride along every output axis and the offset of the
        // output block's first element.
        let mut full_strides: Vec<Vec<isize>> = Vec::with_capacity(inputs.len());
        let mut rows: Vec<LeafRow> = Vec::with_capacity(inputs.len());
        for (k, leaf) in node.inputs.iter().enumerate() {
            let v = dispatch_dtype!(leaf.dtype, raw_view::<_>(inputs[k], &mut copies)).ok_or_else(|| {
                Error::DtypeMismatch {
                    key: format!("leaf {k} of {}", node.label()),
                    expected: leaf.dtype.to_string(),
                    found: "another type".into(),
                }
            })?;
            let (offset, s) = op.maps[k].output_view(leaf, idx, &start, &v.strides, &mut li);
            full_strides.push(s);
            rows.push(LeafRow { ptr: v.ptr, len: v.len, dtype: leaf.dtype, offset: v.base + offset, stride: 0 });
        }
        // Coalesce: drop length-1 axes, merge neighbours contiguous for every leaf.
        let mut dims: Vec<usize> = Vec::new();
        let mut strides: Vec<Vec<isize>> = vec![Vec::new(); rows.len()];
        for a in 0..ndim {
            if shape[a] == 1 {
                continue;
            }
            let mergeable = !dims.is_empty()
                && full_strides.iter().zip(&strides).all(|(s, c)| *c.last().unwrap() == s[a] * shape[a] as isize);
            if mergeable {
                *dims.last_mut().unwrap() *= shape[a];
                for (c, s) in strides.iter_mut().zip(&full_strides) {
                    *c.last_mut().unwrap() = s[a];
                }
            } else {
                dims.push(shape[a]);
                for (c, s) in strides.iter_mut().zip(&full_strides) {
                    c.push(s[a]);
                }
            }
        }
        if dims.is_empty() {
            dims.push(1);
            for c in strides.iter_mut() {
                c.push(0);
            }
        }
        let inner = dims.pop().expect("at least one axis");
        for (r, c) in rows.iter_mut().zip(&strides) {
            r.stride = *c.last().expect("at least one axis");
        }
        // Transposed leaves (a large stride along the run, unit stride along the
        // axis outside it) are read through panels of PANEL runs, filled a cache
        // line at a time, instead of one cache line per element.
        let panels = match dims.len().checked_sub(1) {
            Some(j) if inner >= 2 * PANEL => (0..rows.len())
                .filter(|&k| rows[k].stride.abs() > 1 && strides[k][j] == 1)
                .map(|k| Panel { leaf: k, data: vec![0u64; (PANEL * inner * rows[k].dtype.size()).div_ceil(8)] })
                .collect(),
            _ => Vec::new(),
        };
        let mut stream = TileStream {
            expr: &*op.expr,
            view: rows.clone(),
            rows,
            panels,
            strides,
            counter: vec![0; dims.len()],
            outer: dims,
            inner,
            pos: 0,
            remaining: shape.iter().product(),
            buf: Box::new([T::default(); TILE]),
            _copies: copies,
            _inputs: std::marker::PhantomData,
        };
        stream.start_row();
        Ok(stream)
    }

    /// Points panel leaves at the current run, refilling the panels every PANEL runs.
    fn start_row(&mut self) {
        if self.panels.is_empty() || self.remaining == 0 {
            return;
        }
        let j = self.outer.len() - 1;
        let within = self.counter[j] % PANEL;
        let runs = PANEL.min(self.outer[j] - self.counter[j]);
        for panel in &mut self.panels {
            let row = self.rows[panel.leaf];
            if within == 0 {
                dispatch_dtype!(row.dtype, fill_panel::<_>(&row, runs, self.inner, &mut panel.data));
            }
            self.view[panel.leaf] = LeafRow {
                ptr: panel.data.as_ptr() as *const u8,
                len: PANEL * self.inner,
                dtype: row.dtype,
                offset: (within * self.inner) as isize,
                stride: 1,
            };
        }
    }

    /// The next (at most `max`, at most one tile, never past the end of a
    /// contiguous run) values; empty at the end of the block.
    #[inline]
    pub(crate) fn pull(&mut self, max: usize) -> &[T] {
        if self.remaining == 0 || max == 0 {
            return &[];
        }
        if self.pos == self.inner {
            self.next_row();
        }
        let m = TILE.min(max).min(self.inner - self.pos);
        let ctx = TileCtx { leaves: &self.view, pos: self.pos };
        self.pos += m;
        self.remaining -= m;
        if let Some(values) = self.expr.direct(&ctx, m) {
            return values;
        }
        self.expr.eval(&ctx, &mut self.buf[..m]);
        &self.buf[..m]
    }

    fn next_row(&mut self) {
        self.pos = 0;
        for j in (0..self.outer.len()).rev() {
            self.counter[j] += 1;
            for (r, c) in self.rows.iter_mut().zip(&self.strides) {
                r.offset += c[j];
            }
            if self.counter[j] < self.outer[j] {
                break;
            }
            for (r, c) in self.rows.iter_mut().zip(&self.strides) {
                r.offset -= c[j] * self.outer[j] as isize;
            }
            self.counter[j] = 0;
        }
        for (v, r) in self.view.iter_mut().zip(&self.rows) {
            v.offset = r.offset;
        }
        self.start_row();
    }
}

/// Runs per panel: 512 bytes of `f64` along the unit-stride axis, the best of 8
/// to 256 on a transposed sum (BENCHMARKS.md, "Figures behind constants").
const PANEL: usize = 64;

/// A transposed leaf's next PANEL runs, gathered into contiguous rows.
struct Panel {
    leaf: usize,
    /// PANEL * inner elements of the leaf's type (u64 storage: aligned for all).
    data: Vec<u64>,
}

/// Copies runs `0..runs` (unit stride apart) of `inner` elements (`row.stride`
/// apart) into `panel`, run-major: each source cache line is read once, whole.
fn fill_panel<U: Element>(row: &LeafRow, runs: usize, inner: usize, panel: &mut [u64]) -> Option<()> {
    // SAFETY: `row` describes the `len` elements of type U of a live leaf block
    // (built from a block downcast by this dtype), and `panel` holds at least
    // PANEL * inner values of U in u64 storage, which is aligned for U.
    let src: &[U] = unsafe { std::slice::from_raw_parts(row.ptr as *const U, row.len) };
    let dst: &mut [U] = unsafe { std::slice::from_raw_parts_mut(panel.as_mut_ptr() as *mut U, PANEL * inner) };
    let span = (inner as isize - 1) * row.stride;
    let (lo, hi) = (row.offset + span.min(0), row.offset + (runs as isize - 1) + span.max(0));
    assert!(lo >= 0 && (hi as usize) < src.len() && row.stride != 0, "panel within its leaf block");
    // The source lines are a stride apart, which hardware prefetchers do not
    // follow far enough: ask for the line PREFETCH runs ahead explicitly.
    const PREFETCH: usize = 24;
    for m in 0..inner {
        let base = row.offset + m as isize * row.stride;
        #[cfg(target_arch = "x86_64")]
        if m + PREFETCH < inner {
            let ahead = base + PREFETCH as isize * row.stride;
            // SAFETY: a prefetch is only a hint; the address is within the checked
            // span of this panel (m + PREFETCH < inner).
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    src.as_ptr().offset(ahead) as *const i8
                );
            }
        }
        for q in 0..runs {
            // SAFETY: base + q lies between the two checked ends (unit stride q,
            // stride row.stride for m).
            dst[q * inner + m] = unsafe { *src.as_ptr().offset(base + q as isize) };
        }
    }
    Some(())
}

/// The stream of block `idx` of elementwise layer `node` (whose values are `T`).
pub(crate) fn stream<'a, T: Element>(node: &'a Node, idx: &[usize], inputs: &[&'a Block]) -> Result<TileStream<'a, T>> {
    let op = node.op.as_elementwise().and_then(|f| f.as_any().downcast_ref::<ElementwiseOp<T>>()).ok_or_else(|| {
        Error::DtypeMismatch { key: node.label(), expected: T::DTYPE.to_string(), found: node.dtype.to_string() }
    })?;
    TileStream::new(op, node, idx, inputs)
}
