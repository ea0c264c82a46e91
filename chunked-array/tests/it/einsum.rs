//! einsum against a direct loop over every assignment of the labels.

use crate::common;

use std::collections::BTreeMap;

use chunked_array::{Array, einsum};
use common::*;
use ndarray::{ArrayD, IxDyn};
use proptest::prelude::*;

/// The sum, for every assignment of the labels, of the product of the operands'
/// elements, into the output position: einsum by its definition. `spec` is
/// explicit (with `->`) and has no `...`.
fn by_definition(spec: &str, operands: &[ArrayD<f64>]) -> ArrayD<f64> {
    let (inputs, output) = spec.split_once("->").unwrap();
    let terms: Vec<Vec<char>> = inputs.split(',').map(|t| t.chars().collect()).collect();
    let mut sizes: BTreeMap<char, usize> = BTreeMap::new();
    for (t, x) in terms.iter().zip(operands) {
        for (&c, &n) in t.iter().zip(x.shape()) {
            let s = sizes.entry(c).or_insert(n);
            *s = (*s).max(n);
        }
    }
    let labels: Vec<char> = sizes.keys().copied().collect();
    let out: Vec<char> = output.chars().collect();
    let mut result = ArrayD::zeros(IxDyn(&out.iter().map(|c| sizes[c]).collect::<Vec<_>>()));
    let total: usize = labels.iter().map(|c| sizes[c]).product();
    for flat in 0..total {
        let mut rest = flat;
        let mut value = BTreeMap::new();
        for c in labels.iter().rev() {
            value.insert(*c, rest % sizes[c]);
            rest /= sizes[c];
        }
        // A length-1 axis broadcasts: it is read at 0.
        let product: f64 = terms
            .iter()
            .zip(operands)
            .map(|(t, x)| {
                let at: Vec<usize> = t.iter().zip(x.shape()).map(|(c, &n)| if n == 1 { 0 } else { value[c] }).collect();
                x[IxDyn(&at)]
            })
            .product();
        let at: Vec<usize> = out.iter().map(|c| value[c]).collect();
        result[IxDyn(&at)] += product;
    }
    result
}

/// (spec given to einsum, the same spec written out for the oracle, label lengths
/// that may be drawn as 1 for broadcasting).
const CASES_LIST: &[(&str, &str, &str)] = &[
    ("ij,jk->ik", "ij,jk->ik", ""),
    ("ij,jk", "ij,jk->ik", ""),
    ("bij,bjk->bik", "bij,bjk->bik", "b"),
    ("ij,kj->ikj", "ij,kj->ikj", ""),
    ("i,j->ij", "i,j->ij", ""),
    ("ii->i", "ii->i", ""),
    ("ii", "ii->", ""),
    ("iji->j", "iji->j", ""),
    ("ij->ji", "ij->ji", ""),
    ("ijk->", "ijk->", ""),
    ("ijk->kj", "ijk->kj", ""),
    ("ij,ij->ij", "ij,ij->ij", "ij"),
    ("ij,ij->", "ij,ij->", ""),
    ("ij,jk,kl->il", "ij,jk,kl->il", ""),
    ("ij,jk,ki->", "ij,jk,ki->", ""),
    ("ab,bc,c->a", "ab,bc,c->a", ""),
    ("i,i,i->i", "i,i,i->i", ""),
    ("ij,i->j", "ij,i->j", ""),
    ("...ij,...jk->...ik", "xij,xjk->xik", "x"),
    ("...i,...i", "yxi,yxi->yx", "xy"),
    ("i...->...", "ixy->xy", ""),
    ("ba,ab->", "ba,ab->", ""),
    (",ij->ij", ",ij->ij", ""),
    ("ij,jk,k->i", "ij,jk,k->i", ""),
    ("i,ij,jk->k", "i,ij,jk->k", ""),
    ("ab,ck,bc->ak", "ab,ck,bc->ak", ""),
    ("ij,kl,jk,li->", "ij,kl,jk,li->", ""),
    ("ij,kl,jk,l->i", "ij,kl,jk,l->i", ""),
    ("bij,bjk,bk->bi", "bij,bjk,bk->bi", "b"),
];

