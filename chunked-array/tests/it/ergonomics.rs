//! The user-facing conveniences: the `s!` macro against NumPy's slice rule,
//! typed results, ndarray interop (moves and copies counted by an allocator),
//! and the error rule (operators defer, the next call reports both shapes).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use crate::common::*;
use chunked_array::ndarray::{self, Array2, ArrayD, Axis, Ix0, Ix1, Ix2, Ix3, IxDyn, array};
use chunked_array::{Array, Error, Idx, s};
use proptest::prelude::*;

/// Counts the bytes each thread allocates, so that a test sees only its own.
struct CountingAlloc;

thread_local! {
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + layout.size()));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + layout.size()));
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + new_size));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: CountingAlloc = CountingAlloc;

/// Bytes this thread allocated while `f` ran, and its result.
fn allocated_by<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let before = ALLOCATED.with(Cell::get);
    let r = f();
    (ALLOCATED.with(Cell::get) - before, r)
}

/// A Rust range of each shape the macro accepts, with NumPy's bounds.
#[derive(Debug, Clone, Copy)]
enum RangeForm {
    Exclusive(Option<isize>, Option<isize>),
    Inclusive(Option<isize>, isize),
}

fn range_form() -> impl Strategy<Value = RangeForm> {
    let bound = prop_oneof![1 => Just(None), 3 => (-12isize..12).prop_map(Some)];
    prop_oneof![
        (bound.clone(), bound.clone()).prop_map(|(a, b)| RangeForm::Exclusive(a, b)),
        (bound, -12isize..12).prop_map(|(a, b)| RangeForm::Inclusive(a, b)),
    ]
}

/// `Idx::with_step` on the Rust range `form` (what `s![range;step]` expands to).
fn idx_of(form: RangeForm, step: isize) -> Idx {
    match form {
        RangeForm::Exclusive(Some(a), Some(b)) => Idx::with_step(a..b, step),
        RangeForm::Exclusive(Some(a), None) => Idx::with_step(a.., step),
        RangeForm::Exclusive(None, Some(b)) => Idx::with_step(..b, step),
        RangeForm::Exclusive(None, None) => Idx::with_step(.., step),
        RangeForm::Inclusive(Some(a), b) => Idx::with_step(a..=b, step),
        RangeForm::Inclusive(None, b) => Idx::with_step(..=b, step),
    }
}

