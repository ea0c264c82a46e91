//! Choosing elements from several arrays or along an axis: `select`,
//! `choose` and `piecewise` (fused `where` chains, one pass over the
//! inputs), and `take_along_axis`.

use std::sync::Arc;

use ndarray::{ArrayD, Axis, Zip};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{AxisChunks, ChunkSpec};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};
use crate::ops::blockwise::checked;
use crate::ops::elementwise::where_;
use crate::ops::reduce::normalize_axes;

/// One function of [`Array::piecewise`].
pub type Piece<T> = Arc<dyn Fn(T) -> T + Send + Sync>;

/// The element of `choices` each condition picks: the first true condition's
/// choice, `default` where none is (NumPy's `np.select`); conditions and
/// choices broadcast together.
///
/// ```
/// use chunked_array::{Array, select};
/// let x = Array::<i64>::arange(0, 6, 1, 4).unwrap();
/// let small = x.lt(3).unwrap();
/// let even = x.map(|v| v % 2 == 0);
/// let out = select(&[&small, &even], &[&x, &(&x * 10)], -1).unwrap();
/// assert_eq!(out.compute().unwrap().as_slice().unwrap(), &[0, 1, 2, -1, 40, -1]);
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when the lists' lengths differ or are 0;
/// [`Error::ShapeMismatch`] when the shapes do not broadcast.
pub fn select<T: Element>(conditions: &[&Array<bool>], choices: &[&Array<T>], default: T) -> Result<Array<T>> {
    if conditions.len() != choices.len() || conditions.is_empty() {
        return Err(Error::invalid(
            "condlist",
            conditions.len(),
            format!("select needs one condition per choice ({} choices), at least one", choices.len()),
        ));
    }
    let last = conditions.len() - 1;
    let mut out = where_(conditions[last], choices[last], crate::ops::elementwise::Operand::Scalar(default))?;
    for k in (0..last).rev() {
        out = where_(conditions[k], choices[k], &out)?;
    }
    Ok(out)
}

/// `choices[indices]` element by element (NumPy's `np.choose(a, choices)`
/// with `mode="raise"`): each index picks the array its element comes from.
///
/// ```
/// use chunked_array::{Array, choose};
/// let which = Array::<i64>::from_vec(&[4], vec![0, 2, 1, 0], 3).unwrap();
/// let a = Array::<f64>::full(&[4], 1.0, 2).unwrap();
/// let b = Array::<f64>::full(&[4], 2.0, 2).unwrap();
/// let c = Array::<f64>::arange(0.0, 4.0, 1.0, 4).unwrap();
/// assert_eq!(choose(&which, &[&a, &b, &c]).unwrap().compute().unwrap().as_slice().unwrap(), &[1.0, 1.0, 2.0, 1.0]);
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for no choices; [`Error::ShapeMismatch`] when
/// the shapes do not broadcast; when computed, [`Error::InvalidArgument`]
/// for an index outside `0..choices.len()`.
pub fn choose<T: Element>(indices: &Array<i64>, choices: &[&Array<T>]) -> Result<Array<T>> {
    let n = choices.len() as i64;
    if n == 0 {
        return Err(Error::invalid("choices", "[]", "choose needs at least one choice"));
    }
    let indices = checked(indices, "choose-indices", move |block| match block.iter().find(|&&i| i < 0 || i >= n) {
        Some(bad) => Err(Error::invalid("index", bad, format!("choose has {n} choices"))),
        None => Ok(()),
    })?;
    let conditions: Vec<Array<bool>> = (0..n).map(|k| indices.eq(k)).collect::<Result<_>>()?;
    let conditions: Vec<&Array<bool>> = conditions.iter().collect();
    // Every index is checked in range, so the last choice stands for the
    // rest; its `where` still reads the checked indices and broadcasts.
    let last = choices.len() - 1;
    let mut out = where_(conditions[last], choices[last], choices[last])?;
    for k in (0..last).rev() {
        out = where_(conditions[k], choices[k], &out)?;
    }
    Ok(out)
}

