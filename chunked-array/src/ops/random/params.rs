//! Distribution parameters that are numbers or arrays, as NumPy's
//! `normal(mu_array, sigma)`: an array parameter broadcasts against the
//! output's shape, and element `i` is the sampler applied to its own
//! parameters and its own draws. With every parameter equal to a number,
//! element `i` is the one the number gives: the arrays change parameters,
//! never the draws, so chunking invariance holds as for numbers.

use std::mem::MaybeUninit;
use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{AxisChunks, ChunkSpec, Chunks};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};
use crate::ops::random::RandomState;
use crate::ops::random::distributions::fill_words;
use crate::ops::random::element_draws::{ElementDraws, element_key, fill_elements};

/// A parameter of a distribution: one number for every element, or an
/// `f64` array broadcast against the output's shape (NumPy's array-valued
/// parameters). `f64` and `&Array<f64>` convert into it, so each
/// distribution takes either. A number is checked when the array is built;
/// an array's values are checked as its blocks are made, so a refused value
/// is the compute's `Err`, naming the parameter and the value.
///
/// ```
/// use chunked_array::Array;
/// use chunked_array::random::RandomState;
/// let rng = RandomState::new(3);
/// // A scale per column: dask's rng.exponential(scale=[1, 10, 100], size=(1000, 3))
/// let scale = Array::from_vec(&[3], vec![1.0, 10.0, 100.0], 3).unwrap();
/// let x = rng.exponential(&scale, &[1000, 3], [250, 3]).unwrap();
/// let means = x.mean(Some(0)).unwrap().compute().unwrap();
/// assert!((means[1] / means[0] - 10.0).abs() < 2.0 && (means[2] / means[0] - 100.0).abs() < 20.0);
/// ```
#[derive(Clone)]
pub enum Param {
    /// The same value for every element.
    Value(f64),
    /// One value per element, broadcast against the output's shape.
    Array(Array<f64>),
}

impl From<f64> for Param {
    fn from(value: f64) -> Param {
        Param::Value(value)
    }
}

impl From<&Array<f64>> for Param {
    fn from(array: &Array<f64>) -> Param {
        Param::Array(array.clone())
    }
}

impl From<Array<f64>> for Param {
    fn from(array: Array<f64>) -> Param {
        Param::Array(array)
    }
}

/// An integer parameter of a distribution: one number for every element,
/// or an `i64` array broadcast against the output's shape (NumPy's
/// `binomial(n_array, p)` and `integers(low, high_array)`). `i64` and
/// `&Array<i64>` convert into it; integer literals are `i64` here. Checked
/// as [`Param`]: a number when the array is built, an array's values as its
/// blocks are made.
///
/// ```
/// use chunked_array::Array;
/// use chunked_array::random::RandomState;
/// let rng = RandomState::new(4);
/// // Trials per column: NumPy's rng.binomial([10, 1000], 0.5, size=(2000, 2))
/// let n = Array::<i64>::from_vec(&[2], vec![10, 1000], 2).unwrap();
/// let x = rng.binomial(&n, 0.5, &[2000, 2], [500, 2]).unwrap().compute().unwrap();
/// assert!((0..2000).all(|i| x[[i, 0]] <= 10) && (0..2000).any(|i| x[[i, 1]] > 10));
/// ```
#[derive(Clone)]
pub enum IntParam {
    /// The same value for every element.
    Value(i64),
    /// One value per element, broadcast against the output's shape.
    Array(Array<i64>),
}

impl From<i64> for IntParam {
    fn from(value: i64) -> IntParam {
        IntParam::Value(value)
    }
}

impl From<&Array<i64>> for IntParam {
    fn from(array: &Array<i64>) -> IntParam {
        IntParam::Array(array.clone())
    }
}

impl From<Array<i64>> for IntParam {
    fn from(array: Array<i64>) -> IntParam {
        IntParam::Array(array)
    }
}

impl IntParam {
    /// The parameter on the `f64` path of the sampling layers, each integer
    /// as the `f64` with its bits: exact for every `i64` (an `f64` holds 53
    /// bits of an integer's value), read back by [`integer`]. Pieces
    /// compare parameters bitwise, so no two integers are taken as equal.
    pub(crate) fn as_bits(&self) -> Param {
        match self {
            IntParam::Value(v) => Param::Value(f64::from_bits(*v as u64)),
            IntParam::Array(a) => Param::Array(a.map(|v| f64::from_bits(v as u64))),
        }
    }
}

