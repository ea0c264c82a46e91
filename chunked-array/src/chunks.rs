//! Chunk specifications and the block grid they produce (dask's tuple of tuples).

use crate::element::DType;
use crate::error::{Error, Result};

/// Default target size of a block for `auto` chunking (dask's `array.chunk-size`).
pub const DEFAULT_AUTO_BYTES: usize = 128 * 1024 * 1024;

/// Most blocks an array may have (2^24, about 16.7 million). Its task graph
/// holds a task per block with its key and dependency lists, and the grid keeps
/// two `usize` per block of each axis: a far larger grid would exhaust memory
/// while the graph is built (2^31 blocks on one axis is 32 GiB of block lengths
/// and offsets alone) instead of failing with a clear error.
pub const MAX_BLOCKS: usize = 1 << 24;

/// How one axis is split.
#[derive(Debug, Clone, PartialEq)]
pub enum AxisChunks {
    /// Blocks of this length (the last one may be shorter).
    Size(usize),
    /// One block over the whole axis (dask's `-1`).
    Whole,
    /// Chosen from a byte target, like dask's `"auto"`.
    Auto,
    /// Explicit block lengths, which must sum to the axis length.
    Explicit(Vec<usize>),
}

/// A chunk specification for a whole array.
///
/// Build one from a block length for every axis (`1000`), per-axis lengths with
/// `-1` for a whole axis (`[1000, -1]`), explicit lists (`vec![vec![2, 3], vec![5]]`)
/// or [`ChunkSpec::auto`].
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkSpec {
    axes: Option<Vec<AxisChunks>>,
    uniform: AxisChunks,
    auto_bytes: usize,
}

impl ChunkSpec {
    /// Every axis `auto`, targeting [`DEFAULT_AUTO_BYTES`] per block.
    pub fn auto() -> Self {
        ChunkSpec { axes: None, uniform: AxisChunks::Auto, auto_bytes: DEFAULT_AUTO_BYTES }
    }

    /// One spec per axis.
    pub fn per_axis(axes: Vec<AxisChunks>) -> Self {
        ChunkSpec { axes: Some(axes), uniform: AxisChunks::Auto, auto_bytes: DEFAULT_AUTO_BYTES }
    }

    /// The same spec on every axis.
    pub fn uniform(axis: AxisChunks) -> Self {
        ChunkSpec { axes: None, uniform: axis, auto_bytes: DEFAULT_AUTO_BYTES }
    }

    /// Sets the byte target of `auto` axes.
    pub fn with_auto_bytes(mut self, bytes: usize) -> Self {
        self.auto_bytes = bytes;
        self
    }

    /// The explicit per-axis block lengths, when every axis was given that way.
    pub fn explicit_lists(&self) -> Option<Vec<Vec<usize>>> {
        self.axes.as_ref()?.iter().map(|a| match a {
            AxisChunks::Explicit(l) => Some(l.clone()),
            _ => None,
        }).collect()
    }

