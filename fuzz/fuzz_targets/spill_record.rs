//! A spill record of any bytes: a block or an error, never a panic, and no
//! allocation past what the record holds (libFuzzer's `-malloc_limit_mb`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    chunked_array::fuzzing::spill_record(bytes);
});
