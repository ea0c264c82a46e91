//! Device discovery: real devices where a driver is present, a clear error where not.

#[test]
fn devices_or_no_device_error() {
    match chunked_gpu::devices() {
        Ok(list) => {
            assert!(!list.is_empty());
            for d in &list {
                assert!(!d.name.is_empty());
                assert!(d.total_memory > 0, "{d:?}");
                assert!(d.compute_capability.0 >= 3, "{d:?}");
                println!("found {d:?}");
            }
        }
        Err(chunked_gpu::Error::NoDevice { reason }) => {
            assert!(std::env::var_os("CHUNKED_REQUIRE_CUDA").is_none(), "CHUNKED_REQUIRE_CUDA is set but: {reason}");
            println!("skipping device checks: no CUDA device ({reason})");
            if !chunked_gpu::driver_present() {
                assert!(reason.contains("not installed"), "{reason}");
            }
        }
        Err(e) => panic!("driver present but failing: {e}"),
    }
}
