//! The sample frequencies of a transform's outputs and the shifts that put
//! the zero frequency in the middle, as lazy arrays.

use crate::array::Array;
use crate::chunks::ChunkSpec;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::reduce::normalize_axes;

fn spacing(n: usize, d: f64) -> Result<f64> {
    if n == 0 {
        return Err(Error::invalid("n", n, "the window length must be at least 1"));
    }
    if d == 0.0 || d.is_nan() {
        return Err(Error::invalid("d", d, "the sample spacing must be a nonzero number"));
    }
    Ok(1.0 / (n as f64 * d))
}

/// The sample frequencies of [`super::fft`]'s `n` outputs for sample
/// spacing `d`: `[0, 1, ..., (n - 1) / 2, -(n / 2), ..., -1] / (d n)`
/// (NumPy's `np.fft.fftfreq`, dask's `da.fft.fftfreq(n, d, chunks)`).
///
/// ```
/// use chunked_array::fft;
/// let f = fft::fftfreq(5, 0.5, 2).unwrap().compute().unwrap();
/// assert_eq!(f.as_slice().unwrap(), &[0.0, 0.4, 0.8, -0.8, -0.4]);
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for `n = 0` or `d` zero or NaN;
/// [`Error::BadChunks`] when `chunks` does not fit `n`.
pub fn fftfreq(n: usize, d: f64, chunks: impl Into<ChunkSpec>) -> Result<Array<f64>> {
    let step = spacing(n, d)?;
    let positive = n.div_ceil(2);
    Array::from_fn(&[n], chunks, move |i| {
        let k = i[0];
        let signed = if k < positive { k as f64 } else { k as f64 - n as f64 };
        signed * step
    })
}

/// The sample frequencies of [`super::rfft`]'s `n / 2 + 1` outputs:
/// `[0, 1, ..., n / 2] / (d n)` (NumPy's `np.fft.rfftfreq`).
///
/// ```
/// use chunked_array::fft;
/// let f = fft::rfftfreq(8, 0.1, 3).unwrap().compute().unwrap();
/// let want = [0.0, 1.25, 2.5, 3.75, 5.0];
/// assert!(f.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12));
/// ```
///
/// # Errors
/// As [`fftfreq`].
pub fn rfftfreq(n: usize, d: f64, chunks: impl Into<ChunkSpec>) -> Result<Array<f64>> {
    let step = spacing(n, d)?;
    Array::from_fn(&[n / 2 + 1], chunks, move |i| i[0] as f64 * step)
}

fn shifted<T: Element>(a: &Array<T>, axes: Option<&[isize]>, sign: isize) -> Result<Array<T>> {
    a.check()?;
    let all: Vec<isize> = (0..a.ndim() as isize).collect();
    let axes = normalize_axes(axes.unwrap_or(&all), a.ndim())?;
    if axes.is_empty() {
        return Ok(a.clone());
    }
    let shape = a.shape();
    let shifts: Vec<isize> = axes.iter().map(|&ax| sign * (shape[ax] / 2) as isize).collect();
    let axes: Vec<isize> = axes.iter().map(|&ax| ax as isize).collect();
    a.roll_axes(&shifts, &axes)
}

/// The zero frequency moved to the middle of each of `axes` (default all):
/// a roll by `n / 2` (NumPy's `np.fft.fftshift`).
///
/// ```
/// use chunked_array::fft;
/// let f = fft::fftfreq(5, 1.0, 2).unwrap();
/// let s = fft::fftshift(&f, None).unwrap().compute().unwrap();
/// assert_eq!(s.as_slice().unwrap(), &[-0.4, -0.2, 0.0, 0.2, 0.4]);
/// ```
///
/// # Errors
/// [`Error::BadAxis`] for an axis out of range or given twice.
pub fn fftshift<T: Element>(a: &Array<T>, axes: Option<&[isize]>) -> Result<Array<T>> {
    shifted(a, axes, 1)
}

/// The inverse of [`fftshift`] (a roll by `-(n / 2)`; the two differ for odd
/// lengths), NumPy's `np.fft.ifftshift`.
///
/// ```
/// use chunked_array::{Array, fft};
/// let x = Array::<i64>::arange(0, 5, 1, 2).unwrap();
/// let back = fft::ifftshift(&fft::fftshift(&x, None).unwrap(), None).unwrap();
/// assert_eq!(back.compute().unwrap().as_slice().unwrap(), &[0, 1, 2, 3, 4]);
/// ```
///
/// # Errors
/// As [`fftshift`].
pub fn ifftshift<T: Element>(a: &Array<T>, axes: Option<&[isize]>) -> Result<Array<T>> {
    shifted(a, axes, -1)
}
