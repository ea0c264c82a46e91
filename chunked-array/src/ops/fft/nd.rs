//! Transforms over several axes (NumPy's `fftn`, `rfftn`, their inverses and
//! 2-d forms): one axis after another, each by [`super::axis`], so a chunked
//! axis is made whole (or split in four steps) only when its turn comes: the
//! pencil method. The complex axes already whole in a block go first.

use crate::array::Array;
use crate::chunks::DEFAULT_AUTO_BYTES;
use crate::error::{Error, Result};
use crate::ops::fft::axis::{self, AxisPlan, Norm};
use crate::ops::fft::{FftComplex, FftFloat, FftInput, Spectrum, check_length, hermitian_length};
use crate::ops::reduce::normalize_axes;

/// The arguments of the n-d transforms (NumPy's `s`, `axes`, `norm`).
///
/// ```
/// use chunked_array::{Array, fft::{self, FftnOptions}};
/// let x = Array::<f64>::ones(&[4, 6, 8], 2).unwrap();
/// // NumPy: np.fft.fftn(x, s=(5, 3), axes=(0, 2))
/// let opts = FftnOptions { s: Some(vec![5, 3]), axes: Some(vec![0, 2]), ..Default::default() };
/// assert_eq!(fft::fftn_with(&x, &opts).unwrap().shape(), vec![5, 6, 3]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FftnOptions {
    /// The transform's length along each of `axes` (cut or padded with zeros
    /// at the end); default the axes' lengths (`irfftn`'s last: `2 (m - 1)`).
    pub s: Option<Vec<usize>>,
    /// The axes (negative counts from the end); default all (the last two for
    /// the 2-d functions), or the last `s.len()` when `s` is given.
    pub axes: Option<Vec<isize>>,
    /// The scaling; default [`Norm::Backward`].
    pub norm: Norm,
    /// Most bytes a task may hold (default 128 MiB); see
    /// [`FftOptions::block_size_limit`](super::FftOptions::block_size_limit).
    pub block_size_limit: usize,
}

impl Default for FftnOptions {
    fn default() -> Self {
        FftnOptions { s: None, axes: None, norm: Norm::Backward, block_size_limit: DEFAULT_AUTO_BYTES }
    }
}

impl FftnOptions {
    /// The axes and their transform lengths; `last_len` gives the last axis'
    /// default length from its input length.
    fn resolve(&self, shape: &[usize], last_len: impl Fn(usize) -> usize) -> Result<(Vec<usize>, Vec<usize>)> {
        let ndim = shape.len();
        let axes = match (&self.axes, &self.s) {
            (Some(axes), _) => normalize_axes(axes, ndim)?,
            (None, Some(s)) if s.len() > ndim => {
                return Err(Error::invalid("s", s, format!("has more entries than the {ndim} axes of the array")));
            }
            (None, Some(s)) => (ndim - s.len()..ndim).collect(),
            (None, None) => (0..ndim).collect(),
        };
        let lengths = match &self.s {
            Some(s) if s.len() != axes.len() => {
                return Err(Error::invalid("s", s, format!("must have one length per axis of {axes:?}")));
            }
            Some(s) => s.clone(),
            None => {
                let count = axes.len();
                let default = |(i, &a): (usize, &usize)| if i + 1 == count { last_len(shape[a]) } else { shape[a] };
                axes.iter().enumerate().map(default).collect()
            }
        };
        lengths.iter().try_for_each(|&n| check_length("s", n))?;
        Ok((axes, lengths))
    }

    fn plan(&self, axis: usize) -> AxisPlan {
        AxisPlan { axis, norm: self.norm, block_size_limit: self.block_size_limit }
    }

    /// These options with the 2-d functions' default axes.
    fn two_d(&self) -> FftnOptions {
        FftnOptions { axes: Some(self.axes.clone().unwrap_or_else(|| vec![-2, -1])), ..self.clone() }
    }
}

/// Complex transforms of `x` along `axes` (cut or padded to `lengths`), the
/// axes whole in a block first.
fn complex_axes<R: FftFloat>(
    x: &Array<R::Complex>,
    axes: &[usize],
    lengths: &[usize],
    options: &FftnOptions,
    inverse: bool,
) -> Result<Array<R::Complex>> {
    let mut x = x.clone();
    for (&a, &n) in axes.iter().zip(lengths) {
        x = axis::resized(&x, a, n)?;
    }
    let mut todo: Vec<usize> = axes.to_vec();
    while !todo.is_empty() {
        let next = todo.iter().position(|&a| x.chunks().lengths()[a].len() <= 1).unwrap_or(todo.len() - 1);
        x = axis::complex::<R>(&x, &options.plan(todo.remove(next)), inverse)?;
    }
    Ok(x)
}

