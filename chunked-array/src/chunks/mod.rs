//! Chunk specifications and the block grid they produce (dask's tuple of tuples).

mod spec;

pub(crate) use spec::too_large;
pub use spec::{AxisChunks, ChunkSpec};

use crate::error::Error;

/// Default target size of a block for `auto` chunking (dask's `array.chunk-size`).
pub const DEFAULT_AUTO_BYTES: usize = 128 * 1024 * 1024;

/// The options of operations that cut or merge blocks ([`crate::Array::rechunk_with`],
/// [`crate::Array::reshape_with`], [`crate::Array::repeat_with`], [`crate::Array::take_with`]): the
/// most bytes one task's blocks may take, dask's `block_size_limit`.
///
/// ```
/// use chunked_array::{Array, BlockSizeOptions};
/// let x = Array::<f64>::ones(&[400, 400], [400, 10]).unwrap();
/// let y = x.rechunk_with([10, 400], &BlockSizeOptions { block_size_limit: 64 << 10 }).unwrap();
/// assert_eq!(y.chunks().lengths()[0].len(), 40);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockSizeOptions {
    /// Most bytes one task may hold (its output and inputs); default 128 MiB,
    /// as dask's `array.chunk-size`.
    pub block_size_limit: usize,
}

impl Default for BlockSizeOptions {
    fn default() -> Self {
        BlockSizeOptions { block_size_limit: DEFAULT_AUTO_BYTES }
    }
}

/// Most blocks an array may have (2^24, about 16.7 million). Its task graph
/// holds a task per block with its key and dependency lists, and the grid keeps
/// two `usize` per block of each axis: a far larger grid would exhaust memory
/// while the graph is built (2^31 blocks on one axis is 32 GiB of block lengths
/// and offsets alone) instead of failing with a clear error.
pub const MAX_BLOCKS: usize = 1 << 24;

/// The resolved block grid: per axis, the list of block lengths.
///
/// An empty axis has one block of length 0; a 0-d array has one block and no axes.
///
/// ```
/// use chunked_array::{Array, Chunks};
/// let x = Array::<f64>::zeros(&[10, 6], [4, 3]).unwrap();
/// let c: &Chunks = x.chunks();
/// assert_eq!(c.lengths(), &[vec![4, 4, 2], vec![3, 3]]);
/// assert_eq!(c.grid(), vec![3, 2]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Chunks {
    lengths: Vec<Vec<usize>>,
    offsets: Vec<Vec<usize>>,
}

