//! A `.npy` file of any bytes, read as several element types, in blocks.
#![no_main]

#[path = "common.rs"]
mod common;

use chunked_array::Complex64;
use chunked_array::io::npy::from_npy;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let path = common::scratch().join("input.npy");
    std::fs::write(&path, bytes).expect("the scratch file");
    common::settle(from_npy::<f64>(&path, 3));
    common::settle(from_npy::<i16>(&path, 3));
    common::settle(from_npy::<bool>(&path, 3));
    common::settle(from_npy::<Complex64>(&path, 3));
});
