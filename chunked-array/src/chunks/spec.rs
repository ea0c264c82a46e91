//! Chunk specifications (dask's `chunks=` argument) and how they resolve
//! against a shape into a block grid.

use crate::chunks::{Chunks, DEFAULT_AUTO_BYTES, MAX_BLOCKS};
use crate::element::DType;
use crate::error::{Error, Result};

/// How one axis is split.
///
/// ```
/// use chunked_array::{AxisChunks, ChunkSpec, DType};
/// let spec = ChunkSpec::per_axis(vec![AxisChunks::Size(4), AxisChunks::Whole, AxisChunks::Explicit(vec![1, 2])]);
/// let c = spec.resolve(&[10, 5, 3], DType::F64).unwrap();
/// assert_eq!(c.lengths(), &[vec![4, 4, 2], vec![5], vec![1, 2]]);
/// ```
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
///
/// ```
/// use chunked_array::{ChunkSpec, DType};
/// let c = ChunkSpec::from([4, -1]).resolve(&[10, 7], DType::F64).unwrap();
/// assert_eq!(c.lengths(), &[vec![4, 4, 2], vec![7]]);
/// let c = ChunkSpec::from(vec![vec![2, 3], vec![5]]).resolve(&[5, 5], DType::F64).unwrap();
/// assert_eq!(c.grid(), vec![2, 1]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkSpec {
    axes: Option<Vec<AxisChunks>>,
    uniform: AxisChunks,
    auto_bytes: usize,
    /// Why the spec was refused when it was built from something that cannot
    /// be one (a string that is no chunk spec): [`ChunkSpec::resolve`] reports it.
    invalid: Option<Error>,
}

impl ChunkSpec {
    /// Every axis `auto`, targeting [`DEFAULT_AUTO_BYTES`] per block.
    ///
    /// ```
    /// use chunked_array::{ChunkSpec, DType};
    /// // 8 MB of f64 is under the 128 MiB target: one block.
    /// let c = ChunkSpec::auto().resolve(&[1000, 1000], DType::F64).unwrap();
    /// assert_eq!(c.num_blocks(), 1);
    /// ```
    pub fn auto() -> Self {
        ChunkSpec { axes: None, uniform: AxisChunks::Auto, auto_bytes: DEFAULT_AUTO_BYTES, invalid: None }
    }

    /// One spec per axis.
    ///
    /// ```
    /// use chunked_array::{AxisChunks, ChunkSpec, DType};
    /// let spec = ChunkSpec::per_axis(vec![AxisChunks::Size(3), AxisChunks::Whole]);
    /// assert_eq!(spec, ChunkSpec::from([3, -1]));
    /// assert_eq!(spec.resolve(&[7, 2], DType::I32).unwrap().lengths(), &[vec![3, 3, 1], vec![2]]);
    /// ```
    pub fn per_axis(axes: Vec<AxisChunks>) -> Self {
        ChunkSpec { axes: Some(axes), uniform: AxisChunks::Auto, auto_bytes: DEFAULT_AUTO_BYTES, invalid: None }
    }

    /// The same spec on every axis.
    ///
    /// ```
    /// use chunked_array::{AxisChunks, ChunkSpec, DType};
    /// let spec = ChunkSpec::uniform(AxisChunks::Size(2));
    /// assert_eq!(spec, ChunkSpec::from(2usize));
    /// assert_eq!(spec.resolve(&[3, 4], DType::U8).unwrap().lengths(), &[vec![2, 1], vec![2, 2]]);
    /// ```
    pub fn uniform(axis: AxisChunks) -> Self {
        ChunkSpec { axes: None, uniform: axis, auto_bytes: DEFAULT_AUTO_BYTES, invalid: None }
    }

    /// Sets the byte target of `auto` axes.
    ///
    /// ```
    /// use chunked_array::{ChunkSpec, DType};
    /// // 800 bytes is 100 f64 values: square blocks of 10 x 10.
    /// let c = ChunkSpec::auto().with_auto_bytes(800).resolve(&[100, 100], DType::F64).unwrap();
    /// assert_eq!(c.grid(), vec![10, 10]);
    /// assert_eq!(c.max_block_elems(), 100);
    /// ```
    pub fn with_auto_bytes(mut self, bytes: usize) -> Self {
        self.auto_bytes = bytes;
        self
    }

    /// The explicit per-axis block lengths, when every axis was given that way.
    ///
    /// ```
    /// use chunked_array::ChunkSpec;
    /// let spec = ChunkSpec::from(vec![vec![2, 3], vec![5]]);
    /// assert_eq!(spec.explicit_lists(), Some(vec![vec![2, 3], vec![5]]));
    /// assert_eq!(ChunkSpec::from([2, 5]).explicit_lists(), None);
    /// ```
    pub fn explicit_lists(&self) -> Option<Vec<Vec<usize>>> {
        self.axes
            .as_ref()?
            .iter()
            .map(|a| match a {
                AxisChunks::Explicit(l) => Some(l.clone()),
                _ => None,
            })
            .collect()
    }

