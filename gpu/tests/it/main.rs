//! chunked-gpu's integration tests, one binary.

mod devices;
