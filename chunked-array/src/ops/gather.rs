//! `take_array`: the rows of an array picked by a chunked, lazy array of
//! indices (dask's `x[idx]` with a dask array of integers), in three layers
//! whose tasks each hold about a block, whatever the arrays' sizes:
//!
//! 1. Requests: each block of indices, checked and bucketed by the block of
//!    `x` each index falls in (the row within that block, and where it goes
//!    in the output block).
//! 2. Pieces: for output block j and block b of `x`, the rows of b that j
//!    asked for, in the order asked.
//! 3. Output: block j places its pieces' rows where its requests say.
//!
//! `RandomState::shuffle` and `choice_of` gather through it by a permutation
//! or a choice of indices, so no task needs the whole array.

use std::sync::Arc;

use ndarray::{ArrayD, Axis, IxDyn};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::wire::Wire;
use crate::graph::{BlockOp, Node, block_as};
use crate::ops::sorting::lanes::LaneSet;

/// What the three layers share: the blocks of `x` along axis 0.
struct Plan {
    /// Rows of `x` (the length of axis 0).
    rows: usize,
    /// Block boundaries of `x` along axis 0 (`m + 1` of them).
    bounds: Vec<usize>,
}

impl Plan {
    fn m(&self) -> usize {
        self.bounds.len() - 1
    }
}

/// Layer 1: a block of indices as one lane per block of `x`: values the rows
/// within that block, index the places in the output block.
struct Requests {
    plan: Arc<Plan>,
}

impl BlockOp for Requests {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, node.inputs[0].chunks.linear(idx)));
    }

    fn wire(&self) -> Option<Wire> {
        Some(LaneSet::<i64>::wire())
    }

    fn output_bytes(&self, node: &Node, idx: &[usize]) -> Option<usize> {
        Some(node.chunks.block_shape(idx)[0] * 16 + (self.plan.m() + 1) * 8)
    }

    fn run(&self, node: &Node, _: &[usize], inputs: &[&Block]) -> Result<Block> {
        let indices = block_as::<i64>(inputs[0], node, "indices")?;
        let plan = &self.plan;
        let n = plan.rows as i64;
        // Two passes (a counting sort by source block): each index's block,
        // then every index written straight to its lane.
        let mut blocks = Vec::with_capacity(indices.len());
        let mut counts = vec![0u64; plan.m()];
        for &i in indices.iter() {
            if i < -n || i >= n {
                return Err(Error::invalid("index", i, format!("is out of bounds for {n} rows")));
            }
            let row = if i < 0 { i + n } else { i } as usize;
            let b = plan.bounds.partition_point(|&start| start <= row) - 1;
            counts[b] += 1;
            blocks.push(b as u32);
        }
        let mut bounds = vec![0u64];
        bounds.extend(counts.iter().scan(0, |sum, &c| {
            *sum += c;
            Some(*sum)
        }));
        let mut next: Vec<usize> = bounds[..plan.m()].iter().map(|&b| b as usize).collect();
        let (mut values, mut index) = (vec![0i64; indices.len()], vec![0i64; indices.len()]);
        for (place, (&i, &b)) in indices.iter().zip(&blocks).enumerate() {
            let b = b as usize;
            let row = if i < 0 { i + n } else { i } as usize;
            (values[next[b]], index[next[b]]) = ((row - plan.bounds[b]) as i64, place as i64);
            next[b] += 1;
        }
        Ok(Arc::new(LaneSet { bounds, values, index, counts: Vec::new() }))
    }
}

/// The requests block `j`, checked against the plan.
fn requests_of<'a>(block: &'a Block, node: &Node, plan: &Plan) -> Result<&'a LaneSet<i64>> {
    let set = LaneSet::<i64>::of(block, node, true)?;
    if set.lanes() != plan.m() {
        return Err(Error::invalid("gather requests", set.lanes(), format!("must hold {} lanes", plan.m())));
    }
    Ok(set)
}

/// Layer 2: at axis-0 index `j * m + b`, the rows of block b of `x` that
/// output block j asked for.
struct Pieces<T> {
    plan: Arc<Plan>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for Pieces<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let m = self.plan.m();
        let mut source = idx.to_vec();
        source[0] = idx[0] % m;
        out.push((0, node.inputs[0].chunks.linear(&source)));
        out.push((1, idx[0] / m));
    }

    fn wire(&self) -> Option<Wire> {
        Some(Wire::elements::<T>())
    }

    fn output_bytes(&self, node: &Node, idx: &[usize]) -> Option<usize> {
        // On average a block of x gives an output block its share of the rows.
        let m = self.plan.m();
        let shape = node.inputs[0].chunks.block_shape(&[&[idx[0] % m], &idx[1..]].concat());
        let out_rows = node.inputs[1].chunks.block_shape(&[idx[0] / m])[0];
        let row: usize = shape[1..].iter().product();
        Some(shape[0].saturating_mul(out_rows) / self.plan.rows.max(1) * row * std::mem::size_of::<T>())
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let x = block_as::<T>(inputs[0], node, "source")?;
        let requests = requests_of(inputs[1], node, &self.plan)?;
        let rows = requests.lane(idx[0] % self.plan.m());
        if let Some(&bad) = rows.iter().find(|&&r| r as usize >= x.shape()[0]) {
            return Err(Error::invalid(
                "gather request",
                bad,
                format!("is past the {} rows of its block", x.shape()[0]),
            ));
        }
        let width: usize = x.shape()[1..].iter().product();
        let mut shape = x.shape().to_vec();
        shape[0] = rows.len();
        let Some(source) = x.as_slice() else {
            let rows: Vec<usize> = rows.iter().map(|&r| r as usize).collect();
            return Ok(Arc::new(x.select(Axis(0), &rows)));
        };
        let mut picked = Vec::with_capacity(rows.len() * width);
        if width == 1 {
            picked.extend(rows.iter().map(|&r| source[r as usize]));
        } else {
            rows.iter().for_each(|&r| picked.extend_from_slice(&source[r as usize * width..][..width]));
        }
        Ok(Arc::new(ArrayD::from_shape_vec(IxDyn(&shape), picked).expect("rows of the block's width")))
    }
}

