//! Blocks extended beyond their edges: `pad` (at the array's edges) and
//! `map_overlap` (halos from the neighbouring blocks, with a boundary rule at the
//! array's edges).
//!
//! Both build each extended block from per-axis maps "extended position -> global
//! source position (or the fill value)", so the same kernel serves every mode.

use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD, Slice};

use crate::array::Array;
use crate::chunks::Chunks;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{block_as, Block, BlockOp, Node};

/// Most elements `pad` adds on one side of an axis (2^26): an edge's position map
/// takes 16 bytes per element, 1 GiB at this width.
const MAX_EDGE: usize = 1 << 26;

/// Where one extended position along an axis reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Src {
    /// This global position of the input.
    At(usize),
    /// The fill value.
    Fill,
}

/// How `pad` fills the new elements (NumPy's `pad` modes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PadMode<T> {
    /// A constant.
    Constant(T),
    /// The edge element repeated.
    Edge,
    /// Mirrored without repeating the edge (`[1, 2, 3]` -> `3 2 | 1 2 3 | 2 1`),
    /// the mirroring repeated for widths past the axis length, as NumPy does.
    Reflect,
    /// Mirrored with the edge repeated (`[1, 2, 3]` -> `2 1 | 1 2 3 | 3 2`).
    Symmetric,
    /// Wrapped around from the other end (`[1, 2, 3]` -> `2 3 | 1 2 3 | 1 2`).
    Wrap,
}

/// What `map_overlap` puts beyond the array's edges (dask's `boundary`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Boundary<T> {
    /// Nothing: edge blocks are not extended outward.
    None,
    /// A constant.
    Constant(T),
    /// The edge element repeated.
    Nearest,
    /// Mirrored including the edge element (dask's `reflect`: `2 1 | 1 2 3 | 3 2`).
    Reflect,
    /// Wrapped around from the other end.
    Periodic,
}

/// Blocks extended as `maps[axis][block]` says.
struct Extend<T> {
    maps: Vec<Vec<Vec<Src>>>,
    fill: T,
}

impl<T: Element> Extend<T> {
    /// Per axis, the distinct input blocks one output block reads.
    fn sources(&self, input: &Chunks, idx: &[usize]) -> Vec<Vec<usize>> {
        self.maps
            .iter()
            .enumerate()
            .map(|(a, m)| {
                let mut s: Vec<usize> = m[idx[a]].iter().filter_map(|s| match s {
                    Src::At(g) => Some(input.block_of(a, *g)),
                    Src::Fill => None,
                }).collect();
                s.sort_unstable();
                s.dedup();
                s
            })
            .collect()
    }
}

impl<T: Element> BlockOp for Extend<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let input = &node.inputs[0].chunks;
        let sources = self.sources(input, idx);
        if sources.iter().any(Vec::is_empty) {
            return; // every element is the fill value
        }
        let lo = vec![0; sources.len()];
        let hi: Vec<usize> = sources.iter().map(Vec::len).collect();
        crate::chunks::for_each_in_box(&lo, &hi, |p| {
            let b: Vec<usize> = p.iter().enumerate().map(|(a, &k)| sources[a][k]).collect();
            out.push((0, input.linear(&b)));
        });
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let input = &node.inputs[0].chunks;
        let shape = node.chunks.block_shape(idx);
        let sources = self.sources(input, idx);
        let blocks: Vec<ArrayViewD<'_, T>> = inputs.iter().map(|b| block_as::<T>(b, node, "extend").map(|a| a.view())).collect::<Result<_>>()?;
        // Per axis and extended position: (index into `sources[axis]`, local index), or None for fill.
        let tables: Vec<Vec<Option<(usize, usize)>>> = self
            .maps
            .iter()
            .enumerate()
            .map(|(a, m)| {
                m[idx[a]]
                    .iter()
                    .map(|s| match *s {
                        Src::At(g) => {
                            let b = input.block_of(a, g);
                            Some((sources[a].binary_search(&b).expect("listed source"), g - input.offset(a, b)))
                        }
                        Src::Fill => None,
                    })
                    .collect()
            })
            .collect();
        let counts: Vec<usize> = sources.iter().map(Vec::len).collect();
        // The block is a product of per-axis runs: each run copies a box of one
        // source block (a slice, reversed for reflections) or keeps the fill.
        let runs: Vec<Vec<Run>> = tables.iter().map(|t| Run::along(t)).collect();
        let mut out = crate::schedule::full_block(&shape, self.fill);
        if runs.iter().all(|r| !r.is_empty()) {
            let lo = vec![0; runs.len()];
            let hi: Vec<usize> = runs.iter().map(Vec::len).collect();
            crate::chunks::for_each_in_box(&lo, &hi, |choice| {
                let picked: Vec<&Run> = choice.iter().enumerate().map(|(a, &r)| &runs[a][r]).collect();
                let Some(reads) = picked.iter().map(|r| r.src).collect::<Option<Vec<_>>>() else { return };
                let block = reads.iter().zip(&counts).fold(0, |b, (&(k, _, _), &n)| b * n + k);
                let src = blocks[block].slice_each_axis(|ax| {
                    let (a, len) = (ax.axis.index(), picked[ax.axis.index()].len);
                    let (_, first, step) = reads[a];
                    match step {
                        1 => Slice::from(first..first + len),
                        -1 => Slice::new((first + 1 - len) as isize, Some(first as isize + 1), -1),
                        // One position repeated (edge, nearest): broadcast by `assign`.
                        _ => Slice::from(first..first + 1),
                    }
                });
                out.slice_each_axis_mut(|ax| {
                    let run = picked[ax.axis.index()];
                    Slice::from(run.at..run.at + run.len)
                })
                .assign(&src);
            });
        }
        Ok(Arc::new(out))
    }
}