    /// Resolves the spec against a shape and element type.
    ///
    /// # Errors
    /// [`Error::BadChunks`] when the spec has the wrong number of axes, a zero block
    /// size on a non-empty axis, or explicit lengths that do not sum to the axis
    /// (explicit lists may hold empty blocks, as dask's chunks may: a
    /// selection's or a filtering `map_blocks`'s blocks can hold nothing).
    pub fn resolve(&self, shape: &[usize], dtype: DType) -> Result<Chunks> {
        let axes: Vec<AxisChunks> = match &self.axes {
            Some(a) => {
                if a.len() != shape.len() {
                    return Err(Error::BadChunks {
                        axis: usize::MAX,
                        message: format!(
                            "{} axis specs given for a {}-d array of shape {shape:?}",
                            a.len(),
                            shape.len()
                        ),
                    });
                }
                a.clone()
            }
            None => vec![self.uniform.clone(); shape.len()],
        };
        if let Some(error) = too_large(shape, dtype.size()) {
            return Err(error);
        }
        let mut sizes: Vec<Option<usize>> = vec![None; shape.len()];
        let mut explicit: Vec<Option<Vec<usize>>> = vec![None; shape.len()];
        for (axis, (spec, &n)) in axes.iter().zip(shape).enumerate() {
            match spec {
                AxisChunks::Size(0) if n > 0 => {
                    return Err(Error::BadChunks { axis, message: format!("block length 0 for an axis of length {n}") });
                }
                AxisChunks::Size(s) => sizes[axis] = Some((*s).min(n.max(1))),
                AxisChunks::Whole => sizes[axis] = Some(n.max(1)),
                AxisChunks::Auto => {}
                AxisChunks::Explicit(list) => {
                    let Some(total) = list.iter().try_fold(0usize, |acc, &x| acc.checked_add(x)) else {
                        return Err(Error::BadChunks { axis, message: format!("explicit block lengths {list:?} sum to more than fits in usize") });
                    };
                    if total != n {
                        return Err(Error::BadChunks {
                            axis,
                            message: format!("explicit block lengths {list:?} sum to {total}, axis length is {n}"),
                        });
                    }
                    explicit[axis] = Some(if list.is_empty() { vec![0] } else { list.clone() });
                }
            }
        }
        auto_sizes(shape, dtype.size().max(1), self.auto_bytes, &mut sizes, &explicit);
        let mut blocks = 1usize;
        for (axis, &n) in shape.iter().enumerate() {
            let count = match (&explicit[axis], sizes[axis]) {
                (Some(list), _) => list.len(),
                (None, Some(size)) => n.div_ceil(size.max(1)).max(1),
                (None, None) => 1,
            };
            blocks = blocks.saturating_mul(count);
            if blocks > MAX_BLOCKS {
                return Err(Error::BadChunks {
                    axis,
                    message: format!("shape {shape:?} in these chunks makes more than {MAX_BLOCKS} blocks; use larger blocks"),
                });
            }
        }
        let per_axis = (0..shape.len())
            .map(|a| match explicit[a].take() {
                Some(list) => list,
                None => uniform_lengths(shape[a], sizes[a].unwrap_or(shape[a].max(1))),
            })
            .collect();
        Ok(Chunks::from_lengths(per_axis))
    }
}

/// Why an array of `shape` at `itemsize` bytes per element cannot exist: its
/// bytes overflow `isize::MAX` (no allocation, and no slice over it, can be that
/// large). Empty shapes always can.
fn too_large(shape: &[usize], itemsize: usize) -> Option<Error> {
    if shape.contains(&0) {
        return None;
    }
    let bytes = shape.iter().try_fold(itemsize.max(1), |acc, &n| acc.checked_mul(n));
    if bytes.is_some_and(|b| b <= isize::MAX as usize) {
        return None;
    }
    // Internal layers of no element type (itemsize 0) are checked by count.
    let what = if itemsize == 0 { "has more than isize::MAX elements".to_string() } else { format!("at {itemsize} bytes per element is larger than isize::MAX bytes") };
    Some(Error::invalid("shape", shape, format!("{what}, more than any memory can hold")))
}

/// Fills the `auto` axes of `sizes` so that a block holds about `target_bytes`,
/// with blocks as square as the fixed axes allow (dask's `auto_chunks`).
fn auto_sizes(shape: &[usize], itemsize: usize, target_bytes: usize, sizes: &mut [Option<usize>], explicit: &[Option<Vec<usize>>]) {
    let mut autos: Vec<usize> = (0..shape.len()).filter(|&a| sizes[a].is_none() && explicit[a].is_none()).collect();
    if autos.is_empty() {
        return;
    }
    let fixed: f64 = (0..shape.len())
        .filter(|a| !autos.contains(a))
        .map(|a| match &explicit[a] {
            Some(list) => *list.iter().max().unwrap_or(&1) as f64,
            None => sizes[a].unwrap_or(1) as f64,
        })
        .product::<f64>()
        .max(1.0);
    let mut budget = (target_bytes as f64 / itemsize as f64 / fixed).max(1.0);
    // Axes shorter than the ideal edge take their whole length; the rest share what is left.
    loop {
        let ideal = budget.powf(1.0 / autos.len() as f64);
        let small: Vec<usize> = autos.iter().copied().filter(|&a| (shape[a] as f64) <= ideal).collect();
        if small.is_empty() {
            for &a in &autos {
                sizes[a] = Some(round_to(ideal.floor().max(1.0) as usize, shape[a]));
            }
            return;
        }
        for &a in &small {
            sizes[a] = Some(shape[a].max(1));
            budget = (budget / shape[a].max(1) as f64).max(1.0);
        }
        autos.retain(|a| !small.contains(a));
        if autos.is_empty() {
            return;
        }
    }
}