/// The positions NumPy's `x[a:b:step]` takes; for an inclusive end `b`, those
/// of `x[a::step]` up to and including position `b` (counted from the end when
/// negative) in the direction of the step.
fn oracle(form: RangeForm, step: isize, n: usize) -> Vec<usize> {
    match form {
        RangeForm::Exclusive(a, b) => numpy_indices(a, b, step, n),
        RangeForm::Inclusive(a, b) => {
            let end = if b < 0 { b + n as isize } else { b };
            let keep = |p: &usize| if step > 0 { *p as isize <= end } else { *p as isize >= end };
            numpy_indices(a, None, step, n).into_iter().take_while(keep).collect()
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn stepped_ranges_match_numpy(n in 0usize..10, block in 1usize..4, form in range_form(), step in prop_oneof![(1isize..4), (-4isize..=-1)]) {
        let a = ArrayD::from_shape_fn(IxDyn(&[n]), |i| i[0] as i64);
        let x = Array::from_ndarray(a.clone(), block).unwrap();
        let got = x.slice([idx_of(form, step)]).unwrap().compute().unwrap();
        prop_assert_eq!(got, a.select(Axis(0), &oracle(form, step, n)));
    }
}

#[test]
fn macro_entries_are_numpys() {
    let n = 3usize;
    assert_eq!(
        s![..5, 1..;2, -1, NewAxis, ..., ..;-1, n, 2..=4, ..=-1;3],
        [
            Idx::stepped(None, Some(5), 1),
            Idx::stepped(Some(1), None, 2),
            Idx::Index(-1),
            Idx::NewAxis,
            Idx::Ellipsis,
            Idx::stepped(None, None, -1),
            Idx::Index(3),
            Idx::stepped(Some(2), Some(5), 1),
            Idx::stepped(None, None, 3),
        ]
    );
    assert_eq!(s![..,], [Idx::FULL]);
    let empty: [Idx; 0] = s![];
    assert!(empty.is_empty());
    // A usize past isize::MAX stays out of range instead of wrapping negative.
    let x = Array::<i64>::arange(0, 4, 1, 2).unwrap();
    assert!(matches!(x.slice(s![usize::MAX]), Err(Error::InvalidArgument { .. })));
}

#[test]
fn macro_slices_like_ndarray_on_the_whole_array() {
    let a = ArrayD::from_shape_fn(IxDyn(&[5, 6, 4]), |i| (100 * i[0] + 10 * i[1] + i[2]) as i64);
    let x = chunked(&a, &[vec![2, 3], vec![1, 5], vec![4]]);
    // NumPy: x[:5, 1::2, -1, None, ...] on a 3-d array.
    let y = x.slice(s![..5, 1..;2, -1, NewAxis, ...]).unwrap().compute_as::<Ix3>().unwrap();
    let want = a.slice(ndarray::s![..5, 1..;2, -1, ndarray::NewAxis]).to_owned();
    assert_eq!(y, want.into_dimensionality::<Ix3>().unwrap());
    // NumPy: x[::-2, 4:1:-1, 0]; ndarray writes the reversed ranges differently.
    let z = x.slice(s![..;-2, 4..1;-1, 0]).unwrap().compute_as::<Ix2>().unwrap();
    let want = Array2::from_shape_fn((3, 3), |(i, j)| (100 * (4 - 2 * i) + 10 * (4 - j)) as i64);
    assert_eq!(z, want);
}

#[test]
fn typed_results() {
    let x = Array::<f64>::from_ndarray(array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [1, 2]).unwrap();
    let m: Array2<f64> = x.compute_as::<Ix2>().unwrap();
    assert_eq!(m, array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    assert_eq!(x.sum(Some(0)).unwrap().compute_as::<Ix1>().unwrap(), array![5.0, 7.0, 9.0]);
    assert_eq!(x.sum(None).unwrap().compute_as::<Ix0>().unwrap().into_scalar(), 21.0);
    assert_eq!(x.compute_as::<IxDyn>().unwrap().shape(), &[2, 3]);
    // The dimension is checked before anything runs: a failing task would
    // report a task error instead.
    let failing = x.map(|v| if v > 0.0 { panic!("ran") } else { v });
    match failing.compute_as::<Ix1>() {
        Err(Error::InvalidArgument { name, value, reason }) => {
            assert_eq!((name.as_str(), value.as_str()), ("dimension", "1"));
            assert!(reason.contains("2 dimensions") && reason.contains("[2, 3]"), "{reason}");
        }
        other => panic!("expected a dimension error, got {other:?}"),
    }
    assert_eq!(x.sum(None).unwrap().compute_scalar().unwrap(), 21.0);
    assert!(x.compute_scalar().is_err());
}

#[test]
fn owned_arrays_move_and_views_copy_once() {
    let data = Array2::<f64>::from_shape_fn((512, 512), |(i, j)| (i * 512 + j) as f64);
    let bytes = data.len() * 8;
    let want = data.clone().into_dyn();

    let (copied, from_view) = allocated_by(|| Array::from_ndarray(data.view(), [128, 256]).unwrap());
    assert!(copied >= bytes && copied < 2 * bytes, "a view is copied once: {copied} bytes for {bytes}");
    let (moved, from_owned) = allocated_by(|| Array::from_ndarray(data.clone(), [128, 256]));
    // `data.clone()` itself allocates `bytes`; from_ndarray adds only metadata.
    assert!(moved < bytes + (64 << 10), "an owned array is moved: {moved} bytes for {bytes}");
    let shared = data.clone().into_shared();
    let (shared_bytes, from_shared) = allocated_by(|| Array::from_ndarray(shared, [128, 256]));
    assert!(shared_bytes < 64 << 10, "a unique ArcArray is taken without a copy: {shared_bytes} bytes");
    let flat = data.iter().copied().collect::<Vec<f64>>();
    let (vec_bytes, from_vec) = allocated_by(|| Array::from_vec(&[512, 512], flat, [128, 256]));
    assert!(vec_bytes < 64 << 10, "a vector is moved: {vec_bytes} bytes");

    for x in [from_view, from_owned.unwrap(), from_shared.unwrap(), from_vec.unwrap()] {
        assert_eq!(x.compute().unwrap(), want);
    }
    let slice = Array::from_slice(&[2, 2], &[1, 2, 3, 4], 1).unwrap();
    assert_eq!(slice.compute_as::<Ix2>().unwrap(), array![[1, 2], [3, 4]]);
    match Array::from_vec(&[2, 3], vec![1.0; 5], 2) {
        Err(Error::InvalidArgument { value, reason, .. }) => {
            assert_eq!(value, "5");
            assert!(reason.contains("[2, 3]"), "{reason}");
        }
        other => panic!("expected a length error, got {other:?}"),
    }
}

#[test]
fn operators_defer_and_the_next_call_reports_both_shapes() {
    let a = Array::<f64>::ones(&[3, 4], 2).unwrap();
    let b = Array::<f64>::ones(&[5], 2).unwrap();
    let bad = &(&a + &b) * 2.0; // no panic, no Result: the error travels
    let is_both = |e: Error| matches!(e, Error::ShapeMismatch { left, right, .. } if left == [3, 4] && right == [5]);
    assert!(is_both(bad.check().unwrap_err()));
    assert!(is_both(bad.sum(None).unwrap_err()));
    assert!(is_both(bad.slice(s![..1]).unwrap_err()));
    assert!(is_both(bad.compute().unwrap_err()));
    assert!(is_both(bad.sqrt().compute_as::<Ix2>().unwrap_err()));
    // Named methods report their own argument errors at once.
    assert!(is_both(a.maximum(&b).unwrap_err()));
    assert!(bad.to_string().contains("error"));
}
