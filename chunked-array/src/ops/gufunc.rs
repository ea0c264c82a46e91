//! `apply_gufunc`: a function over core dimensions named by a NumPy
//! signature (`"(i),(i)->()"`, `"(m,n),(n,p)->(m,p)"`, `"(i)->(),()"`),
//! looped over the broadcast leading dimensions.
//!
//! The inputs are broadcast over the loop dimensions, cut on one grid there,
//! and made whole along their core dimensions (dask's `allow_rechunk`). One
//! task per loop block calls the function (once, or per loop position with
//! `vectorize`) and holds all its outputs; one light layer per output takes
//! its part out, so the function runs once however many outputs it has.

use std::any::Any;
use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD, Axis, Dimension, IxDyn};

use crate::array::Array;
use crate::block::{Block, BlockValue};
use crate::chunks::{Chunks, refine};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};

/// A parsed signature: each input's and output's core dimension names.
#[derive(Debug, Clone, PartialEq)]
struct Signature {
    inputs: Vec<Vec<String>>,
    outputs: Vec<Vec<String>>,
}

impl Signature {
    /// NumPy's grammar: `(dims),(dims)->(dims),(dims)`, names of letters,
    /// digits and `_`, spaces ignored.
    fn parse(text: &str) -> Result<Signature> {
        let bad = |why: &str| Error::invalid("signature", text, why.to_string());
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let (ins, outs) = compact.split_once("->").ok_or_else(|| bad("has no \"->\""))?;
        let list = |part: &str| -> Result<Vec<Vec<String>>> {
            let mut out = Vec::new();
            let mut rest = part;
            while !rest.is_empty() {
                let inner =
                    rest.strip_prefix('(').ok_or_else(|| bad("expects \"(\" before each argument's dimensions"))?;
                let close = inner.find(')').ok_or_else(|| bad("has an unclosed \"(\""))?;
                let dims: Vec<String> =
                    inner[..close].split(',').filter(|d| !d.is_empty()).map(str::to_string).collect();
                if dims.iter().any(|d| !d.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')) {
                    return Err(bad("has a dimension name that is not letters, digits and \"_\""));
                }
                out.push(dims);
                rest = &inner[close + 1..];
                rest = rest.strip_prefix(',').unwrap_or(rest);
            }
            Ok(out)
        };
        let (inputs, outputs) = (list(ins)?, list(outs)?);
        if inputs.is_empty() || outputs.is_empty() {
            return Err(bad("needs at least one input and one output"));
        }
        Ok(Signature { inputs, outputs })
    }
}

/// Options of [`apply_gufunc`].
///
/// ```
/// use chunked_array::GufuncOptions;
/// let opts = GufuncOptions { vectorize: true, output_sizes: vec![("k".into(), 3)] };
/// assert!(!GufuncOptions::default().vectorize);
/// # let _ = opts;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GufuncOptions {
    /// Call the function once per loop position with the core parts only
    /// (NumPy's `np.vectorize`); otherwise once per block with the loop
    /// dimensions leading.
    pub vectorize: bool,
    /// The sizes of output core dimensions no input has.
    pub output_sizes: Vec<(String, usize)>,
}

/// All outputs of one loop block, held together until each is taken out.
struct Outputs(Vec<Block>);

