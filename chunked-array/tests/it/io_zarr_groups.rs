//! Group metadata written in both formats, consolidated metadata gathered
//! and used to name a group's members.

use crate::support;

use chunked_array::io::cloud::StorageOptions;
use chunked_array::io::zarr::{
    Value, ZarrFormat, ZarrGroupOptions, ZarrReadOptions, ZarrWriteOptions, consolidate_zarr_metadata,
    create_zarr_group, from_zarr, zarr_members,
};
use chunked_array::{Array, Error};
use support::TempDir;

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn members(root: &std::path::Path, group: &str) -> Vec<String> {
    zarr_members(root, group, &ZarrReadOptions::default()).unwrap()
}

#[test]
fn groups_are_written_in_both_formats_and_refuse_arrays() {
    let dir = TempDir::new("zarr-groups");
    let d = dir.path();
    let mut v3 = ZarrGroupOptions::default();
    v3.attributes.insert("title".into(), Value::from("run"));
    create_zarr_group(d, "g3", &v3).unwrap();
    assert_eq!(
        read_json(&d.join("g3/zarr.json")),
        serde_json::json!({"zarr_format": 3, "node_type": "group", "attributes": {"title": "run"}})
    );
    let v2 = ZarrGroupOptions { zarr_format: ZarrFormat::V2, ..v3.clone() };
    create_zarr_group(d, "g2", &v2).unwrap();
    assert_eq!(read_json(&d.join("g2/.zgroup")), serde_json::json!({"zarr_format": 2}));
    assert_eq!(read_json(&d.join("g2/.zattrs")), serde_json::json!({"title": "run"}));

    // New attributes for an existing group keep its members.
    let x = Array::<f64>::ones(&[4], 2).unwrap();
    x.to_zarr(d, "g3/x", &ZarrWriteOptions::default()).unwrap();
    create_zarr_group(d, "g3", &ZarrGroupOptions::default()).unwrap();
    assert_eq!(read_json(&d.join("g3/zarr.json"))["attributes"], serde_json::json!({}));
    assert_eq!(from_zarr::<f64>(d, "g3/x").unwrap().compute().unwrap(), x.compute().unwrap());

    // An array is never turned into a group; one format's group is not
    // written beside the other's.
    for (path, options) in [("g3/x", &v3), ("g3", &v2), ("g2", &v3)] {
        match create_zarr_group(d, path, options) {
            Err(Error::Io { path: p, .. }) => assert!(p.contains(path), "{p} names {path}"),
            other => panic!("{path}: {other:?}"),
        }
    }
    assert!(d.join("g3/x/zarr.json").is_file() && !d.join("g3/.zgroup").exists() && !d.join("g2/zarr.json").exists());
}

/// A group `root` of `format` holding arrays `a` and `sub/x` and group `sub`.
fn tree(d: &std::path::Path, format: ZarrFormat) {
    let group = ZarrGroupOptions { zarr_format: format, ..Default::default() };
    let array = ZarrWriteOptions { zarr_format: format, ..Default::default() };
    create_zarr_group(d, "", &group).unwrap();
    create_zarr_group(d, "sub", &group).unwrap();
    Array::<f64>::linspace(0.0, 1.0, 8, true, 4).unwrap().to_zarr(d, "a", &array).unwrap();
    Array::<i32>::arange(0, 6, 1, 3).unwrap().to_zarr(d, "sub/x", &array).unwrap();
}

