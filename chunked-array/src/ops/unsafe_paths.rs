//! The operations whose soundness rests on tiling logic or raw pointers,
//! computed whole on small arrays against plain loops: rechunk and pad (which
//! write blocks through `MaybeUninit` and count what they wrote), the fused
//! elementwise kernel's strided and broadcast leaves (raw slices of the input
//! blocks), a compute's assembly of its blocks into one array, and the wire
//! form of blocks. Small enough for Miri, which checks each of them for
//! undefined behaviour (see the test command).

use ndarray::{ArrayD, IxDyn};

use crate::ops::pad::{Boundary, PadMode};
use crate::{Array, Context};

fn value(i: &[usize]) -> f64 {
    (i[0] * 10 + i[1]) as f64
}

fn grid(shape: [usize; 2], chunks: [usize; 2]) -> Array<f64> {
    Array::from_fn(&shape, chunks.to_vec(), value).unwrap()
}

/// What NumPy's `pad` reads at position `j` of an axis of `n` padded with
/// `before` in front; `None` is the constant.
fn padded_source(mode: &PadMode<f64>, j: usize, before: usize, n: usize) -> Option<usize> {
    let p = j as isize - before as isize;
    if (0..n as isize).contains(&p) {
        return Some(p as usize);
    }
    let n = n as isize;
    Some(match mode {
        PadMode::Constant(_) => return None,
        PadMode::Edge => p.clamp(0, n - 1) as usize,
        PadMode::Reflect if n == 1 => 0,
        PadMode::Reflect => {
            let m = p.rem_euclid(2 * n - 2);
            (if m >= n { 2 * n - 2 - m } else { m }) as usize
        }
        PadMode::Symmetric => {
            let m = p.rem_euclid(2 * n);
            (if m >= n { 2 * n - 1 - m } else { m }) as usize
        }
        PadMode::Wrap => p.rem_euclid(n) as usize,
    })
}

#[test]
fn rechunk_writes_every_element_once() {
    let ctx = Context::sync();
    let x = grid([5, 7], [2, 3]);
    let whole = x.compute_on(&ctx).unwrap();
    for chunks in [[3, 2], [5, 7], [1, 4], [4, 1]] {
        assert_eq!(x.rechunk(chunks.to_vec()).unwrap().compute_on(&ctx).unwrap(), whole, "{chunks:?}");
    }
    let flags = Array::<bool>::from_fn(&[6, 5], vec![4, 2], |i| (i[0] + 2 * i[1]) % 3 == 0).unwrap();
    let expected = ArrayD::from_shape_fn(IxDyn(&[6, 5]), |i| (i[0] + 2 * i[1]) % 3 == 0);
    assert_eq!(flags.rechunk(vec![3, 3]).unwrap().compute_on(&ctx).unwrap(), expected);
}

#[test]
fn pad_fills_every_element_as_numpy_does() {
    let ctx = Context::sync();
    let (shape, widths) = ([4usize, 3usize], [(2usize, 5usize), (3, 1)]);
    let x = grid(shape, [3, 2]);
    let modes = [PadMode::Constant(-1.0), PadMode::Edge, PadMode::Reflect, PadMode::Symmetric, PadMode::Wrap];
    for mode in modes {
        let padded = x.pad(&widths, mode).unwrap().compute_on(&ctx).unwrap();
        let out = [shape[0] + widths[0].0 + widths[0].1, shape[1] + widths[1].0 + widths[1].1];
        let expected = ArrayD::from_shape_fn(IxDyn(&out), |i| {
            let r = padded_source(&mode, i[0], widths[0].0, shape[0]);
            let c = padded_source(&mode, i[1], widths[1].0, shape[1]);
            match (r, c) {
                (Some(r), Some(c)) => value(&[r, c]),
                _ => -1.0,
            }
        });
        assert_eq!(padded, expected, "{mode:?}");
    }
}

