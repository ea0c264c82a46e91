//! `map_overlap` and its parts, as dask has them: `overlap` (every block
//! extended by halos from its neighbours, with a boundary rule at the array's
//! edges), a function over the extended blocks, and `trim_internal` (the halos
//! cut off again). The extension itself is `pad`'s kernel (`ops/pad.rs`).

use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD, Slice};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{ChunkSpec, Chunks};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};
use crate::ops::blockwise::BlockInfo;
use crate::ops::pad::{Boundary, MAX_EDGE, Src, extend, pad_source};

/// How [`Array::map_overlap_with`], [`map_overlap_arrays`] and
/// [`Array::overlap`] extend blocks: dask's `depth` (per axis, symmetric or
/// `(before, after)`), `boundary` (one for all axes, or per axis) and `trim`.
///
/// ```
/// use chunked_array::{Boundary, Overlap};
/// // One row of halo above each block, two below; periodic along axis 1 only.
/// let opts = Overlap::asymmetric(&[(1, 2), (0, 0)], Boundary::Constant(0.0)).boundary_at(1, Boundary::Periodic);
/// let keep_halos = Overlap::new(&[1, 1], Boundary::<f64>::Nearest).trim(false);
/// # let _ = (opts, keep_halos);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Overlap<T> {
    depth: Vec<(usize, usize)>,
    boundary: Boundary<T>,
    /// Per-axis boundaries that replace `boundary` (axis, rule); checked when used.
    per_axis: Vec<(usize, Boundary<T>)>,
    trim: bool,
}

impl<T: Element> Overlap<T> {
    /// `depth[axis]` elements on both sides of every block, `boundary` at the
    /// array's edges, the result trimmed back to the input's chunks.
    ///
    /// ```
    /// use chunked_array::{Array, Boundary, Overlap};
    /// let x = Array::from_vec(&[4], vec![1, 2, 3, 4], 2).unwrap();
    /// // dask: da.overlap.overlap(x, depth=1, boundary=0)
    /// let y = x.overlap(&Overlap::new(&[1], Boundary::Constant(0))).unwrap();
    /// assert_eq!(y.chunks().lengths()[0], vec![4, 4]);
    /// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[0, 1, 2, 3, 2, 3, 4, 0]);
    /// ```
    pub fn new(depth: &[usize], boundary: Boundary<T>) -> Self {
        Self::asymmetric(&depth.iter().map(|&d| (d, d)).collect::<Vec<_>>(), boundary)
    }

    /// `depth[axis] = (before, after)` elements: halos of different depths on the
    /// two sides (dask's asymmetric depth, which dask allows only with boundary
    /// `none`; every boundary works here).
    ///
    /// ```
    /// use chunked_array::{Array, Boundary, Overlap};
    /// let x = Array::from_vec(&[4], vec![1, 2, 3, 4], 2).unwrap();
    /// // dask: depth={0: (0, 1)}: one element after each block, none before
    /// let y = x.overlap(&Overlap::asymmetric(&[(0, 1)], Boundary::Constant(0))).unwrap();
    /// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[1, 2, 3, 3, 4, 0]);
    /// ```
    pub fn asymmetric(depth: &[(usize, usize)], boundary: Boundary<T>) -> Self {
        Self { depth: depth.to_vec(), boundary, per_axis: Vec::new(), trim: true }
    }

    /// `boundary` along `axis` instead of the one given for all axes (dask's
    /// per-axis `boundary` dict). At a corner where several axes' boundaries
    /// are constants, the last such axis's constant is used, as padding one axis
    /// after the other gives.
    ///
    /// ```
    /// use chunked_array::{Array, Boundary, Overlap, ndarray::array};
    /// let x = Array::from_vec(&[2, 2], vec![1, 2, 3, 4], 2).unwrap();
    /// // dask: boundary={0: 0, 1: "periodic"}
    /// let opts = Overlap::new(&[0, 1], Boundary::Constant(0)).boundary_at(1, Boundary::Periodic);
    /// let y = x.overlap(&opts).unwrap();
    /// assert_eq!(y.compute().unwrap(), array![[2, 1, 2, 1], [4, 3, 4, 3]].into_dyn());
    /// ```
    #[must_use]
    pub fn boundary_at(mut self, axis: usize, boundary: Boundary<T>) -> Self {
        self.per_axis.push((axis, boundary));
        self
    }

