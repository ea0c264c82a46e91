//! Weighted means and second moments between variables: NumPy's `average`,
//! `cov` and `corrcoef`, computed in `f64` from reductions and one matrix
//! product of the centered data.

use crate::array::Array;
use crate::element::Real;
use crate::error::{Error, Result};
use crate::ops::reduce::ReduceOptions;

impl<T: Real> Array<T> {
    /// The mean weighted by `weights` (same shape) along `axes`, `sum(x w) /
    /// sum(w)` (NumPy's `np.average`; without weights, the mean). The sum of
    /// the weights (NumPy's `returned=True`) is `weights.sum(axes)`.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::from_vec(&[4], vec![1, 2, 3, 4], 2).unwrap();
    /// let w = Array::<f64>::from_vec(&[4], vec![4.0, 3.0, 2.0, 1.0], 2).unwrap();
    /// assert_eq!(x.average(None, Some(&w)).unwrap().compute_scalar().unwrap(), 2.0);
    /// assert_eq!(x.average(None, None).unwrap().compute_scalar().unwrap(), 2.5);
    /// ```
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for weights of another shape; [`Error::BadAxis`]
    /// for an axis out of range.
    pub fn average(&self, axes: impl Into<ReduceOptions>, weights: Option<&Array<f64>>) -> Result<Array<f64>> {
        let axes = axes.into();
        let x = self.astype::<f64>();
        let Some(w) = weights else {
            return x.mean(axes);
        };
        if w.shape() != self.shape() {
            return Err(Error::shape("average weights", &self.shape(), &w.shape()));
        }
        Ok(&(&x * w).sum(axes.clone())? / &w.sum(axes)?)
    }

    /// The covariance matrix of the variables in the rows of a 2-D array
    /// (each column an observation; `rowvar = false`: the other way round),
    /// normalized by `observations - ddof` (NumPy's `np.cov(x, rowvar,
    /// ddof=ddof)`; its default is `ddof = 1`). A 1-D array is one variable.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[2, 3], vec![0.0, 1.0, 2.0, 2.0, 1.0, 0.0], 2).unwrap();
    /// let c = x.cov(true, 1).unwrap().compute().unwrap();
    /// assert_eq!(c.as_slice().unwrap(), &[1.0, -1.0, -1.0, 1.0]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for more than two axes, or for `ddof` at
    /// least the number of observations.
    pub fn cov(&self, rowvar: bool, ddof: usize) -> Result<Array<f64>> {
        let x = match self.ndim() {
            1 => self.astype::<f64>().expand_dims(0)?,
            2 if rowvar => self.astype::<f64>(),
            2 => self.astype::<f64>().t(),
            _ => return Err(Error::invalid("array shape", self.shape(), "cov takes one or two axes")),
        };
        let observations = x.shape()[1];
        if ddof >= observations {
            return Err(Error::invalid(
                "ddof",
                ddof,
                format!("must be below the number of observations ({observations})"),
            ));
        }
        let centered = &x - &x.mean(ReduceOptions::axes([1]).keepdims(true))?;
        // NumPy multiplies by the reciprocal of the count.
        Ok(&centered.matmul(&centered.t())? * (1.0 / (observations - ddof) as f64))
    }

    /// The correlation coefficients of the variables in the rows (NumPy's
    /// `np.corrcoef(x, rowvar)`): the covariance over the product of the
    /// standard deviations, clipped to [-1, 1] as NumPy does.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[2, 4], vec![1.0, 2.0, 3.0, 4.0, 8.0, 6.0, 4.0, 2.0], 2).unwrap();
    /// let r = x.corrcoef(true).unwrap().compute().unwrap();
    /// assert_eq!(r.as_slice().unwrap(), &[1.0, -1.0, -1.0, 1.0]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::cov`].
    pub fn corrcoef(&self, rowvar: bool) -> Result<Array<f64>> {
        let c = self.cov(rowvar, 1)?;
        let sd = c.diagonal(0, 0, 1)?.sqrt();
        // Divided by the row's deviation, then the column's, as NumPy does.
        let r = &(&c / &sd.expand_dims(1)?) / &sd.expand_dims(0)?;
        Ok(r.clip(-1.0, 1.0))
    }
}