/// The integer that [`IntParam::as_bits`] carries in `bits`.
pub(crate) fn integer(bits: f64) -> i64 {
    bits.to_bits() as i64
}

/// Elements whose parameters are gathered and prepared at a time.
const PIECE: usize = 4096;

/// Distinct parameters remembered with their preparation.
const RECENT: usize = 8;

/// The parameters of a block's elements in C order, checked and prepared a
/// piece at a time; parameters seen among the last few distinct ones (a
/// broadcast parameter repeats) share one preparation.
struct PieceParams<'a, P, const N: usize> {
    values: [Option<f64>; N],
    columns: Vec<Column<'a>>,
    prepared: Vec<P>,
    which: Vec<usize>,
    /// The last distinct parameters as bits (an integer parameter travels
    /// as its bits, see IntParam), each with its preparation's index.
    recent: Vec<([u64; N], usize)>,
}

impl<'a, P, const N: usize> PieceParams<'a, P, N> {
    fn new(values: [Option<f64>; N], views: &'a [ArrayViewD<'a, f64>]) -> Self {
        let columns = views.iter().map(Column::new).collect();
        PieceParams { values, columns, prepared: Vec::new(), which: Vec::with_capacity(PIECE), recent: Vec::new() }
    }

    /// Prepares the next `count` elements' parameters.
    ///
    /// # Errors
    /// The first `Err` of `prepare` (a refused value).
    fn next_piece(&mut self, count: usize, prepare: &impl Fn([f64; N]) -> Result<P>) -> Result<()> {
        self.prepared.clear();
        self.which.clear();
        self.recent.clear();
        for _ in 0..count {
            let mut column = self.columns.iter_mut();
            let params = self.values.map(|v| v.unwrap_or_else(|| column.next().map_or(f64::NAN, Column::next)));
            let bits = params.map(f64::to_bits);
            let at = match self.recent.iter().find(|(p, _)| *p == bits) {
                Some(&(_, at)) => at,
                None => {
                    self.prepared.push(prepare(params)?);
                    if self.recent.len() == RECENT {
                        self.recent.remove(0);
                    }
                    self.recent.push((bits, self.prepared.len() - 1));
                    self.prepared.len() - 1
                }
            };
            self.which.push(at);
        }
        Ok(())
    }

    /// Element `c` of the piece's preparation.
    fn of(&self, c: usize) -> &P {
        &self.prepared[self.which[c]]
    }

    /// The piece's runs of elements with the same preparation, in order:
    /// `(start, length, preparation)`.
    fn runs(&self) -> impl Iterator<Item = (usize, usize, &P)> {
        let which = &self.which;
        let mut start = 0;
        std::iter::from_fn(move || {
            let at = *which.get(start)?;
            let length = which[start..].iter().take_while(|&&w| w == at).count();
            start += length;
            Some((start - length, length, &self.prepared[at]))
        })
    }
}

/// One parameter's values over a block in C order, row by row (a row of a
/// broadcast parameter often one value with stride 0): IxDyn's element
/// iterator pays for its index on every element.
struct Column<'a> {
    rows: ndarray::iter::LanesIter<'a, f64, ndarray::IxDyn>,
    row: ndarray::ArrayView1<'a, f64>,
    at: usize,
}

impl<'a> Column<'a> {
    /// `view` has at least one axis.
    fn new(view: &'a ArrayViewD<'a, f64>) -> Self {
        let mut rows = view.lanes(ndarray::Axis(view.ndim().saturating_sub(1))).into_iter();
        let row = rows.next().unwrap_or_else(|| ndarray::ArrayView1::from(&[][..]));
        Column { rows, row, at: 0 }
    }

    /// The next value (NaN past the end, which the caller's count prevents).
    fn next(&mut self) -> f64 {
        while self.at == self.row.len() {
            match self.rows.next() {
                Some(row) => (self.row, self.at) = (row, 0),
                None => return f64::NAN,
            }
        }
        self.at += 1;
        self.row[self.at - 1]
    }
}

/// The parameter blocks `inputs` broadcast to block `idx`'s shape.
fn broadcast_views<'a>(node: &Node, idx: &[usize], inputs: &[&'a Block]) -> Result<Vec<ArrayViewD<'a, f64>>> {
    let mut shape = node.chunks.block_shape(idx);
    if shape.is_empty() {
        // The one element of a 0-d block as a row of one.
        shape.push(1);
    }
    inputs
        .iter()
        .map(|b| {
            let block = block_as::<f64>(b, node, "parameter")?;
            block.broadcast(shape.as_slice()).ok_or_else(|| Error::shape("parameter block", block.shape(), &shape))
        })
        .collect()
}

