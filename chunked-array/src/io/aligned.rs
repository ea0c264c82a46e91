//! The chunking a file store writes: its chunks are the blocks it stores.

use crate::array::Array;
use crate::element::Element;
use crate::error::{Error, Result};

/// The array to store with blocks equal to the stored chunks, and that chunk
/// shape: `requested`, or for a regular chunking its chunk length per axis, or for
/// an irregular one its largest block per axis (rechunked to it).
pub(crate) fn aligned_to_stored_chunks<T: Element>(
    a: &Array<T>,
    requested: Option<&[usize]>,
) -> Result<(Array<T>, Vec<usize>)> {
    let lengths = a.chunks().lengths();
    let chunk_shape: Vec<usize> = match requested {
        Some(c) => {
            if c.len() != a.ndim() || c.contains(&0) {
                return Err(Error::invalid("chunks", c, format!("needs {} positive chunk lengths", a.ndim())));
            }
            c.to_vec()
        }
        // The largest block per axis: for a regular chunking that is its chunk
        // length; an irregular one is rechunked to it.
        None => lengths.iter().map(|l| l.iter().copied().max().unwrap_or(1).max(1)).collect(),
    };
    let regular = lengths.iter().zip(&chunk_shape).all(|(l, &c)| {
        let n: usize = l.iter().sum();
        l.len() == n.div_ceil(c).max(1) && l.iter().enumerate().all(|(i, &len)| len == c.min(n - i * c))
    });
    let source = if regular { a.clone() } else { a.rechunk(chunk_shape.clone())? };
    Ok((source, chunk_shape))
}