impl BlockValue for Outputs {
    fn nbytes(&self) -> usize {
        self.0.iter().map(|b| b.nbytes()).sum()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}

/// The function of a gufunc over one loop block's input views.
type Call<T, U> = Arc<dyn Fn(&[ArrayViewD<'_, T>]) -> Vec<ArrayD<U>> + Send + Sync>;

/// The layer that calls the function per loop block.
struct GufuncCall<T, U> {
    f: Call<T, U>,
    vectorize: bool,
    /// Each output's core shape.
    out_cores: Vec<Vec<usize>>,
}

impl<T: Element, U: Element> BlockOp for GufuncCall<T, U> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        for (k, input) in node.inputs.iter().enumerate() {
            let mut full = idx.to_vec();
            full.resize(input.chunks.ndim(), 0);
            out.push((k, input.chunks.linear(&full)));
        }
    }

    fn output_bytes(&self, node: &Node, idx: &[usize]) -> Option<usize> {
        let loop_len: usize = node.chunks.block_shape(idx).iter().product();
        Some(self.out_cores.iter().map(|c| loop_len * c.iter().product::<usize>() * std::mem::size_of::<U>()).sum())
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let arrays = inputs.iter().map(|b| block_as::<T>(b, node, "gufunc input")).collect::<Result<Vec<_>>>()?;
        let loop_shape = node.chunks.block_shape(idx);
        let shape_of = |core: &[usize]| -> Vec<usize> { loop_shape.iter().chain(core).copied().collect() };
        let outputs = if self.vectorize {
            let mut buffers: Vec<Vec<U>> = vec![Vec::new(); self.out_cores.len()];
            for at in ndarray::indices(IxDyn(&loop_shape)) {
                let views: Vec<ArrayViewD<'_, T>> = arrays
                    .iter()
                    .map(|a| at.slice().iter().fold(a.view(), |v, &i| v.index_axis_move(Axis(0), i)))
                    .collect();
                let results = (self.f)(&views);
                check_outputs(&results, &self.out_cores)?;
                for (buffer, r) in buffers.iter_mut().zip(&results) {
                    buffer.extend(r.iter().copied());
                }
            }
            buffers
                .into_iter()
                .zip(&self.out_cores)
                .map(|(b, core)| ArrayD::from_shape_vec(IxDyn(&shape_of(core)), b).expect("one result per position"))
                .collect()
        } else {
            let views: Vec<ArrayViewD<'_, T>> = arrays.iter().map(|a| a.view()).collect();
            let results = (self.f)(&views);
            let shapes: Vec<Vec<usize>> = self.out_cores.iter().map(|c| shape_of(c)).collect();
            check_outputs(&results, &shapes)?;
            results
        };
        Ok(Arc::new(Outputs(outputs.into_iter().map(|o| Arc::new(o) as Block).collect())))
    }
}

/// The function's results, checked in number and shape.
fn check_outputs<U: Element>(results: &[ArrayD<U>], shapes: &[Vec<usize>]) -> Result<()> {
    if results.len() != shapes.len() {
        return Err(Error::invalid("gufunc outputs", results.len(), format!("the signature has {}", shapes.len())));
    }
    for (r, s) in results.iter().zip(shapes) {
        if r.shape() != s.as_slice() {
            return Err(Error::shape("gufunc output (signature's, returned)", s, r.shape()));
        }
    }
    Ok(())
}

/// The layer taking output `k` out of the calls' blocks.
struct TakeOutput {
    k: usize,
    loop_ndim: usize,
}

impl BlockOp for TakeOutput {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, node.inputs[0].chunks.linear(&idx[..self.loop_ndim])));
    }

    fn run(&self, _: &Node, _: &[usize], inputs: &[&Block]) -> Result<Block> {
        let outputs = inputs[0]
            .as_any()
            .downcast_ref::<Outputs>()
            .ok_or_else(|| Error::invalid("gufunc block", "not the calls' outputs", "internal layer order"))?;
        Ok(outputs.0[self.k].clone())
    }
}

