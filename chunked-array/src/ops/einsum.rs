//! `einsum`: Einstein summation over labelled axes, built from the other
//! operations: a diagonal per label repeated within an operand, a sum per label
//! that only one operand has and the output lacks, then the operands multiplied
//! two at a time (the cheapest pair first, or left to right), and a final
//! permutation. A product with labels kept on both sides and labels summed is
//! a matmul of stacks ([`Array::matmul`]: shared labels that stay are batch
//! axes, those that go are contracted); the others are a broadcast multiply
//! and a sum.

use crate::array::Array;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::contract::Gemm;
use crate::ops::reduce::ReduceOptions;

/// An axis label: a letter's code, or `ELLIPSIS + k` for the `k`-th axis (from
/// the left) that `...` stands for, counted in the widest operand's ellipsis.
type Label = u32;
const ELLIPSIS: Label = 1 << 16;

/// One operand's labels, parsed; `...` expanded to ellipsis labels aligned on
/// the right, as NumPy broadcasts them.
fn operand_labels(term: &str, ndim: usize, widest: usize, position: usize) -> Result<Vec<Label>> {
    let letters = term.chars().filter(|c| c.is_ascii_alphabetic()).count();
    let has_ellipsis = term.contains("...");
    if (!has_ellipsis && letters != ndim) || (has_ellipsis && letters > ndim) {
        return Err(Error::invalid(
            "einsum subscripts",
            term,
            format!("operand {position} has {ndim} axes, the subscripts name {letters}"),
        ));
    }
    let spanned = ndim - letters;
    let ellipsis: Vec<Label> = (widest - spanned..widest).map(|k| ELLIPSIS + k as Label).collect();
    Ok(expand(term, &ellipsis))
}

/// A checked term's labels, with `...` standing for `ellipsis`.
fn expand(term: &str, ellipsis: &[Label]) -> Vec<Label> {
    let mut labels = Vec::with_capacity(term.len());
    let mut rest = term;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("...") {
            labels.extend(ellipsis);
            rest = &rest[3..];
        } else {
            labels.push(c as Label);
            rest = &rest[1..];
        }
    }
    labels
}

/// Checks a term's characters: letters and at most one `...`.
fn check_term(term: &str, whole: &str) -> Result<()> {
    let without = term.replacen("...", "", 1);
    if without.contains('.') || !without.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(Error::invalid(
            "einsum subscripts",
            whole,
            format!("term {term:?}: only letters and one '...' are allowed"),
        ));
    }
    Ok(())
}

/// Sums `a`'s axes whose labels are not in `keep`.
fn sum_out<T: Gemm>(a: Array<T>, labels: &mut Vec<Label>, keep: &[Label]) -> Result<Array<T>> {
    let gone: Vec<isize> = (0..labels.len()).filter(|&i| !keep.contains(&labels[i])).map(|i| i as isize).collect();
    if gone.is_empty() {
        return Ok(a);
    }
    labels.retain(|l| keep.contains(l));
    a.sum(ReduceOptions::axes(gone))
}

/// `a` with its axes in the order of `want` (a permutation of `labels`).
fn arrange<T: Gemm>(a: &Array<T>, labels: &[Label], want: &[Label]) -> Result<Array<T>> {
    let perm: Vec<usize> =
        want.iter().map(|l| labels.iter().position(|x| x == l).expect("a label of the operand")).collect();
    if perm.iter().enumerate().all(|(i, &p)| i == p) { Ok(a.clone()) } else { a.permute_axes(&perm) }
}

/// Reshapes only when the shape changes (a reshape to the same shape would
/// still add a layer).
fn reshaped<T: Gemm>(a: Array<T>, shape: &[usize]) -> Result<Array<T>> {
    if a.shape() == shape {
        return Ok(a);
    }
    a.reshape(&shape.iter().map(|&n| n as isize).collect::<Vec<_>>())
}