impl Chunks {
    /// Builds the grid from per-axis block lengths (not validated against a shape).
    ///
    /// ```
    /// use chunked_array::Chunks;
    /// let c = Chunks::from_lengths(vec![vec![4, 4, 2], vec![3, 3]]);
    /// assert_eq!(c.shape(), vec![10, 6]);
    /// assert_eq!(c.boundaries(0), &[0, 4, 8, 10]);
    /// ```
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
                message: format!(
                    "a grid of {per_axis:?} blocks is more than {MAX_BLOCKS} blocks; use larger blocks (along axis {axis} first)"
                ),
            });
        }
        let mut shape = Vec::with_capacity(self.lengths.len());
        for (axis, lengths) in self.lengths.iter().enumerate() {
            let Some(n) = lengths.iter().try_fold(0usize, |acc, &x| acc.checked_add(x)) else {
                return Some(Error::BadChunks {
                    axis,
                    message: format!("the block lengths along axis {axis} sum to more than fits in usize"),
                });
            };
            shape.push(n);
        }
        too_large(&shape, itemsize)
    }

    /// Block lengths per axis.
    ///
    /// ```
    /// use chunked_array::Chunks;
    /// let c = Chunks::from_lengths(vec![vec![4, 4, 2], vec![3, 3]]);
    /// assert_eq!(c.lengths()[0], vec![4, 4, 2]);
    /// assert_eq!(c.lengths()[1], vec![3, 3]);
    /// ```
    pub fn lengths(&self) -> &[Vec<usize>] {
        &self.lengths
    }

    /// Number of axes.
    ///
    /// ```
    /// use chunked_array::Chunks;
    /// let c = Chunks::from_lengths(vec![vec![4, 4, 2], vec![3, 3]]);
    /// assert_eq!(c.ndim(), 2);
    /// assert_eq!(Chunks::from_lengths(vec![]).ndim(), 0);
    /// ```
    pub fn ndim(&self) -> usize {
        self.lengths.len()
    }

    /// The shape these chunks cover.
    ///
    /// ```
    /// use chunked_array::Chunks;
    /// let c = Chunks::from_lengths(vec![vec![4, 4, 2], vec![3, 3]]);
    /// assert_eq!(c.shape(), vec![10, 6]);
    /// ```
    pub fn shape(&self) -> Vec<usize> {
        self.offsets.iter().map(|o| *o.last().unwrap_or(&0)).collect()
    }

    /// Number of blocks along each axis.
    ///
    /// ```
    /// use chunked_array::Chunks;
    /// let c = Chunks::from_lengths(vec![vec![4, 4, 2], vec![3, 3]]);
    /// assert_eq!(c.grid(), vec![3, 2]);
    /// ```
    pub fn grid(&self) -> Vec<usize> {
        self.lengths.iter().map(Vec::len).collect()
    }

    /// Total number of blocks.
    ///
    /// ```
    /// use chunked_array::Chunks;
    /// let c = Chunks::from_lengths(vec![vec![4, 4, 2], vec![3, 3]]);
    /// assert_eq!(c.num_blocks(), 6);
    /// assert_eq!(Chunks::from_lengths(vec![]).num_blocks(), 1); // 0-d
    /// ```
    pub fn num_blocks(&self) -> usize {
        self.lengths.iter().map(Vec::len).product()
    }

    /// Start offset of block `i` along `axis` (`i == nblocks` gives the axis length).
    ///
    /// ```
    /// use chunked_array::Chunks;
    /// let c = Chunks::from_lengths(vec![vec![4, 4, 2], vec![3, 3]]);
    /// assert_eq!(c.offset(0, 2), 8);
    /// assert_eq!(c.offset(0, 3), 10);
    /// assert_eq!(c.offset(1, 1), 3);
    /// ```
    pub fn offset(&self, axis: usize, i: usize) -> usize {
        self.offsets[axis][i]
    }

    /// Block boundaries along `axis`, starting with 0 and ending at the length.
    ///
    /// ```
    /// use chunked_array::Chunks;
    /// let c = Chunks::from_lengths(vec![vec![4, 4, 2], vec![3, 3]]);
    /// assert_eq!(c.boundaries(0), &[0, 4, 8, 10]);
    /// assert_eq!(c.boundaries(1), &[0, 3, 6]);
    /// ```
    pub fn boundaries(&self, axis: usize) -> &[usize] {
        &self.offsets[axis]
    }

    /// Shape of the block with multi-index `idx`.
    ///
    /// ```
    /// use chunked_array::Chunks;
    /// let c = Chunks::from_lengths(vec![vec![4, 4, 2], vec![3, 3]]);
    /// assert_eq!(c.block_shape(&[2, 1]), vec![2, 3]);
    /// assert_eq!(c.block_shape(&[0, 0]), vec![4, 3]);
    /// ```
    pub fn block_shape(&self, idx: &[usize]) -> Vec<usize> {
        idx.iter().zip(&self.lengths).map(|(&i, l)| l[i]).collect()
    }

    /// Start of the block with multi-index `idx`, per axis.
    ///
    /// ```
    /// use chunked_array::Chunks;
    /// let c = Chunks::from_lengths(vec![vec![4, 4, 2], vec![3, 3]]);
    /// assert_eq!(c.block_start(&[2, 1]), vec![8, 3]);
    /// ```
    pub fn block_start(&self, idx: &[usize]) -> Vec<usize> {
        idx.iter().zip(&self.offsets).map(|(&i, o)| o[i]).collect()
    }

    /// The largest block's element count.
    ///
    /// ```
    /// use chunked_array::Chunks;
    /// let c = Chunks::from_lengths(vec![vec![4, 4, 2], vec![3, 3]]);
    /// assert_eq!(c.max_block_elems(), 4 * 3);
    /// ```
    pub fn max_block_elems(&self) -> usize {
        self.lengths.iter().map(|l| l.iter().copied().max().unwrap_or(0)).product()
    }

    /// C-order linear block number of a multi-index.
    ///
    /// ```
    /// use chunked_array::Chunks;
    /// let c = Chunks::from_lengths(vec![vec![4, 4, 2], vec![3, 3]]);
    /// assert_eq!(c.linear(&[0, 1]), 1);
    /// assert_eq!(c.linear(&[2, 1]), 5);
    /// ```
    pub fn linear(&self, idx: &[usize]) -> usize {
        let mut lin = 0;
        for (&i, l) in idx.iter().zip(&self.lengths) {
            lin = lin * l.len() + i;
        }
        lin
    }

    /// Multi-index of a C-order linear block number, written into `out`.
    ///
    /// ```
    /// use chunked_array::Chunks;
    /// let c = Chunks::from_lengths(vec![vec![4, 4, 2], vec![3, 3]]);
    /// let mut idx = vec![9, 9, 9];
    /// c.unravel_into(3, &mut idx);
    /// assert_eq!(idx, vec![1, 1]);
    /// ```
    pub fn unravel_into(&self, mut lin: usize, out: &mut Vec<usize>) {
        out.clear();
        out.resize(self.lengths.len(), 0);
        for (a, l) in self.lengths.iter().enumerate().rev() {
            out[a] = lin % l.len();
            lin /= l.len();
        }
    }

    /// Multi-index of a C-order linear block number.
    ///
    /// ```
    /// use chunked_array::Chunks;
    /// let c = Chunks::from_lengths(vec![vec![4, 4, 2], vec![3, 3]]);
    /// assert_eq!(c.unravel(4), vec![2, 0]);
    /// assert_eq!(c.linear(&c.unravel(4)), 4);
    /// ```
    pub fn unravel(&self, lin: usize) -> Vec<usize> {
        let mut v = Vec::new();
        self.unravel_into(lin, &mut v);
        v
    }

    /// Index of the block along `axis` that holds element `pos` (`pos` < length).
    ///
    /// ```
    /// use chunked_array::Chunks;
    /// let c = Chunks::from_lengths(vec![vec![4, 4, 2], vec![3, 3]]);
    /// assert_eq!(c.block_of(0, 3), 0);
    /// assert_eq!(c.block_of(0, 4), 1);
    /// assert_eq!(c.block_of(0, 9), 2);
    /// ```
    pub fn block_of(&self, axis: usize, pos: usize) -> usize {
        let o = &self.offsets[axis];
        // partition_point gives the first boundary > pos; the block starts one before.
        o.partition_point(|&b| b <= pos).saturating_sub(1).min(self.lengths[axis].len() - 1)
    }

    /// Whether every block boundary of `other` on `axis` is a boundary of `self`.
    ///
    /// ```
    /// use chunked_array::Chunks;
    /// let fine = Chunks::from_lengths(vec![vec![2, 2, 2, 2, 2]]);
    /// let coarse = Chunks::from_lengths(vec![vec![4, 6]]);
    /// assert!(fine.refines_axis(&coarse, 0));
    /// assert!(!coarse.refines_axis(&fine, 0));
    /// ```
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
    for_each_in_box(&vec![0; outer.len()], outer, |c| {
        f(base + c.iter().zip(&gstride).map(|(&c, &s)| c as u64 * s).sum::<u64>())
    });
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
    use crate::element::DType;

    #[test]
    fn parses_dask_strings() {
        assert_eq!(ChunkSpec::parse("auto").unwrap(), ChunkSpec::auto());
        assert_eq!(ChunkSpec::parse(" AUTO ").unwrap(), ChunkSpec::auto());
        assert_eq!(ChunkSpec::parse("100MiB").unwrap(), ChunkSpec::auto().with_auto_bytes(100 << 20));
        assert_eq!(ChunkSpec::parse("1 GB").unwrap(), ChunkSpec::auto().with_auto_bytes(1_000_000_000));
        assert_eq!(ChunkSpec::parse("-1").unwrap(), ChunkSpec::uniform(AxisChunks::Whole));
        // A bare number is bytes, as dask's parse_bytes reads it.
        assert_eq!(ChunkSpec::parse("4096").unwrap(), ChunkSpec::auto().with_auto_bytes(4096));
        let whole = ChunkSpec::from("-1").resolve(&[7, 5], DType::F64).unwrap();
        assert_eq!(whole.lengths(), &[vec![7], vec![5]]);
        // A 1 MiB target over 8 MiB of f64 gives blocks of at most 1 MiB.
        let auto = ChunkSpec::from("1MiB").resolve(&[1024, 1024], DType::F64).unwrap();
        assert!(auto.max_block_elems() * 8 <= 1 << 20 && auto.num_blocks() >= 8, "{:?}", auto.lengths());
        for bad in ["100 parsecs", "", "-2", "0 MB", "auto-ish", "1e400 GB"] {
            let err = ChunkSpec::parse(bad).unwrap_err().to_string();
            assert!(err.contains(&format!("{bad:?}")), "{bad:?}: {err}");
            // Through `From<&str>` the error surfaces where the spec is used.
            let used = ChunkSpec::from(bad).resolve(&[10], DType::F64).unwrap_err().to_string();
            assert_eq!(used, err);
        }
    }

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
        assert!(
            e.to_string().contains("more than isize::MAX elements") && !e.to_string().contains("bytes per element"),
            "{e}"
        );
        assert!(Chunks::from_lengths(vec![vec![0], vec![usize::MAX / 2, usize::MAX / 2]]).size_error(8).is_none());
        assert!(ChunkSpec::from(1).resolve(&[usize::MAX, 0], DType::F64).is_err());
        assert!(ChunkSpec::from(10).resolve(&[1 << 20, 0], DType::F64).is_ok());
    }

    #[test]
    fn refinement() {
        assert_eq!(refine(&[&[0, 4, 10], &[0, 3, 6, 10]]), vec![3, 1, 2, 4]);
    }
}
