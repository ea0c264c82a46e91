//! Object stores: the Zarr readers and writers take a URL where they take a
//! path (dask's `from_zarr("s3://bucket/data.zarr")`): `s3://bucket/prefix`
//! (and S3-compatible servers through [`StorageOptions::endpoint`]),
//! `gs://bucket/prefix`, `az://container/prefix`, `http(s)://host/prefix`
//! (read-only), `file:///path` or a plain path. The URL schemes need the
//! `cloud` feature (through the `object_store` crate: one client for the
//! three clouds and any S3-compatible server, with retries and backoff);
//! without it a URL is an error that says so.
//!
//! ```
//! use chunked_array::io::cloud::StorageOptions;
//! use chunked_array::io::zarr::{from_zarr_with, ZarrReadOptions};
//! // No such server: the error names the URL (no request is made before a compute
//! // when the metadata cannot be read, and this read fails at once).
//! let storage = StorageOptions { endpoint: Some("http://127.0.0.1:9".into()), anonymous: true, ..Default::default() };
//! let mut options = ZarrReadOptions { storage, ..Default::default() };
//! options.storage.retries.max_retries = 0;
//! let read = from_zarr_with::<f64>("s3://bucket/data.zarr", "x", &options);
//! assert!(read.unwrap_err().to_string().contains("s3://bucket/data.zarr/x"));
//! ```
//!
//! **Crash safety.** An object appears whole or not at all (one request per
//! chunk), so the incomplete marker and the pending metadata of the Zarr
//! writer carry over unchanged: a resumed store skips every chunk object that
//! exists. A new store's marker is written with a conditional request (S3,
//! GCS and Azure have them): of two writers that start the same array, one
//! fails.
//!
//! **Hostile stores.** Every object read is bounded before its body is read:
//! metadata by [`crate::io::zarr`]'s metadata limit, a chunk by its decoded
//! size (and its compressor's declared or counted output, as for local
//! files).

mod options;
#[cfg(feature = "cloud")]
pub(crate) mod remote;
#[cfg(feature = "cloud")]
mod runtime;
#[cfg(feature = "cloud")]
pub(crate) mod uploads;

pub use options::{RetryOptions, StorageOptions};

/// Whether `text` is a URL (`scheme://...`) rather than a local path.
#[cfg(feature = "zarr")]
pub(crate) fn is_url(text: &str) -> bool {
    text.split_once("://").is_some_and(|(scheme, _)| {
        !scheme.is_empty() && scheme.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')
    })
}
