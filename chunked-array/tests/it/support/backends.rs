//! One test per backend (host, emulated device, CUDA device) from one body,
//! shared by the device tests of chunked-array and chunked-linalg (included
//! with `#[path]`).

/// Generates `mod $name { fn cpu, fn emulated, fn cuda }` running `$body`, a
/// `fn(Option<&Device>)`, with no device, an emulated device of 256 MiB, and
/// the first CUDA device (the CUDA test prints why it skips where there is none,
/// and fails instead when `CHUNKED_REQUIRE_CUDA` is set).
#[macro_export]
macro_rules! per_backend {
    ($name:ident, $body:expr) => {
        mod $name {
            use super::*;
            #[test]
            fn cpu() {
                ($body)(None)
            }
            #[test]
            fn emulated() {
                ($body)(Some(&chunked_array::device::Device::emulated(256 << 20)))
            }
            #[test]
            fn cuda() {
                // The CUDA variants share device 0 and the counters they read
                // (memory in use, bytes moved), so they run one at a time.
                let _serial = super::backends::CUDA_SERIAL.lock().unwrap_or_else(|p| p.into_inner());
                match chunked_array::device::Device::cuda(0) {
                    Ok(device) => ($body)(Some(&device)),
                    Err(e) if std::env::var_os("CHUNKED_REQUIRE_CUDA").is_some() => {
                        panic!("CHUNKED_REQUIRE_CUDA is set but CUDA device 0 does not open: {e}")
                    }
                    Err(e) => println!("skipping the CUDA variant: {e}"),
                }
            }
        }
    };
}

/// Held by each CUDA variant while it runs (see [`per_backend`]).
pub static CUDA_SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
