"""The linear-algebra workloads in dask and numpy, next to chunked, in one run.

Usage: python benches/python/compare_linalg.py [--skip-numpy]
Needs dask[array] and numpy (benches/python/setup_venv.sh). dask runs on the
threaded scheduler with BLAS limited to one thread per worker (its best setting
here); numpy uses all cores. Prints a markdown table with ratios.
"""
import json
import os
import subprocess
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import dask  # noqa: E402
import dask.array as da  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(f):
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


def complex_uniform(shape, chunks):
    return (da.random.random(shape, chunks=chunks) + 1j * da.random.random(shape, chunks=chunks)).persist()


def complex_rows(out):
    """complex128: the SVD of a tall matrix (dask's TSQR) and a dense solve
    (numpy only: dask's solve needs SciPy's LU)."""
    a = complex_uniform((200_000, 100), (20_000, 100))
    u, s, v = da.linalg.svd(a)
    out["complex_svd_2e5x100"] = {"dask": timed(lambda: dask.compute(u, s, v))[0]}
    if "--skip-numpy" not in sys.argv:
        an = a.compute()
        out["complex_svd_2e5x100"]["numpy"] = timed(lambda: np.linalg.svd(an, full_matrices=False))[0]
        n = 2000
        m = np.random.random((n, n)) + 1j * np.random.random((n, n)) + n * np.eye(n)
        b = np.random.random((n, 1)) + 1j * np.random.random((n, 1))
        out["complex_solve_2000"] = {"numpy": timed(lambda: np.linalg.solve(m, b))[0]}


def python_side():
    dask.config.set(scheduler="threads")
    out = {}
    x = da.random.random((100_000, 1000), chunks=(1000, 1000))
    u, s, v = da.linalg.svd(x)
    out["seed_svd_1000x1000_chunks"] = {"dask": timed(lambda: dask.compute(u, s, v))[0]}
    for rb in (10_000, 100_000):
        a = da.random.random((1_000_000, 100), chunks=(rb, 100))
        q, r = da.linalg.tsqr(a)
        out[f"tsqr_1e6x100_chunks_{rb}"] = {"dask": timed(lambda: dask.compute(q, r))[0]}
    a = da.random.random((100_000, 1000), chunks=(10_000, 1000)).persist()
    t, (s_approx,) = timed(lambda: dask.compute(da.linalg.svd_compressed(a, 10, seed=0)[1]))
    s_exact = np.linalg.svd(a.compute(), compute_uv=False)
    rel = float(np.max(np.abs(s_approx - s_exact[:10]) / s_exact[:10]))
    out["svd_compressed_k10"] = {"dask": t, "dask_note": f"max relative error of s[:10] = {rel:.3e} (input persisted)"}
    complex_rows(out)
    if "--skip-numpy" not in sys.argv:
        xs = np.random.random((100_000, 1000))
        out["seed_svd_1000x1000_chunks"]["numpy"] = timed(lambda: np.linalg.svd(xs, full_matrices=False))[0]
        a1 = np.random.random((1_000_000, 100))
        out["tsqr_1e6x100_chunks_10000"]["numpy"] = timed(lambda: np.linalg.qr(a1))[0]
    return out


def main():
    subprocess.run(["cargo", "build", "--release", "-p", "chunked-benches", "--bin", "linalg_report"], cwd=ROOT, check=True)
    rust = json.loads(subprocess.run([os.path.join(ROOT, "target", "release", "linalg_report"), "--json"], cwd=ROOT, check=True, capture_output=True, text=True).stdout)
    py = python_side()
    print("| workload | chunked (s) | dask (s) | numpy (s) | dask / chunked | note |")
    print("|---|---|---|---|---|---|")
    for name, r in rust.items():
        p = py.get(name, {})
        d, n = p.get("dask"), p.get("numpy")
        fmt = lambda v: f"{v:.3f}" if v is not None else "-"
        ratio = f"{d / r['chunked']:.1f}x" if d else "-"
        print(f"| {name} | {r['chunked']:.3f} | {fmt(d)} | {fmt(n)} | {ratio} | {r['note']} {p.get('dask_note', '')} |")


if __name__ == "__main__":
    main()