/// Layer 3: output block j from its requests and its m pieces.
struct Output<T> {
    plan: Arc<Plan>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for Output<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let m = self.plan.m();
        out.push((0, idx[0]));
        let mut piece = idx.to_vec();
        for b in 0..m {
            piece[0] = idx[0] * m + b;
            out.push((1, node.inputs[1].chunks.linear(&piece)));
        }
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let shape = node.chunks.block_shape(idx);
        let requests = requests_of(inputs[0], node, &self.plan)?;
        let mut out = ArrayD::<T>::from_elem(IxDyn(&shape), T::default());
        for (b, piece) in inputs[1..].iter().enumerate() {
            let piece = block_as::<T>(piece, node, "piece")?;
            let places = &requests.index[requests.range(b)];
            if piece.shape()[0] != places.len() || piece.shape()[1..] != shape[1..] {
                return Err(Error::invalid("gather piece", piece.shape(), format!("does not fit block {idx:?}")));
            }
            if let Some(&bad) = places.iter().find(|&&p| !(0..shape[0] as i64).contains(&p)) {
                return Err(Error::invalid("gather place", bad, format!("is outside block {idx:?}")));
            }
            let width: usize = shape[1..].iter().product();
            match (out.as_slice_mut(), piece.as_slice()) {
                (Some(dst), Some(src)) if width == 1 => {
                    src.iter().zip(places).for_each(|(&v, &place)| dst[place as usize] = v);
                }
                (Some(dst), Some(src)) => {
                    for (row, &place) in src.chunks_exact(width.max(1)).zip(places) {
                        dst[place as usize * width..][..width].copy_from_slice(&row[..width]);
                    }
                }
                _ => {
                    for (row, &place) in piece.outer_iter().zip(places) {
                        out.index_axis_mut(Axis(0), place as usize).assign(&row);
                    }
                }
            }
        }
        Ok(Arc::new(out))
    }
}

impl<T: Element> Array<T> {
    /// The elements of `self` at `indices` along `axis` (NumPy's `take` and
    /// dask's `x[idx]` with a chunked array of integers): the output has
    /// `indices`' length and chunks along `axis`, `self`'s elsewhere.
    /// Negative indices count from the end. Nothing is computed until the
    /// output is, and no task holds more than about one block of each.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::arange(0.0, 10.0, 1.0, 4).unwrap().reshape(&[5, 2]).unwrap();
    /// let rows = Array::<i64>::from_vec(&[4], vec![4, 0, -1, 2], 3).unwrap();
    /// let picked = x.take_array(&rows, 0).unwrap().compute().unwrap();
    /// assert_eq!(picked.as_slice().unwrap(), &[8.0, 9.0, 0.0, 1.0, 8.0, 9.0, 4.0, 5.0]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `indices` is not 1-d or `axis` is out
    /// of range; at compute time, an error naming an index outside
    /// `-len..len`.
    pub fn take_array(&self, indices: &Array<i64>, axis: isize) -> Result<Array<T>> {
        self.check()?;
        indices.check()?;
        if indices.ndim() != 1 {
            return Err(Error::invalid("indices", indices.shape(), "must be 1-d"));
        }
        let axis = crate::ops::reduce::normalize_axes(&[axis], self.ndim())?[0];
        if axis != 0 {
            return self.moveaxis(&[axis as isize], &[0])?.take_array(indices, 0)?.moveaxis(&[0], &[axis as isize]);
        }
        let chunks = self.chunks();
        let plan = Arc::new(Plan { rows: self.shape()[0], bounds: chunks.boundaries(0).to_vec() });
        let m = plan.m();
        let index_lengths = indices.chunks().lengths()[0].clone();
        let requests = Node::new(
            "gather-requests",
            DType::Intermediate,
            indices.chunks().clone(),
            vec![indices.node.clone()],
            Requests { plan: plan.clone() },
        );
        let mut lengths = chunks.lengths().to_vec();
        lengths[0] = vec![1; index_lengths.len() * m];
        let p = std::marker::PhantomData;
        let pieces = Node::new(
            "gather-pieces",
            DType::Intermediate,
            Chunks::from_lengths(lengths.clone()),
            vec![self.node.clone(), requests.clone()],
            Pieces::<T> { plan: plan.clone(), _t: p },
        );
        lengths[0] = index_lengths;
        let out = Node::new(
            "take_array",
            T::DTYPE,
            Chunks::from_lengths(lengths),
            vec![requests, pieces],
            Output::<T> { plan, _t: p },
        );
        Ok(Array::from_node(out))
    }
}
