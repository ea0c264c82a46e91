//! Discrete Fourier transforms (NumPy's `numpy.fft`, dask's `dask.array.fft`):
//! `fft`, `ifft`, `rfft`, `irfft`, `hfft`, `ihfft`, their 2-d and n-d forms,
//! `fftfreq`, `rfftfreq`, `fftshift` and `ifftshift`, all lazy.
//!
//! Unlike dask, a transformed axis may span several chunks: a lane that fits
//! in a block is made whole by a rechunk (the other axes chunked to keep
//! blocks under the block-size limit), a longer one is transformed by the
//! four-step algorithm, whose transposes are rechunks, so a transform larger
//! than memory runs under the context's memory limit (spilling as needed).
//! Several axes (`fftn`) are transformed one after another, those already
//! whole in a block first.
//!
//! Single precision stays single (f32 to `Complex32`, as NumPy 2 does); the
//! kernels are rustfft's and realfft's, with plans built once per length and
//! shared by every task.
//!
//! ```
//! use chunked_array::{Array, Complex64, fft};
//! // dask: da.fft.fft(x) with x = da.from_array([1, 2, 3, 4], chunks=2)
//! let x = Array::<f64>::from_vec(&[4], vec![1.0, 2.0, 3.0, 4.0], 2).unwrap();
//! let y = fft::fft(&x).unwrap().compute().unwrap();
//! let want = [Complex64::new(10.0, 0.0), Complex64::new(-2.0, 2.0), Complex64::new(-2.0, 0.0), Complex64::new(-2.0, -2.0)];
//! assert!(y.iter().zip(&want).all(|(a, b)| (a - b).norm() < 1e-12));
//! ```

mod axis;
mod helpers;
mod kernels;
mod nd;

use num_complex::Complex;

use crate::array::Array;
use crate::chunks::DEFAULT_AUTO_BYTES;
use crate::element::{ComplexFloat, Float, Number};
use crate::error::{Error, Result};
use crate::ops::reduce::normalize_axes;

pub use axis::Norm;
pub use helpers::{fftfreq, fftshift, ifftshift, rfftfreq};
pub use nd::{
    FftnOptions, fft2, fft2_with, fftn, fftn_with, ifft2, ifft2_with, ifftn, ifftn_with, irfft2, irfft2_with,
};
pub use nd::{irfftn, irfftn_with, rfft2, rfft2_with, rfftn, rfftn_with};

use axis::AxisPlan;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for super::Complex<f32> {}
    impl Sealed for super::Complex<f64> {}
}

/// The real element types a transform computes in (f32, f64), each with its
/// complex type.
///
/// ```
/// use chunked_array::{Complex32, fft::FftFloat};
/// fn spectrum_of<R: FftFloat>() -> &'static str { std::any::type_name::<R::Complex>() }
/// assert_eq!(spectrum_of::<f32>(), std::any::type_name::<Complex32>());
/// ```
pub trait FftFloat: Float + rustfft::FftNum + sealed::Sealed {
    /// The complex numbers of this precision.
    type Complex: FftComplex<Real = Self> + ComplexFloat<RealPart = Self>;
}

impl FftFloat for f32 {
    type Complex = Complex<f32>;
}

impl FftFloat for f64 {
    type Complex = Complex<f64>;
}

/// The complex element types a transform computes in (`Complex32`,
/// `Complex64`), each with its real type.
///
/// ```
/// use chunked_array::{Complex64, fft::FftComplex};
/// fn real_of<C: FftComplex>() -> &'static str { std::any::type_name::<C::Real>() }
/// assert_eq!(real_of::<Complex64>(), "f64");
/// ```
pub trait FftComplex: ComplexFloat + sealed::Sealed {
    /// The real numbers of this precision.
    type Real: FftFloat<Complex = Self>;
}

impl FftComplex for Complex<f32> {
    type Real = f32;
}

impl FftComplex for Complex<f64> {
    type Real = f64;
}

/// The element types a complex transform takes: f32, f64 and their complex
/// types (a real input is a complex one with zero imaginary parts).
///
/// ```
/// use chunked_array::{Array, fft};
/// let x = Array::<f32>::ones(&[8], 4).unwrap();
/// let y: chunked_array::Array<chunked_array::Complex32> = fft::fft(&x).unwrap();
/// assert_eq!(y.shape(), vec![8]);
/// ```
pub trait FftInput: Number + sealed::Sealed {
    /// The precision of the transform.
    type Real: FftFloat;
}