impl<T: Element> Array<T> {
    /// `functions[k]` of each element where `conditions[k]` is true, later
    /// conditions over earlier ones (NumPy's `np.piecewise`); one function
    /// more than conditions gives the value where none is true, else those
    /// elements are zero.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use chunked_array::{Array, Piece};
    /// let x = Array::<f64>::arange(-2.0, 3.0, 1.0, 2).unwrap();
    /// let negative = x.lt(0.0).unwrap();
    /// let pieces: Vec<Piece<f64>> = vec![Arc::new(|v| -v), Arc::new(|v| v * v)];
    /// let y = x.piecewise(&[&negative], &pieces).unwrap(); // |x| below 0, x² elsewhere
    /// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[2.0, 1.0, 0.0, 1.0, 4.0]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless there are as many functions as
    /// conditions, or one more; [`Error::ShapeMismatch`] for conditions of
    /// another shape.
    pub fn piecewise(&self, conditions: &[&Array<bool>], functions: &[Piece<T>]) -> Result<Array<T>> {
        let n = conditions.len();
        if functions.len() != n && functions.len() != n + 1 {
            return Err(Error::invalid(
                "funclist",
                functions.len(),
                format!("piecewise takes {n} or {} functions for {n} conditions", n + 1),
            ));
        }
        let apply = |f: &Piece<T>| {
            let f = f.clone();
            self.map(move |v| f(v))
        };
        let mut out = match functions.get(n) {
            Some(otherwise) => apply(otherwise),
            None => Array::zeros_like(self)?,
        };
        for (cond, f) in conditions.iter().zip(functions) {
            if cond.shape() != self.shape() {
                return Err(Error::shape("piecewise (array, condition)", &self.shape(), &cond.shape()));
            }
            out = where_(cond, apply(f), &out)?;
        }
        Ok(out)
    }

    /// The elements at `indices` along `axis`, lane by lane (NumPy's
    /// `np.take_along_axis`): `indices` has this array's shape except along
    /// `axis`, and the result has `indices`' shape; negative indices count
    /// from the end. The axis is made whole in each block.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[2, 3], vec![3.0, 1.0, 2.0, 9.0, 7.0, 8.0], 1).unwrap();
    /// let order = x.argsort(1).unwrap();
    /// let sorted = x.take_along_axis(&order, 1).unwrap();
    /// assert_eq!(sorted.compute().unwrap().as_slice().unwrap(), &[1.0, 2.0, 3.0, 7.0, 8.0, 9.0]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`]; [`Error::ShapeMismatch`] when `indices` differs
    /// from this array's shape off the axis; when computed,
    /// [`Error::InvalidArgument`] for an index out of range.
    pub fn take_along_axis(&self, indices: &Array<i64>, axis: isize) -> Result<Array<T>> {
        let axis = normalize_axes(&[axis], self.ndim())?[0];
        let (shape, index_shape) = (self.shape(), indices.shape());
        let off_axis =
            |s: &[usize]| s.iter().enumerate().filter(|(a, _)| *a != axis).map(|(_, n)| *n).collect::<Vec<_>>();
        if index_shape.len() != shape.len() || off_axis(&shape) != off_axis(&index_shape) {
            return Err(Error::shape(&format!("take_along_axis (axis {axis}: array, indices)"), &shape, &index_shape));
        }
        let mut spec = vec![AxisChunks::Auto; shape.len()];
        spec[axis] = AxisChunks::Whole;
        let lanes = self.rechunk(ChunkSpec::per_axis(spec))?;
        let mut lengths = lanes.chunks().lengths().to_vec();
        lengths[axis] = vec![index_shape[axis]];
        let aligned = indices.rechunk(lengths)?;
        let op = TakeAlong::<T> { axis, _t: std::marker::PhantomData };
        let inputs = vec![lanes.node.clone(), aligned.node.clone()];
        let out = Array::built(Node::new("take_along_axis", T::DTYPE, aligned.chunks().clone(), inputs, op))?;
        out.rechunk(indices.chunks())
    }
}

/// Each lane of the indices' block read from the array's lane.
struct TakeAlong<T> {
    axis: usize,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for TakeAlong<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, node.inputs[0].chunks.linear(idx)));
        out.push((1, node.inputs[1].chunks.linear(idx)));
    }

    fn run(&self, node: &Node, _: &[usize], inputs: &[&Block]) -> Result<Block> {
        let values = block_as::<T>(inputs[0], node, "array")?;
        let indices = block_as::<i64>(inputs[1], node, "indices")?;
        let n = values.shape()[self.axis] as i64;
        if let Some(bad) = indices.iter().find(|&&i| i < -n || i >= n) {
            return Err(Error::invalid("index", bad, format!("is out of range for axis {} of length {n}", self.axis)));
        }
        let mut out = ArrayD::from_elem(indices.raw_dim(), T::default());
        Zip::from(out.lanes_mut(Axis(self.axis)))
            .and(indices.lanes(Axis(self.axis)))
            .and(values.lanes(Axis(self.axis)))
            .for_each(|mut dest, index, lane| {
                for (d, &i) in dest.iter_mut().zip(index) {
                    *d = lane[(if i < 0 { i + n } else { i }) as usize];
                }
            });
        Ok(Arc::new(out))
    }
}