    /// Whether `map_overlap` cuts the halos off the function's blocks (the
    /// default, `true`) or returns the extended blocks whole (dask's
    /// `trim=False`: the result then has the extended chunks). For blocks of
    /// another shape (dask's `chunks=`, `drop_axis` or `new_axis` with
    /// `trim=False`), extend with [`Array::overlap`] and declare the output
    /// chunks to [`Array::map_blocks`].
    ///
    /// ```
    /// use chunked_array::{Array, BlockInfo, Boundary, Overlap};
    /// use chunked_array::ndarray::{ArrayD, ArrayViewD};
    /// fn same(b: ArrayViewD<'_, i32>, _: &BlockInfo<'_>) -> ArrayD<i32> {
    ///     b.to_owned()
    /// }
    /// let x = Array::from_vec(&[4], vec![1, 2, 3, 4], 2).unwrap();
    /// // dask: x.map_overlap(f, depth=1, boundary=0, trim=False)
    /// let kept = x.map_overlap_with(same, &Overlap::new(&[1], Boundary::Constant(0)).trim(false)).unwrap();
    /// assert_eq!(kept.compute().unwrap().as_slice().unwrap(), &[0, 1, 2, 3, 2, 3, 4, 0]);
    /// let trimmed = x.map_overlap_with(same, &Overlap::new(&[1], Boundary::Constant(0))).unwrap();
    /// assert_eq!(trimmed.compute().unwrap().as_slice().unwrap(), &[1, 2, 3, 4]);
    /// ```
    #[must_use]
    pub fn trim(mut self, trim: bool) -> Self {
        self.trim = trim;
        self
    }

    /// The depths and boundary of every axis of an `ndim`-axis array, checked.
    fn per_axis(&self, ndim: usize) -> Result<Vec<AxisOverlap<T>>> {
        if self.depth.len() != ndim {
            return Err(Error::invalid("depth", &self.depth, format!("needs one depth per axis ({ndim})")));
        }
        let mut all = vec![self.boundary; ndim];
        for &(axis, b) in &self.per_axis {
            if axis >= ndim {
                return Err(Error::BadAxis { axis: axis as isize, ndim, detail: " (a per-axis boundary)".into() });
            }
            all[axis] = b;
        }
        Ok(self.depth.iter().copied().zip(all).collect())
    }
}

/// One axis's `(before, after)` depths and boundary.
type AxisOverlap<T> = ((usize, usize), Boundary<T>);

/// The halos of every block: the position maps that build the extended blocks,
/// and how many of each block's positions lie before and after its own.
struct Halos<T> {
    maps: Vec<Vec<Vec<Src>>>,
    fills: Vec<T>,
    before: Vec<Vec<usize>>,
    after: Vec<Vec<usize>>,
}

