"""Seed 001's 1225 delayed regressions: chunked's `pair_regressions` example
next to the same job in dask.delayed and in plain numpy loops, in one run on
one machine, with the streaming-read limit of the bytes the fits touch.

- chunked: `target/release/pair_regressions --scheduler threads` (its "fits"
  time: the delayed fits and the gather, on data already persisted).
- dask.delayed: the notebook's cells, `fit_ols` delayed per pair over the data
  shared in memory (threaded scheduler, the notebook's `client.scatter` is a
  no-op in one process), each fit `np.linalg.lstsq` on the pair's design matrix
  as cuML's LinearRegression would.
- numpy loop, lstsq: the same fits one after another.
- numpy loop, normal equations: chunked's method (the nine sums of the three
  columns, then a 3 x 3 solve) in numpy, one fit after another.

Every timing is of the fits only, the data made before. The limit: three
columns of 8-byte values read per fit, at the streaming-read bandwidth that
chunked's suite measures in the same run.

Usage: python benches/python/compare_pair_regressions.py [--rows N] [--features N]
Needs numpy and dask; builds chunked's binaries in release. Prints a markdown table.
"""
import argparse
import itertools
import json
import os
import re
import subprocess
import time

import dask
import numpy as np

from suite import ROOT, markdown_table


def fit_lstsq(data, pair, y):
    design = np.column_stack([data[pair[0]], data[pair[1]], np.ones(data.shape[1])])
    coef, *_ = np.linalg.lstsq(design, data[y], rcond=None)
    return pair, coef


def fit_normal(data, pair, y):
    xi, xj, yy = data[pair[0]], data[pair[1]], data[y]
    n = len(yy)
    si, sj, sy = xi.sum(), xj.sum(), yy.sum()
    a = np.array([[xi @ xi, xi @ xj, si], [xi @ xj, xj @ xj, sj], [si, sj, n]])
    b = np.array([xi @ yy, xj @ yy, sy])
    return pair, np.linalg.solve(a, b)


def chunked(rows, features):
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "chunked-examples", "--bin", "pair_regressions"],
                   cwd=ROOT, check=True)
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "chunked-benches", "--bin", "suite"], cwd=ROOT, check=True)
    exe = os.path.join(ROOT, "target", "release", "pair_regressions")
    times = []
    for _ in range(3):
        out = subprocess.run([exe, "--rows", str(rows), "--features", str(features), "--scheduler", "threads"],
                             check=True, capture_output=True, text=True).stdout
        times.append(float(re.search(r"fits ([0-9.]+) s", out).group(1)))
    best = re.search(r"best pair: .*", out).group(0)
    limits = subprocess.run([os.path.join(ROOT, "target", "release", "suite"), "--limits"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    return sorted(times)[1], best, json.loads(limits)["read_gbs"]


def timed(run):
    t = time.perf_counter()
    run()
    return time.perf_counter() - t


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--features", type=int, default=50)
    a = p.parse_args()
    ours, best, read_gbs = chunked(a.rows, a.features)
    # Feature-major, as chunked holds it: each column contiguous.
    data = np.random.default_rng(12).standard_normal((a.features + 1, a.rows))
    y = a.features
    pairs = list(itertools.combinations(range(a.features), 2))
    fit = dask.delayed(fit_lstsq)
    shared = dask.delayed(data)  # one graph node holding the array, as a scattered future
    theirs = {
        "dask.delayed (threads), lstsq per fit": timed(
            lambda: dask.compute(*[fit(shared, pair, y) for pair in pairs], scheduler="threads")),
        "numpy loop, lstsq per fit": timed(lambda: [fit_lstsq(data, pair, y) for pair in pairs]),
        "numpy loop, normal equations": timed(lambda: [fit_normal(data, pair, y) for pair in pairs]),
    }
    limit = len(pairs) * 3 * a.rows * 8 / (read_gbs * 1e9)
    print(f"{len(pairs)} fits of {a.rows} rows; dask {dask.__version__}, numpy {np.__version__}; "
          f"streaming read {read_gbs} GB/s; chunked's {best}")
    columns = ["job", "s", "against chunked", "limit s", "of the limit"]
    rows = [["chunked pair_regressions (threads)", f"{ours:.3f}", "1.0", f"{limit:.3f}", f"{limit / ours:.2f}"]]
    for name, t in theirs.items():
        rows.append([name, f"{t:.3f}", f"{t / ours:.1f}x", f"{limit:.3f}", f"{limit / t:.2f}"])
    markdown_table(columns, rows)


if __name__ == "__main__":
    main()