/// dask's `round_to`: prefer a length that divides the axis evenly when one is
/// within a factor of two below the ideal.
fn round_to(ideal: usize, len: usize) -> usize {
    if ideal >= len {
        return len.max(1);
    }
    let nblocks = len.div_ceil(ideal);
    let even = len.div_ceil(nblocks);
    if even * 2 >= ideal { even } else { ideal }
}

fn uniform_lengths(n: usize, size: usize) -> Vec<usize> {
    if n == 0 {
        return vec![0];
    }
    let mut v = vec![size; n / size];
    if !n.is_multiple_of(size) {
        v.push(n % size);
    }
    v
}

impl From<usize> for ChunkSpec {
    fn from(size: usize) -> Self {
        ChunkSpec::uniform(AxisChunks::Size(size))
    }
}
impl From<i32> for ChunkSpec {
    fn from(size: i32) -> Self {
        ChunkSpec::uniform(signed_axis(size as i64))
    }
}
impl From<&str> for ChunkSpec {
    /// `"auto"` gives [`ChunkSpec::auto`]; anything else is treated as auto as well
    /// (there is no other named spec).
    fn from(_: &str) -> Self {
        ChunkSpec::auto()
    }
}

fn signed_axis(size: i64) -> AxisChunks {
    if size < 0 { AxisChunks::Whole } else { AxisChunks::Size(size as usize) }
}

macro_rules! from_array_spec {
    ($t:ty) => {
        impl<const N: usize> From<[$t; N]> for ChunkSpec {
            fn from(a: [$t; N]) -> Self {
                ChunkSpec::per_axis(a.iter().map(|&s| signed_axis(s as i64)).collect())
            }
        }
        impl From<&[$t]> for ChunkSpec {
            fn from(a: &[$t]) -> Self {
                ChunkSpec::per_axis(a.iter().map(|&s| signed_axis(s as i64)).collect())
            }
        }
        impl From<Vec<$t>> for ChunkSpec {
            fn from(a: Vec<$t>) -> Self {
                ChunkSpec::per_axis(a.iter().map(|&s| signed_axis(s as i64)).collect())
            }
        }
    };
}
from_array_spec!(i32);
from_array_spec!(i64);
from_array_spec!(usize);

impl From<Vec<Vec<usize>>> for ChunkSpec {
    fn from(lists: Vec<Vec<usize>>) -> Self {
        ChunkSpec::per_axis(lists.into_iter().map(AxisChunks::Explicit).collect())
    }
}
impl From<Vec<AxisChunks>> for ChunkSpec {
    fn from(axes: Vec<AxisChunks>) -> Self {
        ChunkSpec::per_axis(axes)
    }
}
impl From<&Chunks> for ChunkSpec {
    fn from(c: &Chunks) -> Self {
        ChunkSpec::per_axis(c.lengths.iter().cloned().map(AxisChunks::Explicit).collect())
    }
}

/// The resolved block grid: per axis, the list of block lengths.
///
/// An empty axis has one block of length 0; a 0-d array has one block and no axes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Chunks {
    lengths: Vec<Vec<usize>>,
    offsets: Vec<Vec<usize>>,
}

