//! Every reader of bytes from outside the process, fed arbitrary and mutated
//! input: the npy header and data, Zarr metadata and chunks, and the wire
//! format blocks travel in between ranks. Each must give a value or an `Err`
//! (`None` for the wire), never panic or allocate past its input. These are
//! the stable-toolchain stand-in for fuzz targets (cargo-fuzz needs nightly):
//! proptest draws the inputs, and its regressions file keeps any failure found.

use std::path::Path;

use chunked_array::Array;
use chunked_array::io::WriteMode;
use chunked_array::io::npy::from_npy;
use chunked_array::io::zarr::{Compression, ZarrWriteOptions, from_zarr};
use chunked_array::runtime::{Block, Wire};
use ndarray::{ArrayD, IxDyn};
use proptest::prelude::*;

use crate::support::TempDir;

/// One change to a file's bytes: flip a byte, cut the file short, or put
/// bytes in.
#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Cut(usize),
    Insert(usize, Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..=255u8).prop_map(|(at, x)| Mutation::Flip(at, x)),
        any::<usize>().prop_map(Mutation::Cut),
        (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..16)).prop_map(|(at, b)| Mutation::Insert(at, b)),
    ]
}

fn mutate(bytes: &mut Vec<u8>, changes: &[Mutation]) {
    for change in changes {
        let n = bytes.len().max(1);
        match change {
            Mutation::Flip(at, x) if !bytes.is_empty() => bytes[at % n] ^= x,
            Mutation::Cut(at) => bytes.truncate(at % n),
            Mutation::Insert(at, b) => {
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, b.iter().copied());
            }
            Mutation::Flip(..) => {}
        }
    }
}

fn small() -> Array<f64> {
    Array::<f64>::from_fn(&[6, 5], [4, 3], |i| i[0] as f64 * 1.5 - i[1] as f64).unwrap()
}

/// Reading and computing `read`'s array: any outcome but a panic.
fn settles<T: chunked_array::Element>(read: chunked_array::Result<Array<T>>) -> bool {
    let _ = read.and_then(|a| a.compute());
    true
}

fn mutated_file(path: &Path, changes: &[Mutation]) {
    let mut bytes = std::fs::read(path).unwrap();
    mutate(&mut bytes, changes);
    std::fs::write(path, bytes).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn npy_files_mutated(changes in proptest::collection::vec(mutation(), 1..4)) {
        let dir = TempDir::new("bytes-npy");
        let path = dir.path().join("x.npy");
        small().to_npy(&path, WriteMode::Create).unwrap();
        mutated_file(&path, &changes);
        prop_assert!(settles(from_npy::<f64>(&path, 4)));
        prop_assert!(settles(from_npy::<i16>(&path, 4)));
    }

    #[test]
    fn npy_headers_of_arbitrary_bytes(tail in proptest::collection::vec(any::<u8>(), 0..200)) {
        let dir = TempDir::new("bytes-npyhead");
        let path = dir.path().join("x.npy");
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend_from_slice(&tail);
        std::fs::write(&path, bytes).unwrap();
        prop_assert!(settles(from_npy::<f64>(&path, 4)));
    }

    #[test]
    fn zarr_metadata_and_chunks_mutated(
        meta in proptest::collection::vec(mutation(), 0..3),
        chunk in proptest::collection::vec(mutation(), 0..3),
        zstd in any::<bool>(),
    ) {
        let dir = TempDir::new("bytes-zarr");
        let compression = if zstd { Compression::Zstd { level: 1 } } else { Compression::None };
        small().to_zarr(dir.path(), "a", &ZarrWriteOptions { compression, ..Default::default() }).unwrap();
        mutated_file(&dir.path().join("a/zarr.json"), &meta);
        mutated_file(&dir.path().join("a/c/1/1"), &chunk);
        prop_assert!(settles(from_zarr::<f64>(dir.path(), "a")));
    }

    #[test]
    fn wire_blocks_of_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        for wire in [Wire::elements::<f64>(), Wire::elements::<bool>(), Wire::elements::<u16>()] {
            if let Some(block) = (wire.decode)(&bytes) {
                // What decodes is exactly what encodes back.
                prop_assert_eq!((wire.encode)(&block).unwrap(), bytes.clone());
            }
        }
    }

    #[test]
    fn wire_blocks_mutated(changes in proptest::collection::vec(mutation(), 1..4)) {
        let block: Block = std::sync::Arc::new(ArrayD::from_shape_fn(IxDyn(&[3, 4]), |i| i[0] as f64 - i[1] as f64));
        let wire = Wire::elements::<f64>();
        let mut bytes = (wire.encode)(&block).unwrap();
        mutate(&mut bytes, &changes);
        if let Some(back) = (wire.decode)(&bytes) {
            prop_assert_eq!((wire.encode)(&back).unwrap(), bytes);
        }
    }
}
