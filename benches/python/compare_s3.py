"""Zarr in an S3-compatible object store: dask + zarr-python + s3fs next to
chunked, on the same local moto server, in one run.

Usage: python benches/python/compare_s3.py [--n 20000] [--concurrency 16]
Needs target/pyenv (scripts/setup_python.sh: moto[server], s3fs, dask, zarr).
Random n x n f64 in (1000, 1000) chunks, written as Zarr v3 with zstd
(zarr-python 3's default) to s3://bench/, then read back and summed. Each
side runs in its own process, so its peak RSS is its own; the server holds
one array at a time. Prints a markdown table with ratios.
"""
import json
import os
import resource
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STORAGE = {"key": "testing", "secret": "testing", "client_kwargs": {"region_name": "us-east-1"}}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dask_side(endpoint, n):
    import dask
    import dask.array as da

    dask.config.set(scheduler="threads")
    storage = dict(STORAGE, endpoint_url=endpoint)
    x = da.random.random((n, n), chunks=(1000, 1000))
    t = time.perf_counter()
    x.to_zarr("s3://bench/dask.zarr", component="x", overwrite=True, storage_options=storage)
    write = time.perf_counter() - t
    t = time.perf_counter()
    da.from_zarr("s3://bench/dask.zarr", component="x", storage_options=storage).sum().compute()
    read = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"s3_zarr_write_zstd": write, "s3_zarr_read_zstd": read, "peak_rss_after_read": rss}))


def remove(endpoint, prefix):
    import s3fs

    fs = s3fs.S3FileSystem(endpoint_url=endpoint, **STORAGE)
    if fs.exists(prefix):
        fs.rm(prefix, recursive=True)


def main():
    if "--dask-side" in sys.argv:
        return dask_side(sys.argv[sys.argv.index("--dask-side") + 1], int(sys.argv[sys.argv.index("--n") + 1]))
    n = int(sys.argv[sys.argv.index("--n") + 1]) if "--n" in sys.argv else 20_000
    concurrency = sys.argv[sys.argv.index("--concurrency") + 1] if "--concurrency" in sys.argv else "16"
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([os.path.join(os.path.dirname(sys.executable), "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port)).close()
                break
            except OSError:
                time.sleep(0.1)
        import urllib.request
        urllib.request.urlopen(urllib.request.Request(f"{endpoint}/bench", method="PUT")).read()
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "chunked-benches", "--bin", "s3_report"], cwd=ROOT, check=True)
        exe = os.path.join(ROOT, "target", "release", "s3_report")
        out = subprocess.run([exe, "--json", "--n", str(n), "--endpoint", endpoint, "--concurrency", concurrency],
                             cwd=ROOT, check=True, capture_output=True, text=True).stdout
        ours = json.loads(out)
        remove(endpoint, "bench/chunked.zarr")
        theirs = json.loads(subprocess.run([sys.executable, __file__, "--dask-side", endpoint, "--n", str(n)],
                                           check=True, capture_output=True, text=True).stdout)
        remove(endpoint, "bench/dask.zarr")
    finally:
        server.kill()
    print(f"| workload ({n}x{n} f64, (1000, 1000) chunks, zstd, local moto) | chunked | dask + s3fs | chunked/dask |")
    print("|---|---|---|---|")
    for key, row in ours.items():
        t, d = row["chunked"], theirs.get(key)
        ratio = f"{t / d:.2f}" if d else ""
        other = f"{d:.2f}" if d else ""
        print(f"| {key} ({row['note']}) | {t:.2f} | {other} | {ratio} |")


if __name__ == "__main__":
    main()