impl FftInput for f32 {
    type Real = f32;
}

impl FftInput for f64 {
    type Real = f64;
}

impl FftInput for Complex<f32> {
    type Real = f32;
}

impl FftInput for Complex<f64> {
    type Real = f64;
}

/// The complex type of the transform of an array of `T`.
pub type Spectrum<T> = <<T as FftInput>::Real as FftFloat>::Complex;

/// The arguments of the one-axis transforms (NumPy's `n`, `axis`, `norm`).
///
/// ```
/// use chunked_array::{Array, fft::{self, FftOptions, Norm}};
/// let x = Array::<f64>::ones(&[3, 5], [3, 2]).unwrap();
/// // NumPy: np.fft.fft(x, n=8, axis=0, norm="ortho")
/// let y = fft::fft_with(&x, &FftOptions { n: Some(8), axis: 0, norm: Norm::Ortho, ..Default::default() }).unwrap();
/// assert_eq!(y.shape(), vec![8, 5]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FftOptions {
    /// Length of the transformed axis: the input is cut, or padded with
    /// zeros at the end, to it (default: the axis' length; `irfft`'s and
    /// `hfft`'s default is `2 (m - 1)` for `m` inputs).
    pub n: Option<usize>,
    /// The axis (negative counts from the end); default the last.
    pub axis: isize,
    /// The scaling; default [`Norm::Backward`].
    pub norm: Norm,
    /// Most bytes a task may hold (default 128 MiB): lanes over a quarter of
    /// it, on an axis of several chunks, are transformed in four steps.
    pub block_size_limit: usize,
}

impl Default for FftOptions {
    fn default() -> Self {
        FftOptions { n: None, axis: -1, norm: Norm::Backward, block_size_limit: DEFAULT_AUTO_BYTES }
    }
}

impl FftOptions {
    /// The axis' number and the transform's length, `default_n` from the
    /// axis' length when `n` is not given.
    fn resolve(&self, shape: &[usize], default_n: impl Fn(usize) -> usize) -> Result<(AxisPlan, usize)> {
        if shape.is_empty() {
            return Err(Error::invalid("array shape", shape, "a transform needs at least one axis"));
        }
        let axis = normalize_axes(&[self.axis], shape.len())?[0];
        let n = self.n.unwrap_or_else(|| default_n(shape[axis]));
        check_length("n", n)?;
        Ok((AxisPlan { axis, norm: self.norm, block_size_limit: self.block_size_limit }, n))
    }
}

/// Refuses a transform length of 0 (NumPy: "Invalid number of FFT data points").
fn check_length(name: &str, n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::invalid(name, n, "the number of FFT data points must be at least 1"));
    }
    Ok(())
}

/// `irfft`'s length for `m` inputs when none is given: `2 (m - 1)`.
fn hermitian_length(m: usize) -> usize {
    m.saturating_sub(1).saturating_mul(2)
}

/// The one-dimensional discrete Fourier transform along the last axis
/// (NumPy's `np.fft.fft(a)`).
///
/// ```
/// use chunked_array::{Array, fft};
/// let x = Array::<f64>::from_vec(&[4], vec![1.0, 0.0, 0.0, 0.0], 1).unwrap();
/// let y = fft::fft(&x).unwrap().compute().unwrap();
/// assert!(y.iter().all(|v| (v.re - 1.0).abs() < 1e-15 && v.im.abs() < 1e-15));
/// ```
///
/// # Errors
/// As [`fft_with`].
pub fn fft<T: FftInput>(a: &Array<T>) -> Result<Array<Spectrum<T>>> {
    fft_with(a, &FftOptions::default())
}

/// [`fft`] with NumPy's `n`, `axis` and `norm` ([`FftOptions`]).
///
/// ```
/// use chunked_array::{Array, fft::{self, FftOptions}};
/// // The axis spans three chunks: no rechunk by the user (dask refuses it).
/// let x = Array::<f64>::from_fn(&[6, 2], [2, 2], |i| i[0] as f64).unwrap();
/// let y = fft::fft_with(&x, &FftOptions { axis: 0, ..Default::default() }).unwrap().compute().unwrap();
/// assert!((y[[0, 1]].re - 15.0).abs() < 1e-12);
/// ```
///
/// # Errors
/// [`Error::BadAxis`] for an axis out of range; [`Error::InvalidArgument`]
/// for `n = 0` (or an empty axis without `n`), a 0-dimensional array, or a
/// lane too long for `block_size_limit` with no factor pair whose shorter
/// lanes fit.
pub fn fft_with<T: FftInput>(a: &Array<T>, options: &FftOptions) -> Result<Array<Spectrum<T>>> {
    complex_1d(a, options, false)
}