/// A stretch of one axis of an extended block: `len` positions from `at` that
/// read consecutive local positions of one source block, forwards, backwards or
/// the same one repeated (`src`: source index along the axis, first local
/// position, step 1, -1 or 0), or the fill value (`src: None`).
#[derive(Debug, Clone, Copy)]
struct Run {
    at: usize,
    len: usize,
    src: Option<(usize, usize, isize)>,
}

impl Run {
    /// The runs of one axis's table (extended position -> (source, local) or fill).
    fn along(table: &[Option<(usize, usize)>]) -> Vec<Run> {
        let mut out: Vec<Run> = Vec::new();
        for (p, &t) in table.iter().enumerate() {
            if let Some(run) = out.last_mut() {
                match (run.src, t) {
                    (None, None) => {
                        run.len += 1;
                        continue;
                    }
                    (Some((k, first, step)), Some((k2, l))) if k == k2 => {
                        let d = l as isize - first as isize;
                        if run.len == 1 && d.abs() <= 1 {
                            run.src = Some((k, first, d));
                            run.len = 2;
                            continue;
                        }
                        if run.len > 1 && d == step * run.len as isize {
                            run.len += 1;
                            continue;
                        }
                    }
                    _ => {}
                }
            }
            out.push(Run { at: p, len: 1, src: t.map(|(k, l)| (k, l, 1)) });
        }
        out
    }
}

/// Cuts `before[axis][block]` / `after[axis][block]` elements off each block.
struct Trim<T> {
    before: Vec<Vec<usize>>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for Trim<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, node.inputs[0].chunks.linear(idx)));
    }
    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let a = block_as::<T>(inputs[0], node, "trim")?;
        let shape = node.chunks.block_shape(idx);
        let view = a.slice_each_axis(|ax| {
            let i = ax.axis.index();
            let s = self.before[i][idx[i]];
            ndarray::Slice::from(s..s + shape[i])
        });
        Ok(Arc::new(crate::schedule::owned_block(view)))
    }
}

fn extend<T: Element>(x: &Array<T>, name: &str, maps: Vec<Vec<Vec<Src>>>, fill: T) -> Array<T> {
    let lengths = maps.iter().map(|m| m.iter().map(Vec::len).collect()).collect();
    Array::from_node(Node::new(name, T::DTYPE, Chunks::from_lengths(lengths), vec![x.node.clone()], Extend { maps, fill }))
}

