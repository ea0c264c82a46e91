//! The intermediate blocks of the sorts across blocks: lanes of values of any
//! lengths, with each value's position along the axis and a count per lane,
//! as bytes for the disk tier and for other ranks.

use std::any::Any;
use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn};

use crate::block::alloc::block_vec;
use crate::block::{Block, BlockValue, SpillImage};
use crate::element::{Element, WireValue};
use crate::error::{Error, Result};
use crate::graph::Node;

/// Lanes of values: lane `l` is `values[bounds[l]..bounds[l + 1]]`.
///
/// A sorted run holds one block's lanes sorted (and, for `argsort`, each
/// value's position along the whole axis in `index`); a piece holds the part
/// of one run bound for one output block, and in `counts` the run's values
/// before that part; the cuts hold each output block's bounds, two sort keys
/// per output block a lane, with their (block, position) in `index`.
pub(crate) struct LaneSet<T> {
    pub bounds: Vec<u64>,
    pub values: Vec<T>,
    pub index: Vec<i64>,
    pub counts: Vec<i64>,
}

impl<T: Element> LaneSet<T> {
    /// `lanes` lanes of `len` values each.
    pub fn uniform(lanes: usize, len: usize, values: Vec<T>, index: Vec<i64>) -> LaneSet<T> {
        let bounds = (0..=lanes).map(|l| (l * len) as u64).collect();
        LaneSet { bounds, values, index, counts: Vec::new() }
    }

    pub fn lanes(&self) -> usize {
        self.bounds.len().saturating_sub(1)
    }

    /// The range of lane `l` in `values`.
    pub fn range(&self, l: usize) -> std::ops::Range<usize> {
        self.bounds[l] as usize..self.bounds[l + 1] as usize
    }

    pub fn lane(&self, l: usize) -> &[T] {
        &self.values[self.range(l)]
    }

    /// The lane set in bytes: four length-prefixed vectors.
    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + self.nbytes());
        put_vec(&self.bounds, &mut out);
        put_vec(&self.values, &mut out);
        put_vec(&self.index, &mut out);
        put_vec(&self.counts, &mut out);
        out
    }

    /// The lane set [`LaneSet::to_bytes`] wrote; `None` for bytes that do
    /// not describe one (bounds that decrease or pass the values, an index
    /// that is neither empty nor a whole number of entries per value).
    fn from_bytes(bytes: &[u8]) -> Option<LaneSet<T>> {
        let mut rest = bytes;
        let bounds: Vec<u64> = get_vec(&mut rest)?;
        let values: Vec<T> = get_vec(&mut rest)?;
        let index: Vec<i64> = get_vec(&mut rest)?;
        let counts: Vec<i64> = get_vec(&mut rest)?;
        let ordered = bounds.windows(2).all(|w| w[0] <= w[1]);
        let fits = bounds.first().is_none_or(|&b| b == 0) && bounds.last().is_none_or(|&b| b == values.len() as u64);
        let index_fits = index.is_empty() || (!values.is_empty() && index.len().is_multiple_of(values.len()));
        (rest.is_empty() && ordered && fits && index_fits).then_some(LaneSet { bounds, values, index, counts })
    }

    fn rebuild(bytes: &[u8]) -> Option<Block> {
        LaneSet::<T>::from_bytes(bytes).map(|set| Arc::new(set) as Block)
    }

    /// The lane set `block` holds, read by a task of `node`; `with_index`:
    /// checked to carry a position per value.
    ///
    /// # Errors
    /// [`Error::DtypeMismatch`] for another kind of block,
    /// [`Error::InvalidArgument`] for positions that do not match the values.
    pub fn of<'a>(block: &'a Block, node: &Node, with_index: bool) -> Result<&'a LaneSet<T>> {
        let set = block.as_any().downcast_ref::<LaneSet<T>>().ok_or_else(|| Error::DtypeMismatch {
            key: format!("lanes input of {}", node.label()),
            expected: "lanes of values".into(),
            found: "another type".into(),
        })?;
        if with_index && set.index.len() != set.values.len() {
            return Err(Error::invalid("lanes", (set.values.len(), set.index.len()), "need one position per value"));
        }
        Ok(set)
    }

    /// How these blocks travel between ranks.
    pub fn wire() -> crate::graph::wire::Wire {
        crate::graph::wire::Wire::spill_image(LaneSet::<T>::rebuild)
    }
}

