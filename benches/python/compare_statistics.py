"""Order statistics next to dask and numpy, in one run on one machine: the
median along axis 0 of a random n x n f64 matrix (n = 20000: 3.2 GB) made in
(1000, 1000) blocks. dask's `da.median` needs the axis in one chunk, so its
time includes the rechunk it asks for (`x.rechunk({0: -1, 1: "auto"})`);
numpy's is `np.median(x, axis=0)` on the matrix already in memory. chunked
and dask make the matrix in the same graph; the sum of the matrix (the cost
of making and reading it) is timed apart for both. chunked: medians of three;
dask and numpy: one run each.

The histogram: 100 bins over [0, 1) of --hist M (1e9) random f64 already in
memory (persisted for chunked and dask), `da.histogram(x, 100, range=(0, 1))`
and `np.histogram`; the limit is the values' bytes at the streaming-read rate
chunked measures in the same run.

The sort: --sort S (1e8) random f64 in memory in 2**24-element (128 MiB)
blocks, chunked's `sort(0)` (a sample sort across the blocks, output in the
input's blocks) against `np.sort` (dask has no sort). The top 100 of the
same values: `topk(100)` of chunked and dask (both tree reductions) against
numpy's `np.partition` and a sort of the 100.

The percentiles: the 1st, 50th and 99th of --pct P (1e9) random f64 in
[0, 1) (8 GB), made in 2**21-element (16 MiB) blocks: chunked's exact radix selection
under a 2 GB memory limit against dask's `da.percentile` (approximate: per
block percentiles merged); numpy would need the 8 GB in memory. The two
draw different values, so each is compared with the distribution's own
percentile (q / 100): chunked's difference is the sample's, dask's adds its
approximation.

The distinct values: np.unique / da.unique (with counts) of --unique U (1e8)
random int64 in [0, 1000) already in memory (persisted for dask), in
2**21-element blocks.

Usage: python benches/python/compare_statistics.py [--n N] [--hist M] [--sort S] [--pct P] [--unique U]
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
    p.add_argument("--hist", type=int, default=1_000_000_000)
    p.add_argument("--sort", type=int, default=100_000_000)
    p.add_argument("--pct", type=int, default=1_000_000_000)
    p.add_argument("--unique", type=int, default=100_000_000)
    a = p.parse_args()
    ours = chunked_report("stats_report", "--n", str(a.n), "--hist", str(a.hist), "--sort", str(a.sort), "--pct",
                          str(a.pct), "--unique", str(a.unique))
    print(f"dask {dask.__version__}, numpy {np.__version__}")
    columns = ["workload", "chunked s", "dask s", "numpy s", "dask / chunked", "numpy / chunked"]
    # A size of 0 leaves its section out, as it does in stats_report.
    rows = []
    if a.n:
        rows.extend(median_rows(ours, a.n))
    if a.hist:
        rows.append(histogram_row(ours, a.hist))
    if a.sort:
        rows.extend(sort_rows(ours, a.sort))
    if a.unique:
        rows.append(unique_row(ours, a.unique))
    if a.pct:
        rows.append(percentile_row(ours, a.pct))
    markdown_table(columns, rows)


def median_rows(ours, n):
    """The rows of the sum and of the median along axis 0 of a random n x n matrix."""
    x = da.random.random((n, n), chunks=(1000, 1000))
    dask_sum, _ = timed(lambda: x.sum().compute())
    dask_median, dm = timed(lambda: da.median(x.rechunk({0: -1, 1: "auto"}), axis=0).compute())
    assert dm.shape == (n,)
    data = np.random.default_rng(42).random((n, n))
    numpy_median, _ = timed(lambda: np.median(data, axis=0))
    del data
    print(f"the matrix: {n}^2 f64 ({n * n * 8 / 1e9:.1f} GB)")
    s = ours[f"random {n}^2 f64, sum"]["chunked"]
    med = ours[f"random {n}^2 f64, median axis 0"]["chunked"]
    return [
        ["random matrix, sum (making it)", f"{s:.3f}", f"{dask_sum:.3f}", "", f"{dask_sum / s:.1f}", ""],
        ["random matrix, median axis 0", f"{med:.3f}", f"{dask_median:.3f}", f"{numpy_median:.3f}",
         f"{dask_median / med:.1f}", f"{numpy_median / med:.1f}"],
    ]


def histogram_row(ours, m):
    """The row of a 100-bin histogram of m random f64."""
    v = da.random.random(m, chunks=1 << 24).persist()
    dask_hist, _ = timed(lambda: da.histogram(v, bins=100, range=(0, 1))[0].compute())
    del v
    values = np.random.default_rng(7).random(m)
    numpy_hist, _ = timed(lambda: np.histogram(values, bins=100, range=(0, 1)))
    del values
    h = ours[f"histogram of {m} f64, 100 bins"]
    print(f"chunked's histogram: {h['note']}")
    return [f"histogram of {m:.0e} f64, 100 bins", f"{h['chunked']:.3f}", f"{dask_hist:.3f}", f"{numpy_hist:.3f}",
            f"{dask_hist / h['chunked']:.1f}", f"{numpy_hist / h['chunked']:.1f}"]


def sort_rows(ours, count):
    """The rows of the sort and of the top 100 of `count` f64 in memory."""
    unsorted = np.random.default_rng(9).random(count)
    numpy_sort, _ = timed(lambda: np.sort(unsorted))
    numpy_top, _ = timed(lambda: np.sort(np.partition(unsorted, count - 100)[-100:])[::-1])
    del unsorted
    x = da.random.random(count, chunks=1 << 24).persist()
    dask_top, _ = timed(lambda: da.topk(x, 100).compute())
    del x
    srt = ours[f"sort of {count} f64"]
    top = ours[f"top 100 of {count} f64"]["chunked"]
    print(f"chunked's sort: {srt['note']}")
    srt = srt["chunked"]
    return [
        [f"sort of {count:.0e} f64", f"{srt:.3f}", "", f"{numpy_sort:.3f}", "", f"{numpy_sort / srt:.2f}"],
        [f"top 100 of {count:.0e} f64", f"{top:.3f}", f"{dask_top:.3f}", f"{numpy_top:.3f}", f"{dask_top / top:.1f}",
         f"{numpy_top / top:.1f}"],
    ]


def unique_row(ours, count):
    """The row of the distinct values (and counts) of `count` int64."""
    x = da.random.randint(0, 1000, count, chunks=1 << 21).persist()
    dask_t, (values, _) = timed(lambda: dask.compute(*da.unique(x, return_counts=True)))
    assert len(values) == 1000
    del x
    data = np.random.default_rng(3).integers(0, 1000, count)
    numpy_t, _ = timed(lambda: np.unique(data, return_counts=True))
    t = ours[f"unique of {count} int64, 1000 values"]["chunked"]
    return [f"unique of {count:.0e} int64 (1000 values)", f"{t:.3f}", f"{dask_t:.3f}", f"{numpy_t:.3f}",
            f"{dask_t / t:.1f}", f"{numpy_t / t:.1f}"]


def percentile_row(ours, count):
    """The percentiles row, with each one's largest distance from q / 100."""
    qs = [1.0, 50.0, 99.0]
    x = da.random.random(count, chunks=1 << 21)
    dask_t, got = timed(lambda: da.percentile(x, qs).compute())
    dask_err = max(abs(g - q / 100) for g, q in zip(got, qs))
    row = ours[f"percentiles of {count} uniform f64, 2 GB limit"]
    exact = [float(v) for v in row["note"].split(";")[0].split()[1::2]]
    our_err = max(abs(g - q / 100) for g, q in zip(exact, qs))
    t = row["chunked"]
    print(f"chunked's percentiles: {row['note']}")
    print(f"percentiles, largest |value - q/100|: chunked {our_err:.2e} (exact), dask {dask_err:.2e}")
    return [f"percentiles 1/50/99 of {count:.0e} f64", f"{t:.3f}", f"{dask_t:.3f}", "", f"{dask_t / t:.1f}", ""]


if __name__ == "__main__":
    main()
