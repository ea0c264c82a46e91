"""Seed 001's least-squares cells (In [23]-[31]) in dask and numpy, to set
beside `notebook_001`'s "fits in" figure (which includes making the data).

dask: one `dask.delayed` fit per pair of features (1225 for 50), each
`np.linalg.lstsq` on the pair's design matrix, as the notebook does with
cuML's LinearRegression; threaded scheduler. numpy: the Gram matrix of
[X 1] in one pass, then a 3 x 3 solve per pair (the method notebook_001
uses). Both time the fits only, on data already in memory, and report the
time to make the data separately.

Usage: python notebook_001_ols.py [--rows N] [--features N] [--repeat N]
"""
import argparse
import itertools
import time

import dask
import numpy as np


def fit_ols(data, cols, y):
    design = np.column_stack([data[:, cols[0]], data[:, cols[1]], np.ones(len(data))])
    coef, *_ = np.linalg.lstsq(design, data[:, y], rcond=None)
    return cols, coef


def gram_fits(data, pairs, y):
    n = len(data)
    gram = data.T @ data
    sums = data.sum(axis=0)
    out = []
    for i, j in pairs:
        a = np.array([[gram[i, i], gram[i, j], sums[i]], [gram[j, i], gram[j, j], sums[j]], [sums[i], sums[j], n]])
        b = np.array([gram[i, y], gram[j, y], sums[y]])
        out.append(((i, j), np.linalg.solve(a, b)))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--features", type=int, default=50)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    t = time.perf_counter()
    data = np.random.default_rng(12).standard_normal((a.rows, a.features + 1))
    make = time.perf_counter() - t
    y = a.features
    pairs = list(itertools.combinations(range(a.features), 2))
    fit = dask.delayed(fit_ols)
    dask_times, numpy_times = [], []
    for _ in range(a.repeat):
        t = time.perf_counter()
        results = dask.compute(*[fit(data, cols, y) for cols in pairs], scheduler="threads")
        dask_times.append(time.perf_counter() - t)
        t = time.perf_counter()
        gram = gram_fits(data, pairs, y)
        numpy_times.append(time.perf_counter() - t)
    worst = max(np.abs(r[1] - g[1]).max() for r, g in zip(results, gram))
    print(f"{len(pairs)} fits of {a.rows} rows; making the data {make:.2f} s")
    print(f"dask.delayed lstsq per pair: median {np.median(dask_times):.2f} s")
    print(f"numpy Gram + 3x3 solves: median {np.median(numpy_times):.2f} s")
    print(f"largest difference between the two ~ {worst:.1e}")


if __name__ == "__main__":
    main()
