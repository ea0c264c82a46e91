//! Transforms along one axis of a chunked array, whatever its chunking.
//!
//! A lane that fits in a block (a quarter of the block-size limit, leaving room
//! for the task's input, output and scratch) is made whole by a rechunk, and
//! each block is transformed by one task. A longer lane is transformed by the
//! four-step (Bailey) algorithm: the axis of length `n = n1 · n2` is viewed as
//! two axes `(n1, n2)`, transformed along `n1`, multiplied by the twiddles
//! `w_n^(k1 · j2)`, transformed along `n2`, and the two axes are swapped back
//! into one (`X[k1 + n1 · k2]`). Each step is a whole-lane transform of
//! shorter lanes, and the transposes are rechunks, which the planner bounds
//! in memory (and the scheduler spills).

use ndarray::{ArrayD, ArrayViewD};

use crate::array::Array;
use crate::chunks::{AxisChunks, BlockSizeOptions, ChunkSpec};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::fft::FftFloat;
use crate::ops::fft::kernels::{self, Twiddles};
use crate::ops::pad::PadMode;

/// How a transform is scaled (NumPy's `norm`).
///
/// ```
/// use chunked_array::fft::Norm;
/// assert_eq!("ortho".parse::<Norm>().unwrap(), Norm::Ortho);
/// assert!("unitary".parse::<Norm>().unwrap_err().to_string().contains("unitary"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Norm {
    /// No scaling forward, `1/n` inverse (NumPy's default).
    #[default]
    Backward,
    /// `1/sqrt(n)` both ways: the transform is unitary.
    Ortho,
    /// `1/n` forward, no scaling inverse.
    Forward,
}

impl std::str::FromStr for Norm {
    type Err = Error;

    fn from_str(s: &str) -> Result<Norm> {
        match s {
            "backward" => Ok(Norm::Backward),
            "ortho" => Ok(Norm::Ortho),
            "forward" => Ok(Norm::Forward),
            _ => Err(Error::invalid("norm", s, "must be \"backward\", \"ortho\" or \"forward\"")),
        }
    }
}

impl Norm {
    /// The factor of a transform of length `n` in one direction.
    pub(crate) fn scale(self, n: usize, inverse: bool) -> f64 {
        match (self, inverse) {
            (Norm::Ortho, _) => 1.0 / (n as f64).sqrt(),
            (Norm::Backward, true) | (Norm::Forward, false) => 1.0 / n as f64,
            _ => 1.0,
        }
    }

    /// The norm of the opposite direction (NumPy's `_swap_direction`), with
    /// which `hfft` is an `irfft` and `ihfft` an `rfft`.
    pub(crate) fn swapped(self) -> Norm {
        match self {
            Norm::Backward => Norm::Forward,
            Norm::Forward => Norm::Backward,
            Norm::Ortho => Norm::Ortho,
        }
    }
}

/// What a one-axis transform needs besides its input.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AxisPlan {
    pub axis: usize,
    pub norm: Norm,
    pub block_size_limit: usize,
}

impl AxisPlan {
    /// Whether a lane of `len` elements of `C` fits in one task.
    fn lane_fits<C>(&self, len: usize) -> bool {
        len.saturating_mul(std::mem::size_of::<C>()).saturating_mul(4) <= self.block_size_limit
    }

    /// Whether `x`'s lanes of `n` elements of `C` take the long-lane path:
    /// the axis spans several chunks and a lane does not fit in one task.
    fn takes_four_steps<T: Element, C>(&self, x: &Array<T>, n: usize) -> bool {
        x.chunks().lengths()[self.axis].len() > 1 && !self.lane_fits::<C>(n)
    }

    /// `x` rechunked so that the axis is whole in every block, the other axes
    /// chunked so that a block stays under the limit.
    fn whole<T: Element>(&self, x: &Array<T>) -> Result<Array<T>> {
        if x.chunks().lengths()[self.axis].len() <= 1 {
            return Ok(x.clone());
        }
        let mut spec = vec![AxisChunks::Auto; x.ndim()];
        spec[self.axis] = AxisChunks::Whole;
        let options = BlockSizeOptions { block_size_limit: self.block_size_limit };
        x.rechunk_with(ChunkSpec::per_axis(spec).with_auto_bytes(self.block_size_limit / 4), &options)
    }

