"""The I/O benchmark in dask and zarr-python, next to chunked, in one run.

Usage: python benches/python/compare_io.py [--n 20000]
Needs target/pyenv (scripts/setup_python.sh). Random n x n f64 in (1000, 1000)
chunks written as Zarr v3 with zarr-python 3's default codec (zstd, level 0) and
read back (sum), from the page cache, as chunked's "zstd" rows do. dask runs on
its threaded scheduler; zarr-python writes from and reads into numpy.
Prints a markdown table with ratios.
"""
import json
import os
import shutil
import subprocess
import sys
import time

import dask
import dask.array as da
import numpy as np
import zarr

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(f):
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


def python_side(n, work):
    dask.config.set(scheduler="threads")
    out = {}
    path = os.path.join(work, "dask.zarr")
    x = da.random.random((n, n), chunks=(1000, 1000))
    out["zarr_write_zstd"] = {"dask": timed(lambda: x.to_zarr(path, overwrite=True))[0]}
    out["zarr_read_zstd"] = {"dask": timed(lambda: da.from_zarr(path).sum().compute())[0]}
    shutil.rmtree(path)
    # Zarr v2 (zarr-python 3 writes zstd level 0 there too, as chunked's v2 row).
    out["zarr_write_zstd_v2"] = {"dask": timed(lambda: x.to_zarr(path, overwrite=True, zarr_format=2))[0]}
    out["zarr_read_zstd_v2"] = {"dask": timed(lambda: da.from_zarr(path).sum().compute())[0]}
    shutil.rmtree(path)
    a = np.random.default_rng(0).random((n, n))
    path = os.path.join(work, "np.zarr")

    def write():
        z = zarr.create_array(store=path, shape=a.shape, chunks=(1000, 1000), dtype=a.dtype, overwrite=True)
        z[...] = a

    out["zarr_write_zstd"]["zarr-python"] = timed(write)[0]
    out["zarr_read_zstd"]["zarr-python"] = timed(lambda: zarr.open_array(path, mode="r")[...].sum())[0]
    shutil.rmtree(path)
    return out


def main():
    n = int(sys.argv[sys.argv.index("--n") + 1]) if "--n" in sys.argv else 20_000
    work = os.path.join(ROOT, "target", "io-bench")
    os.makedirs(work, exist_ok=True)
    py = python_side(n, work)
    exe = os.path.join(ROOT, "target", "release", "io_report")
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "chunked-benches", "--bin", "io_report"], cwd=ROOT, check=True)
    ours = json.loads(subprocess.run([exe, "--json", "--n", str(n), "--dir", work], cwd=ROOT, check=True, capture_output=True, text=True).stdout)
    print(f"| workload ({n}x{n} f64, (1000, 1000) chunks) | chunked s | dask s | zarr-python s | chunked/dask | chunked/zarr-python |")
    print("|---|---|---|---|---|---|")
    for key, row in ours.items():
        t = row["chunked"]
        other = py.get(key, {})
        d, z = other.get("dask"), other.get("zarr-python")
        ratio = lambda o: f"{t / o:.2f}" if o else ""
        fmt = lambda o: f"{o:.2f}" if o else ""
        print(f"| {key} ({row['note']}) | {t:.3f} | {fmt(d)} | {fmt(z)} | {ratio(d)} | {ratio(z)} |")


if __name__ == "__main__":
    main()
