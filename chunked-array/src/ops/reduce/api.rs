//! Reduction methods on [`Array`].

use std::marker::PhantomData;

use crate::array::Array;
use crate::element::{Element, Number};
use crate::error::Result;
use crate::ops::reduce::reducers::{Arg, Extreme, NanExtreme, NanMean, Prod, Sum, Truth, Var};
use crate::ops::reduce::{DEFAULT_SPLIT_EVERY, reduction};

/// Which axes a reduction runs over, whether it keeps them, and the tree fan-in.
///
/// Converts from `None` (every axis, NumPy's `axis=None`), an axis (`0`, `-1`),
/// several axes (`[0, 2]`) or a full options value:
///
/// ```
/// use chunked_array::{Array, ReduceOptions};
/// let x = Array::<f64>::ones(&[4, 6], 2).unwrap();
/// assert_eq!(x.sum(None).unwrap().shape(), Vec::<usize>::new());
/// assert_eq!(x.sum(0).unwrap().shape(), vec![6]);
/// assert_eq!(x.sum(ReduceOptions::axes([1]).keepdims(true)).unwrap().shape(), vec![4, 1]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReduceOptions {
    /// Axes to reduce; `None` reduces every axis.
    pub axes: Option<Vec<isize>>,
    /// Keep reduced axes with length 1.
    pub keepdims: bool,
    /// Partials merged per tree node (default 4, as dask).
    pub split_every: usize,
}

impl Default for ReduceOptions {
    fn default() -> Self {
        ReduceOptions { axes: None, keepdims: false, split_every: DEFAULT_SPLIT_EVERY }
    }
}

impl ReduceOptions {
    /// Reduce over every axis.
    pub fn all() -> Self {
        Self::default()
    }
    /// Reduce over the given axes.
    pub fn axes(axes: impl AsRef<[isize]>) -> Self {
        ReduceOptions { axes: Some(axes.as_ref().to_vec()), ..Self::default() }
    }
    /// Keep reduced axes as length 1.
    pub fn keepdims(mut self, keep: bool) -> Self {
        self.keepdims = keep;
        self
    }
    /// Partials merged per tree node.
    pub fn split_every(mut self, n: usize) -> Self {
        self.split_every = n;
        self
    }
}

impl From<Option<isize>> for ReduceOptions {
    fn from(axis: Option<isize>) -> Self {
        match axis {
            None => Self::all(),
            Some(a) => Self::axes([a]),
        }
    }
}
impl From<isize> for ReduceOptions {
    fn from(axis: isize) -> Self {
        Self::axes([axis])
    }
}
impl From<i32> for ReduceOptions {
    fn from(axis: i32) -> Self {
        Self::axes([axis as isize])
    }
}
impl<const N: usize> From<[isize; N]> for ReduceOptions {
    fn from(axes: [isize; N]) -> Self {
        Self::axes(axes)
    }
}
impl From<&[isize]> for ReduceOptions {
    fn from(axes: &[isize]) -> Self {
        Self::axes(axes)
    }
}
impl From<Vec<isize>> for ReduceOptions {
    fn from(axes: Vec<isize>) -> Self {
        Self::axes(axes)
    }
}
impl<const N: usize> From<[i32; N]> for ReduceOptions {
    fn from(axes: [i32; N]) -> Self {
        Self::axes(axes.map(|a| a as isize))
    }
}

impl<T: Element> Array<T> {
    fn reduce_with<R: crate::ops::reduce::Reducer<In = T>>(
        &self,
        name: &str,
        r: R,
        o: ReduceOptions,
    ) -> Result<Array<R::Out>> {
        reduction(name, self, r, o.axes.as_deref(), o.keepdims, o.split_every)
    }