fn operand_shapes(spec: &str, sizes: &BTreeMap<char, usize>) -> Vec<Vec<usize>> {
    let inputs = spec.split_once("->").unwrap().0;
    inputs.split(',').map(|t| t.chars().map(|c| sizes[&c]).collect()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn einsum_matches_its_definition(case in 0..CASES_LIST.len(), lens in prop::collection::vec(1usize..5, 9), ones in prop::collection::vec(any::<bool>(), 12),
                                     cuts in prop::collection::vec(any::<bool>(), 64), values in prop::collection::vec(-3i32..4, 400)) {
        let (spec, explicit, may_broadcast) = CASES_LIST[case];
        let letters: Vec<char> = "abcijklxy".chars().collect();
        let sizes: BTreeMap<char, usize> = letters.iter().zip(&lens).map(|(&c, &n)| (c, n)).collect();
        let shapes = operand_shapes(explicit, &sizes);
        let mut cut = cuts.iter().cycle();
        let mut value = values.iter().cycle();
        let mut flags = ones.iter();
        let terms: Vec<&str> = explicit.split_once("->").unwrap().0.split(',').collect();
        let mut data = Vec::new();
        let mut arrays = Vec::new();
        for (t, shape) in terms.iter().zip(&shapes) {
            // Some labels that may broadcast are length 1 in one operand.
            let shape: Vec<usize> = t.chars().zip(shape).map(|(c, &n)| if may_broadcast.contains(c) && *flags.next().unwrap_or(&false) { 1 } else { n }).collect();
            let n: usize = shape.iter().product();
            let a = ArrayD::from_shape_vec(IxDyn(&shape), (0..n).map(|_| f64::from(*value.next().unwrap())).collect()).unwrap();
            let chunks: Vec<Vec<usize>> = shape.iter().map(|&len| {
                let mut c = vec![];
                let mut run = 0;
                for _ in 0..len { run += 1; if *cut.next().unwrap() { c.push(run); run = 0; } }
                if run > 0 || c.is_empty() { c.push(run); }
                c
            }).collect();
            arrays.push(chunked(&a, &chunks));
            data.push(a);
        }
        let refs: Vec<&Array<f64>> = arrays.iter().collect();
        let got = einsum(spec, &refs).unwrap().compute().unwrap();
        let want = by_definition(explicit, &data);
        prop_assert_eq!(&got, &want, "{}", spec);
        // The written order gives the same (small integers: exactly).
        let written = chunked_array::einsum_with(spec, &refs, &chunked_array::EinsumOptions { order: chunked_array::EinsumOrder::LeftToRight }).unwrap().compute().unwrap();
        prop_assert_eq!(written, want, "{} left to right", spec);
    }
}

#[test]
fn einsum_errors_name_the_subscripts() {
    let a = Array::<f64>::ones(&[2, 3], 2).unwrap();
    let b = Array::<f64>::ones(&[4, 5], 2).unwrap();
    let e = einsum("ij,jk->ik", &[&a, &b]).unwrap_err().to_string();
    assert!(e.contains("[3]") && e.contains("[4]"), "{e}");
    let e = einsum("ijk->i", &[&a]).unwrap_err().to_string();
    assert!(e.contains("ijk") && e.contains("2 axes"), "{e}");
    let e = einsum("ij->ii", &[&a]).unwrap_err().to_string();
    assert!(e.contains("twice"), "{e}");
    let e = einsum("ij->z", &[&a]).unwrap_err().to_string();
    assert!(e.contains("'z'") && e.contains("no operand"), "{e}");
    let e = einsum("ij,jk->ik", &[&a]).unwrap_err().to_string();
    assert!(e.contains("2 operands") && e.contains("1 were given"), "{e}");
    for bad in ["i1->i", "i.j->i", "......->", "i-j"] {
        assert!(einsum(bad, &[&a]).is_err(), "{bad}");
    }
    let e = einsum("ii->i", &[&a]).unwrap_err().to_string();
    assert!(e.contains("[2]") && e.contains("[3]"), "{e}");
    // As NumPy: an explicit output without '...' may not drop the axes it
    // stands for, but may leave out a '...' that stands for none.
    let s = Array::<f64>::ones(&[2, 3, 4], 2).unwrap();
    let e = einsum("...ij->ij", &[&s]).unwrap_err().to_string();
    assert!(e.contains("...ij->ij") && e.contains("1 axes"), "{e}");
    let m = Array::<f64>::ones(&[4, 5], 2).unwrap();
    assert!(einsum("...ij,...jk->ik", &[&s, &m]).is_err());
    assert_eq!(einsum("...ij->ij", &[&a]).unwrap().compute().unwrap(), a.compute().unwrap());
}

#[test]
fn einsum_matrix_product_is_one_matmul() {
    // "ij,jk->ik" adds no layers around the product: the same graph as matmul.
    let a = Array::<f64>::ones(&[40, 30], 10).unwrap();
    let b = Array::<f64>::ones(&[30, 20], 10).unwrap();
    let e = einsum("ij,jk->ik", &[&a, &b]).unwrap();
    let m = a.matmul(&b).unwrap();
    assert_eq!(e.num_tasks(), m.num_tasks());
}

#[test]
fn broadcast_operands_follow_the_other_operands_blocks() {
    // (1, 40) against (1000, 40) in blocks of 100 rows: the stretched operand
    // is made block by block on those rows, never as one (1000, 40) block.
    let a = Array::<f64>::from_fn(&[1, 40], [1, 40], |i| i[1] as f64).unwrap();
    let b = Array::<f64>::from_fn(&[1000, 40], [100, 40], |i| (i[0] % 7) as f64).unwrap();
    let e = einsum("ij,ij->ij", &[&a, &b]).unwrap();
    let profiler = chunked_array::Profiler::new();
    let got = e.compute_on(&chunked_array::Context::threads(2).with_profiler(&profiler)).unwrap();
    let widest =
        profiler.spans().iter().filter(|s| s.layer == "broadcast_to").map(|s| s.output_bytes).max().unwrap_or(0);
    assert!(widest <= 100 * 40 * 8, "a broadcast block of {widest} bytes");
    let (a, b) = (a.compute().unwrap(), b.compute().unwrap());
    assert_eq!(got, &b * &a);
}

#[test]
fn greedy_order_takes_the_cheap_products_first() {
    // (n, n) @ (n, n) @ (n,) as "ij,jk,k->i": left to right is a matrix
    // product (n³ multiply-adds); greedy takes jk·k first and never multiplies
    // two matrices. Both give A·(B·v).
    let n = 60;
    let a = Array::<f64>::from_fn(&[n, n], [20, 20], |i| ((i[0] * 7 + i[1]) % 5) as f64).unwrap();
    let b = Array::<f64>::from_fn(&[n, n], [20, 20], |i| ((i[0] + 3 * i[1]) % 4) as f64).unwrap();
    let v = Array::<f64>::from_fn(&[n], [20], |i| (i[0] % 3) as f64).unwrap();
    let layers = |order| {
        let e =
            chunked_array::einsum_with("ij,jk,k->i", &[&a, &b, &v], &chunked_array::EinsumOptions { order }).unwrap();
        let profiler = chunked_array::Profiler::new();
        let got = e.compute_on(&chunked_array::Context::threads(2).with_profiler(&profiler)).unwrap();
        let names: Vec<String> = profiler.spans().iter().map(|s| s.layer.clone()).collect();
        (got, names)
    };
    let (greedy, greedy_layers) = layers(chunked_array::EinsumOrder::Greedy);
    let (written, written_layers) = layers(chunked_array::EinsumOrder::LeftToRight);
    assert!(written_layers.iter().any(|l| l.contains("matmul")), "{written_layers:?}");
    assert!(!greedy_layers.iter().any(|l| l.contains("matmul")), "{greedy_layers:?}");
    let (a, b, v) = (a.compute().unwrap(), b.compute().unwrap(), v.compute().unwrap());
    let a2 = a.into_dimensionality::<ndarray::Ix2>().unwrap();
    let b2 = b.into_dimensionality::<ndarray::Ix2>().unwrap();
    let v1 = v.into_dimensionality::<ndarray::Ix1>().unwrap();
    let want = a2.dot(&b2.dot(&v1)).into_dyn();
    assert_eq!(greedy, want);
    assert_eq!(written, want);
}
