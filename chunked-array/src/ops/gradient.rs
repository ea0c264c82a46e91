//! NumPy's `gradient`: central differences inside, one-sided differences of
//! first or second order at the edges, with uniform or per-position spacing.
//! Each block reads a halo of `edge_order` positions along the axis.

use ndarray::{ArrayD, ArrayViewD, Axis};

use crate::array::Array;
use crate::element::{Element, Float};
use crate::error::{Error, Result};
use crate::ops::blockwise::BlockInfo;
use crate::ops::overlap::Overlap;
use crate::ops::pad::Boundary;
use crate::ops::reduce::normalize_axes;

/// The distance between neighbouring positions along the axis.
///
/// ```
/// use chunked_array::Spacing;
/// assert_eq!(Spacing::default(), Spacing::Uniform(1.0));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Spacing {
    /// The same step everywhere (NumPy's scalar `varargs`).
    Uniform(f64),
    /// The coordinate of every position (NumPy's coordinate array).
    Coordinates(Vec<f64>),
}

impl Default for Spacing {
    fn default() -> Self {
        Spacing::Uniform(1.0)
    }
}

/// Options of [`Array::gradient_with`].
///
/// ```
/// use chunked_array::{Array, GradientOptions, Spacing};
/// let x = Array::<f64>::from_vec(&[4], vec![0.0, 1.0, 4.0, 9.0], 2).unwrap();
/// let opts = GradientOptions { spacing: Spacing::Uniform(0.5), edge_order: 2 };
/// let g = x.gradient_with(0, &opts).unwrap().compute().unwrap();
/// assert_eq!(g.as_slice().unwrap(), &[0.0, 4.0, 8.0, 12.0]); // np.gradient(x, 0.5, edge_order=2)
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct GradientOptions {
    /// The spacing along the axis.
    pub spacing: Spacing,
    /// The order of the one-sided differences at the edges: 1 or 2.
    pub edge_order: usize,
}

impl Default for GradientOptions {
    fn default() -> Self {
        GradientOptions { spacing: Spacing::default(), edge_order: 1 }
    }
}

impl<T: Float> Array<T> {
    /// The gradient along `axis` with unit spacing (NumPy's `np.gradient(x,
    /// axis=axis)`): `(x[i+1] - x[i-1]) / 2` inside, first differences at
    /// the two ends.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[5], vec![1.0, 2.0, 4.0, 7.0, 11.0], 2).unwrap();
    /// assert_eq!(x.gradient(0).unwrap().compute().unwrap().as_slice().unwrap(), &[1.0, 1.5, 2.5, 3.5, 4.0]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::gradient_with`].
    pub fn gradient(&self, axis: isize) -> Result<Array<T>> {
        self.gradient_with(axis, &GradientOptions::default())
    }

    /// [`Array::gradient`] with a spacing and edge order (NumPy's
    /// `np.gradient(x, spacing, axis=axis, edge_order=...)`).
    ///
    /// ```
    /// use chunked_array::{Array, GradientOptions, Spacing};
    /// let y = Array::<f64>::from_vec(&[4], vec![0.0, 1.0, 4.0, 9.0], 3).unwrap();
    /// let opts = GradientOptions { spacing: Spacing::Coordinates(vec![0.0, 1.0, 2.0, 3.0]), edge_order: 1 };
    /// assert_eq!(y.gradient_with(-1, &opts).unwrap().compute().unwrap().as_slice().unwrap(), &[1.0, 2.0, 4.0, 5.0]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`]; [`Error::InvalidArgument`] for an edge order other
    /// than 1 or 2, an axis shorter than `edge_order + 1`, or coordinates
    /// whose count is not the axis's length.
    pub fn gradient_with(&self, axis: isize, opts: &GradientOptions) -> Result<Array<T>> {
        let axis = normalize_axes(&[axis], self.ndim())?[0];
        let n = self.shape()[axis];
        let order = opts.edge_order;
        if order != 1 && order != 2 {
            return Err(Error::invalid("edge_order", order, "gradient takes edge_order 1 or 2"));
        }
        if n < order + 1 {
            return Err(Error::invalid(
                "axis length",
                n,
                format!("gradient needs at least edge_order + 1 = {} elements along axis {axis}", order + 1),
            ));
        }
        if let Spacing::Coordinates(x) = &opts.spacing
            && x.len() != n
        {
            return Err(Error::invalid(
                "coordinates",
                x.len(),
                format!("needs one per position ({n}) along axis {axis}"),
            ));
        }
        let mut depth = vec![(0, 0); self.ndim()];
        depth[axis] = (order, order);
        let spacing = opts.spacing.clone();
        self.map_overlap_with(
            move |block, info| gradient_block(block, info, axis, &spacing, order),
            &Overlap::asymmetric(&depth, Boundary::None),
        )
    }
}

