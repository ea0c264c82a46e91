//! Reduction methods on [`Array`].

use std::marker::PhantomData;

use crate::array::Array;
use crate::element::{Element, Number, Real};
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
    ///
    /// ```
    /// use chunked_array::{Array, ReduceOptions};
    /// let x = Array::<i32>::from_vec(&[2, 3], vec![1, 2, 3, 4, 5, 6], [1, 2]).unwrap();
    /// // NumPy: x.sum(keepdims=True)
    /// let s = x.sum(ReduceOptions::all().keepdims(true)).unwrap();
    /// assert_eq!(s.shape(), vec![1, 1]);
    /// assert_eq!(s.compute_scalar().unwrap(), 21);
    /// ```
    pub fn all() -> Self {
        Self::default()
    }
    /// Reduce over the given axes.
    ///
    /// ```
    /// use chunked_array::{Array, ReduceOptions};
    /// let x = Array::<i32>::from_vec(&[2, 3], vec![1, 2, 3, 4, 5, 6], [1, 2]).unwrap();
    /// // NumPy: x.sum(axis=-1) and x.sum(axis=(0, 1))
    /// let rows = x.sum(ReduceOptions::axes([-1])).unwrap();
    /// assert_eq!(rows.compute().unwrap().as_slice().unwrap(), &[6, 15]);
    /// assert_eq!(x.sum(ReduceOptions::axes([0, 1])).unwrap().compute_scalar().unwrap(), 21);
    /// ```
    pub fn axes(axes: impl AsRef<[isize]>) -> Self {
        ReduceOptions { axes: Some(axes.as_ref().to_vec()), ..Self::default() }
    }
    /// Keep reduced axes as length 1.
    ///
    /// ```
    /// use chunked_array::{Array, ReduceOptions, ndarray::array};
    /// let x = Array::<i32>::from_vec(&[2, 3], vec![1, 2, 3, 4, 5, 6], [1, 2]).unwrap();
    /// // NumPy: x.mean(axis=1, keepdims=True)
    /// let m = x.mean(ReduceOptions::axes([1]).keepdims(true)).unwrap();
    /// assert_eq!(m.compute().unwrap(), array![[2.0], [5.0]].into_dyn());
    /// ```
    pub fn keepdims(mut self, keep: bool) -> Self {
        self.keepdims = keep;
        self
    }
    /// Partials merged per tree node.
    ///
    /// ```
    /// use chunked_array::{Array, ReduceOptions};
    /// let x = Array::<f64>::ones(&[16], 1).unwrap(); // 16 blocks
    /// // dask: x.sum(split_every=2): a deeper tree of smaller merges
    /// let binary = x.sum(ReduceOptions::all().split_every(2)).unwrap();
    /// let wide = x.sum(ReduceOptions::all().split_every(16)).unwrap();
    /// assert_eq!(binary.compute_scalar().unwrap(), 16.0);
    /// assert_eq!(wide.compute_scalar().unwrap(), 16.0);
    /// assert!(binary.num_tasks() > wide.num_tasks());
    /// ```
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
    pub(crate) fn reduce_with<R: crate::ops::reduce::Reducer<In = T>>(
        &self,
        name: &str,
        r: R,
        o: ReduceOptions,
    ) -> Result<Array<R::Out>> {
        reduction(name, self, r, o.axes.as_deref(), o.keepdims, o.split_every)
    }

    /// Sum (integers and bools accumulate in `i64`, as NumPy).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::from_vec(&[2, 3], vec![1, 2, 3, 4, 5, 6], [1, 2]).unwrap();
    /// // NumPy: x.sum(), x.sum(axis=0), x.sum(axis=-1)
    /// assert_eq!(x.sum(None).unwrap().compute_scalar().unwrap(), 21);
    /// assert_eq!(x.sum(0).unwrap().compute().unwrap().as_slice().unwrap(), &[5, 7, 9]);
    /// assert_eq!(x.sum(-1).unwrap().compute().unwrap().as_slice().unwrap(), &[6, 15]);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::BadAxis`] for axes out of range or repeated.
    pub fn sum(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T::Sum>> {
        self.reduce_with("sum", Sum::<T, T::Sum> { skip_nan: false, _t: PhantomData }, axes.into())
    }

    /// Sum ignoring NaNs.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_slice(&[3], &[1.0, f64::NAN, 2.0], 2).unwrap();
    /// // NumPy: np.nansum(x)
    /// assert_eq!(x.nansum(None).unwrap().compute_scalar().unwrap(), 3.0);
    /// assert!(x.sum(None).unwrap().compute_scalar().unwrap().is_nan());
    /// ```
    ///
    /// # Errors
    /// As [`Array::sum`].
    pub fn nansum(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T::Sum>> {
        self.reduce_with("nansum", Sum::<T, T::Sum> { skip_nan: true, _t: PhantomData }, axes.into())
    }

    /// Product (in `i64` for integers).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::from_vec(&[2, 2], vec![1, 2, 3, 4], 1).unwrap();
    /// // NumPy: x.prod() and x.prod(axis=0)
    /// assert_eq!(x.prod(None).unwrap().compute_scalar().unwrap(), 24);
    /// assert_eq!(x.prod(0).unwrap().compute().unwrap().as_slice().unwrap(), &[3, 8]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::sum`].
    pub fn prod(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T::Sum>> {
        self.reduce_with("prod", Prod::<T, T::Sum>(PhantomData), axes.into())
    }

    /// Arithmetic mean (in `f64` for integers). The mean of nothing is NaN.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::from_vec(&[2, 3], vec![1, 2, 3, 4, 5, 6], [1, 2]).unwrap();
    /// // NumPy: x.mean() and x.mean(axis=1), in float64
    /// assert_eq!(x.mean(None).unwrap().compute_scalar().unwrap(), 3.5);
    /// assert_eq!(x.mean(1).unwrap().compute().unwrap().as_slice().unwrap(), &[2.0, 5.0]);
    /// ```
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

    /// Whether any element is non-zero / true.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::from_vec(&[2, 2], vec![0, 1, 0, 0], 1).unwrap();
    /// // NumPy: x.any() and x.any(axis=1)
    /// assert!(x.any(None).unwrap().compute_scalar().unwrap());
    /// assert_eq!(x.any(1).unwrap().compute().unwrap().as_slice().unwrap(), &[true, false]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::sum`].
    pub fn any(&self, axes: impl Into<ReduceOptions>) -> Result<Array<bool>> {
        self.reduce_with("any", Truth::<T> { all: false, _t: PhantomData }, axes.into())
    }

    /// Whether every element is non-zero / true.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::from_vec(&[2, 2], vec![1, 1, 0, 1], 1).unwrap();
    /// // NumPy: x.all() and x.all(axis=1)
    /// assert!(!x.all(None).unwrap().compute_scalar().unwrap());
    /// assert_eq!(x.all(1).unwrap().compute().unwrap().as_slice().unwrap(), &[true, false]);
    /// ```
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

impl<T: Real> Array<T> {
    /// Mean of the non-NaN elements (NaN where there are none).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_slice(&[3], &[1.0, f64::NAN, 3.0], 2).unwrap();
    /// // NumPy: np.nanmean(x)
    /// assert_eq!(x.nanmean(None).unwrap().compute_scalar().unwrap(), 2.0);
    /// ```
    ///
    /// # Errors
    /// As [`Array::sum`].
    pub fn nanmean(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T::Mean>> {
        self.reduce_with("nanmean", NanMean::<T>(PhantomData), axes.into())
    }

    /// Variance with `ddof` delta degrees of freedom (`ddof = 0`: population).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_slice(&[4], &[1.0, 2.0, 3.0, 4.0], 2).unwrap();
    /// // NumPy: x.var() and x.var(ddof=1): squared deviations sum to 5
    /// assert!((x.var(None, 0).unwrap().compute_scalar().unwrap() - 5.0 / 4.0).abs() < 1e-12);
    /// assert!((x.var(None, 1).unwrap().compute_scalar().unwrap() - 5.0 / 3.0).abs() < 1e-12);
    /// ```
    ///
    /// # Errors
    /// As [`Array::sum`].
    pub fn var(&self, axes: impl Into<ReduceOptions>, ddof: usize) -> Result<Array<T::Mean>> {
        let o = axes.into();
        if self.node.device.is_some() {
            return self.var_on_device(o, ddof, false);
        }
        self.reduce_with("var", Var::<T> { ddof: ddof as f64, sqrt: false, skip_nan: false, _t: PhantomData }, o)
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
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_slice(&[8], &[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], 3).unwrap();
    /// // NumPy: x.std(): mean 5, squared deviations sum to 32, sqrt(32 / 8) = 2
    /// assert!((x.std(None, 0).unwrap().compute_scalar().unwrap() - 2.0).abs() < 1e-12);
    /// ```
    ///
    /// # Errors
    /// As [`Array::sum`].
    pub fn std(&self, axes: impl Into<ReduceOptions>, ddof: usize) -> Result<Array<T::Mean>> {
        let o = axes.into();
        if self.node.device.is_some() {
            return self.var_on_device(o, ddof, true);
        }
        self.reduce_with("std", Var::<T> { ddof: ddof as f64, sqrt: true, skip_nan: false, _t: PhantomData }, o)
    }

    /// Minimum; NaN propagates.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::from_vec(&[2, 3], vec![4, 2, 6, 1, 5, 3], [1, 2]).unwrap();
    /// // NumPy: x.min() and x.min(axis=0)
    /// assert_eq!(x.min(None).unwrap().compute_scalar().unwrap(), 1);
    /// assert_eq!(x.min(0).unwrap().compute().unwrap().as_slice().unwrap(), &[1, 2, 3]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::sum`], and [`crate::Error::InvalidArgument`] when a reduced axis is empty.
    pub fn min(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T>> {
        self.reduce_with("min", Extreme::<T> { max: false, _t: PhantomData }, axes.into())
    }

    /// Maximum; NaN propagates.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_slice(&[3], &[1.0, 3.0, f64::NAN], 2).unwrap();
    /// // NumPy: x[:2].max() is 3, and NaN propagates through x.max()
    /// assert_eq!(x.slice(&[chunked_array::Idx::range(0, 2)]).unwrap().max(None).unwrap().compute_scalar().unwrap(), 3.0);
    /// assert!(x.max(None).unwrap().compute_scalar().unwrap().is_nan());
    /// ```
    ///
    /// # Errors
    /// As [`Array::min`].
    pub fn max(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T>> {
        self.reduce_with("max", Extreme::<T> { max: true, _t: PhantomData }, axes.into())
    }

    /// Minimum ignoring NaNs (NaN where all are NaN).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_slice(&[3], &[3.0, f64::NAN, 1.0], 2).unwrap();
    /// // NumPy: np.nanmin(x)
    /// assert_eq!(x.nanmin(None).unwrap().compute_scalar().unwrap(), 1.0);
    /// ```
    ///
    /// # Errors
    /// As [`Array::min`].
    pub fn nanmin(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T>> {
        self.reduce_with("nanmin", NanExtreme::<T> { max: false, _t: PhantomData }, axes.into())
    }

    /// Maximum ignoring NaNs (NaN where all are NaN).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_slice(&[3], &[3.0, f64::NAN, 1.0], 2).unwrap();
    /// // NumPy: np.nanmax(x)
    /// assert_eq!(x.nanmax(None).unwrap().compute_scalar().unwrap(), 3.0);
    /// ```
    ///
    /// # Errors
    /// As [`Array::min`].
    pub fn nanmax(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T>> {
        self.reduce_with("nanmax", NanExtreme::<T> { max: true, _t: PhantomData }, axes.into())
    }

    /// Index of the minimum along `axis`, or in the flattened array for `None`.
    /// The first occurrence wins; a NaN counts as the minimum (NumPy's rules).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::from_vec(&[2, 3], vec![1, 5, 2, 7, 0, 3], [1, 2]).unwrap();
    /// // NumPy: x.argmin() (flat index) and x.argmin(axis=0)
    /// assert_eq!(x.argmin(None).unwrap().compute_scalar().unwrap(), 4);
    /// assert_eq!(x.argmin(Some(0)).unwrap().compute().unwrap().as_slice().unwrap(), &[0, 1, 0]);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::BadAxis`]; [`crate::Error::InvalidArgument`] when empty.
    pub fn argmin(&self, axis: Option<isize>) -> Result<Array<i64>> {
        self.arg(axis, false, false)
    }

    /// Index of the maximum along `axis`, or in the flattened array for `None`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::from_vec(&[2, 3], vec![1, 5, 5, 7, 0, 3], [1, 2]).unwrap();
    /// // NumPy: x.argmax(axis=1); the first of equal maxima wins
    /// assert_eq!(x.argmax(Some(1)).unwrap().compute().unwrap().as_slice().unwrap(), &[1, 0]);
    /// assert_eq!(x.argmax(None).unwrap().compute_scalar().unwrap(), 3);
    /// ```
    ///
    /// # Errors
    /// As [`Array::argmin`].
    pub fn argmax(&self, axis: Option<isize>) -> Result<Array<i64>> {
        self.arg(axis, true, false)
    }

    /// The index of the extreme along `axis` (all: the flat index), NaN
    /// winning or, with `skip_nan`, skipped.
    pub(crate) fn arg(&self, axis: Option<isize>, max: bool, skip_nan: bool) -> Result<Array<i64>> {
        let name = match (skip_nan, max) {
            (false, true) => "argmax",
            (false, false) => "argmin",
            (true, true) => "nanargmax",
            (true, false) => "nanargmin",
        };
        match axis {
            Some(a) => {
                self.reduce_with(name, Arg::<T, false> { max, skip_nan, _t: PhantomData }, ReduceOptions::axes([a]))
            }
            None => self.reduce_with(name, Arg::<T, true> { max, skip_nan, _t: PhantomData }, ReduceOptions::all()),
        }
    }
}