fn complex_nd<T: FftInput>(a: &Array<T>, options: &FftnOptions, inverse: bool) -> Result<Array<Spectrum<T>>> {
    a.check()?;
    let (axes, lengths) = options.resolve(&a.shape(), |len| len)?;
    complex_axes::<T::Real>(&a.astype::<Spectrum<T>>(), &axes, &lengths, options, inverse)
}

/// The n-dimensional transform over every axis (NumPy's `np.fft.fftn(a)`).
///
/// ```
/// use chunked_array::{Array, fft};
/// let x = Array::<f64>::ones(&[2, 3, 4], 2).unwrap();
/// let y = fft::fftn(&x).unwrap().compute().unwrap();
/// assert!((y[[0, 0, 0]].re - 24.0).abs() < 1e-12 && y[[1, 2, 3]].norm() < 1e-12);
/// ```
///
/// # Errors
/// As [`fftn_with`].
pub fn fftn<T: FftInput>(a: &Array<T>) -> Result<Array<Spectrum<T>>> {
    fftn_with(a, &FftnOptions::default())
}

/// [`fftn`] with NumPy's `s`, `axes` and `norm`.
///
/// ```
/// use chunked_array::{Array, fft::{self, FftnOptions}};
/// let x = Array::<f64>::ones(&[3, 4], [1, 2]).unwrap();
/// let y = fft::fftn_with(&x, &FftnOptions { axes: Some(vec![0]), ..Default::default() }).unwrap();
/// assert!((y.compute().unwrap()[[0, 3]].re - 3.0).abs() < 1e-12);
/// ```
///
/// # Errors
/// [`Error::BadAxis`] for an axis out of range or given twice;
/// [`Error::InvalidArgument`] for an `s` whose length differs from `axes`'
/// (or exceeds the dimensions), a length of 0, or a lane too long for the
/// block-size limit with no factor pair whose lanes fit.
pub fn fftn_with<T: FftInput>(a: &Array<T>, options: &FftnOptions) -> Result<Array<Spectrum<T>>> {
    complex_nd(a, options, false)
}

/// The inverse of [`fftn`] (NumPy's `np.fft.ifftn`).
///
/// ```
/// use chunked_array::{Array, fft};
/// let x = Array::<f64>::from_fn(&[3, 5], [2, 2], |i| (i[0] * 5 + i[1]) as f64).unwrap();
/// let back = fft::ifftn(&fft::fftn(&x).unwrap()).unwrap().compute().unwrap();
/// assert!((back[[2, 4]].re - 14.0).abs() < 1e-12);
/// ```
///
/// # Errors
/// As [`fftn_with`].
pub fn ifftn<T: FftInput>(a: &Array<T>) -> Result<Array<Spectrum<T>>> {
    ifftn_with(a, &FftnOptions::default())
}

/// [`ifftn`] with options.
///
/// ```
/// use chunked_array::{Array, fft::{self, FftnOptions}};
/// let x = Array::<f64>::ones(&[2, 2], 1).unwrap();
/// let y = fft::ifftn_with(&x, &FftnOptions { s: Some(vec![4]), ..Default::default() }).unwrap();
/// assert_eq!(y.shape(), vec![2, 4]);
/// ```
///
/// # Errors
/// As [`fftn_with`].
pub fn ifftn_with<T: FftInput>(a: &Array<T>, options: &FftnOptions) -> Result<Array<Spectrum<T>>> {
    complex_nd(a, options, true)
}

/// The 2-d transform over the last two axes (NumPy's `np.fft.fft2`).
///
/// ```
/// use chunked_array::{Array, fft};
/// let x = Array::<f64>::ones(&[4, 4], [4, 1]).unwrap();
/// assert!((fft::fft2(&x).unwrap().compute().unwrap()[[0, 0]].re - 16.0).abs() < 1e-12);
/// ```
///
/// # Errors
/// As [`fftn_with`]; an array of fewer than two dimensions.
pub fn fft2<T: FftInput>(a: &Array<T>) -> Result<Array<Spectrum<T>>> {
    fft2_with(a, &FftnOptions::default())
}