/// Einstein summation (NumPy's and dask's `einsum`) for float arrays:
/// `"ij,jk->ik"` is a matrix product, `"ii->i"` a diagonal, `"ij->"` a sum,
/// `"...ij,...jk->...ik"` a product of stacks. Without `->` the output is the
/// labels used once, in alphabetical order (after the `...` axes). Axes of
/// length 1 broadcast against longer ones with the same label; labels the
/// output lacks are summed. An explicit output must keep the `...` axes when
/// the inputs' `...` stands for any (NumPy raises otherwise, and so do we).
///
/// More than two operands are multiplied two at a time, the pair with the
/// fewest multiply-adds first (one product ahead, as NumPy's
/// `optimize="greedy"` looks; [`einsum_with`] takes the written order too). A product with labels kept on both sides and labels summed is a
/// blocked [`Array::matmul`] of stacks (every task bounded as in `matmul`);
/// the others (matrix-vector shapes, outer and elementwise products) are a
/// broadcast multiply followed by a sum.
///
/// ```
/// use chunked_array::{einsum, Array};
/// let a = Array::<f64>::from_fn(&[3, 4], [2, 2], |i| (i[0] + 2 * i[1]) as f64).unwrap();
/// let b = Array::<f64>::from_fn(&[4, 5], [2, 3], |i| (i[0] * i[1]) as f64).unwrap();
/// let c = einsum("ij,jk->ik", &[&a, &b]).unwrap();
/// assert_eq!(c.compute().unwrap(), a.matmul(&b).unwrap().compute().unwrap());
/// let trace = einsum("ii", &[&a.slice(&[chunked_array::Idx::range(0, 3), chunked_array::Idx::range(0, 3)]).unwrap()]).unwrap();
/// assert_eq!(trace.compute_scalar().unwrap(), 0.0 + 3.0 + 6.0);
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming the subscripts when they are malformed,
/// do not match the operands' numbers of axes, repeat an output label, name
/// an output label no operand has or drop the axes `...` stands for; [`Error::ShapeMismatch`] when one label has
/// two lengths (other than 1).
pub fn einsum<T: Gemm>(subscripts: &str, operands: &[&Array<T>]) -> Result<Array<T>> {
    einsum_with(subscripts, operands, &EinsumOptions::default())
}

/// [`einsum`] with options: the order of its products, [`EinsumOrder::Greedy`]
/// (what `einsum` does) or [`EinsumOrder::LeftToRight`] (as written, NumPy's and
/// dask's default `optimize=False`). With one or two operands both are the same.
///
/// ```
/// use chunked_array::{einsum_with, Array, EinsumOptions, EinsumOrder};
/// // A (n, n) matrix times (n, n) times a vector: greedy multiplies the
/// // second matrix by the vector first (n² multiply-adds, not n³).
/// let a = Array::<f64>::from_fn(&[6, 6], [3, 3], |i| (i[0] + i[1]) as f64).unwrap();
/// let v = Array::<f64>::ones(&[6], 3).unwrap();
/// let greedy = einsum_with("ij,jk,k->i", &[&a, &a, &v], &EinsumOptions { order: EinsumOrder::Greedy }).unwrap();
/// let written = einsum_with("ij,jk,k->i", &[&a, &a, &v], &EinsumOptions { order: EinsumOrder::LeftToRight }).unwrap();
/// assert_eq!(greedy.compute().unwrap(), written.compute().unwrap());
/// ```
///
/// # Errors
/// As [`einsum`].
pub fn einsum_with<T: Gemm>(subscripts: &str, operands: &[&Array<T>], options: &EinsumOptions) -> Result<Array<T>> {
    let order = options.order;
    for x in operands {
        x.check()?;
    }
    let (labels, out) = parse_subscripts(subscripts, operands)?;
    let length = label_lengths(&labels, operands)?;
    let len_of = |l: Label| length.iter().find(|(m, _)| *m == l).map_or(1, |&(_, n)| n);
    let chunks_of = |l: Label| -> Option<Vec<usize>> {
        labels.iter().zip(operands).find_map(|(ls, x)| {
            let axis = ls.iter().position(|&m| m == l)?;
            (x.shape()[axis] == len_of(l)).then(|| x.chunks().lengths()[axis].clone())
        })
    };
    let mut prepared = Vec::with_capacity(operands.len());
    for (k, x) in operands.iter().enumerate() {
        prepared.push(prepare_operand(k, x, &labels, &out, &len_of, &chunks_of)?);
    }
    if prepared.is_empty() {
        return Err(Error::invalid("operands", "[]", "einsum needs at least one operand"));
    }
    let mut pending = prepared;
    while pending.len() > 1 {
        let (i, j) = match order {
            EinsumOrder::LeftToRight => (0, 1),
            EinsumOrder::Greedy => cheapest_pair(&pending, &out, &len_of),
        };
        let (b, b_labels) = pending.remove(j);
        let (a, a_labels) = pending.remove(i);
        // Labels still needed after this product: the output's and the other operands'.
        let later: Vec<Label> =
            pending.iter().flat_map(|(_, l)| l.iter().copied()).chain(out.iter().copied()).collect();
        pending.insert(i, contract_pair((a, a_labels), (b, b_labels), &later, &len_of)?);
    }
    let (mut acc, mut acc_labels) = pending.pop().expect("one operand left");
    acc = sum_out(acc, &mut acc_labels, &out)?;
    arrange(&acc, &acc_labels, &out)
}

