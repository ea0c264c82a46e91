"""Random distributions next to dask and numpy, in one run on one machine:
--n N (1e8) draws of uniform, normal, exponential, gamma(2.5), Poisson(3),
binomial(20, 0.3) and hypergeometric(30, 70, 20), a permutation of 0..N, N
values of multinomial and dirichlet (N / 4 lanes of 4) and a shuffle of an
N-element array, summed (dask's permutation of an integer shuffles an arange
in its blocks; of a dask array, it indexes it by an in-memory permutation). chunked: `random_report` (2**24-element blocks,
medians of three); dask: `da.random.default_rng(1)` with the same blocks and
its threaded scheduler (one run after a warm-up); numpy: `default_rng(1)`
drawing the whole array in one call, then `sum` (one run). The memory-bound
reference is chunked's row of a constant f64 array of the same size, summed.

Usage: python benches/python/compare_random.py [--n N] [--names "A;B"]
Needs dask and numpy; builds chunked's random_report. Prints a markdown table.
"""
import argparse
import time

import dask
import dask.array as da
import numpy as np

from suite import chunked_report, markdown_table

BLOCK = 2**24


def draws(rng, name, n, **kw):
    """`n` draws of workload `name` from `rng` (a numpy or dask Generator)."""
    if name == "uniform":
        return rng.random(n, **kw)
    if name == "normal":
        return rng.standard_normal(n, **kw)
    if name == "exponential":
        return rng.exponential(1.0, n, **kw)
    if name == "gamma(2.5)":
        return rng.gamma(2.5, 1.0, n, **kw)
    if name == "poisson(3)":
        return rng.poisson(3.0, n, **kw)
    if name == "permutation":
        return rng.permutation(n)
    if name == "hypergeometric(30, 70, 20)":
        return rng.hypergeometric(30, 70, 20, n, **kw)
    if name == "multinomial(20, 4 categories)":
        kw = {"chunks": kw["chunks"] // 4} if kw else {}
        return rng.multinomial(20, [0.1, 0.2, 0.3, 0.4], n // 4, **kw)
    if name == "dirichlet(4 concentrations)":
        if not hasattr(rng, "dirichlet"):
            return None  # dask's Generator has none
        kw = {"chunks": kw["chunks"] // 4} if kw else {}
        return rng.dirichlet([0.5, 1.0, 2.0, 4.0], n // 4, **kw)
    if name in ("gamma(shape per column of 4)", "normal(mean per column of 4)"):
        kw = {"chunks": (kw["chunks"] // 4, 4)} if kw else {}
        if name.startswith("gamma"):
            return rng.gamma(np.array([0.5, 1.0, 2.5, 10.0]), 1.0, (n // 4, 4), **kw)
        return rng.normal(np.array([-1.0, 0.0, 2.0, 5.0]), 1.0, (n // 4, 4), **kw)
    if name in ("binomial(n per column of 4)", "integers(high per column of 4)"):
        kw = {"chunks": (kw["chunks"] // 4, 4)} if kw else {}
        if name.startswith("binomial"):
            return rng.binomial(np.array([5, 20, 100, 1000]), 0.3, (n // 4, 4), **kw)
        if kw:
            return None  # dask's Generator.integers fails on an array bound
        return rng.integers(0, np.array([10, 1000, 2**20, 2**40]), (n // 4, 4)).astype(np.float64)
    if name == "choice(n / 100 by p, n / 1000 distinct)":
        # dask draws without replacement in one chunk (it refuses more).
        population = n // 100
        p = np.arange(1, population + 1, dtype=np.float64)
        p /= p.sum()
        kw = {"chunks": n // 1000} if kw else {}
        return rng.choice(population, n // 1000, replace=False, p=p, **kw)
    if name == "integers u64 [2^63, 2^64)":
        return rng.integers(2**63, 2**64, n, dtype=np.uint64, **kw).astype(np.float64)
    if name == "shuffle":
        x = da.arange(n, chunks=kw["chunks"], dtype=np.float64) if kw else np.arange(n, dtype=np.float64)
        return rng.permutation(x)
    return rng.binomial(20, 0.3, n, **kw)


def timed(run):
    t = time.perf_counter()
    run()
    return time.perf_counter() - t


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=100_000_000)
    p.add_argument("--names", default="", help="workloads separated by semicolons (default: all)")
    a = p.parse_args()
    ours = chunked_report("random_report", "--n", str(a.n))
    print(f"dask {dask.__version__}, numpy {np.__version__}")
    limit = ours["fill (memory-bound reference)"]["chunked"]
    rows = []
    names = ["uniform", "normal", "exponential", "gamma(2.5)", "poisson(3)", "binomial(20, 0.3)", "permutation",
             "hypergeometric(30, 70, 20)", "multinomial(20, 4 categories)", "dirichlet(4 concentrations)",
             "gamma(shape per column of 4)", "normal(mean per column of 4)", "integers u64 [2^63, 2^64)", "shuffle",
             "binomial(n per column of 4)", "integers(high per column of 4)", "choice(n / 100 by p, n / 1000 distinct)"]
    for name in [n for n in names if not a.names or n in a.names.split(";")]:
        c = ours[name]["chunked"]
        lazy = draws(da.random.default_rng(1), name, a.n, chunks=BLOCK)
        if lazy is None:
            d, ratio = "-", "-"
        else:
            lazy = lazy.sum()
            lazy.compute()
            t = timed(lambda: lazy.compute())
            d, ratio = f"{t:.3f}", f"{t / c:.2f}"
        npy = timed(lambda: draws(np.random.default_rng(1), name, a.n).sum())
        rows.append([name, f"{c:.3f}", d, f"{npy:.3f}", ratio, f"{npy / c:.2f}", f"{c / limit:.1f}"])
    markdown_table(["1e8 draws + sum" if a.n == 100_000_000 else f"{a.n} draws + sum", "chunked s", "dask s",
                    "numpy s", "dask / chunked", "numpy / chunked", "chunked / fill"], rows)
    print(f"\nfill (the memory-bound reference): {limit:.3f} s")


if __name__ == "__main__":
    main()
