//! The I/O issue's benchmark in one run: write then read random 20000 x 20000 f64
//! in (1000, 1000) chunks as Zarr v3 with zstd (zarr-python 3's default codec and
//! level) and as Zarr v2 with the same codec, next to the same with no
//! compression and as .npy, and the physical
//! limits: the disk's sequential write rate and zstd's one-core speed on the
//! same data.
//!
//! `cargo run --release -p chunked-benches --bin io_report [-- --n 20000 --dir D --json]`
//!
//! Reads run from the page cache (the files fit in memory), as dask's do in
//! `benches/python/compare_io.py`.

use std::io::Write;
use std::path::PathBuf;

use chunked_array::io::WriteMode;
use chunked_array::io::npy::from_npy;
use chunked_array::io::zarr::{Compression, ZarrFormat, ZarrReadOptions, ZarrWriteOptions, from_zarr_with};
use chunked_array::random::RandomState;
use chunked_array::{Array, Context};
use chunked_benches::{arg, secs};

/// GB/s of writing `bytes` sequentially to a new file in `dir` (in 8 MiB writes).
fn disk_write_rate(dir: &std::path::Path, bytes: usize) -> f64 {
    let path = dir.join("disk-rate.bin");
    let buf = vec![0x5au8; 8 << 20];
    let (t, _) = secs(|| {
        let mut f = std::fs::File::create(&path).unwrap();
        for _ in 0..bytes / buf.len() {
            f.write_all(&buf).unwrap();
        }
    });
    std::fs::remove_file(&path).unwrap();
    bytes as f64 / t / 1e9
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let json = std::env::args().any(|a| a == "--json");
    let n: usize = arg("--n").map_or(20_000, |s| s.parse().unwrap());
    let c = 1000.min(n);
    let dir = PathBuf::from(arg("--dir").unwrap_or_else(|| "target/io-bench".into()));
    std::fs::create_dir_all(&dir)?;
    let gb = (n * n * 8) as f64 / 1e9;
    let mut rows: Vec<(String, f64, String)> = Vec::new();
    let x: Array<f64> = RandomState::new(0).uniform(&[n, n], [c, c])?;

    // Buffered writes leave the data in the page cache for the read that follows;
    // direct writes do not, so their data is read back from the disk (direct).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cases = [
        ("zstd", Compression::default(), false, cores),
        ("zstd_v2", Compression::default(), false, cores),
        ("zstd_direct", Compression::default(), true, cores),
        ("zstd_direct_overlap", Compression::default(), true, cores + 1),
        ("zstd1", Compression::Zstd { level: 1 }, false, cores),
        ("zstd1_direct", Compression::Zstd { level: 1 }, true, cores),
        ("zstd1_direct_overlap", Compression::Zstd { level: 1 }, true, cores + 1),
        ("raw_direct", Compression::None, true, cores),
    ];
    for (name, compression, direct_io, threads) in cases {
        let zarr_format = if name.ends_with("_v2") { ZarrFormat::V2 } else { ZarrFormat::V3 };
        let opts =
            ZarrWriteOptions { mode: WriteMode::Overwrite, compression, direct_io, zarr_format, ..Default::default() };
        let ctx = Context::threads(threads);
        let (t, report) = secs(|| x.to_zarr_on(&dir, name, &opts, &ctx).unwrap());
        let ratio = report.bytes_written as f64 / (gb * 1e9);
        rows.push((format!("zarr_write_{name}"), t, format!("{:.2} GB/s of data; stored/raw = {ratio:.3}", gb / t)));
        let read = ZarrReadOptions { direct_io, ..Default::default() };
        let y = from_zarr_with::<f64>(&dir, name, &read)?;
        let (t, total) = secs(|| y.sum(None).unwrap().compute_scalar().unwrap());
        let from = if direct_io { "from disk, direct" } else { "page cache" };
        rows.push((format!("zarr_read_{name}"), t, format!("{:.2} GB/s ({from}); sum = {total:.1}", gb / t)));
        std::fs::remove_dir_all(dir.join(name))?;
    }
    let npy = dir.join("x.npy");
    let (t, _) = secs(|| x.to_npy(&npy, WriteMode::Overwrite).unwrap());
    rows.push(("npy_write".into(), t, format!("{:.2} GB/s", gb / t)));
    let y = from_npy::<f64>(&npy, [c, c])?;
    let (t, _) = secs(|| y.sum(None).unwrap().compute_scalar().unwrap());
    rows.push(("npy_read".into(), t, format!("{:.2} GB/s", gb / t)));
    std::fs::remove_file(&npy)?;
    let (t, _) = secs(|| x.sum(None).unwrap().compute_scalar().unwrap());
    rows.push(("generate_and_sum_only".into(), t, "the same array, no I/O".into()));

    let rate = disk_write_rate(&dir, (gb * 1e9) as usize / 4);
    rows.push(("disk_sequential_write_rate".into(), rate, "GB/s, one file, 8 MiB writes (page cache)".into()));

    chunked_benches::print_rows(&rows, json);
    Ok(())
}