impl Chunks {
    /// Builds the grid from per-axis block lengths (not validated against a shape).
    pub fn from_lengths(lengths: Vec<Vec<usize>>) -> Self {
        let offsets = lengths
            .iter()
            .map(|l| {
                let mut acc = 0;
                let mut o = Vec::with_capacity(l.len() + 1);
                o.push(0);
                for &x in l {
                    // Saturating: a grid whose axis overflows is caught by
                    // `Chunks::size_error` when its layer is built, not here.
                    acc = usize::saturating_add(acc, x);
                    o.push(acc);
                }
                o
            })
            .collect();
        Chunks { lengths, offsets }
    }

    /// Why a layer of this grid and `itemsize` bytes per element cannot exist:
    /// more than [`MAX_BLOCKS`] blocks, an axis whose block lengths overflow
    /// `usize`, or a shape [`too_large`] for memory.
    pub(crate) fn size_error(&self, itemsize: usize) -> Option<Error> {
        let blocks = self.lengths.iter().try_fold(1usize, |acc, l| acc.checked_mul(l.len()));
        if blocks.is_none_or(|b| b > MAX_BLOCKS) {
            let per_axis: Vec<usize> = self.lengths.iter().map(Vec::len).collect();
            // The axis with the most blocks is the first to make coarser.
            let axis = (0..per_axis.len()).max_by_key(|&a| (per_axis[a], std::cmp::Reverse(a))).unwrap_or(0);
            return Some(Error::BadChunks {
                axis,
                message: format!("a grid of {per_axis:?} blocks is more than {MAX_BLOCKS} blocks; use larger blocks (along axis {axis} first)"),
            });
        }
        let mut shape = Vec::with_capacity(self.lengths.len());
        for (axis, lengths) in self.lengths.iter().enumerate() {
            let Some(n) = lengths.iter().try_fold(0usize, |acc, &x| acc.checked_add(x)) else {
                return Some(Error::BadChunks { axis, message: format!("the block lengths along axis {axis} sum to more than fits in usize") });
            };
            shape.push(n);
        }
        too_large(&shape, itemsize)
    }

    /// Block lengths per axis.
    pub fn lengths(&self) -> &[Vec<usize>] {
        &self.lengths
    }

    /// Number of axes.
    pub fn ndim(&self) -> usize {
        self.lengths.len()
    }

    /// The shape these chunks cover.
    pub fn shape(&self) -> Vec<usize> {
        self.offsets.iter().map(|o| *o.last().unwrap_or(&0)).collect()
    }

    /// Number of blocks along each axis.
    pub fn grid(&self) -> Vec<usize> {
        self.lengths.iter().map(Vec::len).collect()
    }

    /// Total number of blocks.
    pub fn num_blocks(&self) -> usize {
        self.lengths.iter().map(Vec::len).product()
    }

    /// Start offset of block `i` along `axis` (`i == nblocks` gives the axis length).
    pub fn offset(&self, axis: usize, i: usize) -> usize {
        self.offsets[axis][i]
    }

    /// Block boundaries along `axis`, starting with 0 and ending at the length.
    pub fn boundaries(&self, axis: usize) -> &[usize] {
        &self.offsets[axis]
    }

    /// Shape of the block with multi-index `idx`.
    pub fn block_shape(&self, idx: &[usize]) -> Vec<usize> {
        idx.iter().zip(&self.lengths).map(|(&i, l)| l[i]).collect()
    }

    /// Start of the block with multi-index `idx`, per axis.
    pub fn block_start(&self, idx: &[usize]) -> Vec<usize> {
        idx.iter().zip(&self.offsets).map(|(&i, o)| o[i]).collect()
    }

    /// The largest block's element count.
    pub fn max_block_elems(&self) -> usize {
        self.lengths.iter().map(|l| l.iter().copied().max().unwrap_or(0)).product()
    }

    /// C-order linear block number of a multi-index.
    pub fn linear(&self, idx: &[usize]) -> usize {
        let mut lin = 0;
        for (&i, l) in idx.iter().zip(&self.lengths) {
            lin = lin * l.len() + i;
        }
        lin
    }

