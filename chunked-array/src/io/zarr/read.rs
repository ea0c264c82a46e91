//! Reading: the source layer whose blocks are stored chunks (or the parts of
//! them a block touches).

use std::sync::Arc;

use ndarray::ArrayD;
use zarrs::array::{ArraySubset, CodecOptions};

use crate::block::Block;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node};
use crate::io::zarr::location::*;

/// Reads one block per task.
pub(super) struct ZarrSource {
    pub(super) array: Arc<ZArray>,
    pub(super) location: Location,
    /// Blocks are the stored chunks: errors name the chunk file.
    pub(super) aligned: bool,
    pub(super) options: CodecOptions,
}

impl BlockOp for ZarrSource {
    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}

    fn run(&self, node: &Node, idx: &[usize], _: &[&Block]) -> Result<Block> {
        let start = node.chunks.block_start(idx);
        let shape = node.chunks.block_shape(idx);
        let ranges: Vec<std::ops::Range<u64>> =
            start.iter().zip(&shape).map(|(&s, &n)| s as u64..(s + n) as u64).collect();
        let subset = ArraySubset::new_with_ranges(&ranges);
        let chunk: Vec<u64> = idx.iter().map(|&i| i as u64).collect();
        // A block that is exactly one whole stored chunk decodes straight into its
        // array; others (edge chunks cut at the array's end, other blockings) go
        // through the subset path.
        let whole_chunk = self.aligned
            && self.array.chunk_shape(&chunk).is_ok_and(|c| c.iter().zip(&shape).all(|(c, &n)| c.get() == n as u64));
        let read = if whole_chunk {
            crate::block::dispatch_dtype!(node.dtype, read_chunk::<_>(self, &chunk))
        } else {
            crate::block::dispatch_dtype!(node.dtype, read_subset::<_>(self, &subset))
        };
        read.expect("a zarr source holds elements").map_err(|e| {
            let what = if self.aligned {
                self.location.chunk_name(&self.array, &chunk)
            } else {
                format!("{} region {ranges:?}", self.location.name())
            };
            Error::io(what, e)
        })
    }
}

pub(super) fn read_chunk<T: Element + zarrs::array::ElementOwned>(
    source: &ZarrSource,
    chunk: &[u64],
) -> Option<std::result::Result<Block, zarrs::array::ArrayError>> {
    Some(source.array.retrieve_chunk_opt::<ArrayD<T>>(chunk, &source.options).map(|a| Arc::new(a) as Block))
}

pub(super) fn read_subset<T: Element + zarrs::array::ElementOwned>(
    source: &ZarrSource,
    subset: &ArraySubset,
) -> Option<std::result::Result<Block, zarrs::array::ArrayError>> {
    Some(source.array.retrieve_array_subset_opt::<ArrayD<T>>(subset, &source.options).map(|a| Arc::new(a) as Block))
}
