//! A reduction from the user's three functions (dask's `da.reduction`):
//! `chunk` reduces each block, `combine` merges up to `split_every`
//! partial results along each reduced axis, level by level, and `aggregate`
//! makes the result from the last level's partials.

use ndarray::{ArrayD, ArrayViewD};

use crate::array::Array;
use crate::chunks::ChunkSpec;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::reduce::normalize_axes;

/// Options of [`reduction`].
///
/// ```
/// use chunked_array::ReductionOptions;
/// let opts = ReductionOptions { axes: Some(vec![0]), ..Default::default() };
/// assert_eq!((opts.split_every, opts.keepdims), (8, false));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReductionOptions {
    /// The axes reduced (negative from the end); `None`: all.
    pub axes: Option<Vec<isize>>,
    /// The most partial results one `combine` call merges along an axis
    /// (at least 2).
    pub split_every: usize,
    /// Keep the reduced axes with length 1.
    pub keepdims: bool,
}

impl Default for ReductionOptions {
    fn default() -> Self {
        ReductionOptions { axes: None, split_every: 8, keepdims: false }
    }
}

/// A tree reduction of `x` by three functions over ndarray views (dask's
/// `da.reduction(x, chunk, aggregate, combine=..., split_every=...,
/// keepdims=...)`). Each gets the reduced axes' numbers and returns its input
/// with those axes of length 1: `chunk` of a block, `combine` of up to
/// `split_every` partial results joined along each reduced axis, `aggregate`
/// of the last ones.
///
/// ```
/// use chunked_array::{reduction, Array, ReductionOptions};
/// use chunked_array::ndarray::{ArrayD, Axis};
/// // A sum of squares: the blocks' sums of squares, then sums of those.
/// fn sum_axes(mut a: ArrayD<f64>, axes: &[usize]) -> ArrayD<f64> {
///     for &ax in axes {
///         a = a.sum_axis(Axis(ax)).insert_axis(Axis(ax));
///     }
///     a
/// }
/// let x = Array::<f64>::arange(0.0, 10.0, 1.0, 3).unwrap();
/// let squares = reduction(
///     &x,
///     |b, axes| sum_axes(b.mapv(|v| v * v), axes),
///     |p, axes| sum_axes(p.to_owned(), axes),
///     |p, axes| sum_axes(p.to_owned(), axes),
///     &ReductionOptions { split_every: 2, ..Default::default() },
/// ).unwrap();
/// assert_eq!(squares.compute_scalar().unwrap(), 285.0);
/// ```
///
/// # Errors
/// [`Error::BadAxis`]; [`Error::InvalidArgument`] for `split_every` below
/// 2; at compute time, [`Error::ShapeMismatch`] naming a function's result
/// whose reduced axes are not of length 1 or whose other axes changed.
pub fn reduction<T, A, U, C, M, G>(
    x: &Array<T>,
    chunk: C,
    combine: M,
    aggregate: G,
    opts: &ReductionOptions,
) -> Result<Array<U>>
where
    T: Element,
    A: Element,
    U: Element,
    C: Fn(ArrayViewD<'_, T>, &[usize]) -> ArrayD<A> + Send + Sync + 'static,
    M: Fn(ArrayViewD<'_, A>, &[usize]) -> ArrayD<A> + Send + Sync + 'static,
    G: Fn(ArrayViewD<'_, A>, &[usize]) -> ArrayD<U> + Send + Sync + 'static,
{
    if opts.split_every < 2 {
        return Err(Error::invalid(
            "split_every",
            opts.split_every,
            "a reduction merges at least 2 partials at a time",
        ));
    }
    let axes = match &opts.axes {
        Some(a) => normalize_axes(a, x.ndim())?,
        None => (0..x.ndim()).collect(),
    };
    let per_axis = |lengths: &[Vec<usize>], reduced_to: &dyn Fn(&[usize]) -> Vec<usize>| -> Vec<Vec<usize>> {
        lengths.iter().enumerate().map(|(a, l)| if axes.contains(&a) { reduced_to(l) } else { l.clone() }).collect()
    };
    let ones = |l: &[usize]| vec![1; l.len()];
    let (ax, out) = (axes.clone(), per_axis(x.chunks().lengths(), &ones));
    let mut partials = x.try_map_blocks(
        move |b, _| {
            let shape = b.shape().to_vec();
            reduced(&shape, chunk(b, &ax), &ax, "chunk")
        },
        Some(out.into()),
    )?;
    let combine = std::sync::Arc::new(combine);
    while axes.iter().any(|&a| partials.shape()[a] > opts.split_every) {
        let grouped = partials.rechunk(ChunkSpec::from(per_axis(partials.chunks().lengths(), &|l: &[usize]| {
            let n = l.len();
            (0..n.div_ceil(opts.split_every)).map(|g| opts.split_every.min(n - g * opts.split_every)).collect()
        })))?;
        let (ax, out, combine) = (axes.clone(), per_axis(grouped.chunks().lengths(), &ones), combine.clone());
        partials = grouped.try_map_blocks(
            move |b, _| {
                let shape = b.shape().to_vec();
                reduced(&shape, combine(b, &ax), &ax, "combine")
            },
            Some(out.into()),
        )?;
    }
    let last = partials
        .rechunk(ChunkSpec::from(per_axis(partials.chunks().lengths(), &|l: &[usize]| vec![l.iter().sum()])))?;
    let (ax, out) = (axes.clone(), per_axis(last.chunks().lengths(), &ones));
    let result = last.try_map_blocks(
        move |b, _| {
            let shape = b.shape().to_vec();
            reduced(&shape, aggregate(b, &ax), &ax, "aggregate")
        },
        Some(out.into()),
    )?;
    if opts.keepdims {
        return Ok(result);
    }
    result.squeeze(Some(&axes.iter().map(|&a| a as isize).collect::<Vec<_>>()))
}

/// `r`, checked to be `input`'s shape with the reduced `axes` of length 1.
fn reduced<V>(input: &[usize], r: ArrayD<V>, axes: &[usize], what: &str) -> Result<ArrayD<V>> {
    let want: Vec<usize> = input.iter().enumerate().map(|(a, &n)| if axes.contains(&a) { 1 } else { n }).collect();
    if r.shape() != want.as_slice() {
        return Err(Error::shape(&format!("reduction's {what} result (expected, returned)"), &want, r.shape()));
    }
    Ok(r)
}
