"""Reads what chunked wrote with the real Python clients and checks the values
exactly. Usage: python read_ours.py DIR. Prints one line per check; exits 1 on
any mismatch."""
import sys

import h5py
import numpy as np
import zarr

from write_fixtures import floats, ints

root = sys.argv[1]
failures = []


def check(name, got, want):
    ok = got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {got.dtype} {got.shape} vs {want.dtype} {want.shape}"))
    if not ok:
        failures.append(name)


for name in ["zstd", "blosc", "gzip", "none", "crc"]:
    z = zarr.open_array(f"{root}/ours.zarr/{name}", mode="r")
    check(f"zarr {name}", z[...], floats())
z = zarr.open_array(f"{root}/ours.zarr/i4", mode="r")
check("zarr i4", z[...], ints())
z = zarr.open_array(f"{root}/ours.zarr/bool", mode="r")
check("zarr bool", z[...], ints() % 3 == 0)
attrs = zarr.open_array(f"{root}/ours.zarr/zstd", mode="r").attrs
check("zarr attributes", np.array([attrs["units"] == "m", attrs["scale"] == 2.5]), np.array([True, True]))
with h5py.File(f"{root}/ours.h5", "r") as f:
    check("hdf5 deflate", f["g/deflate"][...], floats())
    check("hdf5 i4", f["i4"][...], ints())
check("npy", np.load(f"{root}/ours.npy"), floats())
check("npy i4", np.load(f"{root}/ours_i4.npy"), ints())
sys.exit(1 if failures else 0)
