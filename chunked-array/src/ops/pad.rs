//! Blocks extended beyond their edges: `pad` (at the array's edges) here, and
//! the halos of `map_overlap` (in `overlap`).
//!
//! Both build each extended block from per-axis maps "extended position -> global
//! source position (or the fill value)", so the same kernel serves every mode.

use std::sync::Arc;

use ndarray::{ArrayViewD, Slice};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};

/// Most elements `pad` adds on one side of an axis (2^26): an edge's position map
/// takes 16 bytes per element, 1 GiB at this width.
pub(crate) const MAX_EDGE: usize = 1 << 26;

/// Where one extended position along an axis reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Src {
    /// This global position of the input.
    At(usize),
    /// The fill value.
    Fill,
}

/// How `pad` fills the new elements (NumPy's `pad` modes).
///
/// ```
/// use chunked_array::{Array, PadMode};
/// let x = Array::from_vec(&[3], vec![1, 2, 3], 2).unwrap();
/// let pad = |mode| x.pad(&[(2, 2)], mode).unwrap().compute().unwrap();
/// // NumPy: np.pad(x, 2, mode="constant"), "edge", "symmetric", "wrap"
/// assert_eq!(pad(PadMode::Constant(0)).as_slice().unwrap(), &[0, 0, 1, 2, 3, 0, 0]);
/// assert_eq!(pad(PadMode::Edge).as_slice().unwrap(), &[1, 1, 1, 2, 3, 3, 3]);
/// assert_eq!(pad(PadMode::Symmetric).as_slice().unwrap(), &[2, 1, 1, 2, 3, 3, 2]);
/// assert_eq!(pad(PadMode::Wrap).as_slice().unwrap(), &[2, 3, 1, 2, 3, 1, 2]);
/// ```
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
///
/// ```
/// use chunked_array::{Array, Boundary, Overlap};
/// let x = Array::from_vec(&[4], vec![1, 2, 3, 4], 2).unwrap(); // blocks [1, 2] and [3, 4]
/// let halo = |b| x.overlap(&Overlap::new(&[1], b)).unwrap().compute().unwrap();
/// // dask: da.overlap.overlap(x, depth=1, boundary="reflect"), "periodic", "none"
/// assert_eq!(halo(Boundary::Reflect).as_slice().unwrap(), &[1, 1, 2, 3, 2, 3, 4, 4]);
/// assert_eq!(halo(Boundary::Periodic).as_slice().unwrap(), &[4, 1, 2, 3, 2, 3, 4, 1]);
/// assert_eq!(halo(Boundary::None).as_slice().unwrap(), &[1, 2, 3, 2, 3, 4]);
/// ```
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

impl<T: Copy> Boundary<T> {
    /// The pad mode that extends an edge as this boundary does; `None` for
    /// [`Boundary::None`], which does not extend it.
    pub(crate) fn pad_mode(self) -> Option<PadMode<T>> {
        match self {
            Boundary::None => None,
            Boundary::Constant(v) => Some(PadMode::Constant(v)),
            Boundary::Nearest => Some(PadMode::Edge),
            Boundary::Reflect => Some(PadMode::Symmetric),
            Boundary::Periodic => Some(PadMode::Wrap),
        }
    }
}

/// Where position `g` of an axis of length `n` (> 0 unless the mode is a
/// constant) reads from when the axis is padded by `mode`, repeating as
/// NumPy's `pad` does for widths past the axis.
pub(crate) fn pad_source<T>(g: isize, n: usize, mode: PadMode<T>) -> Src {
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
        // Mirrored including the edge, again at every pass (period 2n).
        PadMode::Symmetric => {
            let p = g.rem_euclid(2 * n);
            Src::At(if p < n { p } else { 2 * n - 1 - p } as usize)
        }
        PadMode::Wrap => Src::At(g.rem_euclid(n) as usize),
    }
}

/// Blocks extended as `maps[axis][block]` says. A position that is a fill along
/// some axes takes the fill of the last of them (`fills[axis]`), as padding one
/// axis after the other gives.
struct Extend<T> {
    maps: Vec<Vec<Vec<Src>>>,
    fills: Vec<T>,
}