    /// Multi-index of a C-order linear block number, written into `out`.
    pub fn unravel_into(&self, mut lin: usize, out: &mut Vec<usize>) {
        out.clear();
        out.resize(self.lengths.len(), 0);
        for (a, l) in self.lengths.iter().enumerate().rev() {
            out[a] = lin % l.len();
            lin /= l.len();
        }
    }

    /// Multi-index of a C-order linear block number.
    pub fn unravel(&self, lin: usize) -> Vec<usize> {
        let mut v = Vec::new();
        self.unravel_into(lin, &mut v);
        v
    }

    /// Index of the block along `axis` that holds element `pos` (`pos` < length).
    pub fn block_of(&self, axis: usize, pos: usize) -> usize {
        let o = &self.offsets[axis];
        // partition_point gives the first boundary > pos; the block starts one before.
        o.partition_point(|&b| b <= pos).saturating_sub(1).min(self.lengths[axis].len() - 1)
    }

    /// Whether every block boundary of `other` on `axis` is a boundary of `self`.
    pub fn refines_axis(&self, other: &Chunks, axis: usize) -> bool {
        other.offsets[axis].iter().all(|b| self.offsets[axis].binary_search(b).is_ok())
    }
}

/// `n` cut into the fewest pieces of at most `most` elements (`most` 0 counts
/// as 1), as equal as possible, the longer ones first; no pieces for `n == 0`.
pub(crate) fn even_pieces(n: usize, most: usize) -> impl Iterator<Item = usize> {
    let count = n.div_ceil(most.max(1));
    (0..count).map(move |p| n / count + usize::from(p < n % count))
}

/// Calls `f` with every multi-index in the box `lo..hi` (every `lo[a] < hi[a]`),
/// in C order.
pub(crate) fn for_each_in_box(lo: &[usize], hi: &[usize], mut f: impl FnMut(&[usize])) {
    let mut cur = lo.to_vec();
    loop {
        f(&cur);
        let mut a = cur.len();
        loop {
            if a == 0 {
                return;
            }
            a -= 1;
            cur[a] += 1;
            if cur[a] < hi[a] {
                break;
            }
            cur[a] = lo[a];
        }
    }
}

/// For the block `start..start + shape` of an array of shape `full`, whose first
/// `outer.len()` axes have lengths `outer` and whose remaining axes form runs of
/// consecutive global indices: calls `f` with the global C-order flat index of
/// each run's first element, runs in C order. Every `outer` length must be > 0.
pub(crate) fn for_each_run_start(full: &[usize], start: &[usize], outer: &[usize], mut f: impl FnMut(u64)) {
    let mut gstride = vec![1u64; full.len()];
    for a in (0..full.len().saturating_sub(1)).rev() {
        gstride[a] = gstride[a + 1] * full[a + 1] as u64;
    }
    let base: u64 = start.iter().zip(&gstride).map(|(&s, &g)| s as u64 * g).sum();
    for_each_in_box(&vec![0; outer.len()], outer, |c| f(base + c.iter().zip(&gstride).map(|(&c, &s)| c as u64 * s).sum::<u64>()));
}