impl<T: Element> Halos<T> {
    fn plan(chunks: &Chunks, opts: &Overlap<T>) -> Result<Self> {
        let shape = chunks.shape();
        let depth = &opts.depth;
        let mut halos = Halos { maps: Vec::new(), fills: Vec::new(), before: Vec::new(), after: Vec::new() };
        for (a, (((d0, d1), boundary), &n)) in opts.per_axis(shape.len())?.into_iter().zip(&shape).enumerate() {
            let blocks = chunks.lengths()[a].len();
            if d0.max(d1) > MAX_EDGE {
                return Err(Error::invalid(
                    "depth",
                    depth,
                    format!("depth {} on axis {a} is more than {MAX_EDGE} elements", d0.max(d1)),
                ));
            }
            let reads_array = !matches!(boundary, Boundary::None | Boundary::Constant(_));
            if n == 0 && d0.max(d1) > 0 && reads_array {
                return Err(Error::invalid(
                    "depth",
                    depth,
                    format!("axis {a} is empty: the boundary has no elements to extend it with"),
                ));
            }
            // Past the array's edges 'none' adds nothing: no deeper than the axis.
            let (d0, d1) = if matches!(boundary, Boundary::None) { (d0.min(n), d1.min(n)) } else { (d0, d1) };
            // Each block's position map takes 16 bytes per extended position:
            // the halos' part is capped as pad's edges are (1 GiB).
            if (d0 + d1).saturating_mul(blocks) > MAX_EDGE {
                return Err(Error::invalid(
                    "depth",
                    depth,
                    format!(
                        "depths ({d0}, {d1}) on axis {a} add halos of more than {MAX_EDGE} positions in all over its {blocks} blocks (use larger blocks or a smaller depth)"
                    ),
                ));
            }
            // Inside the array, or past its edges by the boundary's pad mode
            // ('none' adds nothing there).
            let source = |g: isize| -> Option<Src> {
                if (0..n as isize).contains(&g) {
                    return Some(Src::At(g as usize));
                }
                boundary.pad_mode().map(|mode| pad_source(g, n, mode))
            };
            let (mut maps, mut before, mut after) =
                (Vec::with_capacity(blocks), Vec::with_capacity(blocks), Vec::with_capacity(blocks));
            for b in 0..blocks {
                let (lo, hi) = (chunks.offset(a, b) as isize, chunks.offset(a, b + 1) as isize);
                let (lo_ext, hi_ext) = (lo - d0 as isize, hi + d1 as isize);
                maps.push((lo_ext..hi_ext).filter_map(source).collect::<Vec<_>>());
                // Fewer halo positions at a 'none' edge.
                before.push((lo_ext..lo).filter_map(source).count());
                after.push((hi..hi_ext).filter_map(source).count());
            }
            halos.maps.push(maps);
            halos.before.push(before);
            halos.after.push(after);
            halos.fills.push(match boundary {
                Boundary::Constant(v) => v,
                _ => T::default(),
            });
        }
        Ok(halos)
    }
}

/// How one input's axes sit among the output's: its axes are the output's
/// last ones (NumPy's broadcasting); a stretched axis (length 1 against a
/// longer output axis) has one block, read for every output block.
#[derive(Clone)]
struct Broadcast {
    /// Output axes before the input's first axis.
    offset: usize,
    stretched: Vec<bool>,
}

impl Broadcast {
    fn block(&self, idx: &[usize]) -> Vec<usize> {
        self.stretched.iter().enumerate().map(|(a, &s)| if s { 0 } else { idx[self.offset + a] }).collect()
    }
}

/// A function over the extended blocks of one or more arrays (on one grid, or
/// broadcast against it), told where the block sits.
struct MapExtended<T, U, F> {
    /// The output's grid before extension.
    original: Chunks,
    inputs: Vec<Broadcast>,
    before: Vec<Vec<usize>>,
    after: Vec<Vec<usize>>,
    f: F,
    _t: std::marker::PhantomData<fn(T) -> U>,
}

impl<T: Element, U: Element, F> BlockOp for MapExtended<T, U, F>
where
    F: Fn(&[ArrayViewD<'_, T>], &BlockInfo<'_>) -> ArrayD<U> + Send + Sync + 'static,
{
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        for (k, (input, at)) in node.inputs.iter().zip(&self.inputs).enumerate() {
            out.push((k, input.chunks.linear(&at.block(idx))));
        }
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let views: Vec<ArrayViewD<'_, T>> =
            inputs.iter().map(|b| block_as::<T>(b, node, "map_overlap").map(|a| a.view())).collect::<Result<_>>()?;
        let out_shape = node.chunks.block_shape(idx);
        let halo: Vec<(usize, usize)> =
            (0..idx.len()).map(|a| (self.before[a][idx[a]], self.after[a][idx[a]])).collect();
        let info = BlockInfo {
            index: idx,
            grid: &self.original.grid(),
            start: &self.original.block_start(idx),
            array_shape: &self.original.shape(),
            out_shape: &out_shape,
            halo: &halo,
        };
        let out = (self.f)(&views, &info);
        if out.shape() != out_shape.as_slice() {
            return Err(Error::shape(
                "map_overlap result (extended block shape, returned shape)",
                &out_shape,
                out.shape(),
            ));
        }
        Ok(Arc::new(out))
    }
}

/// Cuts `before[axis][block]` elements off the start of each block, keeping
/// the output block's length.
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
            Slice::from(s..s + shape[i])
        });
        Ok(Arc::new(crate::block::alloc::owned_block(view)))
    }
}

