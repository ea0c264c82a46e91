//! A block as another rank sends it, of any bytes: decoded as elements of
//! several types and as reduction partials; a block or `None`, never a panic.
#![no_main]

use chunked_array::Complex64;
use chunked_array::runtime::Wire;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let _ = (Wire::elements::<f64>().decode)(bytes);
    let _ = (Wire::elements::<bool>().decode)(bytes);
    let _ = (Wire::elements::<u16>().decode)(bytes);
    let _ = (Wire::elements::<Complex64>().decode)(bytes);
    let _ = (Wire::values::<(f64, u64)>().decode)(bytes);
});
