"""The ufunc and operator chains and complex matmul of ufunc_report in dask and numpy, next
to chunked, in one run on one machine.

Usage: python benches/python/compare_ufuncs.py [--quick]
Needs dask[array] and numpy; builds and runs chunked's ufunc_report. The inputs
are generated and held in memory first (dask: persisted); the times are of the
chains reduced to a sum (median of three after a warm-up). Prints a markdown
table with the ratios.
"""
import sys
import time

import dask
import dask.array as da
import numpy as np

from suite import chunked_report, markdown_table

QUICK = "--quick" in sys.argv
N, NC, NM = (4000, 2000, 1000) if QUICK else (20000, 10000, 4000)


def median_time(f, runs=3):
    f()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return sorted(times)[len(times) // 2]


def cheap(m, x):
    return m.heaviside(m.fmax(m.copysign(m.square(m.floor(x)), x), 0.25), 0.5).sum()


def trig(m, x):
    return m.cbrt(m.log1p(m.hypot(m.expm1(m.rint(x)), x))).sum()


def exponential(m, x):
    return m.logaddexp2(m.logaddexp(m.exp(x), -x), m.exp2(x)).sum()


def hyperbolic(m, x):
    return m.log1p(m.cosh(m.arctanh(m.tanh(m.sinh(x))))).sum()


def operators(x):
    return ((x * x + x) - (x * 0.5 + 1.0) / (x + 1.0)).sum()


def complex_chain(m, z):
    return m.abs(m.log1p(m.square(m.conj(z))) * m.reciprocal(z)).sum()


def main():
    dask.config.set(scheduler="threads")
    rows = {}
    x = da.random.random((N, N), chunks=(2000, 2000)).persist()
    z = (da.random.random((NC, NC), chunks=(2000, 2000)) + 1j * da.random.random((NC, NC), chunks=(2000, 2000))).persist()
    a = z[:NM, :NM].rechunk((NM // 2, NM // 2)).persist()
    rows[f"f64 cheap chain {N}²"] = {"dask": median_time(lambda: cheap(np, x).compute())}
    rows[f"f64 transcendental chain {N}²"] = {"dask": median_time(lambda: trig(np, x).compute())}
    rows[f"f64 exponential chain {N}²"] = {"dask": median_time(lambda: exponential(np, x).compute())}
    rows[f"f64 hyperbolic chain {N}²"] = {"dask": median_time(lambda: hyperbolic(np, x).compute())}
    rows[f"f64 operator chain {N}²"] = {"dask": median_time(lambda: operators(x).compute())}
    rows[f"complex128 chain {NC}²"] = {"dask": median_time(lambda: complex_chain(np, z).compute())}
    rows[f"complex128 matmul {NM}²"] = {"dask": median_time(lambda: (a @ a).sum().compute())}
    xn = x.compute()
    del x
    rows[f"f64 cheap chain {N}²"]["numpy"] = median_time(lambda: cheap(np, xn))
    rows[f"f64 transcendental chain {N}²"]["numpy"] = median_time(lambda: trig(np, xn))
    rows[f"f64 exponential chain {N}²"]["numpy"] = median_time(lambda: exponential(np, xn))
    rows[f"f64 hyperbolic chain {N}²"]["numpy"] = median_time(lambda: hyperbolic(np, xn))
    rows[f"f64 operator chain {N}²"]["numpy"] = median_time(lambda: operators(xn))
    del xn
    zn, an = z.compute(), a.compute()
    del z
    rows[f"complex128 chain {NC}²"]["numpy"] = median_time(lambda: complex_chain(np, zn))
    rows[f"complex128 matmul {NM}²"]["numpy"] = median_time(lambda: (an @ an).sum())
    del zn
    ours = chunked_report("ufunc_report", *(["--quick"] if QUICK else []))
    columns = ["workload", "chunked s", "dask s", "numpy s", "chunked/dask", "chunked/numpy", "note"]
    table = []
    for name, r in rows.items():
        c = ours[name]["chunked"]
        d, n = r["dask"], r["numpy"]
        table.append([name, f"{c:.3f}", f"{d:.3f}", f"{n:.3f}", f"{c / d:.2f}", f"{c / n:.2f}", ours[name]["note"]])
    markdown_table(columns, table)


if __name__ == "__main__":
    main()
