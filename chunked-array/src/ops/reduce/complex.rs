//! The moments of complex arrays: NumPy's `var` and `std` (real, the mean
//! squared modulus of the deviations) and `nanmean` (complex, skipping
//! elements with a NaN part).

use num_complex::{Complex32, Complex64};

use super::api::ReduceOptions;
use crate::array::Array;
use crate::error::Result;

macro_rules! complex_moments {
    ($($c:ty => $r:ty),*) => {$(
        impl Array<$c> {
            /// Variance with `ddof` delta degrees of freedom, a real array:
            /// the mean of `|z - mean(z)|²`, which is the variance of the
            /// real parts plus that of the imaginary parts (NumPy's `var` of
            /// complex input). Each part's variance is the real one's merged
            /// one-pass moments.
            ///
            /// ```
            /// use chunked_array::{Array, Complex64};
            /// let z = Array::from_vec(&[2], vec![Complex64::new(1.0, 1.0), Complex64::new(3.0, -1.0)], 1).unwrap();
            /// // NumPy: np.var(z): the deviations are ±(1 - 1j), |.|² = 2
            /// assert_eq!(z.var(None, 0).unwrap().compute_scalar().unwrap(), 2.0);
            /// assert_eq!(z.var(None, 1).unwrap().compute_scalar().unwrap(), 4.0);
            /// ```
            ///
            /// # Errors
            /// [`crate::Error::BadAxis`] for axes out of range or repeated.
            pub fn var(&self, axes: impl Into<ReduceOptions>, ddof: usize) -> Result<Array<$r>> {
                let o = axes.into();
                Ok(&self.real().var(o.clone(), ddof)? + &self.imag().var(o, ddof)?)
            }

            /// Standard deviation with `ddof`, a real array: the square root
            /// of [`Array::var`] of complex input (NumPy's `std`).
            ///
            /// ```
            /// use chunked_array::{Array, Complex64};
            /// let z = Array::from_vec(&[2], vec![Complex64::new(0.0, 3.0), Complex64::new(0.0, -3.0)], 2).unwrap();
            /// // NumPy: np.std(z) is 3.0
            /// assert_eq!(z.std(None, 0).unwrap().compute_scalar().unwrap(), 3.0);
            /// ```
            ///
            /// # Errors
            /// As [`Array::var`].
            pub fn std(&self, axes: impl Into<ReduceOptions>, ddof: usize) -> Result<Array<$r>> {
                Ok(self.var(axes, ddof)?.sqrt())
            }

            /// Mean of the elements with no NaN part (NumPy's `nanmean` of
            /// complex input); NaN where every element has one.
            ///
            /// ```
            /// use chunked_array::{Array, Complex64};
            /// let nan = Complex64::new(f64::NAN, 0.0);
            /// let z = Array::from_vec(&[3], vec![Complex64::new(1.0, 2.0), nan, Complex64::new(3.0, 0.0)], 2).unwrap();
            /// assert_eq!(z.nanmean(None).unwrap().compute_scalar().unwrap(), Complex64::new(2.0, 1.0));
            /// ```
            ///
            /// # Errors
            /// As [`Array::var`].
            pub fn nanmean(&self, axes: impl Into<ReduceOptions>) -> Result<Array<$c>> {
                let o = axes.into();
                let count = self.isnan().logical_not().sum(o.clone())?.astype::<$c>();
                Ok(&self.nansum(o)? / &count)
            }
        }
    )*};
}

complex_moments!(Complex32 => f32, Complex64 => f64);
