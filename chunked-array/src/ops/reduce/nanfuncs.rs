//! NumPy's NaN-ignoring reductions beyond `nansum`, `nanmean`, `nanmin` and
//! `nanmax`: `nanprod`, `nanvar`, `nanstd`, `nancumsum`, `nancumprod`,
//! `nanargmin`, `nanargmax`, and `ptp`.

use std::marker::PhantomData;

use crate::array::Array;
use crate::element::{Element, Number, Real};
use crate::error::{Error, Result};
use crate::ops::blockwise::checked;
use crate::ops::elementwise::binary;
use crate::ops::reduce::ReduceOptions;
use crate::ops::reduce::reducers::Var;

impl<T: Element> Array<T> {
    /// This array with NaN replaced by `fill` (fused into what reads it).
    fn nan_as(&self, fill: T) -> Array<T> {
        self.map(move |v| if v.is_nan() { fill } else { v })
    }
}

impl<T: Number> Array<T> {
    /// The product ignoring NaN (`np.nanprod`: NaN counts as one).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[4], vec![2.0, f64::NAN, 3.0, 0.5], 2).unwrap();
    /// assert_eq!(x.nanprod(None).unwrap().compute_scalar().unwrap(), 3.0);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::BadAxis`] for an axis out of range.
    pub fn nanprod(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T::Sum>> {
        self.nan_as(T::ONE).prod(axes)
    }

    /// The cumulative sum ignoring NaN (`np.nancumsum`: NaN counts as zero).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[4], vec![1.0, f64::NAN, 2.0, 3.0], 3).unwrap();
    /// assert_eq!(x.nancumsum(0).unwrap().compute().unwrap().as_slice().unwrap(), &[1.0, 1.0, 3.0, 6.0]);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::BadAxis`] for an axis out of range.
    pub fn nancumsum(&self, axis: isize) -> Result<Array<T::Sum>> {
        self.nan_as(T::ZERO).cumsum(axis)
    }

    /// The cumulative product ignoring NaN (`np.nancumprod`: NaN counts as one).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[4], vec![2.0, f64::NAN, 3.0, 0.5], 3).unwrap();
    /// assert_eq!(x.nancumprod(0).unwrap().compute().unwrap().as_slice().unwrap(), &[2.0, 2.0, 6.0, 3.0]);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::BadAxis`] for an axis out of range.
    pub fn nancumprod(&self, axis: isize) -> Result<Array<T::Sum>> {
        self.nan_as(T::ONE).cumprod(axis)
    }
}

impl<T: Real> Array<T> {
    /// The variance ignoring NaN, with `ddof` delta degrees of freedom
    /// (`np.nanvar`; NaN where nothing is left).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[5], vec![1.0, f64::NAN, 3.0, f64::NAN, 5.0], 2).unwrap();
    /// assert_eq!(x.nanvar(None, 0).unwrap().compute_scalar().unwrap(), 8.0 / 3.0);
    /// assert_eq!(x.nanvar(None, 1).unwrap().compute_scalar().unwrap(), 4.0);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::BadAxis`] for an axis out of range.
    pub fn nanvar(&self, axes: impl Into<ReduceOptions>, ddof: usize) -> Result<Array<T::Mean>> {
        let var = Var::<T> { ddof: ddof as f64, sqrt: false, skip_nan: true, _t: PhantomData };
        self.reduce_with("nanvar", var, axes.into())
    }

    /// The standard deviation ignoring NaN (`np.nanstd`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[3], vec![f64::NAN, 2.0, 4.0], 2).unwrap();
    /// assert_eq!(x.nanstd(None, 0).unwrap().compute_scalar().unwrap(), 1.0);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::BadAxis`] for an axis out of range.
    pub fn nanstd(&self, axes: impl Into<ReduceOptions>, ddof: usize) -> Result<Array<T::Mean>> {
        let std = Var::<T> { ddof: ddof as f64, sqrt: true, skip_nan: true, _t: PhantomData };
        self.reduce_with("nanstd", std, axes.into())
    }

    /// The range, maximum minus minimum (`np.ptp`; integers wrap as NumPy's).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::from_vec(&[2, 3], vec![4, 9, 1, 7, 2, 8], 2).unwrap();
    /// assert_eq!(x.ptp(None).unwrap().compute_scalar().unwrap(), 8);
    /// assert_eq!(x.ptp(1).unwrap().compute().unwrap().as_slice().unwrap(), &[8, 6]);
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::BadAxis`] for an axis out of range; an empty reduction,
    /// as [`Array::max`].
    pub fn ptp(&self, axes: impl Into<ReduceOptions>) -> Result<Array<T>> {
        let axes = axes.into();
        let (hi, lo) = (self.max(axes.clone())?, self.min(axes)?);
        binary("ptp", &hi, &lo, |a: T, b: T| a.sub(b))
    }
}

impl<T: Real> Array<T> {
    /// The index of the minimum ignoring NaN, along `axis` or in the
    /// flattened array for `None` (`np.nanargmin`; the first of equal minima).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[2, 3], vec![f64::NAN, 2.0, 1.0, f64::NAN, f64::NAN, 4.0], 2).unwrap();
    /// assert_eq!(x.nanargmin(None).unwrap().compute_scalar().unwrap(), 2);
    /// assert_eq!(x.nanargmin(Some(1)).unwrap().compute().unwrap().as_slice().unwrap(), &[2, 2]);
    /// assert!(x.nanargmin(Some(0)).unwrap().compute().is_err()); // column 0 is all NaN
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::BadAxis`] for an axis out of range; when computed,
    /// [`crate::Error::InvalidArgument`] for a lane of NaN only (NumPy's
    /// "All-NaN slice encountered").
    pub fn nanargmin(&self, axis: Option<isize>) -> Result<Array<i64>> {
        all_nan_is_error(self.arg(axis, false, true)?, "nanargmin")
    }

    /// The index of the maximum ignoring NaN (`np.nanargmax`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f32>::from_vec(&[4], vec![1.0, f32::NAN, 7.0, 7.0], 3).unwrap();
    /// assert_eq!(x.nanargmax(None).unwrap().compute_scalar().unwrap(), 2);
    /// ```
    ///
    /// # Errors
    /// As [`Array::nanargmin`].
    pub fn nanargmax(&self, axis: Option<isize>) -> Result<Array<i64>> {
        all_nan_is_error(self.arg(axis, true, true)?, "nanargmax")
    }
}

/// `index` with a task error where a lane had no value but NaN (index -1).
fn all_nan_is_error(index: Array<i64>, name: &'static str) -> Result<Array<i64>> {
    checked(&index, name, move |block| match block.iter().any(|&i| i < 0) {
        true => Err(Error::invalid(name, "a lane of NaN only", "All-NaN slice encountered: it has no index")),
        false => Ok(()),
    })
}