/// The inverse transform along the last axis (NumPy's `np.fft.ifft`):
/// `ifft(fft(x)) == x`.
///
/// ```
/// use chunked_array::{Array, fft};
/// let x = Array::<f64>::from_vec(&[5], vec![1.0, -2.0, 3.5, 0.0, 7.0], 2).unwrap();
/// let back = fft::ifft(&fft::fft(&x).unwrap()).unwrap().compute().unwrap();
/// assert!(back.iter().zip([1.0, -2.0, 3.5, 0.0, 7.0]).all(|(b, v)| (b.re - v).abs() < 1e-12));
/// ```
///
/// # Errors
/// As [`fft_with`].
pub fn ifft<T: FftInput>(a: &Array<T>) -> Result<Array<Spectrum<T>>> {
    ifft_with(a, &FftOptions::default())
}

/// [`ifft`] with options.
///
/// ```
/// use chunked_array::{Array, fft::{self, FftOptions, Norm}};
/// let x = Array::<f64>::ones(&[4], 2).unwrap();
/// let y = fft::ifft_with(&x, &FftOptions { norm: Norm::Forward, ..Default::default() }).unwrap();
/// assert!((y.compute().unwrap()[0].re - 4.0).abs() < 1e-12); // no 1/n
/// ```
///
/// # Errors
/// As [`fft_with`].
pub fn ifft_with<T: FftInput>(a: &Array<T>, options: &FftOptions) -> Result<Array<Spectrum<T>>> {
    complex_1d(a, options, true)
}

fn complex_1d<T: FftInput>(a: &Array<T>, options: &FftOptions, inverse: bool) -> Result<Array<Spectrum<T>>> {
    a.check()?;
    let (plan, n) = options.resolve(&a.shape(), |len| len)?;
    let x = axis::resized(&a.astype::<Spectrum<T>>(), plan.axis, n)?;
    axis::complex::<T::Real>(&x, &plan, inverse)
}

/// The transform of real input, its `n / 2 + 1` non-negative frequencies
/// (NumPy's `np.fft.rfft`).
///
/// ```
/// use chunked_array::{Array, fft};
/// let x = Array::<f64>::from_vec(&[4], vec![1.0, 2.0, 3.0, 4.0], 3).unwrap();
/// let y = fft::rfft(&x).unwrap().compute().unwrap();
/// assert_eq!(y.len(), 3);
/// assert!((y[1].re + 2.0).abs() < 1e-12 && (y[1].im - 2.0).abs() < 1e-12);
/// ```
///
/// # Errors
/// As [`fft_with`].
pub fn rfft<R: FftFloat>(a: &Array<R>) -> Result<Array<R::Complex>> {
    rfft_with(a, &FftOptions::default())
}

/// [`rfft`] with options.
///
/// ```
/// use chunked_array::{Array, fft::{self, FftOptions}};
/// let x = Array::<f32>::ones(&[2, 6], [1, 3]).unwrap();
/// let y = fft::rfft_with(&x, &FftOptions { n: Some(4), ..Default::default() }).unwrap();
/// assert_eq!(y.shape(), vec![2, 3]);
/// ```
///
/// # Errors
/// As [`fft_with`].
pub fn rfft_with<R: FftFloat>(a: &Array<R>, options: &FftOptions) -> Result<Array<R::Complex>> {
    a.check()?;
    let (plan, n) = options.resolve(&a.shape(), |len| len)?;
    axis::real_forward(&axis::resized(a, plan.axis, n)?, &plan)
}

/// The inverse of [`rfft`]: `n` reals (default `2 (m - 1)` for `m` inputs)
/// from the non-negative frequencies (NumPy's `np.fft.irfft`). The imaginary
/// parts of the zero and Nyquist frequencies are ignored.
///
/// ```
/// use chunked_array::{Array, fft::{self, FftOptions}};
/// let x = Array::<f64>::from_vec(&[5], vec![1.0, 2.0, 0.0, -1.0, 4.0], 2).unwrap();
/// let back = fft::irfft_with(&fft::rfft(&x).unwrap(), &FftOptions { n: Some(5), ..Default::default() }).unwrap();
/// let back = back.compute().unwrap();
/// assert!(back.iter().zip([1.0, 2.0, 0.0, -1.0, 4.0]).all(|(b, v)| (b - v).abs() < 1e-12));
/// ```
///
/// # Errors
/// As [`fft_with`]; an axis of one element without `n` (whose default length
/// would be 0).
pub fn irfft<C: FftComplex>(a: &Array<C>) -> Result<Array<C::Real>> {
    irfft_with(a, &FftOptions::default())
}

