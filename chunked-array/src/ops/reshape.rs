//! `reshape` with dask's rules: C order, rechunking the input where needed so that
//! every output block is exactly one input block read in C order (a copy of one
//! block, never a gather across blocks).
//!
//! The shapes are split into groups of axes with equal products, from the last
//! axis back. Within a group, the first axis longer than 1 carries the blocks:
//! every other input axis is made one block, and the carrying axis' blocks are
//! made multiples of what the output's later axes of the group need, so each
//! input block is a whole number of output rows. Where making the later axes
//! whole enlarges the blocks past the block-size limit (128 MiB by default), the
//! carrying axis' blocks are made shorter, down to one such multiple, as dask's
//! `reshape_rechunk` limits them.

use std::sync::Arc;

use ndarray::IxDyn;

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{BlockSizeOptions, ChunkSpec, Chunks};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};

/// Pairs of axis ranges (input, output) with equal products, in order.
fn groups(input: &[usize], output: &[usize]) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let (mut i, mut o) = (input.len(), output.len());
    let mut out = Vec::new();
    while i > 0 || o > 0 {
        let (ie, oe) = (i, o);
        let (mut pi, mut po) = (1usize, 1usize);
        loop {
            let took_both = i < ie && o < oe;
            if pi == po && took_both {
                break;
            }
            if i == 0 && o == 0 {
                break;
            }
            if (pi <= po && i > 0) || o == 0 {
                i -= 1;
                pi *= input[i];
            } else {
                o -= 1;
                po *= output[o];
            }
        }
        // Leading length-1 axes left on one side join this group.
        if i > 0 && o == 0 {
            while i > 0 && input[i - 1] == 1 {
                i -= 1;
            }
        }
        if o > 0 && i == 0 {
            while o > 0 && output[o - 1] == 1 {
                o -= 1;
            }
        }
        out.push((i..ie, o..oe));
    }
    out.reverse();
    out
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Splits `n` into blocks that are multiples of `unit`, near `target` long.
fn multiples(n: usize, unit: usize, target: usize) -> Vec<usize> {
    let size = (target / unit).max(1) * unit;
    let mut v = vec![size; n / size];
    if !n.is_multiple_of(size) {
        v.push(n % size);
    }
    if v.is_empty() {
        v.push(n);
    }
    v
}

/// Output block k is input block k (same C-order block number) reshaped.
struct Reshape<T> {
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for Reshape<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, node.chunks.linear(idx)));
    }
    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let a = block_as::<T>(inputs[0], node, "reshape")?;
        let shape = node.chunks.block_shape(idx);
        let out = crate::block::alloc::owned_block(a.view())
            .into_shape_with_order(IxDyn(&shape))
            .map_err(|e| Error::invalid("block", idx, e.to_string()))?;
        Ok(Arc::new(out))
    }
}

impl<T: Element> Array<T> {
    /// The same elements in C order under another shape (NumPy's `reshape`); one
    /// entry may be `-1` (inferred). The input is rechunked where needed (dask's
    /// rules) so that every output block is one input block.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::arange(0, 24, 1, 5).unwrap();
    /// let y = x.reshape(&[2, -1, 4]).unwrap();
    /// assert_eq!(y.shape(), vec![2, 3, 4]);
    /// assert_eq!(y.compute().unwrap().iter().cloned().collect::<Vec<_>>(), (0..24).collect::<Vec<i64>>());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the sizes differ or more than one `-1` is given.
    pub fn reshape(&self, shape: &[isize]) -> Result<Array<T>> {
        self.reshape_with(shape, &BlockSizeOptions::default())
    }

