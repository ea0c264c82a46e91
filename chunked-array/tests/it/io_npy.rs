//! .npy: round trips, files written by an independent encoder (big-endian,
//! Fortran order, version 2), partial reads and bad input.

use crate::common;
use crate::support;

use chunked_array::io::WriteMode;
use chunked_array::io::npy::{from_npy, read_header};
use chunked_array::{Array, DType, Error, Idx};
use ndarray::{ArrayD, IxDyn};
use proptest::prelude::*;
use support::TempDir;

fn values(shape: &[usize], chunks: Vec<Vec<usize>>) -> Array<f64> {
    Array::<f64>::from_fn(shape, chunks, |i| i.iter().fold(0.0, |acc, &x| acc * 31.0 + x as f64) * -0.37 + 0.125)
        .unwrap()
}

/// An .npy file as NumPy lays it out, built by hand: `header_dict` verbatim, then `data`.
fn raw_npy(version: u8, header_dict: &str, data: &[u8]) -> Vec<u8> {
    let prefix = if version == 1 { 10 } else { 12 };
    let len = (prefix + header_dict.len() + 1).div_ceil(64) * 64 - prefix;
    let mut out = b"\x93NUMPY".to_vec();
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(len as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(len as u32).to_le_bytes());
    }
    out.extend_from_slice(header_dict.as_bytes());
    out.resize(prefix + len - 1, b' ');
    out.push(b'\n');
    out.extend_from_slice(data);
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Writing with one chunking and reading with another gives the array back.
    #[test]
    fn round_trip((shape, chunks) in common::shape_chunks(3, 8), read_chunk in 1usize..5) {
        let dir = TempDir::new("npy-prop");
        let path = dir.path().join("a.npy");
        let x = values(&shape, chunks);
        x.to_npy(&path, WriteMode::Create).unwrap();
        let h = read_header(&path).unwrap();
        prop_assert_eq!(&h.shape, &shape);
        prop_assert_eq!(h.data_offset % 64, 0);
        let y = from_npy::<f64>(&path, vec![read_chunk; shape.len()]).unwrap();
        prop_assert_eq!(y.compute().unwrap(), x.compute().unwrap());
    }
}