impl<T: Element> Extend<T> {
    /// Per axis, the distinct input blocks one output block reads.
    fn sources(&self, input: &Chunks, idx: &[usize]) -> Vec<Vec<usize>> {
        self.maps
            .iter()
            .enumerate()
            .map(|(a, m)| {
                let mut s: Vec<usize> = m[idx[a]]
                    .iter()
                    .filter_map(|s| match s {
                        Src::At(g) => Some(input.block_of(a, *g)),
                        Src::Fill => None,
                    })
                    .collect();
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
        let blocks: Vec<ArrayViewD<'_, T>> =
            inputs.iter().map(|b| block_as::<T>(b, node, "extend").map(|a| a.view())).collect::<Result<_>>()?;
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
        // The runs of each axis cover all its positions, so the boxes below
        // write every element once: no fill first.
        let mut out = crate::block::alloc::uninit_block::<T>(&shape);
        let mut written = 0usize;
        if runs.iter().all(|r| !r.is_empty()) {
            let lo = vec![0; runs.len()];
            let hi: Vec<usize> = runs.iter().map(Vec::len).collect();
            crate::chunks::for_each_in_box(&lo, &hi, |choice| {
                let picked: Vec<&Run> = choice.iter().enumerate().map(|(a, &r)| &runs[a][r]).collect();
                let mut target = out.slice_each_axis_mut(|ax| {
                    let run = picked[ax.axis.index()];
                    Slice::from(run.at..run.at + run.len)
                });
                written += target.len();
                let Some(reads) = picked.iter().map(|r| r.src).collect::<Option<Vec<_>>>() else {
                    let fill = self.fills[picked.iter().rposition(|r| r.src.is_none()).expect("a fill run")];
                    target.map_inplace(|o| {
                        o.write(fill);
                    });
                    return;
                };
                let block = reads.iter().zip(&counts).fold(0, |b, (&(k, _, _), &n)| b * n + k);
                let src = blocks[block].slice_each_axis(|ax| {
                    let (a, len) = (ax.axis.index(), picked[ax.axis.index()].len);
                    let (_, first, step) = reads[a];
                    match step {
                        1 => Slice::from(first..first + len),
                        -1 => Slice::new((first + 1 - len) as isize, Some(first as isize + 1), -1),
                        // One position repeated (edge, nearest): broadcast below.
                        _ => Slice::from(first..first + 1),
                    }
                });
                target.zip_mut_with(&src, |o, &v| {
                    o.write(v);
                });
            });
        }
        // The boxes are disjoint: as many elements written as the block holds
        // is every element (checked, so that a tiling bug is an error, not
        // uninitialised memory read).
        if written != out.len() {
            return Err(Error::invalid("pad", node.label(), format!("wrote {written} of {} elements", out.len())));
        }
        // SAFETY: every element was written (the count above).
        let out = unsafe { out.assume_init() };
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

/// `x` with every block extended as `maps[axis][block]` says (`fills[axis]`:
/// the fill value of each axis's `Src::Fill` positions).
pub(crate) fn extend<T: Element>(x: &Array<T>, name: &str, maps: Vec<Vec<Vec<Src>>>, fills: Vec<T>) -> Array<T> {
    let lengths = maps.iter().map(|m| m.iter().map(Vec::len).collect()).collect();
    Array::from_node(Node::new(
        name,
        T::DTYPE,
        Chunks::from_lengths(lengths),
        vec![x.node.clone()],
        Extend { maps, fills },
    ))
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
            return Err(Error::invalid(
                "widths",
                widths,
                format!("need one (before, after) pair per axis ({})", shape.len()),
            ));
        }
        let mut maps = Vec::with_capacity(shape.len());
        for (a, (&(before, after), &n)) in widths.iter().zip(&shape).enumerate() {
            // Each padded edge block gets a position map as long as itself: refuse
            // widths no block could hold rather than failing to allocate.
            if before.max(after) > MAX_EDGE || n.checked_add(before).and_then(|v| v.checked_add(after)).is_none() {
                return Err(Error::invalid(
                    "widths",
                    widths,
                    format!("padding on axis {a} is larger than {MAX_EDGE} elements"),
                ));
            }
            if (before > 0 || after > 0) && !matches!(mode, PadMode::Constant(_)) && n == 0 {
                return Err(Error::invalid(
                    "widths",
                    widths,
                    format!("axis {a} is empty: only constant padding applies"),
                ));
            }
            let blocks = self.chunks().lengths()[a].len();
            let per_block: Vec<Vec<Src>> = (0..blocks)
                .map(|b| {
                    let lo = self.chunks().offset(a, b) as isize - if b == 0 { before as isize } else { 0 };
                    let hi = self.chunks().offset(a, b + 1) as isize + if b + 1 == blocks { after as isize } else { 0 };
                    (lo..hi).map(|g| pad_source(g, n, mode)).collect()
                })
                .collect();
            maps.push(per_block);
        }
        let fill = match mode {
            PadMode::Constant(v) => v,
            _ => T::default(),
        };
        Ok(extend(self, "pad", maps, vec![fill; shape.len()]))
    }
}