/// `f` over the core dimensions `signature` names, looped over the inputs'
/// broadcast leading dimensions (NumPy's and dask's `apply_gufunc(f,
/// signature, *args, vectorize=...)`); one array per output. `f` gets one
/// view per input and returns one array per output: per loop block (the
/// loop dimensions leading, then the core ones) or, with `vectorize`, per
/// loop position (the core dimensions only). Core dimensions are made whole
/// in each block.
///
/// ```
/// use chunked_array::{apply_gufunc, Array, GufuncOptions};
/// use chunked_array::ndarray::{ArrayD, Axis};
/// // Row-wise dot products: "(i),(i)->()", vectorized.
/// let a = Array::<f64>::from_vec(&[3, 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 1).unwrap();
/// let b = Array::<f64>::from_vec(&[2], vec![10.0, 1.0], 2).unwrap(); // broadcast over rows
/// let opts = GufuncOptions { vectorize: true, ..Default::default() };
/// let dot = |v: &[chunked_array::ndarray::ArrayViewD<'_, f64>]| vec![ArrayD::from_elem(vec![], (&v[0] * &v[1]).sum())];
/// let out = apply_gufunc("(i),(i)->()", dot, &[&a, &b], &opts).unwrap();
/// assert_eq!(out[0].compute().unwrap().as_slice().unwrap(), &[12.0, 34.0, 56.0]);
/// // Two outputs, per block: each row's minimum and maximum.
/// let ends = |v: &[chunked_array::ndarray::ArrayViewD<'_, f64>]| {
///     let last = v[0].ndim() - 1;
///     let min = v[0].map_axis(Axis(last), |l| l.iter().cloned().fold(f64::MAX, f64::min));
///     let max = v[0].map_axis(Axis(last), |l| l.iter().cloned().fold(f64::MIN, f64::max));
///     vec![min, max]
/// };
/// let out = apply_gufunc("(i)->(),()", ends, &[&a], &GufuncOptions::default()).unwrap();
/// assert_eq!(out[1].compute().unwrap().as_slice().unwrap(), &[2.0, 4.0, 6.0]);
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for a signature that does not parse, a count
/// of inputs it does not name, an input with fewer dimensions than its core
/// dimensions, a core dimension of two sizes, or an output dimension with
/// no size; [`Error::ShapeMismatch`] when the loop dimensions do not
/// broadcast; at compute time, outputs of another number or shape than the
/// signature says.
pub fn apply_gufunc<T: Element, U: Element>(
    signature: &str,
    f: impl Fn(&[ArrayViewD<'_, T>]) -> Vec<ArrayD<U>> + Send + Sync + 'static,
    inputs: &[&Array<T>],
    opts: &GufuncOptions,
) -> Result<Vec<Array<U>>> {
    let sig = Signature::parse(signature)?;
    if inputs.len() != sig.inputs.len() {
        return Err(Error::invalid(
            "inputs",
            inputs.len(),
            format!("the signature {signature:?} takes {}", sig.inputs.len()),
        ));
    }
    let (sizes, loop_shapes) = core_sizes(&sig, inputs, opts)?;
    let loop_shape = broadcast_loops(&loop_shapes)?;
    let out_cores: Vec<Vec<usize>> =
        sig.outputs
            .iter()
            .map(|dims| {
                dims.iter()
                    .map(|d| {
                        sizes.get(d).copied().ok_or_else(|| {
                            Error::invalid("output dimension", d, "has no size: give it in output_sizes")
                        })
                    })
                    .collect()
            })
            .collect::<Result<_>>()?;
    let loop_lengths = loop_grid(inputs, &loop_shapes, &loop_shape);
    let aligned = inputs
        .iter()
        .zip(&sig.inputs)
        .map(|(x, dims)| {
            let shape = x.shape();
            let core = &shape[shape.len() - dims.len()..];
            let full: Vec<usize> = loop_shape.iter().chain(core).copied().collect();
            let x = if shape == full { (*x).clone() } else { x.broadcast_to(&full)? };
            x.rechunk(loop_lengths.iter().cloned().chain(core.iter().map(|&n| vec![n])).collect::<Vec<_>>())
        })
        .collect::<Result<Vec<_>>>()?;
    let nl = loop_shape.len();
    let call = GufuncCall::<T, U> { f: Arc::new(f), vectorize: opts.vectorize, out_cores: out_cores.clone() };
    let nodes = aligned.iter().map(|a| a.node.clone()).collect();
    let grid = Chunks::from_lengths(loop_lengths.clone());
    let calls = Node::new("apply_gufunc", crate::element::DType::Intermediate, grid, nodes, call);
    out_cores
        .iter()
        .enumerate()
        .map(|(k, core)| {
            let lengths = loop_lengths.iter().cloned().chain(core.iter().map(|&n| vec![n])).collect();
            let take = TakeOutput { k, loop_ndim: nl };
            Array::built(Node::new(
                format!("apply_gufunc-{k}"),
                U::DTYPE,
                Chunks::from_lengths(lengths),
                vec![calls.clone()],
                take,
            ))
        })
        .collect()
}

/// Core dimension sizes by name.
type Sizes = std::collections::BTreeMap<String, usize>;

/// The size of every core dimension (from the inputs and `output_sizes`),
/// and each input's loop shape.
fn core_sizes<T: Element>(
    sig: &Signature,
    inputs: &[&Array<T>],
    opts: &GufuncOptions,
) -> Result<(Sizes, Vec<Vec<usize>>)> {
    let mut sizes: Sizes = opts.output_sizes.iter().cloned().collect();
    let mut loops = Vec::with_capacity(inputs.len());
    for (k, (x, dims)) in inputs.iter().zip(&sig.inputs).enumerate() {
        x.check()?;
        let shape = x.shape();
        if shape.len() < dims.len() {
            return Err(Error::invalid("input shape", &shape, format!("input {k} needs its core dimensions {dims:?}")));
        }
        let (lead, core) = shape.split_at(shape.len() - dims.len());
        for (d, &n) in dims.iter().zip(core) {
            match sizes.insert(d.clone(), n) {
                Some(m) if m != n => {
                    return Err(Error::invalid(
                        "core dimension",
                        d,
                        format!("is {m} in one place and {n} in input {k}"),
                    ));
                }
                _ => {}
            }
        }
        loops.push(lead.to_vec());
    }
    Ok((sizes, loops))
}

/// NumPy's broadcast of the loop shapes (aligned at the end).
fn broadcast_loops(shapes: &[Vec<usize>]) -> Result<Vec<usize>> {
    let nd = shapes.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = vec![1; nd];
    for s in shapes {
        for (j, &n) in s.iter().enumerate() {
            let o = &mut out[nd - s.len() + j];
            if *o != n && *o != 1 && n != 1 {
                return Err(Error::shape("apply_gufunc loop dimensions", &out, s));
            }
            if n != 1 {
                *o = n;
            }
        }
    }
    Ok(out)
}

/// The common refinement of the inputs' blocks on each loop dimension.
fn loop_grid<T: Element>(inputs: &[&Array<T>], loops: &[Vec<usize>], loop_shape: &[usize]) -> Vec<Vec<usize>> {
    let nl = loop_shape.len();
    (0..nl)
        .map(|a| {
            let bounds: Vec<&[usize]> = inputs
                .iter()
                .zip(loops)
                .filter_map(|(x, lead)| {
                    let la = (a + lead.len()).checked_sub(nl)?;
                    (lead[la] == loop_shape[a]).then(|| x.chunks().boundaries(la))
                })
                .collect();
            if bounds.is_empty() { vec![loop_shape[a]] } else { refine(&bounds) }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_parse_as_numpy_writes_them() {
        let s = Signature::parse("(m, n),(n,p)->(m,p)").unwrap();
        assert_eq!(s.inputs, vec![vec!["m", "n"], vec!["n", "p"]]);
        assert_eq!(s.outputs, vec![vec!["m", "p"]]);
        let s = Signature::parse("(i)->(),()").unwrap();
        assert_eq!((s.inputs.len(), s.outputs, s.inputs[0].len()), (1, vec![vec![], vec![]], 1));
        for bad in ["(i)", "(i->()", "i->()", "(i-j)->()", "->()"] {
            let e = Signature::parse(bad).unwrap_err().to_string();
            assert!(e.contains(bad), "{bad}: {e}");
        }
    }
}