#[test]
fn overlap_reads_each_neighbour_through_its_boundary() {
    let ctx = Context::sync();
    let x = grid([6, 5], [2, 2]);
    // A five-point sum over a halo of one, the edges wrapped.
    let stencil = x
        .map_overlap(
            |b| {
                let (r, c) = (b.shape()[0], b.shape()[1]);
                ArrayD::from_shape_fn(IxDyn(&[r, c]), |i| {
                    let at = |dr: isize, dc: isize| {
                        let (rr, cc) = (i[0] as isize + dr, i[1] as isize + dc);
                        if rr < 0 || cc < 0 || rr >= r as isize || cc >= c as isize {
                            0.0
                        } else {
                            b[[rr as usize, cc as usize]]
                        }
                    };
                    at(0, 0) + at(-1, 0) + at(1, 0) + at(0, -1) + at(0, 1)
                })
            },
            &[1, 1],
            Boundary::Periodic,
        )
        .unwrap()
        .compute_on(&ctx)
        .unwrap();
    let expected = ArrayD::from_shape_fn(IxDyn(&[6, 5]), |i| {
        let v = |r: usize, c: usize| value(&[r % 6, c % 5]);
        let (r, c) = (i[0] + 6, i[1] + 5);
        v(r, c) + v(r - 1, c) + v(r + 1, c) + v(r, c - 1) + v(r, c + 1)
    });
    assert_eq!(stencil, expected);
}

#[test]
fn fused_elementwise_reads_strided_and_broadcast_leaves() {
    let ctx = Context::sync();
    let x = grid([5, 4], [2, 3]);
    let y = grid([4, 5], [3, 2]);
    let row = Array::<f64>::from_fn(&[5], 2, |i| i[0] as f64 * 0.5).unwrap();
    // A transposed leaf (stride past one), a broadcast row (stride zero) and a
    // contiguous leaf in one fused expression.
    let fused = (&(&x.t() * 2.0) + &y) - &row;
    let got = fused.compute_on(&ctx).unwrap();
    let expected = ArrayD::from_shape_fn(IxDyn(&[4, 5]), |i| {
        2.0 * value(&[i[1], i[0]]) + value(&[i[0], i[1]]) - i[1] as f64 * 0.5
    });
    assert_eq!(got, expected);
    // A child evaluated into its parent's output tile as the second operand,
    // and one of another type through a tile buffer of its own.
    let second = (&row - &(&x.t() * 2.0)).astype::<f32>();
    let got = second.compute_on(&ctx).unwrap();
    let expected = ArrayD::from_shape_fn(IxDyn(&[4, 5]), |i| (i[1] as f64 * 0.5 - 2.0 * value(&[i[1], i[0]])) as f32);
    assert_eq!(got, expected);
    // Rows of at least two panels: a transposed leaf gathered panel by panel.
    let tall = Array::<f64>::from_fn(&[130, 40], vec![130, 40], value).unwrap();
    let wide = Array::<f64>::from_fn(&[40, 130], vec![40, 130], value).unwrap();
    let got = (&tall.t() - &wide).compute_on(&ctx).unwrap();
    let expected = ArrayD::from_shape_fn(IxDyn(&[40, 130]), |i| value(&[i[1], i[0]]) - value(&[i[0], i[1]]));
    assert_eq!(got, expected);
}

#[test]
fn blocks_cross_the_wire_and_come_back_equal() {
    use crate::graph::wire::Wire;
    let numbers = ArrayD::from_shape_fn(IxDyn(&[3, 4]), |i| (i[0] * 10 + i[1]) as i16 - 7);
    let block: crate::block::Block = std::sync::Arc::new(numbers.clone());
    let bytes = (Wire::elements::<i16>().encode)(&block).unwrap();
    let back = (Wire::elements::<i16>().decode)(&bytes).unwrap();
    assert_eq!(back.as_any().downcast_ref::<ArrayD<i16>>(), Some(&numbers));
    assert!((Wire::elements::<i16>().decode)(&bytes[..bytes.len() - 1]).is_none());
    let flags = ArrayD::from_shape_fn(IxDyn(&[2, 3]), |i| i[0] == i[1]);
    let block: crate::block::Block = std::sync::Arc::new(flags.clone());
    let bytes = (Wire::elements::<bool>().encode)(&block).unwrap();
    let back = (Wire::elements::<bool>().decode)(&bytes).unwrap();
    assert_eq!(back.as_any().downcast_ref::<ArrayD<bool>>(), Some(&flags));
}
