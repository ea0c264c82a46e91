"""Order statistics next to dask and numpy, in one run on one machine: the
median along axis 0 of a random n x n f64 matrix (n = 20000: 3.2 GB) made in
(1000, 1000) blocks. dask's `da.median` needs the axis in one chunk, so its
time includes the rechunk it asks for (`x.rechunk({0: -1, 1: "auto"})`);
numpy's is `np.median(x, axis=0)` on the matrix already in memory. chunked
and dask make the matrix in the same graph; the sum of the matrix (the cost
of making and reading it) is timed apart for both. chunked: medians of three;
dask and numpy: one run each.

The histogram: 100 bins over [0, 1) of --hist M (2e8) random f64 already in
memory (persisted for chunked and dask), `da.histogram(x, 100, range=(0, 1))`
and `np.histogram`; the limit is the values' bytes at the streaming-read rate
chunked measures in the same run.

The sort: --sort S (2e7) random f64 in memory, chunked's `sort(0)` (the axis
made whole, then back in the input's blocks) against `np.sort` (dask has
no sort).

Usage: python benches/python/compare_statistics.py [--n N] [--hist M] [--sort S]
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
    p.add_argument("--hist", type=int, default=200_000_000)
    p.add_argument("--sort", type=int, default=20_000_000)
    a = p.parse_args()
    n, m = a.n, a.hist
    ours = chunked_report("stats_report", "--n", str(n), "--hist", str(m), "--sort", str(a.sort))
    x = da.random.random((n, n), chunks=(1000, 1000))
    dask_sum, _ = timed(lambda: x.sum().compute())
    dask_median, dm = timed(lambda: da.median(x.rechunk({0: -1, 1: "auto"}), axis=0).compute())
    assert dm.shape == (n,)
    data = np.random.default_rng(42).random((n, n))
    numpy_median, _ = timed(lambda: np.median(data, axis=0))
    del data
    v = da.random.random(m, chunks=1 << 24).persist()
    dask_hist, _ = timed(lambda: da.histogram(v, bins=100, range=(0, 1))[0].compute())
    del v
    values = np.random.default_rng(7).random(m)
    numpy_hist, _ = timed(lambda: np.histogram(values, bins=100, range=(0, 1)))
    del values
    print(f"dask {dask.__version__}, numpy {np.__version__}; {n}^2 f64 ({n * n * 8 / 1e9:.1f} GB)")
    columns = ["workload", "chunked s", "dask s", "numpy s", "dask / chunked", "numpy / chunked"]
    s = ours[f"random {n}^2 f64, sum"]["chunked"]
    med = ours[f"random {n}^2 f64, median axis 0"]["chunked"]
    rows = [
        ["random matrix, sum (making it)", f"{s:.3f}", f"{dask_sum:.3f}", "", f"{dask_sum / s:.1f}", ""],
        ["random matrix, median axis 0", f"{med:.3f}", f"{dask_median:.3f}", f"{numpy_median:.3f}",
         f"{dask_median / med:.1f}", f"{numpy_median / med:.1f}"],
    ]
    h = ours[f"histogram of {m} f64, 100 bins"]
    rows.append([f"histogram of {m:.0e} f64, 100 bins", f"{h['chunked']:.3f}", f"{dask_hist:.3f}", f"{numpy_hist:.3f}",
                 f"{dask_hist / h['chunked']:.1f}", f"{numpy_hist / h['chunked']:.1f}"])
    unsorted = np.random.default_rng(9).random(a.sort)
    numpy_sort, _ = timed(lambda: np.sort(unsorted))
    srt = ours[f"sort of {a.sort} f64"]["chunked"]
    rows.append([f"sort of {a.sort:.0e} f64", f"{srt:.3f}", "", f"{numpy_sort:.3f}", "", f"{numpy_sort / srt:.2f}"])
    markdown_table(columns, rows)
    print(f"chunked's histogram: {h['note']}")


if __name__ == "__main__":
    main()