impl<T: Element> BlockValue for LaneSet<T> {
    fn nbytes(&self) -> usize {
        self.bounds.len() * 8
            + self.values.len() * std::mem::size_of::<T>()
            + (self.index.len() + self.counts.len()) * 8
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
    fn spill_image(&self) -> Option<SpillImage> {
        Some(SpillImage { bytes: self.to_bytes(), rebuild: LaneSet::<T>::rebuild })
    }
}

fn put_vec<V: WireValue>(values: &[V], out: &mut Vec<u8>) {
    out.extend_from_slice(&(values.len() as u64).to_le_bytes());
    out.reserve(values.len() * V::SIZE);
    values.iter().for_each(|v| v.put(out));
}

/// A vector [`put_vec`] wrote, taken from the front of `rest`; its length is
/// checked against the bytes left before anything is allocated.
fn get_vec<V: WireValue>(rest: &mut &[u8]) -> Option<Vec<V>> {
    let (len, tail) = rest.split_at_checked(8)?;
    let len = usize::try_from(u64::from_le_bytes(len.try_into().ok()?)).ok()?;
    let (data, tail) = tail.split_at_checked(len.checked_mul(V::SIZE)?)?;
    let values = if V::SIZE == 0 { None } else { data.chunks_exact(V::SIZE).map(V::get).collect() };
    *rest = tail;
    values
}

/// The lanes of `block` along `axis`, one after another.
pub(super) fn lanes_of<T: Element>(block: &ArrayViewD<'_, T>, axis: usize) -> Vec<T> {
    let mut out = block_vec(block.len());
    for lane in block.lanes(Axis(axis)) {
        match lane.as_slice() {
            Some(contiguous) => out.extend_from_slice(contiguous),
            None => out.extend(lane.iter().copied()),
        }
    }
    out
}

/// The block of `shape` whose lanes along `axis`, one after another, are
/// `values` (the inverse of [`lanes_of`]).
///
/// # Errors
/// [`Error::InvalidArgument`] when `values` does not fill the shape (lanes
/// read back from bytes that disagree with their block).
pub(super) fn block_of_lanes<T: Element>(values: Vec<T>, shape: &[usize], axis: usize) -> Result<ArrayD<T>> {
    let mut lane_major: Vec<usize> = shape.to_vec();
    let len = lane_major.remove(axis);
    lane_major.push(len);
    let count = values.len();
    let a = ArrayD::from_shape_vec(IxDyn(&lane_major), values)
        .map_err(|_| Error::invalid("sorted lanes", count, format!("do not fill a block of shape {shape:?}")))?;
    if axis + 1 == shape.len() {
        return Ok(a);
    }
    let mut order: Vec<usize> = (0..shape.len() - 1).collect();
    order.insert(axis, shape.len() - 1);
    Ok(a.permuted_axes(IxDyn(&order)).as_standard_layout().into_owned())
}

/// The number of lanes along `axis` in a block of `shape`.
pub(super) fn lane_count(shape: &[usize], axis: usize) -> usize {
    shape.iter().enumerate().filter(|&(a, _)| a != axis).map(|(_, n)| n).product()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_sets_survive_their_bytes_and_refuse_bad_ones() {
        let set = LaneSet {
            bounds: vec![0, 2, 3],
            values: vec![1.5f64, -2.0, 7.0],
            index: vec![4, 0, 9],
            counts: vec![3, 1],
        };
        let bytes = set.to_bytes();
        let back = LaneSet::<f64>::from_bytes(&bytes).unwrap();
        assert_eq!(
            (back.bounds, back.values, back.index, back.counts),
            (set.bounds, set.values, set.index, set.counts)
        );
        assert!(LaneSet::<f64>::from_bytes(&bytes[..bytes.len() - 1]).is_none());
        // A length claiming far more values than the bytes hold.
        let mut huge = bytes.clone();
        huge[32..40].copy_from_slice(&(1u64 << 60).to_le_bytes());
        assert!(LaneSet::<f64>::from_bytes(&huge).is_none());
        // Bounds past the values.
        let bad = LaneSet { bounds: vec![0, 5], values: vec![1i32, 2], index: vec![], counts: vec![] };
        assert!(LaneSet::<i32>::from_bytes(&bad.to_bytes()).is_none());
    }

    #[test]
    fn lanes_go_back_into_their_block() {
        let a = ArrayD::from_shape_vec(IxDyn(&[2, 3, 4]), (0..24).collect::<Vec<i64>>()).unwrap();
        for axis in 0..3 {
            let lanes = lanes_of(&a.view(), axis);
            assert_eq!(block_of_lanes(lanes, &[2, 3, 4], axis).unwrap(), a);
        }
        assert_eq!(lanes_of(&a.view(), 0)[..4], [0, 12, 1, 13]);
        assert!(block_of_lanes(vec![1i64; 5], &[2, 3], 1).is_err());
    }
}
