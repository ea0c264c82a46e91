//! `cumsum` / `cumprod` along an axis: a scan inside each block, then a chain of
//! carries (the running total entering each block), added back blockwise.

use std::marker::PhantomData;
use std::sync::Arc;

use ndarray::{ArrayD, Axis};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::{Element, Number};
use crate::error::Result;
use crate::graph::{BlockOp, Node, SELF, block_as};

#[derive(Clone, Copy)]
enum Scan {
    Sum,
    Prod,
}

impl Scan {
    #[inline]
    fn apply<S: Number>(self, a: S, b: S) -> S {
        match self {
            Scan::Sum => a.add(b),
            Scan::Prod => a.mul(b),
        }
    }
    fn identity<S: Number>(self) -> S {
        match self {
            Scan::Sum => S::ZERO,
            Scan::Prod => S::ONE,
        }
    }
}

/// The scan of one block, in the accumulator type.
struct Local<T, S> {
    axis: usize,
    scan: Scan,
    _t: PhantomData<fn(T) -> S>,
}
impl<T: Element, S: Number> BlockOp for Local<T, S> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, node.inputs[0].chunks.linear(idx)));
    }
    fn run(&self, node: &Node, _: &[usize], inputs: &[&Block]) -> Result<Block> {
        let mut a: ArrayD<S> = block_as::<T>(inputs[0], node, "scan")?.mapv(|x| x.cast::<S>());
        let scan = self.scan;
        a.accumulate_axis_inplace(Axis(self.axis), |&prev, cur| *cur = scan.apply(prev, *cur));
        Ok(Arc::new(a))
    }
}

/// The total entering block `j` along the axis: carry(j-1) combined with the last
/// slice of scan(j-1), a chain through the layer's own blocks. Blocks have length
/// 1 along the axis.
struct Carry<S> {
    axis: usize,
    scan: Scan,
    _t: PhantomData<fn() -> S>,
}
impl<S: Number> BlockOp for Carry<S> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        if idx[self.axis] > 0 {
            let mut prev = idx.to_vec();
            prev[self.axis] -= 1;
            out.push((SELF, node.chunks.linear(&prev)));
            out.push((0, node.inputs[0].chunks.linear(&prev)));
        }
    }
    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let shape = node.chunks.block_shape(idx);
        if inputs.is_empty() {
            return Ok(Arc::new(ArrayD::from_elem(shape, self.scan.identity::<S>())));
        }
        let mut carry = block_as::<S>(inputs[0], node, "carry")?.clone();
        let local = block_as::<S>(inputs[1], node, "scan")?;
        let n = local.len_of(Axis(self.axis));
        if n > 0 {
            let last = local.index_axis(Axis(self.axis), n - 1).insert_axis(Axis(self.axis));
            let scan = self.scan;
            carry.zip_mut_with(&last, |c, &l| *c = scan.apply(*c, l));
        }
        Ok(Arc::new(carry))
    }
}

/// scan(j) combined with carry(j), broadcast along the axis.
struct Apply<S> {
    axis: usize,
    scan: Scan,
    _t: PhantomData<fn() -> S>,
}
impl<S: Number> BlockOp for Apply<S> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, node.inputs[0].chunks.linear(idx)));
        if idx[self.axis] > 0 {
            out.push((1, node.inputs[1].chunks.linear(idx)));
        }
    }
    fn run(&self, node: &Node, _: &[usize], inputs: &[&Block]) -> Result<Block> {
        if inputs.len() == 1 {
            return Ok(inputs[0].clone());
        }
        let mut out = block_as::<S>(inputs[0], node, "scan")?.clone();
        let carry = block_as::<S>(inputs[1], node, "carry")?;
        let scan = self.scan;
        out.zip_mut_with(carry, |o, &c| *o = scan.apply(c, *o));
        Ok(Arc::new(out))
    }
}

fn cumulative<T: Element, S: Number>(x: &Array<T>, axis: isize, scan: Scan, name: &str) -> Result<Array<S>> {
    x.check()?;
    let axis = crate::ops::reduce::normalize_axes(&[axis], x.ndim())?[0];
    let chunks = x.chunks().clone();
    let local = Node::new(
        format!("{name}-block"),
        S::DTYPE,
        chunks.clone(),
        vec![x.node.clone()],
        Local::<T, S> { axis, scan, _t: PhantomData },
    );
    let nb = chunks.lengths()[axis].len();
    if nb == 1 {
        return Array::built(local);
    }
    let mut carry_lengths = chunks.lengths().to_vec();
    carry_lengths[axis] = vec![1; nb];
    let carry = Node::new(
        format!("{name}-carry"),
        S::DTYPE,
        Chunks::from_lengths(carry_lengths),
        vec![local.clone()],
        Carry::<S> { axis, scan, _t: PhantomData },
    );
    let out = Node::new(name, S::DTYPE, chunks, vec![local, carry], Apply::<S> { axis, scan, _t: PhantomData });
    Array::built(out)
}

impl<T: Element> Array<T> {
    /// Cumulative sum along `axis` (in `i64` for integers).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::arange(1, 6, 1, 2).unwrap();
    /// assert_eq!(x.cumsum(0).unwrap().compute().unwrap().as_slice().unwrap(), &[1, 3, 6, 10, 15]);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::BadAxis`] when `axis` is out of range.
    pub fn cumsum(&self, axis: isize) -> Result<Array<T::Sum>> {
        cumulative(self, axis, Scan::Sum, "cumsum")
    }

    /// Cumulative product along `axis` (in `i64` for integers).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::from_vec(&[4], vec![1, 2, 3, 4], 3).unwrap();
    /// // NumPy: np.cumprod(x)
    /// assert_eq!(x.cumprod(0).unwrap().compute().unwrap().as_slice().unwrap(), &[1, 2, 6, 24]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::cumsum`].
    pub fn cumprod(&self, axis: isize) -> Result<Array<T::Sum>> {
        cumulative(self, axis, Scan::Prod, "cumprod")
    }
}