/// The common refinement of several boundary lists over the same length: every
/// boundary of every input, sorted and deduplicated, as block lengths.
pub(crate) fn refine(boundaries: &[&[usize]]) -> Vec<usize> {
    let mut all: Vec<usize> = boundaries.iter().flat_map(|b| b.iter().copied()).collect();
    all.sort_unstable();
    all.dedup();
    if all.len() < 2 {
        return vec![all.first().copied().unwrap_or(0)];
    }
    all.windows(2).map(|w| w[1] - w[0]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_and_whole() {
        let c = ChunkSpec::from([4, -1]).resolve(&[10, 7], DType::F64).unwrap();
        assert_eq!(c.lengths(), &[vec![4, 4, 2], vec![7]]);
        assert_eq!(c.block_of(0, 9), 2);
        assert_eq!(c.block_of(0, 4), 1);
        assert_eq!(c.block_of(0, 3), 0);
    }

    #[test]
    fn auto_targets_bytes_and_square_blocks() {
        let c = ChunkSpec::auto().with_auto_bytes(8 * 1000 * 1000).resolve(&[100_000, 100_000], DType::F64).unwrap();
        assert_eq!(c.lengths()[0][0], 1000);
        assert_eq!(c.lengths()[1][0], 1000);
        // A short axis is taken whole and the other gets the rest of the budget.
        let c = ChunkSpec::auto().with_auto_bytes(8 * 1000 * 1000).resolve(&[1_000_000, 10], DType::F64).unwrap();
        assert_eq!(c.lengths()[1], vec![10]);
        assert_eq!(c.lengths()[0][0], 100_000);
    }

    #[test]
    fn explicit_must_sum() {
        let e = ChunkSpec::from(vec![vec![2, 3]]).resolve(&[6], DType::F64).unwrap_err();
        assert!(e.to_string().contains("sum to 5, axis length is 6"), "{e}");
    }

    #[test]
    fn empty_axis_and_zero_d() {
        let c = ChunkSpec::from(3).resolve(&[0, 5], DType::F32).unwrap();
        assert_eq!(c.lengths(), &[vec![0], vec![3, 2]]);
        let c = ChunkSpec::auto().resolve(&[], DType::F32).unwrap();
        assert_eq!(c.num_blocks(), 1);
    }

    #[test]
    fn oversized_shapes_and_grids_are_errors() {
        let e = ChunkSpec::from(1).resolve(&[1 << 30, 1 << 30], DType::U8).unwrap_err();
        assert!(e.to_string().contains("more than 16777216 blocks"), "{e}");
        let e = ChunkSpec::auto().resolve(&[usize::MAX, 3], DType::F64).unwrap_err();
        assert!(e.to_string().contains("larger than isize::MAX bytes"), "{e}");
        // Elements fit in usize, bytes do not.
        let e = ChunkSpec::auto().resolve(&[1 << 62], DType::F64).unwrap_err();
        assert!(e.to_string().contains("[4611686018427387904]"), "{e}");
        assert!(ChunkSpec::from(-1).resolve(&[1 << 62], DType::U8).is_ok());
        let e = ChunkSpec::from(vec![vec![usize::MAX, 1]]).resolve(&[0], DType::F64).unwrap_err();
        assert!(e.to_string().contains("sum to more than fits in usize"), "{e}");
        // Grids made by operations (not by a chunk spec) are checked too.
        let overflowing = Chunks::from_lengths(vec![vec![usize::MAX, 2]]);
        assert!(overflowing.size_error(1).unwrap().to_string().contains("sum to more than fits"));
        let e = Chunks::from_lengths(vec![vec![1 << 61, 1 << 61]]).size_error(8).unwrap();
        assert!(e.to_string().contains("larger than isize::MAX bytes"), "{e}");
        assert!(Chunks::from_lengths(vec![vec![1 << 61, 1 << 61]]).size_error(1).is_none());
        let e = Chunks::from_lengths(vec![vec![1; 1 << 12], vec![1; 1 << 13]]).size_error(8).unwrap();
        assert!(e.to_string().contains("more than 16777216 blocks"), "{e}");
        // The axis named is the one with the most blocks.
        assert!(matches!(e, Error::BadChunks { axis: 1, .. }), "{e:?}");
        // A layer of no element type is checked, and named, by its element count.
        let e = Chunks::from_lengths(vec![vec![usize::MAX / 2, 1 << 62]]).size_error(0).unwrap();
        assert!(e.to_string().contains("more than isize::MAX elements") && !e.to_string().contains("bytes per element"), "{e}");
        assert!(Chunks::from_lengths(vec![vec![0], vec![usize::MAX / 2, usize::MAX / 2]]).size_error(8).is_none());
        assert!(ChunkSpec::from(1).resolve(&[usize::MAX, 0], DType::F64).is_err());
        assert!(ChunkSpec::from(10).resolve(&[1 << 20, 0], DType::F64).is_ok());
    }

    #[test]
    fn refinement() {
        assert_eq!(refine(&[&[0, 4, 10], &[0, 3, 6, 10]]), vec![3, 1, 2, 4]);
    }
}
