"""The core workloads in dask and numpy, next to chunked, in one run on one machine.

Usage: python benches/python/compare_core.py [--quick] [--skip-slow]
Needs dask[array] and numpy (benches/python/setup_venv.sh makes a venv with them)
and builds chunked's core_report with cargo. Prints a markdown table: times (best
of the warm runs; the first run separately for chunked) and ratios.
"""
import json
import os
import subprocess
import sys
import time

import dask
import dask.array as da
import numpy as np

QUICK = "--quick" in sys.argv
SKIP_SLOW = "--skip-slow" in sys.argv
N = 8000 if QUICK else 20000
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def best(f, runs=3):
    f()  # warm-up
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def python_side():
    dask.config.set(scheduler="threads")
    out = {}
    out["overhead_chunks_100"] = {"dask": best(lambda: da.ones((1_000_000,), chunks=100).sum().compute(), 3)}
    if not SKIP_SLOW:
        out["overhead_chunks_10"] = {"dask": best(lambda: da.ones((1_000_000,), chunks=10).sum().compute(), 1)}
    out["random_sum"] = {
        "dask": best(lambda: da.random.random((100_000, 1000), chunks=(1000, 1000)).sum().compute()),
        "numpy": best(lambda: np.random.random((100_000, 1000)).sum()),
    }
    x = da.random.random((N, N), chunks=(2000, 2000))
    out["x_plus_xT_mean0"] = {"dask": best(lambda: (x + x.T).mean(axis=0).compute(), 2)}
    out["centered_square_sum"] = {"dask": best(lambda: ((x - x.mean(axis=0)) ** 2).sum().compute(), 2)}
    # numpy: the same expressions on an in-memory array, generation included as in
    # the lazy versions.
    out["x_plus_xT_mean0"]["numpy"] = best(lambda: (lambda y: (y + y.T).mean(axis=0))(np.random.random((N, N))), 1)
    out["centered_square_sum"]["numpy"] = best(lambda: (lambda y: ((y - y.mean(axis=0)) ** 2).sum())(np.random.random((N, N))), 1)
    return out


def chunked_side():
    args = ["cargo", "run", "--release", "-q", "-p", "chunked-benches", "--bin", "core_report", "--", "--json"]
    if QUICK:
        args.append("--quick")
    res = subprocess.run(args, cwd=ROOT, check=True, capture_output=True, text=True)
    sys.stderr.write(res.stderr)
    return json.loads(res.stdout)


def main():
    ours = chunked_side()
    theirs = python_side()
    print(f"threads: {ours['threads']} (dask threaded scheduler on all cores; numpy single-threaded), size {N}x{N}\n")
    print("| workload | chunked warm (s) | chunked first run (s) | dask (s) | numpy (s) | dask / chunked | numpy / chunked |")
    print("|---|---|---|---|---|---|---|")
    for name, p in theirs.items():
        c = ours[name]
        d = p.get("dask")
        n = p.get("numpy")
        fmt = lambda v: f"{v:.3f}" if v is not None else "-"
        ratio = lambda v: f"{v / c['warm']:.1f}x" if v is not None else "-"
        print(f"| {name} | {c['warm']:.3f} | {c['cold']:.3f} | {fmt(d)} | {fmt(n)} | {ratio(d)} | {ratio(n)} |")


if __name__ == "__main__":
    main()