/// The labels of each operand's axes and of the output, checked against the
/// operands' numbers of axes (`...` expanded to the widest span).
fn parse_subscripts<T: Element>(subscripts: &str, operands: &[&Array<T>]) -> Result<(Vec<Vec<Label>>, Vec<Label>)> {
    let spec: String = subscripts.chars().filter(|c| !c.is_whitespace()).collect();
    let (inputs, output) = match spec.split_once("->") {
        Some((i, o)) => (i, Some(o)),
        None => (spec.as_str(), None),
    };
    let terms: Vec<&str> = inputs.split(',').collect();
    if terms.len() != operands.len() {
        return Err(Error::invalid(
            "einsum subscripts",
            subscripts,
            format!("name {} operands, {} were given", terms.len(), operands.len()),
        ));
    }
    for t in terms.iter().chain(output.as_slice()) {
        check_term(t, subscripts)?;
    }
    // The widest `...`: the number of axes it stands for in the operand where it stands for most.
    let spans: Vec<usize> = terms
        .iter()
        .zip(operands)
        .map(|(t, x)| {
            if t.contains("...") {
                x.ndim().saturating_sub(t.chars().filter(char::is_ascii_alphabetic).count())
            } else {
                0
            }
        })
        .collect();
    let widest = spans.iter().copied().max().unwrap_or(0);
    let mut labels: Vec<Vec<Label>> = Vec::with_capacity(terms.len());
    for (k, (t, x)) in terms.iter().zip(operands).enumerate() {
        labels.push(operand_labels(t, x.ndim(), widest, k)?);
    }
    let ellipsis: Vec<Label> = (0..widest).map(|k| ELLIPSIS + k as Label).collect();
    let out: Vec<Label> = match output {
        Some(o) => {
            // NumPy's rule: axes that `...` stands for are kept or broadcast,
            // never summed away by an explicit output that leaves them out.
            if widest > 0 && !o.contains("...") {
                return Err(Error::invalid(
                    "einsum subscripts",
                    subscripts,
                    format!(
                        "'...' stands for {widest} axes in the inputs but the output {o:?} has no '...' to keep them (NumPy raises here too; sum them with an explicit label or .sum)"
                    ),
                ));
            }
            let out = expand(o, &ellipsis);
            for (i, &l) in out.iter().enumerate().filter(|&(_, &l)| l < ELLIPSIS) {
                let c = char::from_u32(l).unwrap_or('?');
                if out[..i].contains(&l) {
                    return Err(Error::invalid(
                        "einsum subscripts",
                        subscripts,
                        format!("output label {c:?} appears twice"),
                    ));
                }
                if !labels.iter().any(|ls| ls.contains(&l)) {
                    return Err(Error::invalid(
                        "einsum subscripts",
                        subscripts,
                        format!("output label {c:?} is in no operand"),
                    ));
                }
            }
            out
        }
        None => {
            let mut once: Vec<Label> = labels
                .iter()
                .flatten()
                .copied()
                .filter(|&l| l < ELLIPSIS && labels.iter().flatten().filter(|&&m| m == l).count() == 1)
                .collect();
            once.sort_unstable();
            ellipsis.iter().copied().chain(once).collect()
        }
    };
    Ok((labels, out))
}

/// Each label's length: equal everywhere, or 1 where it broadcasts.
fn label_lengths<T: Element>(labels: &[Vec<Label>], operands: &[&Array<T>]) -> Result<Vec<(Label, usize)>> {
    let mut length: Vec<(Label, usize)> = Vec::new();
    for (ls, x) in labels.iter().zip(operands) {
        for (&l, &n) in ls.iter().zip(&x.shape()) {
            match length.iter_mut().find(|(m, _)| *m == l) {
                None => length.push((l, n)),
                Some((_, m)) if *m == 1 => *m = n,
                Some((_, m)) if *m != n && n != 1 => {
                    let name = if l < ELLIPSIS {
                        format!("label {:?}", char::from_u32(l).unwrap_or('?'))
                    } else {
                        "'...'".into()
                    };
                    return Err(Error::shape(&format!("einsum ({name})"), &[*m], &[n]));
                }
                Some(_) => {}
            }
        }
    }
    Ok(length)
}