/// The block indices of the parameter inputs of block `idx` (`stretched`:
/// per input, its axes of one block), after `first` inputs of the output's
/// grid.
fn param_deps(node: &Node, idx: &[usize], stretched: &[Vec<bool>], first: usize, out: &mut Vec<(usize, usize)>) {
    for i in 0..first {
        out.push((i, node.inputs[i].chunks.linear(idx)));
    }
    for (i, (input, stretched)) in node.inputs[first..].iter().zip(stretched).enumerate() {
        let at: Vec<usize> = idx.iter().zip(stretched).map(|(&b, &s)| if s { 0 } else { b }).collect();
        out.push((first + i, input.chunks.linear(&at)));
    }
}

/// The sampling layer: inputs are the array parameters, chunked as the
/// output along their own axes and one block of 1 along the axes they are
/// broadcast on (`stretched`, per input); `values[j]` is parameter `j`'s
/// number, `None` where it is an input (in order). `fill(params, start,
/// piece)` writes a piece of elements from global index `start` on, given
/// their prepared parameters.
struct ParamSampled<T, F, S, const N: usize> {
    values: [Option<f64>; N],
    stretched: Vec<Vec<bool>>,
    prepare: F,
    fill: S,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T, P, F, S, const N: usize> BlockOp for ParamSampled<T, F, S, N>
where
    T: Element,
    F: Fn([f64; N]) -> Result<P> + Send + Sync + 'static,
    S: for<'a> Fn(&PieceParams<'a, P, N>, u64, &mut [MaybeUninit<T>]) + Send + Sync + 'static,
{
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        param_deps(node, idx, &self.stretched, 0, out);
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let views = broadcast_views(node, idx, inputs)?;
        let mut params = PieceParams::new(self.values, &views);
        let mut refused = None;
        let block = super::fill_block(&node.chunks, idx, |first, out: &mut [MaybeUninit<T>]| {
            for (p, piece) in out.chunks_mut(PIECE).enumerate() {
                if refused.is_none()
                    && let Err(e) = params.next_piece(piece.len(), &self.prepare)
                {
                    refused = Some(e);
                }
                if refused.is_some() {
                    // The block fails: its slots are written only to be whole.
                    piece.iter_mut().for_each(|slot| {
                        slot.write(T::default());
                    });
                    continue;
                }
                (self.fill)(&params, first + (p * PIECE) as u64, piece);
            }
        });
        match refused {
            Some(e) => Err(e),
            None => Ok(Arc::new(block)),
        }
    }
}

/// The layer that combines each element of its first input (chunked as the
/// output) with the element's parameters, the other inputs as in
/// [`ParamSampled`].
struct ParamMapped<T, F, C, const N: usize> {
    values: [Option<f64>; N],
    stretched: Vec<Vec<bool>>,
    prepare: F,
    combine: C,
    _t: std::marker::PhantomData<fn(T) -> T>,
}

impl<T, P, F, C, const N: usize> BlockOp for ParamMapped<T, F, C, N>
where
    T: Element,
    F: Fn([f64; N]) -> Result<P> + Send + Sync + 'static,
    C: Fn(&P, T) -> T + Send + Sync + 'static,
{
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        param_deps(node, idx, &self.stretched, 1, out);
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let base = block_as::<T>(inputs[0], node, "values")?;
        let views = broadcast_views(node, idx, &inputs[1..])?;
        let mut params = PieceParams::new(self.values, &views);
        let mut out: Vec<T> = crate::block::alloc::block_vec(base.len());
        // C order as a slice (IxDyn's element iterator pays for its index).
        let values = base
            .as_slice()
            .map_or_else(|| std::borrow::Cow::Owned(base.iter().copied().collect()), std::borrow::Cow::Borrowed);
        for piece in values.chunks(PIECE) {
            params.next_piece(piece.len(), &self.prepare)?;
            out.extend(piece.iter().enumerate().map(|(c, &v)| (self.combine)(params.of(c), v)));
        }
        Ok(Arc::new(
            ArrayD::from_shape_vec(base.raw_dim(), out)
                .map_err(|e| Error::invalid("block", base.shape(), e.to_string()))?,
        ))
    }
}