    /// Parses a string spec as dask's `chunks=` does: `"auto"`; a byte size
    /// such as `"100MiB"`, `"1 GB"` or `"4096"` (auto chunking with that target
    /// per block: dask reads every other string through `parse_bytes`, so a bare
    /// number is bytes too); or `"-1"` (every axis whole, as dask's `-1`).
    ///
    /// ```
    /// use chunked_array::{Array, ChunkSpec};
    /// assert_eq!(ChunkSpec::parse("1 MiB").unwrap(), ChunkSpec::auto().with_auto_bytes(1 << 20));
    /// let x = Array::<f64>::zeros(&[1024, 1024], "1 MiB").unwrap(); // 8 MiB
    /// assert!(x.num_blocks() >= 8 && x.chunks().max_block_elems() * 8 <= 1 << 20);
    /// assert!(ChunkSpec::parse("100 parsecs").is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::BadChunks`] naming the string when it is none of those.
    pub fn parse(text: &str) -> Result<ChunkSpec> {
        let s = text.trim();
        if s.eq_ignore_ascii_case("auto") {
            return Ok(ChunkSpec::auto());
        }
        if s == "-1" {
            return Ok(ChunkSpec::uniform(AxisChunks::Whole));
        }
        match crate::units::parse_bytes(s) {
            Ok(0) => Err(bad_string(text, "a zero byte target")),
            Ok(bytes) => Ok(ChunkSpec::auto().with_auto_bytes(bytes)),
            Err(_) => Err(bad_string(text, "neither \"auto\", \"-1\" nor a byte size such as \"100MiB\"")),
        }
    }

    /// Resolves the spec against a shape and element type.
    ///
    /// ```
    /// use chunked_array::{ChunkSpec, DType, Error};
    /// let c = ChunkSpec::from(4usize).resolve(&[10], DType::F32).unwrap();
    /// assert_eq!(c.lengths(), &[vec![4, 4, 2]]);
    /// // Explicit lengths must sum to the axis length.
    /// let err = ChunkSpec::from(vec![vec![2, 3]]).resolve(&[6], DType::F64).unwrap_err();
    /// assert!(matches!(err, Error::BadChunks { axis: 0, .. }));
    /// ```
    ///
    /// # Errors
    /// The error of a spec built from an invalid string (see
    /// [`ChunkSpec::parse`]); [`Error::BadChunks`] when the spec has the wrong number of axes, a zero block
    /// size on a non-empty axis, or explicit lengths that do not sum to the axis
    /// (explicit lists may hold empty blocks, as dask's chunks may: a
    /// selection's or a filtering `map_blocks`'s blocks can hold nothing).
    pub fn resolve(&self, shape: &[usize], dtype: DType) -> Result<Chunks> {
        if let Some(error) = &self.invalid {
            return Err(error.clone());
        }
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
                    return Err(Error::BadChunks {
                        axis,
                        message: format!("block length 0 for an axis of length {n}"),
                    });
                }
                AxisChunks::Size(s) => sizes[axis] = Some((*s).min(n.max(1))),
                AxisChunks::Whole => sizes[axis] = Some(n.max(1)),
                AxisChunks::Auto => {}
                AxisChunks::Explicit(list) => {
                    let Some(total) = list.iter().try_fold(0usize, |acc, &x| acc.checked_add(x)) else {
                        return Err(Error::BadChunks {
                            axis,
                            message: format!("explicit block lengths {list:?} sum to more than fits in usize"),
                        });
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
                    message: format!(
                        "shape {shape:?} in these chunks makes more than {MAX_BLOCKS} blocks; use larger blocks"
                    ),
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
pub(crate) fn too_large(shape: &[usize], itemsize: usize) -> Option<Error> {
    if shape.contains(&0) {
        return None;
    }
    let bytes = shape.iter().try_fold(itemsize.max(1), |acc, &n| acc.checked_mul(n));
    if bytes.is_some_and(|b| b <= isize::MAX as usize) {
        return None;
    }
    // Internal layers of no element type (itemsize 0) are checked by count.
    let what = if itemsize == 0 {
        "has more than isize::MAX elements".to_string()
    } else {
        format!("at {itemsize} bytes per element is larger than isize::MAX bytes")
    };
    Some(Error::invalid("shape", shape, format!("{what}, more than any memory can hold")))
}

/// Fills the `auto` axes of `sizes` so that a block holds about `target_bytes`,
/// with blocks as square as the fixed axes allow (dask's `auto_chunks`).
fn auto_sizes(
    shape: &[usize],
    itemsize: usize,
    target_bytes: usize,
    sizes: &mut [Option<usize>],
    explicit: &[Option<Vec<usize>>],
) {
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
    /// [`ChunkSpec::parse`]; a string that is no spec gives a spec whose
    /// [`ChunkSpec::resolve`] returns the parse error, so the operation taking
    /// it fails with that error.
    fn from(text: &str) -> Self {
        ChunkSpec::parse(text).unwrap_or_else(|error| ChunkSpec { invalid: Some(error), ..ChunkSpec::auto() })
    }
}

impl std::str::FromStr for ChunkSpec {
    type Err = Error;
    fn from_str(text: &str) -> Result<ChunkSpec> {
        ChunkSpec::parse(text)
    }
}

fn bad_string(text: &str, reason: &str) -> Error {
    Error::BadChunks { axis: usize::MAX, message: format!("chunk spec {text:?} is {reason}") }
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