    /// Sum (integers and bools accumulate in `i64`, as NumPy).
    ///
    /// # Errors
    /// [`crate::Error::BadAxis`] for axes out of range or repeated.
    pub fn sum(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T::Sum>> {
        self.reduce_with("sum", Sum::<T, T::Sum> { skip_nan: false, _t: PhantomData }, axes.into())
    }

    /// Sum ignoring NaNs.
    ///
    /// # Errors
    /// As [`Array::sum`].
    pub fn nansum(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T::Sum>> {
        self.reduce_with("nansum", Sum::<T, T::Sum> { skip_nan: true, _t: PhantomData }, axes.into())
    }

    /// Product (in `i64` for integers).
    ///
    /// # Errors
    /// As [`Array::sum`].
    pub fn prod(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T::Sum>> {
        self.reduce_with("prod", Prod::<T, T::Sum>(PhantomData), axes.into())
    }

    /// Arithmetic mean (in `f64` for integers). The mean of nothing is NaN.
    ///
    /// # Errors
    /// As [`Array::sum`].
    pub fn mean(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T::Mean>> {
        let o = axes.into();
        let count = self.reduced_count(&o)?;
        let total = self.reduce_with("mean", Sum::<T, T::Mean> { skip_nan: false, _t: PhantomData }, o)?;
        let inv = 1.0 / count as f64;
        Ok(crate::ops::elementwise::unary(&total, "mean-divide", move |s: T::Mean| {
            s.mul(<T::Mean as Element>::from_f64(inv))
        }))
    }

    /// Mean of the non-NaN elements (NaN where there are none).
    ///
    /// # Errors
    /// As [`Array::sum`].
    pub fn nanmean(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T::Mean>> {
        self.reduce_with("nanmean", NanMean::<T>(PhantomData), axes.into())
    }

    /// Variance with `ddof` delta degrees of freedom (`ddof = 0`: population).
    ///
    /// # Errors
    /// As [`Array::sum`].
    pub fn var(&self, axes: impl Into<ReduceOptions>, ddof: usize) -> Result<Array<T::Mean>> {
        let o = axes.into();
        if self.node.device.is_some() {
            return self.var_on_device(o, ddof, false);
        }
        self.reduce_with("var", Var::<T> { ddof: ddof as f64, sqrt: false, _t: PhantomData }, o)
    }

    /// `var`/`std` of a device array by the device's kernels: the mean, then
    /// the sum of squared deviations from it (the textbook two passes; the
    /// one-pass moments the host merges have no device kernel). In `T::Mean`
    /// arithmetic, as CuPy computes it.
    fn var_on_device(&self, o: ReduceOptions, ddof: usize, sqrt: bool) -> Result<Array<T::Mean>> {
        let count = self.reduced_count(&o)?;
        let mean = self.mean(ReduceOptions { keepdims: true, ..o.clone() })?;
        let deviation = &self.astype::<T::Mean>() - &mean;
        let squares = (&deviation * &deviation).reduce_with(
            "var",
            Sum::<T::Mean, T::Mean> { skip_nan: false, _t: PhantomData },
            o,
        )?;
        // As the host's: m2 / max(n - ddof, 0).
        let scale = 1.0 / (count as f64 - ddof as f64).max(0.0);
        Ok(crate::ops::elementwise::unary(
            &squares,
            if sqrt { "std-finish" } else { "var-finish" },
            move |m2: T::Mean| {
                let v = m2.to_f64() * scale;
                <T::Mean as Element>::from_f64(if sqrt { v.sqrt() } else { v })
            },
        ))
    }

    /// Standard deviation with `ddof`.
    ///
    /// # Errors
    /// As [`Array::sum`].
    pub fn std(&self, axes: impl Into<ReduceOptions>, ddof: usize) -> Result<Array<T::Mean>> {
        let o = axes.into();
        if self.node.device.is_some() {
            return self.var_on_device(o, ddof, true);
        }
        self.reduce_with("std", Var::<T> { ddof: ddof as f64, sqrt: true, _t: PhantomData }, o)
    }

    /// Whether any element is non-zero / true.
    ///
    /// # Errors
    /// As [`Array::sum`].
    pub fn any(&self, axes: impl Into<ReduceOptions>) -> Result<Array<bool>> {
        self.reduce_with("any", Truth::<T> { all: false, _t: PhantomData }, axes.into())
    }

    /// Whether every element is non-zero / true.
    ///
    /// # Errors
    /// As [`Array::sum`].
    pub fn all(&self, axes: impl Into<ReduceOptions>) -> Result<Array<bool>> {
        self.reduce_with("all", Truth::<T> { all: true, _t: PhantomData }, axes.into())
    }

    fn reduced_count(&self, o: &ReduceOptions) -> Result<usize> {
        let shape = self.shape();
        Ok(match &o.axes {
            None => shape.iter().product(),
            Some(a) => crate::ops::reduce::normalize_axes(a, shape.len())?.iter().map(|&i| shape[i]).product(),
        })
    }
}

impl<T: Number> Array<T> {
    /// Minimum; NaN propagates.
    ///
    /// # Errors
    /// As [`Array::sum`], and [`crate::Error::InvalidArgument`] when a reduced axis is empty.
    pub fn min(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T>> {
        self.reduce_with("min", Extreme::<T> { max: false, _t: PhantomData }, axes.into())
    }

    /// Maximum; NaN propagates.
    ///
    /// # Errors
    /// As [`Array::min`].
    pub fn max(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T>> {
        self.reduce_with("max", Extreme::<T> { max: true, _t: PhantomData }, axes.into())
    }

    /// Minimum ignoring NaNs (NaN where all are NaN).
    ///
    /// # Errors
    /// As [`Array::min`].
    pub fn nanmin(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T>> {
        self.reduce_with("nanmin", NanExtreme::<T> { max: false, _t: PhantomData }, axes.into())
    }

    /// Maximum ignoring NaNs (NaN where all are NaN).
    ///
    /// # Errors
    /// As [`Array::min`].
    pub fn nanmax(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T>> {
        self.reduce_with("nanmax", NanExtreme::<T> { max: true, _t: PhantomData }, axes.into())
    }

    /// Index of the minimum along `axis`, or in the flattened array for `None`.
    /// The first occurrence wins; a NaN counts as the minimum (NumPy's rules).
    ///
    /// # Errors
    /// [`crate::Error::BadAxis`]; [`crate::Error::InvalidArgument`] when empty.
    pub fn argmin(&self, axis: Option<isize>) -> Result<Array<i64>> {
        self.arg(axis, false)
    }

    /// Index of the maximum along `axis`, or in the flattened array for `None`.
    ///
    /// # Errors
    /// As [`Array::argmin`].
    pub fn argmax(&self, axis: Option<isize>) -> Result<Array<i64>> {
        self.arg(axis, true)
    }

    fn arg(&self, axis: Option<isize>, max: bool) -> Result<Array<i64>> {
        let name = if max { "argmax" } else { "argmin" };
        match axis {
            Some(a) => self.reduce_with(name, Arg::<T, false> { max, _t: PhantomData }, ReduceOptions::axes([a])),
            None => self.reduce_with(name, Arg::<T, true> { max, _t: PhantomData }, ReduceOptions::all()),
        }
    }
}