impl RandomState {
    /// An array of `shape` whose element `i` is `sample` of its prepared
    /// parameters and its draws. `prepare` checks and prepares parameters
    /// (an `Err` names the refused value): once for numbers, here; per
    /// element for arrays, when their blocks are made.
    pub(crate) fn sampled_with<T: Element, P: Send + Sync + 'static, const N: usize>(
        &self,
        name: &str,
        params: [Param; N],
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
        prepare: impl Fn([f64; N]) -> Result<P> + Send + Sync + 'static,
        sample: impl Fn(&P, &mut ElementDraws) -> T + Send + Sync + 'static,
    ) -> Result<Array<T>> {
        if let Some(values) = all_numbers(&params) {
            let prepared = prepare(values)?;
            return self.sampled(name, shape, chunks, move |d| sample(&prepared, d));
        }
        let key = element_key(self.seed, self.stream);
        let fill = move |params: &PieceParams<'_, P, N>, start: u64, piece: &mut [MaybeUninit<T>]| {
            fill_elements(key, start, piece, &|c, draws| sample(params.of(c), draws))
        };
        self.param_layer(name, &params, shape, chunks, prepare, fill)
    }

    /// An array of `shape` whose runs of elements with the same prepared
    /// parameters `fill_run(prepared, start, run)` writes (from global
    /// index `start` on): samplers whose numbers come in packed runs, as
    /// [`RandomState::filled`] for numbers.
    pub(crate) fn filled_runs_with<T: Element, P: Send + Sync + 'static, const N: usize>(
        &self,
        name: &str,
        params: [Param; N],
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
        prepare: impl Fn([f64; N]) -> Result<P> + Send + Sync + 'static,
        fill_run: impl Fn(&P, u64, &mut [MaybeUninit<T>]) + Send + Sync + 'static,
    ) -> Result<Array<T>> {
        if let Some(values) = all_numbers(&params) {
            let prepared = prepare(values)?;
            return self.filled(name, shape, chunks, move |first, out| fill_run(&prepared, first, out));
        }
        let fill = move |params: &PieceParams<'_, P, N>, start: u64, piece: &mut [MaybeUninit<T>]| {
            for (at, length, prepared) in params.runs() {
                fill_run(prepared, start + at as u64, &mut piece[at..at + length]);
            }
        };
        self.param_layer(name, &params, shape, chunks, prepare, fill)
    }

    /// [`RandomState::filled_runs_with`] for samplers that map each element's
    /// own 64-bit word of the packed layout ([`fill_words`]) through its own
    /// parameters (`finish`): the piece's words are made in one pass however
    /// often the parameters change, where runs of one element would each
    /// start the generator again.
    pub(crate) fn filled_words_with<T: Element, P: Send + Sync + 'static, const N: usize>(
        &self,
        name: &str,
        params: [Param; N],
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
        prepare: impl Fn([f64; N]) -> Result<P> + Send + Sync + 'static,
        finish: impl Fn(&P, u64) -> T + Send + Sync + 'static,
    ) -> Result<Array<T>> {
        let (seed, stream) = (self.seed, self.stream);
        let fill = move |params: &PieceParams<'_, P, N>, start: u64, piece: &mut [MaybeUninit<T>]| {
            let mut raw = [0u64; PIECE];
            let raw = &mut raw[..piece.len()];
            fill_words(seed, stream, start, raw);
            for (c, (out, &word)) in piece.iter_mut().zip(raw.iter()).enumerate() {
                out.write(finish(params.of(c), word));
            }
        };
        self.param_layer(name, &params, shape, chunks, prepare, fill)
    }

    /// The layer of [`ParamSampled`] over the array parameters in `params`.
    fn param_layer<T, P, F, S, const N: usize>(
        &self,
        name: &str,
        params: &[Param; N],
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
        prepare: F,
        fill: S,
    ) -> Result<Array<T>>
    where
        T: Element,
        P: Send + Sync + 'static,
        F: Fn([f64; N]) -> Result<P> + Send + Sync + 'static,
        S: for<'a> Fn(&PieceParams<'a, P, N>, u64, &mut [MaybeUninit<T>]) + Send + Sync + 'static,
    {
        let chunks = chunks.into().resolve(shape, T::DTYPE)?;
        let (inputs, stretched) = array_inputs(params, shape, &chunks)?;
        let op = ParamSampled { values: numbers(params), stretched, prepare, fill, _t: std::marker::PhantomData };
        let node = Node::new(name, T::DTYPE, chunks, inputs, op);
        Ok(Array::built(node)?.to_devices(&self.devices))
    }
}

