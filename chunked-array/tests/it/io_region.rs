//! Region writes into a pre-created Zarr array: disjoint regions from
//! several runs and threads fill it; regions that cut stored chunks are
//! refused unless read-modify-write is on, and then neighbours sharing a
//! chunk both land; bad regions and types are errors that write nothing.

use crate::support;

use std::ops::Range;

use chunked_array::io::Store;
use chunked_array::io::zarr::{ZarrRegionOptions, ZarrWriteOptions, create_zarr, from_zarr};
use chunked_array::random::RandomState;
use chunked_array::{Array, Error};
use ndarray::{ArrayD, IxDyn, s};
use support::TempDir;

const SHAPE: [usize; 2] = [45, 38];
const CHUNKS: [usize; 2] = [10, 8];

fn whole() -> Array<f64> {
    RandomState::new(21).standard_normal(&SHAPE, [13, 9]).unwrap()
}

fn part(x: &Array<f64>, region: &[Range<usize>]) -> Array<f64> {
    x.slice([region[0].clone().into(), region[1].clone().into()]).unwrap()
}

#[test]
fn aligned_regions_from_separate_runs_fill_the_array() {
    let dir = TempDir::new("region-aligned");
    create_zarr::<f64>(dir.path(), "a", &SHAPE, &CHUNKS, &ZarrWriteOptions::default()).unwrap();
    let empty = from_zarr::<f64>(dir.path(), "a").unwrap().compute().unwrap();
    assert_eq!(empty, ArrayD::<f64>::zeros(IxDyn(&SHAPE)), "a new array is the fill value");
    let x = whole();
    // Four jobs: row bands on chunk edges (the last reaching the array's edge).
    let bands = [0..10, 10..30, 30..40, 40..45];
    for rows in &bands[..3] {
        let region = [rows.clone(), 0..38];
        let report = part(&x, &region).to_zarr_region(dir.path(), "a", &region, &ZarrRegionOptions::default()).unwrap();
        assert_eq!(report.chunks_written, (rows.len().div_ceil(10)) * 5);
    }
    let partial = from_zarr::<f64>(dir.path(), "a").unwrap().compute().unwrap();
    assert_eq!(partial.slice(s![..40, ..]), x.compute().unwrap().slice(s![..40, ..]));
    assert!(partial.slice(s![40.., ..]).iter().all(|&v| v == 0.0), "the unwritten band is untouched");
    let region = [bands[3].clone(), 0..38];
    part(&x, &region).to_zarr_region(dir.path(), "a", &region, &ZarrRegionOptions::default()).unwrap();
    assert_eq!(from_zarr::<f64>(dir.path(), "a").unwrap().compute().unwrap(), x.compute().unwrap());
}

#[test]
fn regions_that_cut_chunks_need_read_modify_write_and_then_both_neighbours_land() {
    let dir = TempDir::new("region-rmw");
    create_zarr::<f64>(dir.path(), "a", &SHAPE, &CHUNKS, &ZarrWriteOptions::default()).unwrap();
    let x = whole();
    let cut = [3..17, 5..38];
    let refused = part(&x, &cut).to_zarr_region(dir.path(), "a", &cut, &ZarrRegionOptions::default()).unwrap_err();
    assert!(matches!(&refused, Error::InvalidArgument { .. }) && refused.to_string().contains("3..17"), "{refused}");
    assert!(!dir.path().join("a/c").exists(), "nothing written");

    // A grid of 3 x 4 regions with cuts inside chunks, from threads at once:
    // neighbours share chunks, and every element lands.
    let rows = [0..7, 7..26, 26..45];
    let cols = [0..5, 5..19, 19..20, 20..38];
    let rmw = ZarrRegionOptions { read_modify_write: true, ..Default::default() };
    std::thread::scope(|scope| {
        for r in &rows {
            for c in &cols {
                let (x, rmw, dir) = (&x, &rmw, dir.path());
                scope.spawn(move || {
                    let region = [r.clone(), c.clone()];
                    part(x, &region).to_zarr_region(dir, "a", &region, rmw).unwrap();
                });
            }
        }
    });
    assert_eq!(from_zarr::<f64>(dir.path(), "a").unwrap().compute().unwrap(), x.compute().unwrap());

    // Several regions in one store run share their chunks too.
    let y = (&x * -1.0).persist().unwrap();
    let mut store = Store::new();
    for r in &rows {
        let region = [r.clone(), 0..38];
        store.zarr_region(&part(&y, &region), dir.path(), "a", &region, &rmw).unwrap();
    }
    store.run().unwrap();
    assert_eq!(from_zarr::<f64>(dir.path(), "a").unwrap().compute().unwrap(), y.compute().unwrap());
}

#[test]
fn bad_regions_types_and_targets_are_errors_that_write_nothing() {
    let dir = TempDir::new("region-bad");
    create_zarr::<f64>(dir.path(), "a", &SHAPE, &CHUNKS, &ZarrWriteOptions::default()).unwrap();
    let block = Array::<f64>::ones(&[10, 8], 10).unwrap();
    let options = ZarrRegionOptions::default();
    let outside = block.to_zarr_region(dir.path(), "a", &[40..50, 0..8], &options).unwrap_err();
    assert!(outside.to_string().contains("40..50") && outside.to_string().contains("outside"), "{outside}");
    let shape = block.to_zarr_region(dir.path(), "a", &[0..10, 0..16], &options).unwrap_err();
    assert!(shape.to_string().contains("shape"), "{shape}");
    let one_axis: Vec<Range<usize>> = std::iter::once(0..10).collect();
    let axes = block.to_zarr_region(dir.path(), "a", &one_axis, &options).unwrap_err();
    assert!(axes.to_string().contains("axes"), "{axes}");
    let ints = Array::<i32>::ones(&[10, 8], 10).unwrap();
    let dtype = ints.to_zarr_region(dir.path(), "a", &[0..10, 0..8], &options).unwrap_err();
    assert!(matches!(dtype, Error::DtypeMismatch { .. }), "{dtype}");
    let missing = block.to_zarr_region(dir.path(), "none", &[0..10, 0..8], &options).unwrap_err();
    assert!(matches!(missing, Error::Io { .. }), "{missing}");
    assert!(!dir.path().join("a/c").exists(), "nothing written");
    // The created array's chunks and shape are checked as create_zarr's input.
    assert!(create_zarr::<f64>(dir.path(), "b", &[4, 4], &[2], &ZarrWriteOptions::default()).is_err());
    assert!(create_zarr::<f64>(dir.path(), "b", &[4, 4], &[2, 0], &ZarrWriteOptions::default()).is_err());
    assert!(create_zarr::<f64>(dir.path(), "a", &[4, 4], &[2, 2], &ZarrWriteOptions::default()).is_err(), "exists");
    // An empty region writes nothing and succeeds.
    let empty = Array::<f64>::zeros(&[0, 8], 8).unwrap();
    assert_eq!(empty.to_zarr_region(dir.path(), "a", &[10..10, 0..8], &options).unwrap().chunks_written, 0);
}
