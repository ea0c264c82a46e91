//! Zarr in an object store: a real S3-compatible server (moto in server
//! mode, as zarr-python's and s3fs's own tests use) on 127.0.0.1, started and
//! stopped by each test; round trips of every dtype, a resumed store,
//! zarr-python with s3fs on both sides, and the errors of bad URLs, missing
//! buckets, wrong credentials, dropped connections and throttling.

use crate::support;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use chunked_array::io::WriteMode;
use chunked_array::io::cloud::StorageOptions;
use chunked_array::io::zarr::{ZarrReadOptions, ZarrWriteOptions, from_zarr, from_zarr_with};
use chunked_array::random::RandomState;
use chunked_array::{Array, Complex64, Element, Error};

/// A moto server on a free loopback port, killed on drop.
struct Moto {
    child: Child,
    port: u16,
}

fn moto_server() -> Option<PathBuf> {
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/pyenv/bin/moto_server");
    let candidates = [std::env::var_os("CHUNKED_MOTO_SERVER").map(PathBuf::from), Some(venv)];
    candidates.into_iter().flatten().find(|p| p.exists())
}

impl Moto {
    /// A server, or `None` (the test skips, saying why) where moto is not installed.
    fn start(env: &[(&str, &str)]) -> Option<Moto> {
        let Some(server) = moto_server() else {
            support::tool_missing("no moto_server (run scripts/setup_python.sh, or set CHUNKED_MOTO_SERVER)");
            return None;
        };
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut command = Command::new(server);
        command.args(["-H", "127.0.0.1", "-p", &port.to_string()]).stdout(Stdio::null()).stderr(Stdio::null());
        command.envs(env.iter().copied());
        let child = command.spawn().unwrap();
        let moto = Moto { child, port };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < Duration::from_secs(60), "moto_server did not start on port {port}");
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(moto)
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Creates bucket `name` (moto takes unsigned requests until told otherwise).
    fn bucket(&self, name: &str) {
        let reply = http_request(
            self.port,
            &format!("PUT /{name} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
        );
        assert!(reply.starts_with("HTTP/1.1 200"), "creating bucket {name}: {reply}");
    }

    fn options(&self) -> StorageOptions {
        storage_options(&self.endpoint())
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn storage_options(endpoint: &str) -> StorageOptions {
    let mut options =
        StorageOptions { endpoint: Some(endpoint.into()), region: Some("us-east-1".into()), ..Default::default() };
    options.config.insert("aws_access_key_id".into(), "testing".into());
    options.config.insert("aws_secret_access_key".into(), "testing".into());
    options.retries.max_retries = 2;
    options.retries.initial_backoff = Duration::from_millis(20);
    options
}

fn http_request(port: u16, request: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    reply
}

fn write_options(storage: &StorageOptions) -> ZarrWriteOptions {
    ZarrWriteOptions { storage: storage.clone(), ..Default::default() }
}

fn read_options(storage: &StorageOptions) -> ZarrReadOptions {
    ZarrReadOptions { storage: storage.clone(), ..Default::default() }
}

fn round_trip<T: Element + PartialEq + std::fmt::Debug>(url: &str, name: &str, x: &Array<T>, storage: &StorageOptions) {
    let report = x.to_zarr(url, name, &write_options(storage)).unwrap();
    assert_eq!(report.chunks_written, x.num_blocks(), "{name}");
    let back = from_zarr_with::<T>(url, name, &read_options(storage)).unwrap();
    assert_eq!(back.chunks(), x.chunks(), "{name}");
    assert_eq!(back.compute().unwrap(), x.compute().unwrap(), "{name}");
    // Blocks across stored chunks read every chunk they touch.
    let rows = read_options(storage);
    let other = ZarrReadOptions { chunks: Some(vec![7, 5].into()), ..rows };
    assert_eq!(from_zarr_with::<T>(url, name, &other).unwrap().compute().unwrap(), x.compute().unwrap(), "{name}");
}

#[test]
fn every_dtype_round_trips_through_s3() {
    let Some(moto) = Moto::start(&[]) else { return };
    moto.bucket("data");
    let storage = moto.options();
    let url = "s3://data/arrays.zarr";
    let uniform = RandomState::new(3).uniform(&[23, 17], [10, 6]).unwrap();
    round_trip::<f64>(url, "f64", &uniform, &storage);
    round_trip::<f32>(url, "f32", &uniform.astype::<f32>(), &storage);
    let ints = (&uniform * 1000.0);
    round_trip::<i8>(url, "i8", &(&uniform * 100.0).astype::<i8>(), &storage);
    round_trip::<i16>(url, "i16", &ints.astype::<i16>(), &storage);
    round_trip::<i32>(url, "i32", &ints.astype::<i32>(), &storage);
    round_trip::<i64>(url, "nested/i64", &ints.astype::<i64>(), &storage);
    round_trip::<u8>(url, "u8", &(&uniform * 255.0).astype::<u8>(), &storage);
    round_trip::<u16>(url, "u16", &ints.astype::<u16>(), &storage);
    round_trip::<u32>(url, "u32", &ints.astype::<u32>(), &storage);
    round_trip::<u64>(url, "u64", &ints.astype::<u64>(), &storage);
    round_trip::<bool>(url, "bool", &uniform.gt(0.5).unwrap(), &storage);
    let z = uniform.map(|v| Complex64::new(v, -2.0 * v));
    round_trip::<Complex64>(url, "c128", &z, &storage);
    round_trip(url, "c64", &z.astype::<chunked_array::Complex32>(), &storage);
    // The array at the store's root, and a store URL that is a bucket.
    moto.bucket("root");
    round_trip::<f64>("s3://root", "", &uniform, &storage);
    // A write never removes what is not an array's.
    let stranger =
        uniform.to_zarr("s3://data", "", &ZarrWriteOptions { mode: WriteMode::Overwrite, ..write_options(&storage) });
    assert!(stranger.unwrap_err().to_string().contains("not a Zarr array"));
    // Create refuses what exists; Overwrite replaces it.
    let again = uniform.to_zarr(url, "f64", &write_options(&storage)).unwrap_err();
    assert!(again.to_string().contains("s3://data/arrays.zarr/f64"), "{again}");
    let twice = (&uniform * 2.0);
    let overwrite = ZarrWriteOptions { mode: WriteMode::Overwrite, ..write_options(&storage) };
    twice.to_zarr(url, "f64", &overwrite).unwrap();
    let back = from_zarr_with::<f64>(url, "f64", &read_options(&storage)).unwrap();
    assert_eq!(back.compute().unwrap(), twice.compute().unwrap());
    // The stored type is checked against the requested one.
    let wrong = from_zarr_with::<f32>(url, "f64", &read_options(&storage)).unwrap_err();
    assert!(matches!(wrong, Error::DtypeMismatch { .. }), "{wrong}");
}