/// [`fft2`] with options (`axes` default `[-2, -1]`).
///
/// ```
/// use chunked_array::{Array, fft::{self, FftnOptions}};
/// let x = Array::<f64>::ones(&[2, 3, 4], 2).unwrap();
/// let y = fft::fft2_with(&x, &FftnOptions { axes: Some(vec![0, 2]), ..Default::default() }).unwrap();
/// assert!((y.compute().unwrap()[[0, 1, 0]].re - 8.0).abs() < 1e-12);
/// ```
///
/// # Errors
/// As [`fft2`].
pub fn fft2_with<T: FftInput>(a: &Array<T>, options: &FftnOptions) -> Result<Array<Spectrum<T>>> {
    fftn_with(a, &options.two_d())
}

/// The inverse of [`fft2`] (NumPy's `np.fft.ifft2`).
///
/// ```
/// use chunked_array::{Array, fft};
/// let x = Array::<f64>::ones(&[2, 2], 1).unwrap();
/// assert!((fft::ifft2(&x).unwrap().compute().unwrap()[[0, 0]].re - 1.0).abs() < 1e-12);
/// ```
///
/// # Errors
/// As [`fft2`].
pub fn ifft2<T: FftInput>(a: &Array<T>) -> Result<Array<Spectrum<T>>> {
    ifft2_with(a, &FftnOptions::default())
}

/// [`ifft2`] with options.
///
/// ```
/// use chunked_array::{Array, fft::{self, FftnOptions, Norm}};
/// let x = Array::<f64>::ones(&[2, 2], 1).unwrap();
/// let y = fft::ifft2_with(&x, &FftnOptions { norm: Norm::Ortho, ..Default::default() }).unwrap();
/// assert!((y.compute().unwrap()[[0, 0]].re - 2.0).abs() < 1e-12);
/// ```
///
/// # Errors
/// As [`fft2`].
pub fn ifft2_with<T: FftInput>(a: &Array<T>, options: &FftnOptions) -> Result<Array<Spectrum<T>>> {
    ifftn_with(a, &options.two_d())
}

/// The n-d transform of real input: [`super::rfft`] along the last of the
/// axes, then complex transforms along the others (NumPy's `np.fft.rfftn`).
///
/// ```
/// use chunked_array::{Array, fft};
/// let x = Array::<f64>::ones(&[4, 6], 2).unwrap();
/// let y = fft::rfftn(&x).unwrap();
/// assert_eq!(y.shape(), vec![4, 4]);
/// assert!((y.compute().unwrap()[[0, 0]].re - 24.0).abs() < 1e-12);
/// ```
///
/// # Errors
/// As [`fftn_with`].
pub fn rfftn<R: FftFloat>(a: &Array<R>) -> Result<Array<R::Complex>> {
    rfftn_with(a, &FftnOptions::default())
}

/// [`rfftn`] with options.
///
/// ```
/// use chunked_array::{Array, fft::{self, FftnOptions}};
/// let x = Array::<f32>::ones(&[4, 6], 2).unwrap();
/// let y = fft::rfftn_with(&x, &FftnOptions { axes: Some(vec![1, 0]), ..Default::default() }).unwrap();
/// assert_eq!(y.shape(), vec![3, 6]); // the last axis given is the halved one
/// ```
///
/// # Errors
/// As [`fftn_with`].
pub fn rfftn_with<R: FftFloat>(a: &Array<R>, options: &FftnOptions) -> Result<Array<R::Complex>> {
    a.check()?;
    let (axes, lengths) = options.resolve(&a.shape(), |len| len)?;
    let Some((&last, rest)) = axes.split_last() else {
        return Ok(a.astype::<R::Complex>());
    };
    let n = lengths[lengths.len() - 1];
    let half = axis::real_forward(&axis::resized(a, last, n)?, &options.plan(last))?;
    complex_axes::<R>(&half, rest, &lengths[..rest.len()], options, false)
}