    /// The per-block layer applying `f` to blocks with the axis whole,
    /// whose output has `n_out` along it.
    fn per_block<X: Element, Y: Element>(
        &self,
        x: &Array<X>,
        n_out: usize,
        f: impl Fn(ArrayViewD<'_, X>, &[usize]) -> Result<ArrayD<Y>> + Send + Sync + 'static,
    ) -> Result<Array<Y>> {
        let whole = self.whole(x)?;
        let mut chunks = whole.chunks().lengths().to_vec();
        chunks[self.axis] = vec![n_out];
        whole.try_map_blocks(move |b, info| f(b, info.start), Some(chunks.into()))
    }
}

/// `x` cut or padded with zeros at the end of `axis` to length `n` (NumPy's
/// `n` argument).
pub(crate) fn resized<T: Element>(x: &Array<T>, axis: usize, n: usize) -> Result<Array<T>> {
    let len = x.shape()[axis];
    if n == len {
        return Ok(x.clone());
    }
    if n < len {
        return x.span(axis, 0, n);
    }
    let mut widths = vec![(0, 0); x.ndim()];
    widths[axis] = (0, n - len);
    x.pad(&widths, PadMode::Constant(T::default()))
}

/// The complex transform along the plan's axis.
pub(crate) fn complex<R: FftFloat>(x: &Array<R::Complex>, plan: &AxisPlan, inverse: bool) -> Result<Array<R::Complex>> {
    complex_with_twiddles::<R>(x, plan, inverse, None)
}

/// [`complex`], then each element multiplied by the four-step twiddle of its
/// place when `twiddles` holds the whole length.
fn complex_with_twiddles<R: FftFloat>(
    x: &Array<R::Complex>,
    plan: &AxisPlan,
    inverse: bool,
    twiddles: Option<usize>,
) -> Result<Array<R::Complex>> {
    let n = x.shape()[plan.axis];
    if twiddles.is_none() && plan.takes_four_steps::<_, R::Complex>(x, n) {
        return four_step::<R>(x, plan, inverse);
    }
    let (axis, scale) = (plan.axis, plan.norm.scale(n, inverse));
    let table = twiddles.map(|total| std::sync::Arc::new(Twiddles::new(total, inverse)));
    plan.per_block(x, n, move |b, start| {
        let mut out = kernels::complex_lanes::<R>(b, axis, inverse, scale)?;
        if let Some(t) = &table {
            kernels::apply_twiddles(&mut out, axis, start[axis + 1], t);
        }
        Ok(out)
    })
}

/// The factor pair `(n1, n2)` of `n` with `n1 <= n2` as close as can be, when
/// lanes of `n2` fit; `None` for a prime `n` or one whose factors are too
/// far apart.
fn split_length<C>(n: usize, plan: &AxisPlan) -> Option<(usize, usize)> {
    let mut n1 = (n as f64).sqrt() as usize;
    while n1 > 1 && !n.is_multiple_of(n1) {
        n1 -= 1;
    }
    (n1 > 1 && plan.lane_fits::<C>(n / n1)).then_some((n1, n / n1))
}

/// The four-step transform of a lane too long for a block (see the module).
fn four_step<R: FftFloat>(x: &Array<R::Complex>, plan: &AxisPlan, inverse: bool) -> Result<Array<R::Complex>> {
    let (axis, shape) = (plan.axis, x.shape());
    let n = shape[axis];
    let Some((n1, n2)) = split_length::<R::Complex>(n, plan) else {
        return Err(Error::invalid(
            "FFT length",
            n,
            format!(
                "a lane of this length does not fit in block_size_limit = {} bytes, and it has no factor pair whose \
                 shorter lanes do (the four-step transform needs one); raise the limit",
                plan.block_size_limit
            ),
        ));
    };
    let options = BlockSizeOptions { block_size_limit: plan.block_size_limit };
    let mut split: Vec<isize> = shape.iter().map(|&s| s as isize).collect();
    split.splice(axis..=axis, [n1 as isize, n2 as isize]);
    let grid = x.reshape_with(&split, &options)?;
    let first = complex_with_twiddles::<R>(&grid, plan, inverse, Some(n))?;
    let second = complex::<R>(&first, &AxisPlan { axis: axis + 1, ..*plan }, inverse)?;
    let back: Vec<isize> = shape.iter().map(|&s| s as isize).collect();
    second.swapaxes(axis as isize, axis as isize + 1)?.reshape_with(&back, &options)
}

/// The real-input transform along the plan's axis: `n / 2 + 1` outputs.
pub(crate) fn real_forward<R: FftFloat>(x: &Array<R>, plan: &AxisPlan) -> Result<Array<R::Complex>> {
    let n = x.shape()[plan.axis];
    let m = n / 2 + 1;
    if plan.takes_four_steps::<_, R::Complex>(x, n) {
        // The complex transform of the lane, of which the first half is kept.
        let full = complex::<R>(&x.astype::<R::Complex>(), plan, false)?;
        return full.span(plan.axis, 0, m);
    }
    let (axis, scale) = (plan.axis, plan.norm.scale(n, false));
    plan.per_block(x, m, move |b, _| kernels::real_forward_lanes::<R>(b, axis, scale))
}

/// The inverse of [`real_forward`] to `n` reals from `x`, which holds
/// `n / 2 + 1` numbers along the plan's axis.
pub(crate) fn real_inverse<R: FftFloat>(x: &Array<R::Complex>, n: usize, plan: &AxisPlan) -> Result<Array<R>> {
    let axis = plan.axis;
    if plan.takes_four_steps::<_, R::Complex>(x, n) {
        return Ok(complex::<R>(&hermitian_full::<R>(x, n, axis)?, plan, true)?.real());
    }
    let scale = plan.norm.scale(n, true);
    plan.per_block(x, n, move |b, _| kernels::real_inverse_lanes::<R>(b, axis, n, scale))
}

/// The whole spectrum of `n` values whose first `n / 2 + 1` are `x`:
/// `X[k] = conj(X[n - k])` above. The imaginary parts that a real signal
/// cannot have (at 0 and at `n / 2`) drop out of the real part taken after
/// the inverse transform.
fn hermitian_full<R: FftFloat>(x: &Array<R::Complex>, n: usize, axis: usize) -> Result<Array<R::Complex>> {
    let m = n / 2 + 1;
    let mirrored = x.span(axis, 1, n - m + 1)?.flip(axis as isize)?.conj();
    crate::ops::manip::concatenate(&[x, &mirrored], axis as isize)
}
