"""Order statistics next to dask and numpy, in one run on one machine: the
median along axis 0 of a random n x n f64 matrix (n = 20000: 3.2 GB) made in
(1000, 1000) blocks. dask's `da.median` needs the axis in one chunk, so its
time includes the rechunk it asks for (`x.rechunk({0: -1, 1: "auto"})`);
numpy's is `np.median(x, axis=0)` on the matrix already in memory. chunked
and dask make the matrix in the same graph; the sum of the matrix (the cost
of making and reading it) is timed apart for both. chunked: medians of three;
dask and numpy: one run each.

Usage: python benches/python/compare_statistics.py [--n N]
Needs dask and numpy; builds chunked's stats_report. Prints a markdown table.
"""
import argparse
import time

import dask
import dask.array as da
import numpy as np

from suite import chunked_report, markdown_table


def timed(run):
    t = time.perf_counter()
    out = run()
    return time.perf_counter() - t, out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=20000)
    a = p.parse_args()
    n = a.n
    ours = chunked_report("stats_report", "--n", str(n))
    x = da.random.random((n, n), chunks=(1000, 1000))
    dask_sum, _ = timed(lambda: x.sum().compute())
    dask_median, dm = timed(lambda: da.median(x.rechunk({0: -1, 1: "auto"}), axis=0).compute())
    assert dm.shape == (n,)
    data = np.random.default_rng(42).random((n, n))
    numpy_median, _ = timed(lambda: np.median(data, axis=0))
    del data
    print(f"dask {dask.__version__}, numpy {np.__version__}; {n}^2 f64 ({n * n * 8 / 1e9:.1f} GB)")
    columns = ["workload", "chunked s", "dask s", "numpy s", "dask / chunked", "numpy / chunked"]
    s = ours[f"random {n}^2 f64, sum"]["chunked"]
    m = ours[f"random {n}^2 f64, median axis 0"]["chunked"]
    rows = [
        ["random matrix, sum (making it)", f"{s:.3f}", f"{dask_sum:.3f}", "", f"{dask_sum / s:.1f}", ""],
        ["random matrix, median axis 0", f"{m:.3f}", f"{dask_median:.3f}", f"{numpy_median:.3f}",
         f"{dask_median / m:.1f}", f"{numpy_median / m:.1f}"],
    ]
    markdown_table(columns, rows)


if __name__ == "__main__":
    main()