    /// [`Array::reshape`] with the block-size limit (bytes) that input blocks
    /// enlarged by the reshape are kept under where they can be.
    ///
    /// ```
    /// use chunked_array::{Array, BlockSizeOptions};
    /// let x = Array::<f64>::from_fn(&[6, 4], [2, 2], |i| (i[0] * 4 + i[1]) as f64).unwrap();
    /// // Whole rows per block (4 f64 = 32 bytes), kept under 32 bytes: one row each.
    /// let y = x.reshape_with(&[24], &BlockSizeOptions { block_size_limit: 32 }).unwrap();
    /// assert_eq!(y.chunks().lengths()[0], vec![4; 6]);
    /// assert_eq!(y.compute().unwrap().as_slice().unwrap(), (0..24).map(f64::from).collect::<Vec<_>>().as_slice());
    /// ```
    ///
    /// # Errors
    /// As [`Array::reshape`].
    pub fn reshape_with(&self, shape: &[isize], options: &BlockSizeOptions) -> Result<Array<T>> {
        let block_size_limit = options.block_size_limit;
        self.check()?;
        let own = self.shape();
        let total: usize = own.iter().product();
        let unknown = shape.iter().filter(|&&d| d < 0).count();
        if unknown > 1 || shape.iter().any(|&d| d < -1) {
            return Err(Error::invalid("shape", shape, "at most one -1 and no other negative lengths"));
        }
        let product = |dims: &mut dyn Iterator<Item = usize>| -> Option<usize> {
            let dims: Vec<usize> = dims.collect();
            if dims.contains(&0) { Some(0) } else { dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)) }
        };
        let cannot = || Error::invalid("shape", shape, format!("cannot hold the {total} elements of shape {own:?}"));
        let known = product(&mut shape.iter().filter(|&&d| d >= 0).map(|&d| d as usize)).ok_or_else(cannot)?;
        if unknown == 1 && known == 0 {
            // NumPy: the -1 of (0, -1) could be any length.
            return Err(Error::invalid("shape", shape, "has a 0 length, so its -1 length is ambiguous"));
        }
        let target: Vec<usize> =
            shape.iter().map(|&d| if d < 0 { total.checked_div(known).unwrap_or(0) } else { d as usize }).collect();
        if product(&mut target.iter().copied()) != Some(total) {
            return Err(cannot());
        }
        if target == own {
            return Ok(self.clone());
        }
        if total == 0 {
            // Nothing to move: one (empty) block.
            let whole = self.rechunk(ChunkSpec::from(own.iter().map(|&n| vec![n]).collect::<Vec<_>>()))?;
            let chunks = Chunks::from_lengths(target.iter().map(|&n| vec![n]).collect());
            let op = Reshape::<T> { _t: std::marker::PhantomData };
            return Array::built(Node::new("reshape", T::DTYPE, chunks, vec![whole.node.clone()], op));
        }
        let lengths = self.chunks().lengths();
        let mut in_chunks: Vec<Vec<usize>> = lengths.to_vec();
        let mut out_chunks: Vec<Vec<usize>> = vec![Vec::new(); target.len()];
        for (ir, or) in groups(&own, &target) {
            if ir.len() == 1 && or.len() == 1 {
                out_chunks[or.start] = lengths[ir.start].clone();
                continue;
            }
            // The group's blocks run along its first axis longer than 1 on each
            // side (leading length-1 axes are one block); every later axis is whole.
            let carrier = |r: &std::ops::Range<usize>, dims: &[usize]| r.clone().find(|&a| dims[a] > 1);
            let (ci, co) = (carrier(&ir, &own), carrier(&or, &target));
            let (Some(ci), Some(co)) = (ci, co) else {
                // Only length-1 axes on some side: every axis of the group is one block.
                for a in ir.clone() {
                    in_chunks[a] = vec![own[a]];
                }
                for a in or.clone() {
                    out_chunks[a] = vec![target[a]];
                }
                continue;
            };
            for a in ir.clone().filter(|&a| a != ci) {
                in_chunks[a] = vec![own[a]];
            }
            let p_in_tail: usize = own[ci + 1..ir.end].iter().product();
            let p_out_tail: usize = target[co + 1..or.end].iter().product();
            // Blocks of the carrying input axis must hold whole output rows.
            let unit = p_out_tail / gcd(p_out_tail, p_in_tail);
            let current = lengths[ci].iter().copied().max().unwrap_or(1);
            let ok = lengths[ci].iter().rev().skip(1).all(|&l| l % unit == 0);
            in_chunks[ci] = if ok { lengths[ci].clone() } else { multiples(own[ci], unit, current) };
            // Whole later axes enlarge the blocks: keep them under the limit by
            // shortening the carrying axis' blocks (whole multiples of `unit`).
            let longest = |a: usize| lengths[a].iter().copied().max().unwrap_or(1).max(1);
            let tail_before: usize = (ci + 1..ir.end).map(longest).fold(1, usize::saturating_mul);
            let others: usize = (0..own.len()).filter(|a| !ir.contains(a)).map(longest).fold(1, usize::saturating_mul);
            let longest_allowed =
                (block_size_limit / std::mem::size_of::<T>().max(1)) / p_in_tail.max(1).saturating_mul(others).max(1);
            if p_in_tail > tail_before && in_chunks[ci].iter().any(|&l| l > longest_allowed.max(unit)) {
                in_chunks[ci] = multiples(own[ci], unit, longest_allowed);
            }
            for a in or.clone() {
                out_chunks[a] = vec![target[a]];
            }
            out_chunks[co] = in_chunks[ci].iter().map(|&l| l * p_in_tail / p_out_tail).collect();
        }
        let aligned = self.rechunk_with(ChunkSpec::from(in_chunks), options)?;
        if aligned.num_blocks() != out_chunks.iter().map(Vec::len).product::<usize>() {
            return Err(Error::invalid("shape", shape, format!("reshape of {own:?} could not be planned blockwise")));
        }
        let op = Reshape::<T> { _t: std::marker::PhantomData };
        Array::built(Node::new("reshape", T::DTYPE, Chunks::from_lengths(out_chunks), vec![aligned.node.clone()], op))
    }
}
