//! Zarr in an S3-compatible object store: write, then read and sum, random
//! n x n f64 in (1000, 1000) chunks with zstd (zarr-python 3's default codec),
//! to and from the server at `--endpoint` (a local moto server in
//! `benches/python/compare_s3.py`, which runs dask + s3fs on the same server
//! in the same run), with this process's peak RSS.
//!
//! `cargo run --release -p chunked-benches --bin s3_report -- --endpoint http://127.0.0.1:PORT --bucket B [--n 20000 --concurrency 16 --json]`

use chunked_array::Array;
use chunked_array::io::WriteMode;
use chunked_array::io::cloud::StorageOptions;
use chunked_array::io::zarr::{ZarrReadOptions, ZarrWriteOptions, from_zarr_with};
use chunked_array::random::RandomState;
use chunked_benches::{arg, secs, vm_hwm_kib};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let json = std::env::args().any(|a| a == "--json");
    let n: usize = arg("--n").map_or(20_000, |s| s.parse().unwrap());
    let endpoint = arg("--endpoint").ok_or("--endpoint http://host:port is required")?;
    let bucket = arg("--bucket").unwrap_or_else(|| "bench".into());
    let concurrency: usize = arg("--concurrency").map_or(16, |s| s.parse().unwrap());
    let c = 1000.min(n);
    let gb = (n * n * 8) as f64 / 1e9;
    let mut storage = StorageOptions {
        endpoint: Some(endpoint),
        region: Some("us-east-1".into()),
        concurrency,
        ..Default::default()
    };
    storage.config.insert("aws_access_key_id".into(), "testing".into());
    storage.config.insert("aws_secret_access_key".into(), "testing".into());
    let url = format!("s3://{bucket}/chunked.zarr");
    let x: Array<f64> = RandomState::new(0).uniform(&[n, n], [c, c])?;

    let mut rows: Vec<(String, f64, String)> = Vec::new();
    let write = ZarrWriteOptions { mode: WriteMode::Overwrite, storage: storage.clone(), ..Default::default() };
    let (t, report) = secs(|| x.to_zarr(&url, "x", &write).unwrap());
    let stored = report.bytes_written as f64 / 1e9;
    rows.push(("s3_zarr_write_zstd".into(), t, format!("{:.2} GB/s of data; {stored:.2} GB stored", gb / t)));
    let after_write = vm_hwm_kib();
    let read = ZarrReadOptions { storage, ..Default::default() };
    let y = from_zarr_with::<f64>(&url, "x", &read)?;
    let (t, total) = secs(|| y.sum(None).unwrap().compute_scalar().unwrap());
    rows.push(("s3_zarr_read_zstd".into(), t, format!("{:.2} GB/s; sum = {total:.1}", gb / t)));
    let chunk_mib = (c * c * 8) as f64 / (1 << 20) as f64;
    let note =
        format!("MiB; {concurrency} uploads x {chunk_mib:.1} MiB chunks = {:.0} MiB", concurrency as f64 * chunk_mib);
    rows.push(("peak_rss_after_write".into(), after_write as f64 / 1024.0, note));
    rows.push(("peak_rss_after_read".into(), vm_hwm_kib() as f64 / 1024.0, "MiB".into()));
    chunked_benches::print_rows(&rows, json);
    Ok(())
}