/// `base` with each element `v` replaced by `combine(prepared, v)`, where
/// `prepared` is `prepare` of the element's parameters (at least one an
/// array; numbers are passed to `prepare` with them).
pub(super) fn mapped_with<T: Element, P: Send + Sync + 'static, const N: usize>(
    name: &str,
    base: &Array<T>,
    params: [Param; N],
    prepare: impl Fn([f64; N]) -> Result<P> + Send + Sync + 'static,
    combine: impl Fn(&P, T) -> T + Send + Sync + 'static,
) -> Result<Array<T>> {
    let base = base.to_host();
    let (shape, chunks) = (base.shape(), base.chunks().clone());
    let (params_in, stretched) = array_inputs(&params, &shape, &chunks)?;
    let inputs = std::iter::once(base.node.clone()).chain(params_in).collect();
    let op = ParamMapped { values: numbers(&params), stretched, prepare, combine, _t: std::marker::PhantomData };
    Array::built(Node::new(name, T::DTYPE, chunks, inputs, op))
}

/// Every parameter's number, or `None` when one is an array.
fn all_numbers<const N: usize>(params: &[Param; N]) -> Option<[f64; N]> {
    let values = numbers(params);
    values.iter().all(Option::is_some).then(|| values.map(|v| v.unwrap_or(f64::NAN)))
}

/// Each parameter's number, `None` where it is an array.
fn numbers<const N: usize>(params: &[Param; N]) -> [Option<f64>; N] {
    params.each_ref().map(|p| match p {
        Param::Value(v) => Some(*v),
        Param::Array(_) => None,
    })
}

/// A layer's parameter inputs, and per input the axes it is broadcast on.
type ParamInputs = (Vec<Arc<Node>>, Vec<Vec<bool>>);

/// The array parameters as the layer's inputs (in order), each with the
/// axes it is broadcast on (see [`along_output`]).
fn array_inputs(params: &[Param], shape: &[usize], chunks: &Chunks) -> Result<ParamInputs> {
    params
        .iter()
        .filter_map(|p| match p {
            Param::Array(a) => Some(along_output(a, shape, chunks)),
            Param::Value(_) => None,
        })
        .collect::<Result<Vec<_>>>()
        .map(|pairs| pairs.into_iter().unzip())
}

/// `param` with the output's number of axes, in the output's blocks along
/// its own axes and one block along those it is broadcast on (which it
/// returns), on the host.
///
/// # Errors
/// [`Error::ShapeMismatch`](crate::Error::ShapeMismatch) when `param` does
/// not broadcast against `shape`.
fn along_output(param: &Array<f64>, shape: &[usize], chunks: &Chunks) -> Result<(Arc<Node>, Vec<bool>)> {
    let full = with_output_axes(&param.shape(), shape)?;
    let stretched: Vec<bool> = full.iter().zip(shape).map(|(&p, &s)| p == 1 && s != 1).collect();
    let spec = chunks
        .lengths()
        .iter()
        .zip(&stretched)
        .map(|(lengths, &s)| AxisChunks::Explicit(if s { vec![1] } else { lengths.clone() }))
        .collect();
    let dims: Vec<isize> = full.iter().map(|&n| n as isize).collect();
    Ok((param.reshape(&dims)?.rechunk(ChunkSpec::per_axis(spec))?.to_host().node.clone(), stretched))
}

/// `own` (a parameter's shape) with 1s in front to `shape`'s axes.
///
/// # Errors
/// [`Error::ShapeMismatch`](crate::Error::ShapeMismatch) when it does not
/// broadcast against `shape` (NumPy's rule, without growing `shape`).
fn with_output_axes(own: &[usize], shape: &[usize]) -> Result<Vec<usize>> {
    let lead = shape.len().checked_sub(own.len()).ok_or_else(|| Error::shape("broadcast", own, shape))?;
    let full: Vec<usize> = std::iter::repeat_n(1, lead).chain(own.iter().copied()).collect();
    if full.iter().zip(shape).any(|(&p, &s)| p != s && p != 1) {
        return Err(Error::shape("broadcast", own, shape));
    }
    Ok(full)
}