#[test]
fn consolidated_metadata_names_members_in_both_formats() {
    for format in [ZarrFormat::V3, ZarrFormat::V2] {
        let dir = TempDir::new("zarr-consolidated");
        let d = dir.path();
        tree(d, format);
        assert_eq!(consolidate_zarr_metadata(d, "", &StorageOptions::default()).unwrap(), 3, "{format}");
        let nodes: Vec<String> = match format {
            ZarrFormat::V3 => read_json(&d.join("zarr.json"))["consolidated_metadata"]["metadata"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect(),
            ZarrFormat::V2 => {
                read_json(&d.join(".zmetadata"))["metadata"].as_object().unwrap().keys().cloned().collect()
            }
        };
        let want: &[&str] = match format {
            ZarrFormat::V3 => &["a", "sub", "sub/x"],
            ZarrFormat::V2 => &[
                ".zattrs",
                ".zgroup",
                "a/.zarray",
                "a/.zattrs",
                "sub/.zattrs",
                "sub/.zgroup",
                "sub/x/.zarray",
                "sub/x/.zattrs",
            ],
        };
        let mut nodes = nodes;
        nodes.sort();
        assert_eq!(nodes, want, "{format}");
        let stored = match format {
            ZarrFormat::V3 => read_json(&d.join("a/zarr.json")),
            ZarrFormat::V2 => read_json(&d.join("a/.zarray")),
        };
        let key = if format == ZarrFormat::V3 { "/consolidated_metadata/metadata/a" } else { "/metadata/a~1.zarray" };
        let doc =
            if format == ZarrFormat::V3 { read_json(&d.join("zarr.json")) } else { read_json(&d.join(".zmetadata")) };
        assert_eq!(doc.pointer(key), Some(&stored), "{format}: the array's metadata as stored");

        assert_eq!(members(d, ""), ["a", "sub"], "{format}");
        assert_eq!(members(d, "sub"), ["x"], "{format}: from the root's consolidated metadata");
        // Members written since are not in the consolidated metadata (as
        // zarr-python's open_consolidated): the listing is not used.
        let late = ZarrWriteOptions { zarr_format: format, ..Default::default() };
        Array::<u8>::zeros(&[2], 2).unwrap().to_zarr(d, "b", &late).unwrap();
        assert_eq!(members(d, ""), ["a", "sub"], "{format}");
        consolidate_zarr_metadata(d, "", &StorageOptions::default()).unwrap();
        assert_eq!(members(d, ""), ["a", "b", "sub"], "{format}");
    }
}

#[test]
fn consolidation_refuses_mixed_formats_missing_groups_and_bad_documents() {
    let dir = TempDir::new("zarr-consolidated-bad");
    let d = dir.path();
    let none = StorageOptions::default();
    Array::<f64>::ones(&[4], 2).unwrap().to_zarr(d, "plain/a", &ZarrWriteOptions::default()).unwrap();
    let err = consolidate_zarr_metadata(d, "plain", &none).unwrap_err().to_string();
    assert!(err.contains("plain") && err.contains("no group metadata"), "{err}");
    let err = consolidate_zarr_metadata(d, "plain/a", &none).unwrap_err().to_string();
    assert!(err.contains("not a group"), "{err}");

    create_zarr_group(d, "mixed", &ZarrGroupOptions::default()).unwrap();
    let v2 = ZarrWriteOptions { zarr_format: ZarrFormat::V2, ..Default::default() };
    Array::<f64>::ones(&[4], 2).unwrap().to_zarr(d, "mixed/old", &v2).unwrap();
    let err = consolidate_zarr_metadata(d, "mixed", &none).unwrap_err().to_string();
    assert!(err.contains("mixed/old") && err.contains("Zarr v2 node inside a Zarr v3 group"), "{err}");
    assert!(read_json(&d.join("mixed/zarr.json")).get("consolidated_metadata").is_none(), "nothing written");

    for (file, text) in [
        (".zmetadata", "{\"metadata\": 7}"),
        (".zmetadata", "not json"),
        ("zarr.json", "{\"zarr_format\": 3, \"node_type\": \"group\", \"consolidated_metadata\": {\"metadata\": []}}"),
    ] {
        let g = d.join("hostile");
        let _ = std::fs::remove_dir_all(&g);
        std::fs::create_dir_all(&g).unwrap();
        std::fs::write(g.join(file), text).unwrap();
        match zarr_members(d, "hostile", &ZarrReadOptions::default()) {
            Err(Error::Io { path, .. }) => assert!(path.ends_with(file), "{path} names {file}"),
            other => panic!("{text}: {other:?}"),
        }
    }
}