/// Operand `k` ready for the products: diagonals for repeated labels, labels
/// no one else needs summed out, length-1 axes that meet longer ones stretched.
fn prepare_operand<T: Gemm>(
    k: usize,
    x: &Array<T>,
    labels: &[Vec<Label>],
    out: &[Label],
    len_of: &dyn Fn(Label) -> usize,
    chunks_of: &dyn Fn(Label) -> Option<Vec<usize>>,
) -> Result<(Array<T>, Vec<Label>)> {
    let mut a = x.clone();
    let mut ls = labels[k].clone();
    while let Some((i, j)) = (0..ls.len()).find_map(|i| (i + 1..ls.len()).find(|&j| ls[j] == ls[i]).map(|j| (i, j))) {
        let (ni, nj) = (a.shape()[i], a.shape()[j]);
        if ni != nj {
            return Err(Error::shape("einsum (repeated label in one operand)", &[ni], &[nj]));
        }
        a = a.diagonal(0, i as isize, j as isize)?;
        let l = ls[i];
        ls.remove(j);
        ls.remove(i);
        ls.push(l);
    }
    let elsewhere: Vec<Label> = labels
        .iter()
        .enumerate()
        .filter(|&(m, _)| m != k)
        .flat_map(|(_, o)| o.iter().copied())
        .chain(out.iter().copied())
        .collect();
    a = sum_out(a, &mut ls, &elsewhere)?;
    let full: Vec<usize> = ls.iter().map(|&l| len_of(l)).collect();
    if a.shape() != full {
        // A stretched axis takes the blocks of an operand that has the
        // label at full length, not one block of the whole length.
        let chunks: Vec<Option<Vec<usize>>> = ls.iter().map(|&l| chunks_of(l)).collect();
        a = a.broadcast_to_chunks(&full, &chunks)?;
    }
    Ok((a, ls))
}

/// Options of [`einsum_with`].
///
/// ```
/// use chunked_array::{einsum_with, Array, EinsumOptions, EinsumOrder};
/// assert_eq!(EinsumOptions::default().order, EinsumOrder::Greedy);
/// let a = Array::from_slice(&[2, 2], &[0.0, 1.0, 2.0, 3.0], 1).unwrap();
/// let v = Array::from_slice(&[2], &[1.0, 1.0], 1).unwrap();
/// // NumPy: np.einsum("ij,jk,k->i", a, a, v, optimize=False): (a @ a) @ v
/// let opts = EinsumOptions { order: EinsumOrder::LeftToRight };
/// let y = einsum_with("ij,jk,k->i", &[&a, &a, &v], &opts).unwrap();
/// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[5.0, 17.0]); // a @ a = [[2, 3], [6, 11]]
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EinsumOptions {
    /// The order of the products of more than two operands.
    pub order: EinsumOrder,
}

/// How [`einsum_with`] orders the products of more than two operands.
///
/// ```
/// use chunked_array::{einsum_with, Array, EinsumOptions, EinsumOrder};
/// let a = Array::from_slice(&[2, 2], &[0.0, 1.0, 2.0, 3.0], 1).unwrap();
/// let v = Array::from_slice(&[2], &[1.0, 1.0], 1).unwrap();
/// let run = |order| einsum_with("ij,jk,k->i", &[&a, &a, &v], &EinsumOptions { order }).unwrap().compute().unwrap();
/// // Greedy computes a @ (a @ v); LeftToRight (a @ a) @ v: the same result.
/// assert_eq!(run(EinsumOrder::Greedy), run(EinsumOrder::LeftToRight));
/// assert_eq!(run(EinsumOrder::Greedy).as_slice().unwrap(), &[5.0, 17.0]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EinsumOrder {
    /// The pair whose product takes the fewest multiply-adds first (ties: the
    /// smaller result). Like NumPy's `optimize="greedy"` it looks one product
    /// ahead; NumPy ranks the pairs by the memory their product frees instead.
    #[default]
    Greedy,
    /// As written, left to right (NumPy's and dask's `optimize=False`).
    LeftToRight,
}

