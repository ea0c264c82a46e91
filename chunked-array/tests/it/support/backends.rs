//! One test per backend (host, emulated device, CUDA device) from one body,
//! shared by the device tests of chunked-array and chunked-linalg (included
//! with `#[path]`).

/// Generates `mod $name { fn cpu, fn emulated, fn cuda }` running `$body`, a
/// `fn(Option<&Device>)`, with no device, an emulated device of 256 MiB, and
/// the first CUDA device (the CUDA test prints why it skips where there is none).
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
                match chunked_array::device::Device::cuda(0) {
                    Ok(device) => ($body)(Some(&device)),
                    Err(e) => println!("skipping the CUDA variant: {e}"),
                }
            }
        }
    };
}
