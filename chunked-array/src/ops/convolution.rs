//! 1-D `convolve` and `correlate` of a chunked array with a kernel in
//! memory (NumPy's modes `full`, `same`, `valid`): the array is padded with
//! `len(kernel) - 1` zeros at both ends, each block reads a halo of that many
//! positions after it (`map_overlap`), and the mode's window is sliced out
//! of the full result.

use ndarray::ArrayD;

use crate::array::Array;
use crate::element::Float;
use crate::error::{Error, Result};
use crate::ops::overlap::Overlap;
use crate::ops::pad::{Boundary, PadMode};
use crate::ops::slicing::Idx;

/// Which part of the full result [`Array::convolve`] and
/// [`Array::correlate`] return (NumPy's `mode`).
///
/// ```
/// use chunked_array::{Array, ConvolveMode};
/// let x = Array::<f64>::from_vec(&[4], vec![1.0, 2.0, 3.0, 4.0], 2).unwrap();
/// let len = |mode| x.convolve(&[1.0, 1.0, 1.0], mode).unwrap().shape()[0];
/// assert_eq!((len(ConvolveMode::Full), len(ConvolveMode::Same), len(ConvolveMode::Valid)), (6, 4, 2));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConvolveMode {
    /// Every overlap: `n + m - 1` values (`np.convolve`'s default).
    #[default]
    Full,
    /// The middle `max(n, m)` values.
    Same,
    /// Only full overlaps: `max(n, m) - min(n, m) + 1` values
    /// (`np.correlate`'s default).
    Valid,
}

impl<T: Float> Array<T> {
    /// The discrete convolution with `kernel` (NumPy's `np.convolve(a, v,
    /// mode)`), of a 1-D array.
    ///
    /// ```
    /// use chunked_array::{Array, ConvolveMode};
    /// let x = Array::<f64>::from_vec(&[5], vec![1.0, 2.0, 3.0, 4.0, 5.0], 2).unwrap();
    /// let c = x.convolve(&[1.0, 2.0, 3.0], ConvolveMode::Same).unwrap();
    /// assert_eq!(c.compute().unwrap().as_slice().unwrap(), &[4.0, 10.0, 16.0, 22.0, 22.0]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an array that is not 1-D or an empty
    /// array or kernel.
    pub fn convolve(&self, kernel: &[T], mode: ConvolveMode) -> Result<Array<T>> {
        let reversed: Vec<T> = kernel.iter().rev().copied().collect();
        self.correlate_full(&reversed, mode)
    }

    /// The cross-correlation with `kernel` (NumPy's `np.correlate(a, v,
    /// mode)` for real values), of a 1-D array.
    ///
    /// ```
    /// use chunked_array::{Array, ConvolveMode};
    /// let x = Array::<f64>::from_vec(&[5], vec![1.0, 2.0, 3.0, 4.0, 5.0], 3).unwrap();
    /// let c = x.correlate(&[1.0, 2.0, 3.0], ConvolveMode::Valid).unwrap();
    /// assert_eq!(c.compute().unwrap().as_slice().unwrap(), &[14.0, 20.0, 26.0]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::convolve`].
    pub fn correlate(&self, kernel: &[T], mode: ConvolveMode) -> Result<Array<T>> {
        self.correlate_full(kernel, mode)
    }

    /// The correlation with `kernel` in every overlap, then `mode`'s window.
    fn correlate_full(&self, kernel: &[T], mode: ConvolveMode) -> Result<Array<T>> {
        if self.ndim() != 1 {
            return Err(Error::invalid("array shape", self.shape(), "convolve and correlate take 1-D arrays"));
        }
        let (n, m) = (self.shape()[0], kernel.len());
        if n == 0 || m == 0 {
            return Err(Error::invalid("lengths", (n, m), "convolve and correlate need a non-empty array and kernel"));
        }
        let padded = self.pad(&[(m - 1, m - 1)], PadMode::Constant(T::ZERO))?;
        let kernel = kernel.to_vec();
        let full = padded.map_overlap_with(
            move |block, info| {
                // The block's own positions, then the halo after them.
                let own = block.len() - info.halo[0].1;
                let mut out = ArrayD::from_elem(block.raw_dim(), T::ZERO);
                for i in 0..own {
                    let mut acc = T::ZERO;
                    for (k, &w) in kernel.iter().enumerate() {
                        acc = acc.add(block[[i + k]].mul(w));
                    }
                    out[[i]] = acc;
                }
                out
            },
            &Overlap::asymmetric(&[(0, m - 1)], Boundary::Constant(T::ZERO)),
        )?;
        let (lo, hi) = (n.min(m), n.max(m));
        let (start, len) = match mode {
            ConvolveMode::Full => (0, n + m - 1),
            ConvolveMode::Same => ((lo - 1) / 2, hi),
            ConvolveMode::Valid => (lo - 1, hi - lo + 1),
        };
        full.slice([Idx::range(start as isize, (start + len) as isize)])
    }
}