/// Blocks of `x` cut to `chunks`, `before[axis][block]` elements from each
/// block's start.
fn trimmed<T: Element>(x: &Array<T>, chunks: Chunks, before: Vec<Vec<usize>>) -> Result<Array<T>> {
    Array::built(Node::new(
        "trim",
        T::DTYPE,
        chunks,
        vec![x.node.clone()],
        Trim::<T> { before, _t: std::marker::PhantomData },
    ))
}

/// Applies `f` to the blocks of several arrays at once, each block extended by
/// the same halos (dask's `map_overlap` with several arrays). The arrays
/// broadcast together (NumPy's rules) and are rechunked to the common
/// refinement of their grids. `f` gets the extended blocks, in the order of
/// `arrays`, and a [`BlockInfo`] whose `halo` says how many of their positions
/// along each axis lie before and after the block's own; it must return a
/// block of the extended shape of the broadcast array.
///
/// An array with fewer axes, or a length-1 axis against a longer one, is
/// passed as its own block, unextended along those axes, so that its blocks
/// broadcast against the others' inside `f` (`&v[0] * &v[1]`). (dask extends
/// a length-1 axis by the depth too, which then does not broadcast.)
///
/// ```
/// use chunked_array::{map_overlap_arrays, Array, Boundary, Overlap};
/// // a[i] * b[i + 1] across block edges (the last element reads the boundary).
/// let a = Array::<f64>::arange(0.0, 6.0, 1.0, 4).unwrap();
/// let b = Array::<f64>::arange(10.0, 16.0, 1.0, 3).unwrap();
/// let y = map_overlap_arrays(
///     |v, info| {
///         let (before, after) = info.halo[0];
///         let n = v[0].len();
///         ndarray::ArrayD::from_shape_fn(v[0].raw_dim(), |i| if i[0] < before || i[0] + after >= n { 0.0 } else { v[0][[i[0]]] * v[1][[i[0] + 1]] })
///     },
///     &[&a, &b],
///     &Overlap::asymmetric(&[(0, 1)], Boundary::Constant(0.0)),
/// ).unwrap();
/// assert_eq!(y.compute().unwrap().iter().copied().collect::<Vec<f64>>(), vec![0.0, 12.0, 26.0, 42.0, 60.0, 0.0]);
///
/// // Rows of a (4, 6) array scaled by a (6,) vector, then summed with their
/// // neighbours above and below: the vector broadcasts inside `f`.
/// let x = Array::<f64>::ones(&[4, 6], [2, 3]).unwrap();
/// let w = Array::<f64>::arange(0.0, 6.0, 1.0, 2).unwrap();
/// let y = map_overlap_arrays(
///     |v, _| {
///         let p = &v[0] * &v[1];
///         let mut out = p.clone();
///         for r in 1..p.shape()[0] - 1 {
///             for c in 0..p.shape()[1] {
///                 out[[r, c]] = p[[r - 1, c]] + p[[r, c]] + p[[r + 1, c]];
///             }
///         }
///         out
///     },
///     &[&x, &w],
///     &Overlap::new(&[1, 0], Boundary::Nearest),
/// ).unwrap();
/// assert_eq!(y.compute().unwrap().index_axis(ndarray::Axis(0), 0).iter().copied().collect::<Vec<f64>>(), vec![0.0, 3.0, 6.0, 9.0, 12.0, 15.0]);
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for no arrays, or as [`Array::map_overlap_with`]
/// (the depths are the broadcast array's); [`Error::ShapeMismatch`] for arrays
/// whose shapes do not broadcast; at compute time, a returned block of the
/// wrong shape.
pub fn map_overlap_arrays<T, U, F>(f: F, arrays: &[&Array<T>], opts: &Overlap<T>) -> Result<Array<U>>
where
    T: Element,
    U: Element,
    F: Fn(&[ArrayViewD<'_, T>], &BlockInfo<'_>) -> ArrayD<U> + Send + Sync + 'static,
{
    if arrays.is_empty() {
        return Err(Error::invalid("arrays", 0, "map_overlap needs at least one array"));
    }
    for a in arrays {
        a.check()?;
    }
    // The broadcast shape on the common refinement of the grids of the
    // arrays not stretched along each axis (as elementwise operands are).
    let nodes: Vec<&Node> = arrays.iter().map(|a| &*a.node).collect();
    let original = crate::ops::elementwise::broadcast_chunks("map_overlap (one array's shape, another's)", &nodes)?;
    let (ndim, shape, lengths) = (original.ndim(), original.shape(), original.lengths().to_vec());
    let inputs: Vec<Broadcast> = arrays
        .iter()
        .map(|a| {
            let offset = ndim - a.ndim();
            Broadcast {
                offset,
                stretched: a.shape().iter().enumerate().map(|(i, &n)| n == 1 && shape[offset + i] != 1).collect(),
            }
        })
        .collect();
    let halos = Halos::plan(&original, opts)?;
    let mut extended = Vec::with_capacity(arrays.len());
    for (a, at) in arrays.iter().zip(&inputs) {
        // Its own axes: the common grid, or one unextended block where stretched.
        let own = |ax: usize| at.offset + ax;
        let spec: Vec<Vec<usize>> = at
            .stretched
            .iter()
            .enumerate()
            .map(|(ax, &s)| if s { vec![1] } else { lengths[own(ax)].clone() })
            .collect();
        let maps: Vec<Vec<Vec<Src>>> = at
            .stretched
            .iter()
            .enumerate()
            .map(|(ax, &s)| if s { vec![vec![Src::At(0)]] } else { halos.maps[own(ax)].clone() })
            .collect();
        let fills: Vec<T> = (0..a.ndim()).map(|ax| halos.fills[own(ax)]).collect();
        let aligned = a.rechunk(ChunkSpec::from(spec))?;
        extended.push(extend(&aligned, "overlap", maps, fills).node.clone());
    }
    let extended_chunks = Chunks::from_lengths(
        (0..ndim)
            .map(|ax| {
                lengths[ax].iter().enumerate().map(|(b, &n)| n + halos.before[ax][b] + halos.after[ax][b]).collect()
            })
            .collect(),
    );
    let trim_before = halos.before.clone();
    let op = MapExtended::<T, U, F> {
        original: original.clone(),
        inputs,
        before: halos.before,
        after: halos.after,
        f,
        _t: std::marker::PhantomData,
    };
    let mapped = Array::built(Node::new("map_overlap", U::DTYPE, extended_chunks, extended, op))?;
    if opts.trim { trimmed(&mapped, original, trim_before) } else { Ok(mapped) }
}

impl<T: Element> Array<T> {
    /// Every block extended by halos from its neighbours, with the boundary rule
    /// at the array's edges (dask's `da.overlap.overlap`): the blocks grow by
    /// the depths, except at a [`Boundary::None`] edge. `opts.trim` plays no
    /// part here; [`Array::trim_internal`] cuts the halos off again.
    ///
    /// ```
    /// use chunked_array::{Array, Boundary, Overlap};
    /// let x = Array::<i64>::arange(0, 6, 1, 3).unwrap();
    /// let y = x.overlap(&Overlap::new(&[1], Boundary::Periodic)).unwrap();
    /// assert_eq!(y.chunks().lengths()[0], vec![5, 5]);
    /// assert_eq!(y.compute().unwrap().iter().copied().collect::<Vec<_>>(), vec![5, 0, 1, 2, 3, 2, 3, 4, 5, 0]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::map_overlap_with`].
    pub fn overlap(&self, opts: &Overlap<T>) -> Result<Array<T>> {
        self.check()?;
        let halos = Halos::plan(self.chunks(), opts)?;
        Ok(extend(self, "overlap", halos.maps, halos.fills))
    }

    /// Cuts `depth[axis] = (before, after)` elements off both sides of every
    /// block (dask's `trim_internal`), except the outer side of the first and
    /// last blocks along an axis whose boundary in `opts` is [`Boundary::None`]
    /// (which [`Array::overlap`] did not extend). It undoes `overlap` with the
    /// same `opts` wherever that extended edge blocks by the full depth.
    ///
    /// ```
    /// use chunked_array::{Array, Boundary, Overlap};
    /// let x = Array::from_vec(&[4], vec![1, 2, 3, 4], 2).unwrap();
    /// let opts = Overlap::new(&[1], Boundary::Periodic);
    /// let y = x.overlap(&opts).unwrap();
    /// assert_eq!(y.shape(), vec![8]);
    /// // dask: da.overlap.trim_internal(y, {0: 1})
    /// let z = y.trim_internal(&opts).unwrap();
    /// assert_eq!(z.compute().unwrap().as_slice().unwrap(), &[1, 2, 3, 4]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a depth list of the wrong length, or a
    /// block shorter than what is to be cut from it; [`Error::BadAxis`] for a
    /// per-axis boundary past the array's axes.
    pub fn trim_internal(&self, opts: &Overlap<T>) -> Result<Array<T>> {
        self.check()?;
        let per_axis = opts.per_axis(self.ndim())?;
        let depth = &opts.depth;
        let mut before = Vec::with_capacity(per_axis.len());
        let mut lengths = Vec::with_capacity(per_axis.len());
        for (a, ((d0, d1), boundary)) in per_axis.into_iter().enumerate() {
            let blocks = &self.chunks().lengths()[a];
            let none = matches!(boundary, Boundary::None);
            let cut: Vec<(usize, usize)> = (0..blocks.len())
                .map(|b| (if none && b == 0 { 0 } else { d0 }, if none && b + 1 == blocks.len() { 0 } else { d1 }))
                .collect();
            let mut kept = Vec::with_capacity(blocks.len());
            for (b, (&len, &(c0, c1))) in blocks.iter().zip(&cut).enumerate() {
                kept.push(len.checked_sub(c0 + c1).ok_or_else(|| {
                    Error::invalid(
                        "depth",
                        depth,
                        format!(
                            "block {b} along axis {a} has {len} elements, fewer than the {} to cut from it",
                            c0 + c1
                        ),
                    )
                })?);
            }
            before.push(cut.iter().map(|c| c.0).collect());
            lengths.push(kept);
        }
        trimmed(self, Chunks::from_lengths(lengths), before)
    }

    /// Applies `f` to every block extended by `depth[axis]` elements from its
    /// neighbours on each side, then trims the result back (dask's
    /// `map_overlap`). `f` must return a block of the extended block's shape.
    /// [`Array::map_overlap_with`] takes asymmetric depths, per-axis
    /// boundaries, `trim=False`, another output type, and tells `f` where the
    /// block sits.
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
    /// As [`Array::map_overlap_with`].
    pub fn map_overlap<F>(&self, f: F, depth: &[usize], boundary: Boundary<T>) -> Result<Array<T>>
    where
        F: Fn(ArrayViewD<'_, T>) -> ArrayD<T> + Send + Sync + 'static,
    {
        self.map_overlap_with(move |b, _| f(b), &Overlap::new(depth, boundary))
    }

    /// [`Array::map_overlap`] with dask's options ([`Overlap`]: per-axis and
    /// asymmetric depths, per-axis boundaries, `trim`), a result of another
    /// element type, and a [`BlockInfo`] for `f` (where the block sits, and in
    /// `halo` how many positions along each axis lie before and after its own).
    ///
    /// ```
    /// use chunked_array::{Array, Boundary, Overlap};
    /// // Local maxima (strictly above both neighbours), as a boolean array.
    /// let x = Array::from_ndarray(ndarray::arr1(&[1.0, 3.0, 2.0, 5.0, 4.0, 4.0, 6.0]), 2).unwrap();
    /// let peaks = x.map_overlap_with(|b, _| {
    ///     let n = b.len();
    ///     ndarray::ArrayD::from_shape_fn(b.raw_dim(), |i| i[0] > 0 && i[0] + 1 < n && b[[i[0]]] > b[[i[0] - 1]] && b[[i[0]]] > b[[i[0] + 1]])
    /// }, &Overlap::new(&[1], Boundary::Constant(f64::NEG_INFINITY))).unwrap();
    /// assert_eq!(peaks.compute().unwrap().iter().copied().collect::<Vec<_>>(), vec![false, true, false, true, false, false, true]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a depth list of the wrong length, a depth
    /// over 2^26, halos of more than 2^26 positions in all along one axis, or a
    /// depth on an empty axis with a boundary that reads the array;
    /// [`Error::BadAxis`] for a per-axis boundary past the array's axes; at
    /// compute time, a returned block of the wrong shape.
    pub fn map_overlap_with<U, F>(&self, f: F, opts: &Overlap<T>) -> Result<Array<U>>
    where
        U: Element,
        F: Fn(ArrayViewD<'_, T>, &BlockInfo<'_>) -> ArrayD<U> + Send + Sync + 'static,
    {
        map_overlap_arrays(move |v, info| f(v[0].clone(), info), &[self], opts)
    }
}