#[test]
fn independent_encodings_read_back() {
    let dir = TempDir::new("npy-raw");
    // 3x4 f64, values 10*i + j, in four layouts.
    let want = ArrayD::from_shape_fn(IxDyn(&[3, 4]), |i| (10 * i[0] + i[1]) as f64);
    let c_order: Vec<f64> = want.iter().copied().collect();
    let f_order: Vec<f64> = want.t().iter().copied().collect();
    let le = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let be = |v: &[f64]| v.iter().flat_map(|x| x.to_be_bytes()).collect::<Vec<u8>>();
    let cases = [
        ("c-le", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", le(&c_order)),
        ("c-be", 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (3, 4), }", be(&c_order)),
        ("f-le", 2, "{'descr': '<f8', 'fortran_order': True, 'shape': (3, 4), }", le(&f_order)),
        ("f-be", 3, "{'descr': '>f8', 'fortran_order': True, 'shape': (3, 4), }", be(&f_order)),
    ];
    for (name, version, dict, data) in cases {
        let path = dir.path().join(format!("{name}.npy"));
        std::fs::write(&path, raw_npy(version, dict, &data)).unwrap();
        for chunks in [[3, 4], [2, 3], [1, 1]] {
            let got = from_npy::<f64>(&path, chunks).unwrap().compute().unwrap();
            assert_eq!(got, want, "{name} read in {chunks:?} blocks");
        }
    }
    // Integer, byte and bool types.
    let path = dir.path().join("i4.npy");
    let data: Vec<u8> = (0..6i32).flat_map(|v| (v - 3).to_be_bytes()).collect();
    std::fs::write(&path, raw_npy(1, "{'descr': '>i4', 'fortran_order': False, 'shape': (6,), }", &data)).unwrap();
    assert_eq!(
        from_npy::<i32>(&path, 4).unwrap().compute().unwrap().into_raw_vec_and_offset().0,
        vec![-3, -2, -1, 0, 1, 2]
    );
    let path = dir.path().join("b1.npy");
    std::fs::write(&path, raw_npy(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 2), }", &[1, 0, 0, 1]))
        .unwrap();
    let b = from_npy::<bool>(&path, 1).unwrap().compute().unwrap();
    assert_eq!(b.into_raw_vec_and_offset().0, vec![true, false, false, true]);
    let path = dir.path().join("scalar.npy");
    std::fs::write(&path, raw_npy(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (), }", &42i64.to_le_bytes()))
        .unwrap();
    assert_eq!(from_npy::<i64>(&path, 1).unwrap().compute_scalar().unwrap(), 42);
}

#[test]
fn written_bytes_match_numpys_layout() {
    let dir = TempDir::new("npy-bytes");
    let path = dir.path().join("x.npy");
    let x = Array::<i32>::from_fn(&[3, 5], [2, 2], |i| (i[0] * 5 + i[1]) as i32).unwrap();
    x.to_npy(&path, WriteMode::Create).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let want_header = raw_npy(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (3, 5), }", &[]);
    assert_eq!(&bytes[..want_header.len()], &want_header[..]);
    let data: Vec<u8> = (0..15i32).flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(&bytes[want_header.len()..], &data[..]);
}

#[test]
fn a_slice_reads_only_its_bytes() {
    let dir = TempDir::new("npy-slice");
    let path = dir.path().join("x.npy");
    let x = values(&[100, 8], vec![vec![10; 10], vec![8]]);
    x.to_npy(&path, WriteMode::Create).unwrap();
    // Truncate the file after row 20: rows 0..20 still read, the rest fails.
    let h = read_header(&path).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    let y = from_npy::<f64>(&path, [10, 8]).unwrap();
    f.set_len(h.data_offset + 20 * 8 * 8).unwrap();
    let head = y.slice([Idx::range(0, 20)]).unwrap().compute().unwrap();
    assert_eq!(head, x.slice([Idx::range(0, 20)]).unwrap().compute().unwrap());
    let err = y.compute().unwrap_err();
    assert!(matches!(&err, Error::Io { path: p, .. } if p.ends_with("x.npy")), "{err}");
}

#[test]
fn bad_input_is_an_error() {
    let dir = TempDir::new("npy-bad");
    let missing = dir.path().join("missing.npy");
    assert!(matches!(from_npy::<f64>(&missing, 1), Err(Error::Io { path, .. }) if path.contains("missing.npy")));
    let path = dir.path().join("x.npy");
    values(&[4], vec![vec![4]]).to_npy(&path, WriteMode::Create).unwrap();
    let err = from_npy::<i64>(&path, 1).unwrap_err();
    assert!(
        matches!(&err, Error::DtypeMismatch { expected, found, .. } if expected == "int64" && found == "float64"),
        "{err}"
    );
    let err = values(&[4], vec![vec![4]]).to_npy(&path, WriteMode::Create).unwrap_err();
    assert!(matches!(&err, Error::Io { message, .. } if message.contains("already exists")), "{err}");
    assert!(matches!(values(&[4], vec![vec![4]]).to_npy(&path, WriteMode::Resume), Err(Error::InvalidArgument { .. })));
    (&values(&[4], vec![vec![4]]) * 2.0).to_npy(&path, WriteMode::Overwrite).unwrap();
    assert_eq!(
        from_npy::<f64>(&path, 2).unwrap().compute().unwrap(),
        (&values(&[4], vec![vec![4]]) * 2.0).compute().unwrap()
    );
    let junk = dir.path().join("junk.npy");
    std::fs::write(&junk, b"not numpy at all").unwrap();
    assert!(matches!(read_header(&junk), Err(Error::Io { message, .. }) if message.contains("magic")));
    let short = dir.path().join("short.npy");
    std::fs::write(&short, raw_npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (10,), }", &[0; 16])).unwrap();
    assert!(matches!(read_header(&short), Err(Error::Io { message, .. }) if message.contains("truncated")));
    let odd = dir.path().join("f2.npy");
    std::fs::write(&odd, raw_npy(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }", &[0; 16])).unwrap();
    assert!(matches!(read_header(&odd), Err(Error::Io { message, .. }) if message.contains("f2")));
    // Headers that once panicked: an empty or non-ASCII descr, a shape whose
    // byte count overflows.
    for (name, dict, says) in [
        ("empty.npy", "{'descr': '', 'fortran_order': False, 'shape': (1,), }", "unsupported dtype"),
        ("accent.npy", "{'descr': '\u{e9}f8', 'fortran_order': False, 'shape': (1,), }", "unsupported dtype"),
        ("huge.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", "more bytes"),
        (
            "empty-huge.npy",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4611686018427387904, 4611686018427387904), }",
            "more bytes",
        ),
    ] {
        let bad = dir.path().join(name);
        std::fs::write(&bad, raw_npy(1, dict, &[0; 16])).unwrap();
        let err = read_header(&bad).unwrap_err();
        assert!(matches!(&err, Error::Io { path, message } if path.ends_with(name) && message.contains(says)), "{err}");
        assert!(from_npy::<f64>(&bad, 1).is_err());
    }
    // A version-2 header claiming 4 GiB in a 12-byte file: refused, not allocated.
    let liar = dir.path().join("liar.npy");
    std::fs::write(&liar, b"\x93NUMPY\x02\x00\xff\xff\xff\xff").unwrap();
    let err = read_header(&liar).unwrap_err();
    assert!(matches!(&err, Error::Io { message, .. } if message.contains("truncated")), "{err}");
    assert_eq!(read_header(&path).unwrap().dtype, DType::F64);
}

#[test]
fn a_failed_store_leaves_no_file() {
    let dir = TempDir::new("npy-fail");
    let path = dir.path().join("x.npy");
    let x = values(&[40], vec![vec![4; 10]]).map_blocks(
        |b, info| {
            assert!(info.index[0] != 5, "injected failure");
            b.to_owned()
        },
        None,
    );
    let err = x.unwrap().to_npy(&path, WriteMode::Create).unwrap_err();
    assert!(err.to_string().contains("injected failure"), "{err}");
    assert!(!path.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "no temporary file left");
}