/// The inverse of [`rfftn`] (NumPy's `np.fft.irfftn`): complex inverse
/// transforms along all but the last axis, then [`super::irfft`] along it.
///
/// ```
/// use chunked_array::{Array, fft::{self, FftnOptions}};
/// let x = Array::<f64>::from_fn(&[3, 5], [2, 2], |i| (i[0] * 5 + i[1]) as f64).unwrap();
/// let spectrum = fft::rfftn(&x).unwrap();
/// let back = fft::irfftn_with(&spectrum, &FftnOptions { s: Some(vec![3, 5]), ..Default::default() }).unwrap();
/// assert!((back.compute().unwrap()[[2, 4]] - 14.0).abs() < 1e-12);
/// ```
///
/// # Errors
/// As [`fftn_with`]; a last axis of one element without `s`.
pub fn irfftn<C: FftComplex>(a: &Array<C>) -> Result<Array<C::Real>> {
    irfftn_with(a, &FftnOptions::default())
}

/// [`irfftn`] with options.
///
/// ```
/// use chunked_array::{Array, Complex64, fft::{self, FftnOptions}};
/// let x = Array::<Complex64>::ones(&[2, 3], 1).unwrap();
/// let y = fft::irfftn_with(&x, &FftnOptions { axes: Some(vec![1]), ..Default::default() }).unwrap();
/// assert_eq!(y.shape(), vec![2, 4]);
/// ```
///
/// # Errors
/// As [`irfftn`].
pub fn irfftn_with<C: FftComplex>(a: &Array<C>, options: &FftnOptions) -> Result<Array<C::Real>> {
    a.check()?;
    let (axes, lengths) = options.resolve(&a.shape(), hermitian_length)?;
    let Some((&last, rest)) = axes.split_last() else {
        return Ok(a.astype::<C::Real>());
    };
    let n = lengths[lengths.len() - 1];
    let spectrum = complex_axes::<C::Real>(a, rest, &lengths[..rest.len()], options, true)?;
    axis::real_inverse::<C::Real>(&axis::resized(&spectrum, last, n / 2 + 1)?, n, &options.plan(last))
}

/// The inverse of [`rfft2`] (NumPy's `np.fft.irfft2`).
///
/// ```
/// use chunked_array::{Array, fft};
/// let x = Array::<f64>::ones(&[2, 4], 1).unwrap();
/// let back = fft::irfft2(&fft::rfft2(&x).unwrap()).unwrap().compute().unwrap();
/// assert!(back.iter().all(|v| (v - 1.0).abs() < 1e-12));
/// ```
///
/// # Errors
/// As [`irfftn_with`]; an array of fewer than two dimensions.
pub fn irfft2<C: FftComplex>(a: &Array<C>) -> Result<Array<C::Real>> {
    irfft2_with(a, &FftnOptions::default())
}

/// [`irfft2`] with options.
///
/// ```
/// use chunked_array::{Array, Complex64, fft::{self, FftnOptions}};
/// let x = Array::<Complex64>::ones(&[2, 3], 1).unwrap();
/// let y = fft::irfft2_with(&x, &FftnOptions { s: Some(vec![2, 5]), ..Default::default() }).unwrap();
/// assert_eq!(y.shape(), vec![2, 5]);
/// ```
///
/// # Errors
/// As [`irfft2`].
pub fn irfft2_with<C: FftComplex>(a: &Array<C>, options: &FftnOptions) -> Result<Array<C::Real>> {
    irfftn_with(a, &options.two_d())
}

/// The 2-d transform of real input over the last two axes (NumPy's
/// `np.fft.rfft2`).
///
/// ```
/// use chunked_array::{Array, fft};
/// let x = Array::<f64>::ones(&[4, 4], 2).unwrap();
/// assert_eq!(fft::rfft2(&x).unwrap().shape(), vec![4, 3]);
/// ```
///
/// # Errors
/// As [`fftn_with`]; an array of fewer than two dimensions.
pub fn rfft2<R: FftFloat>(a: &Array<R>) -> Result<Array<R::Complex>> {
    rfft2_with(a, &FftnOptions::default())
}

/// [`rfft2`] with options.
///
/// ```
/// use chunked_array::{Array, fft::{self, FftnOptions}};
/// let x = Array::<f64>::ones(&[4, 4], 2).unwrap();
/// let y = fft::rfft2_with(&x, &FftnOptions { s: Some(vec![4, 6]), ..Default::default() }).unwrap();
/// assert_eq!(y.shape(), vec![4, 4]);
/// ```
///
/// # Errors
/// As [`rfft2`].
pub fn rfft2_with<R: FftFloat>(a: &Array<R>, options: &FftnOptions) -> Result<Array<R::Complex>> {
    rfftn_with(a, &options.two_d())
}
