//! Sharded writes, the metadata a stored array exposes (attributes,
//! dimension names, chunks, type) and a group's members.

use crate::support;

use chunked_array::io::Store;
use chunked_array::io::zarr::{
    ShardingOptions, Value, ZarrReadOptions, ZarrWriteOptions, from_zarr, from_zarr_with, zarr_info, zarr_members,
};
use chunked_array::random::RandomState;
use chunked_array::{Array, DType, Error};
use support::TempDir;

#[test]
fn sharded_arrays_round_trip_and_read_in_small_blocks() {
    let dir = TempDir::new("zarr-shards");
    let x: Array<f64> = RandomState::new(9).standard_normal(&[50, 36], [20, 18]).unwrap();
    for index_at_start in [false, true] {
        let name = format!("s{index_at_start}");
        let sharding = ShardingOptions { inner_chunks: vec![5, 6], index_at_start };
        let options = ZarrWriteOptions { sharding: Some(sharding), ..Default::default() };
        assert_eq!(x.to_zarr(dir.path(), &name, &options).unwrap().chunks_written, 6, "one object per shard");
        let c = dir.path().join(&name).join("c");
        let objects =
            std::fs::read_dir(&c).unwrap().flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap()).count();
        assert_eq!(objects, 6);
        assert_eq!(from_zarr::<f64>(dir.path(), &name).unwrap().compute().unwrap(), x.compute().unwrap());
        let small = ZarrReadOptions { chunks: Some(vec![7, 5].into()), ..Default::default() };
        let y = from_zarr_with::<f64>(dir.path(), &name, &small).unwrap();
        assert_eq!(y.compute().unwrap(), x.compute().unwrap());
        assert_eq!(zarr_info(dir.path(), &name, &ZarrReadOptions::default()).unwrap().chunks, vec![20, 18]);
    }
    let uneven = ZarrWriteOptions {
        sharding: Some(ShardingOptions { inner_chunks: vec![7, 6], index_at_start: false }),
        ..Default::default()
    };
    let refused = x.to_zarr(dir.path(), "bad", &uneven).unwrap_err();
    assert!(matches!(refused, Error::InvalidArgument { .. }) && refused.to_string().contains("[7, 6]"), "{refused}");
}

#[test]
fn info_and_members_describe_what_was_written() {
    let dir = TempDir::new("zarr-info");
    let mut options = ZarrWriteOptions { dimension_names: Some(vec!["y".into(), "x".into()]), ..Default::default() };
    options.attributes.insert("units".into(), Value::from("m"));
    options.attributes.insert("scale".into(), Value::from(0.5));
    let x = Array::<i16>::ones(&[6, 4], [3, 4]).unwrap();
    let mut store = Store::new();
    store.zarr(&x, dir.path(), "g/a", &options).unwrap();
    store.zarr(&x, dir.path(), "g/sub/b", &ZarrWriteOptions::default()).unwrap();
    store.run().unwrap();
    let info = zarr_info(dir.path(), "g/a", &ZarrReadOptions::default()).unwrap();
    assert_eq!(
        (info.shape.clone(), info.chunks.clone(), info.dtype, info.zarr_format),
        (vec![6, 4], vec![3, 4], Some(DType::I16), 3)
    );
    assert_eq!(
        (info.attributes["units"].clone(), info.attributes["scale"].clone()),
        (Value::from("m"), Value::from(0.5))
    );
    assert_eq!(info.dimension_names, Some(vec![Some("y".into()), Some("x".into())]));
    assert_eq!(zarr_members(dir.path(), "g", &ZarrReadOptions::default()).unwrap(), vec!["a"]);
    assert_eq!(zarr_members(dir.path(), "g/sub", &ZarrReadOptions::default()).unwrap(), vec!["b"]);
    assert!(zarr_info(dir.path(), "g", &ZarrReadOptions::default()).is_err(), "not an array");
}