/// The pair of operands whose product is cheapest: fewest multiply-adds
/// (the product of the lengths of every label either has), then the smallest
/// result (the labels still needed by the others or the output).
fn cheapest_pair<T: Gemm>(
    pending: &[(Array<T>, Vec<Label>)],
    out: &[Label],
    len_of: &dyn Fn(Label) -> usize,
) -> (usize, usize) {
    let length = |&l: &Label| len_of(l) as f64;
    let mut best = (f64::INFINITY, f64::INFINITY, 0, 1);
    for i in 0..pending.len() {
        for j in i + 1..pending.len() {
            let (la, lb) = (&pending[i].1, &pending[j].1);
            let both: Vec<Label> = la.iter().chain(lb.iter().filter(|l| !la.contains(l))).copied().collect();
            let needed = |l: &Label| {
                out.contains(l) || pending.iter().enumerate().any(|(k, (_, lk))| k != i && k != j && lk.contains(l))
            };
            let cost: f64 = both.iter().map(length).product();
            let result: f64 = both.iter().filter(|l| needed(l)).map(length).product();
            if (cost, result) < (best.0, best.1) {
                best = (cost, result, i, j);
            }
        }
    }
    (best.2, best.3)
}

/// The product of two operands with their labels, keeping the labels in
/// `later` (needed by the other operands or the output) and summing the rest.
/// A product with labels kept on both sides and labels summed is a matmul
/// of stacks; the others a broadcast multiply and a sum.
fn contract_pair<T: Gemm>(
    (mut acc, mut acc_labels): (Array<T>, Vec<Label>),
    (mut b, mut b_labels): (Array<T>, Vec<Label>),
    later: &[Label],
    len_of: &dyn Fn(Label) -> usize,
) -> Result<(Array<T>, Vec<Label>)> {
    // Each side sums what neither the other side nor later needs.
    let needed: Vec<Label> = later.iter().chain(&b_labels).copied().collect();
    acc.check()?;
    acc = sum_out(acc, &mut acc_labels, &needed)?;
    let needed: Vec<Label> = later.iter().chain(&acc_labels).copied().collect();
    b = sum_out(b, &mut b_labels, &needed)?;
    let batch: Vec<Label> = acc_labels.iter().copied().filter(|l| b_labels.contains(l) && later.contains(l)).collect();
    let summed: Vec<Label> =
        acc_labels.iter().copied().filter(|l| b_labels.contains(l) && !later.contains(l)).collect();
    let free_a: Vec<Label> = acc_labels.iter().copied().filter(|l| !b_labels.contains(l)).collect();
    let free_b: Vec<Label> = b_labels.iter().copied().filter(|l| !acc_labels.contains(l)).collect();
    let lens = |ls: &[Label]| ls.iter().map(|&l| len_of(l)).collect::<Vec<usize>>();
    // Saturating: an oversized product fails when its layer is built.
    let product = |ls: &[Label]| lens(ls).iter().fold(1usize, |acc, &n| acc.saturating_mul(n));
    let batch_lens = lens(&batch);
    let (m, kk, n) = (product(&free_a), product(&summed), product(&free_b));
    let kept: Vec<Label> = [&batch[..], &free_a, &free_b].concat();
    if m > 1 && n > 1 && kk > 1 {
        let a_order: Vec<Label> = [&batch[..], &free_a, &summed].concat();
        let b_order: Vec<Label> = [&batch[..], &summed, &free_b].concat();
        let a3 = reshaped(arrange(&acc, &acc_labels, &a_order)?, &[&batch_lens[..], &[m, kk]].concat())?;
        let b3 = reshaped(arrange(&b, &b_labels, &b_order)?, &[&batch_lens[..], &[kk, n]].concat())?;
        return Ok((reshaped(a3.matmul(&b3)?, &lens(&kept))?, kept));
    }
    // A product of vectors against matrices (or with nothing summed) has no
    // matrix product worth a gemm per stacked matrix: multiply elementwise on
    // a common axis order, length-1 axes for the labels one side lacks, and
    // sum the summed labels (memory-bound either way).
    let common: Vec<Label> = [&kept[..], &summed].concat();
    let widen = |x: &Array<T>, ls: &[Label]| -> Result<Array<T>> {
        let mut x = arrange(x, ls, &common.iter().copied().filter(|l| ls.contains(l)).collect::<Vec<_>>())?;
        for (axis, l) in common.iter().enumerate() {
            if !ls.contains(l) {
                x = x.expand_dims(axis as isize)?;
            }
        }
        Ok(x)
    };
    let product = &widen(&acc, &acc_labels)? * &widen(&b, &b_labels)?;
    let acc = if summed.is_empty() {
        product
    } else {
        product.sum(ReduceOptions::axes((kept.len()..common.len()).map(|a| a as isize).collect::<Vec<_>>()))?
    };
    Ok((acc, kept))
}