/// [`irfft`] with options.
///
/// ```
/// use chunked_array::{Array, Complex64, fft::{self, FftOptions}};
/// let x = Array::<Complex64>::from_vec(&[2], vec![Complex64::new(2.0, 0.0), Complex64::new(0.0, 0.0)], 1).unwrap();
/// let y = fft::irfft_with(&x, &FftOptions { n: Some(3), ..Default::default() }).unwrap();
/// assert!(y.compute().unwrap().iter().all(|v| (v - 2.0 / 3.0).abs() < 1e-12));
/// ```
///
/// # Errors
/// As [`irfft`].
pub fn irfft_with<C: FftComplex>(a: &Array<C>, options: &FftOptions) -> Result<Array<C::Real>> {
    a.check()?;
    let (plan, n) = options.resolve(&a.shape(), hermitian_length)?;
    axis::real_inverse::<C::Real>(&axis::resized(a, plan.axis, n / 2 + 1)?, n, &plan)
}

/// The transform of a signal with Hermitian symmetry, given by its
/// non-negative frequencies: real output (NumPy's `np.fft.hfft`,
/// `irfft(conj(a)) · n` under the default norm).
///
/// ```
/// use chunked_array::{Array, Complex64, fft};
/// let x = Array::<Complex64>::from_vec(&[3], vec![Complex64::new(1.0, 0.0), Complex64::new(2.0, -1.0), Complex64::new(3.0, 0.0)], 2).unwrap();
/// let y = fft::hfft(&x).unwrap().compute().unwrap(); // n = 4
/// let want = [8.0, -4.0, 0.0, 0.0]; // NumPy's np.fft.hfft([1, 2-1j, 3])
/// assert!(y.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12));
/// ```
///
/// # Errors
/// As [`irfft`].
pub fn hfft<C: FftComplex>(a: &Array<C>) -> Result<Array<C::Real>> {
    hfft_with(a, &FftOptions::default())
}

/// [`hfft`] with options.
///
/// ```
/// use chunked_array::{Array, Complex64, fft::{self, FftOptions}};
/// let x = Array::<Complex64>::ones(&[4], 2).unwrap();
/// assert_eq!(fft::hfft_with(&x, &FftOptions { n: Some(7), ..Default::default() }).unwrap().shape(), vec![7]);
/// ```
///
/// # Errors
/// As [`irfft`].
pub fn hfft_with<C: FftComplex>(a: &Array<C>, options: &FftOptions) -> Result<Array<C::Real>> {
    irfft_with(&a.conj(), &FftOptions { norm: options.norm.swapped(), ..*options })
}

/// The inverse of [`hfft`] for real input (NumPy's `np.fft.ihfft`,
/// `conj(rfft(a)) / n` under the default norm).
///
/// ```
/// use chunked_array::{Array, fft};
/// let x = Array::<f64>::from_vec(&[4], vec![8.0, -4.0, 0.0, 0.0], 2).unwrap();
/// let y = fft::ihfft(&x).unwrap().compute().unwrap();
/// assert!((y[1].re - 2.0).abs() < 1e-12 && (y[1].im + 1.0).abs() < 1e-12);
/// ```
///
/// # Errors
/// As [`fft_with`].
pub fn ihfft<R: FftFloat>(a: &Array<R>) -> Result<Array<R::Complex>> {
    ihfft_with(a, &FftOptions::default())
}

/// [`ihfft`] with options.
///
/// ```
/// use chunked_array::{Array, fft::{self, FftOptions}};
/// let x = Array::<f64>::ones(&[5, 2], 2).unwrap();
/// assert_eq!(fft::ihfft_with(&x, &FftOptions { axis: 0, ..Default::default() }).unwrap().shape(), vec![3, 2]);
/// ```
///
/// # Errors
/// As [`fft_with`].
pub fn ihfft_with<R: FftFloat>(a: &Array<R>, options: &FftOptions) -> Result<Array<R::Complex>> {
    Ok(rfft_with(a, &FftOptions { norm: options.norm.swapped(), ..*options })?.conj())
}