impl<T: Element> Array<T> {
    /// Pads `widths[axis] = (before, after)` elements at the array's edges (NumPy's
    /// `pad`); the first and last blocks along each axis grow.
    ///
    /// ```
    /// use chunked_array::{Array, PadMode};
    /// let x = Array::<i64>::arange(1, 4, 1, 2).unwrap();
    /// let y = x.pad(&[(2, 2)], PadMode::Reflect).unwrap();
    /// assert_eq!(y.compute().unwrap().iter().cloned().collect::<Vec<_>>(), vec![3, 2, 1, 2, 3, 2, 1]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a widths list of the wrong length, or
    /// padding an empty axis other than by a constant.
    pub fn pad(&self, widths: &[(usize, usize)], mode: PadMode<T>) -> Result<Array<T>> {
        self.check()?;
        let shape = self.shape();
        if widths.len() != shape.len() {
            return Err(Error::invalid("widths", widths, format!("need one (before, after) pair per axis ({})", shape.len())));
        }
        let mut maps = Vec::with_capacity(shape.len());
        for (a, (&(before, after), &n)) in widths.iter().zip(&shape).enumerate() {
            // Each padded edge block gets a position map as long as itself: refuse
            // widths no block could hold rather than failing to allocate.
            if before.max(after) > MAX_EDGE || n.checked_add(before).and_then(|v| v.checked_add(after)).is_none() {
                return Err(Error::invalid("widths", widths, format!("padding on axis {a} is larger than {MAX_EDGE} elements")));
            }
            if (before > 0 || after > 0) && !matches!(mode, PadMode::Constant(_)) && n == 0 {
                return Err(Error::invalid("widths", widths, format!("axis {a} is empty: only constant padding applies")));
            }
            let source = |g: isize| -> Src {
                let n = n as isize;
                if (0..n).contains(&g) {
                    return Src::At(g as usize);
                }
                match mode {
                    PadMode::Constant(_) => Src::Fill,
                    PadMode::Edge => Src::At(g.clamp(0, n - 1) as usize),
                    // Mirror images repeat with the period of one forward and
                    // one backward pass (a triangle wave over the positions).
                    PadMode::Reflect if n == 1 => Src::At(0),
                    PadMode::Reflect => {
                        let p = g.rem_euclid(2 * (n - 1));
                        Src::At(if p < n { p } else { 2 * (n - 1) - p } as usize)
                    }
                    PadMode::Symmetric => {
                        let p = g.rem_euclid(2 * n);
                        Src::At(if p < n { p } else { 2 * n - 1 - p } as usize)
                    }
                    PadMode::Wrap => Src::At(g.rem_euclid(n) as usize),
                }
            };
            let blocks = self.chunks().lengths()[a].len();
            let per_block: Vec<Vec<Src>> = (0..blocks)
                .map(|b| {
                    let lo = self.chunks().offset(a, b) as isize - if b == 0 { before as isize } else { 0 };
                    let hi = self.chunks().offset(a, b + 1) as isize + if b + 1 == blocks { after as isize } else { 0 };
                    (lo..hi).map(source).collect()
                })
                .collect();
            maps.push(per_block);
        }
        let fill = match mode {
            PadMode::Constant(v) => v,
            _ => T::default(),
        };
        Ok(extend(self, "pad", maps, fill))
    }