/// The gradient of every lane of a block with its halo (positions outside
/// the block's own are left zero: they are trimmed).
fn gradient_block<T: Float>(
    block: ArrayViewD<'_, T>,
    info: &BlockInfo<'_>,
    axis: usize,
    spacing: &Spacing,
    order: usize,
) -> ArrayD<T> {
    let mut out = ArrayD::from_elem(block.raw_dim(), T::default());
    let (before, after) = info.halo[axis];
    let own = block.shape()[axis] - before - after;
    let n = info.array_shape[axis];
    let start = info.start[axis];
    for (lane, mut dest) in block.lanes(Axis(axis)).into_iter().zip(out.lanes_mut(Axis(axis))) {
        for j in before..before + own {
            let g = start + j - before;
            let f = |k: isize| lane[(j as isize + k) as usize];
            dest[j] = match spacing {
                Spacing::Uniform(h) => uniform(f, g, n, *h, order),
                Spacing::Coordinates(x) => by_coordinates(f, g, n, x, order),
            };
        }
    }
    out
}

/// NumPy's formulas for a uniform step `h` at position `g` of `n`; `f(k)`
/// is the value `k` positions away.
fn uniform<T: Float>(f: impl Fn(isize) -> T, g: usize, n: usize, h: f64, order: usize) -> T {
    let c = |v: f64| -> T { Element::cast(v) };
    match (g, order) {
        (0, 1) => f(1).sub(f(0)).div(c(h)),
        (0, _) => c(-1.5 / h).mul(f(0)).add(c(2.0 / h).mul(f(1))).add(c(-0.5 / h).mul(f(2))),
        (g, 1) if g == n - 1 => f(0).sub(f(-1)).div(c(h)),
        (g, _) if g == n - 1 => c(0.5 / h).mul(f(-2)).add(c(-2.0 / h).mul(f(-1))).add(c(1.5 / h).mul(f(0))),
        _ => f(1).sub(f(-1)).div(c(2.0 * h)),
    }
}

/// NumPy's formulas for coordinates `x` at position `g` of `n` (computed in
/// f64, as NumPy promotes to the coordinates' type).
fn by_coordinates<T: Float>(f: impl Fn(isize) -> T, g: usize, n: usize, x: &[f64], order: usize) -> T {
    let v = |k: isize| -> f64 { f(k).cast() };
    let out = match (g, order) {
        (0, 1) => (v(1) - v(0)) / (x[1] - x[0]),
        (0, _) => {
            let (d1, d2) = (x[1] - x[0], x[2] - x[1]);
            let a = -(2.0 * d1 + d2) / (d1 * (d1 + d2));
            let b = (d1 + d2) / (d1 * d2);
            let c = -d1 / (d2 * (d1 + d2));
            a * v(0) + b * v(1) + c * v(2)
        }
        (g, 1) if g == n - 1 => (v(0) - v(-1)) / (x[g] - x[g - 1]),
        (g, _) if g == n - 1 => {
            let (d1, d2) = (x[g - 1] - x[g - 2], x[g] - x[g - 1]);
            let a = d2 / (d1 * (d1 + d2));
            let b = -(d2 + d1) / (d1 * d2);
            let c = (2.0 * d2 + d1) / (d2 * (d1 + d2));
            a * v(-2) + b * v(-1) + c * v(0)
        }
        (g, _) => {
            let (d1, d2) = (x[g] - x[g - 1], x[g + 1] - x[g]);
            let a = -d2 / (d1 * (d1 + d2));
            let b = (d2 - d1) / (d1 * d2);
            let c = d1 / (d2 * (d1 + d2));
            a * v(-1) + b * v(0) + c * v(1)
        }
    };
    Element::cast(out)
}
