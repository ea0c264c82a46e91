"""Reads the Zarr v2 arrays chunked wrote with zarr-python (2.x or 3.x: run it
with either) and checks values, attributes and fill values exactly.
Usage: python read_ours_v2.py DIR. Prints one line per check; exits 1 on any
mismatch."""
import sys

import numpy as np
import zarr

from write_fixtures import floats, ints

root = sys.argv[1]
failures = []


def check(name, got, want):
    ok = got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want, equal_nan=want.dtype.kind == "f")
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {got.dtype} {got.shape} vs {want.dtype} {want.shape}\n{got}\n{want}"))
    if not ok:
        failures.append(name)


def open_v2(name):
    z = zarr.open_array(f"{root}/v2.zarr/{name}", mode="r")
    fmt = getattr(z, "metadata", None)
    if fmt is not None and getattr(fmt, "zarr_format", 2) != 2:
        failures.append(f"{name} is not Zarr v2")
    return z


for name in ["zstd", "blosc", "gzip", "none"]:
    check(f"v2 {name}", open_v2(name)[...], floats())
check("v2 i4", open_v2("i4")[...], ints())
check("v2 u2", open_v2("u2")[...], (ints() + 400).astype("<u2"))
check("v2 bool", open_v2("bool")[...], ints() % 3 == 0)
check("v2 c16", open_v2("c16")[...], floats() + 1j * ints().astype("<f8"))
attrs = open_v2("zstd").attrs
check(
    "v2 attributes",
    np.array([attrs["units"] == "m", attrs["_ARRAY_DIMENSIONS"] == ["y", "x"]]),
    np.array([True, True]),
)
filled = open_v2("filled")
want = np.full((6, 4), np.nan)
want[2:4] = 1.0
check("v2 fill value", filled[...], want)
sys.exit(1 if failures else 0)