    /// Applies `f` to every block extended by `depth[axis]` elements from its
    /// neighbours on each side, then trims the result back (dask's
    /// `map_overlap`). `f` must return a block of the extended block's shape.
    ///
    /// ```
    /// use chunked_array::{Array, Boundary};
    /// // A centred moving sum of width 3, across block edges.
    /// let x = Array::<f64>::arange(0.0, 8.0, 1.0, 3).unwrap();
    /// let y = x.map_overlap(|b| {
    ///     let n = b.len();
    ///     ndarray::ArrayD::from_shape_fn(b.raw_dim(), |i| if i[0] == 0 || i[0] + 1 == n { 0.0 } else { b[[i[0] - 1]] + b[[i[0]]] + b[[i[0] + 1]] })
    /// }, &[1], Boundary::Constant(0.0)).unwrap();
    /// assert_eq!(y.compute().unwrap().iter().cloned().collect::<Vec<_>>(), vec![1.0, 3.0, 6.0, 9.0, 12.0, 15.0, 18.0, 13.0]);
    /// ```
    ///
    /// A depth may be larger than the blocks (the halo then comes from several
    /// blocks along the axis; the result keeps this array's chunks, where dask
    /// first rechunks to blocks at least as long as the depth) and, except with
    /// [`Boundary::None`], than the axis itself (the boundary rule repeats, as
    /// NumPy's `pad` does: `Nearest`, `Reflect` and `Periodic` are its `edge`,
    /// `symmetric` and `wrap`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a depth list of the wrong length, a depth
    /// over 2^26, halos of more than 2^26 positions in all along one axis, or a
    /// depth on an empty axis with a boundary that reads the array; at
    /// compute time, a returned block of the wrong shape.
    pub fn map_overlap<F>(&self, f: F, depth: &[usize], boundary: Boundary<T>) -> Result<Array<T>>
    where
        F: Fn(ArrayViewD<'_, T>) -> ArrayD<T> + Send + Sync + 'static,
    {
        self.check()?;
        let shape = self.shape();
        if depth.len() != shape.len() {
            return Err(Error::invalid("depth", depth, format!("needs one depth per axis ({})", shape.len())));
        }
        let mut maps = Vec::with_capacity(shape.len());
        let mut before = Vec::with_capacity(shape.len());
        for (a, (&d, &n)) in depth.iter().zip(&shape).enumerate() {
            let lengths = &self.chunks().lengths()[a];
            if d > MAX_EDGE {
                return Err(Error::invalid("depth", depth, format!("depth {d} on axis {a} is more than {MAX_EDGE} elements")));
            }
            let reads_array = !matches!(boundary, Boundary::None | Boundary::Constant(_));
            if n == 0 && d > 0 && reads_array {
                return Err(Error::invalid("depth", depth, format!("axis {a} is empty: the boundary has no elements to extend it with")));
            }
            // Past the array's edges 'none' adds nothing: no deeper than the axis.
            let d = if matches!(boundary, Boundary::None) { d.min(n) } else { d };
            // Each block's position map takes 16 bytes per extended position:
            // the halos' part is capped as pad's edges are (1 GiB).
            if (2 * d).saturating_mul(lengths.len()) > MAX_EDGE {
                return Err(Error::invalid(
                    "depth",
                    depth,
                    format!("depth {d} on axis {a} adds halos of more than {MAX_EDGE} positions in all over its {} blocks (use larger blocks or a smaller depth)", lengths.len()),
                ));
            }
            let source = |g: isize| -> Option<Src> {
                let n = n as isize;
                if (0..n).contains(&g) {
                    return Some(Src::At(g as usize));
                }
                match boundary {
                    Boundary::None => None,
                    Boundary::Constant(_) => Some(Src::Fill),
                    Boundary::Nearest => Some(Src::At(g.clamp(0, n - 1) as usize)),
                    // Mirrored including the edge, again at every pass over the
                    // axis (period 2n): -1 -> 0, n -> n - 1.
                    Boundary::Reflect => {
                        let p = g.rem_euclid(2 * n);
                        Some(Src::At(if p < n { p } else { 2 * n - 1 - p } as usize))
                    }
                    Boundary::Periodic => Some(Src::At(g.rem_euclid(n) as usize)),
                }
            };
            let blocks = lengths.len();
            let mut axis_maps = Vec::with_capacity(blocks);
            let mut axis_before = Vec::with_capacity(blocks);
            for b in 0..blocks {
                let (lo, hi) = (self.chunks().offset(a, b) as isize, self.chunks().offset(a, b + 1) as isize);
                let entries: Vec<Src> = (lo - d as isize..hi + d as isize).filter_map(source).collect();
                // Positions before the block's own first element (fewer at a 'none' edge).
                axis_before.push((lo - d as isize..lo).filter_map(source).count());
                axis_maps.push(entries);
            }
            maps.push(axis_maps);
            before.push(axis_before);
        }
        let fill = match boundary {
            Boundary::Constant(v) => v,
            _ => T::default(),
        };
        let extended = extend(self, "overlap", maps, fill);
        let mapped = extended.map_blocks(move |b, _| f(b), None)?;
        let op = Trim::<T> { before, _t: std::marker::PhantomData };
        Array::built(Node::new("trim", T::DTYPE, self.chunks().clone(), vec![mapped.node.clone()], op))
    }
}
