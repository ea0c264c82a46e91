"""Every element type through NumPy, zarr-python and h5py, both ways.

Usage: python dtypes.py write DIR   writes DIR/{name}.npy, DIR/dtypes.zarr/{name}
                                    and DIR/dtypes.h5:/{name} for each dtype
       python dtypes.py check DIR   checks what chunked wrote there (ours_*)
Values follow `value` in tests/it/dtypes.rs, which checks them exactly.
"""
import sys

import numpy as np

SHAPE = (37, 5)
NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64", "complex64", "complex128"]


def values(name):
    i = np.arange(int(np.prod(SHAPE)), dtype=np.int64).reshape(SHAPE)
    if name == "bool":
        return i % 3 == 0
    if name.startswith(("int", "uint")):
        return (i * 37 - 3000).astype(name)
    z = (i * -0.37 + 0.125) + 1j * (i * 0.5 - 3.0)
    return (z if name.startswith("complex") else z.real).astype(name)


def write(root):
    import h5py
    import zarr

    group = zarr.open_group(f"{root}/dtypes.zarr", mode="w", zarr_format=3)
    with h5py.File(f"{root}/dtypes.h5", "w") as h5:
        for name in NAMES:
            v = values(name)
            np.save(f"{root}/{name}.npy", v)
            z = group.create_array(name, shape=v.shape, chunks=(10, 5), dtype=v.dtype)
            z[...] = v
            h5[name] = v


def check(root):
    import os

    import h5py
    import zarr

    h5 = h5py.File(f"{root}/ours.h5", "r") if os.path.exists(f"{root}/ours.h5") else None
    for name in NAMES:
        want = values(name)
        found = [("npy", np.load(f"{root}/ours_{name}.npy")), ("zarr", zarr.open_array(f"{root}/ours.zarr/{name}", mode="r")[...])]
        if h5 is not None:
            found.append(("h5", h5[name][...]))
        for what, got in found:
            assert got.dtype == want.dtype, f"{what} {name}: dtype {got.dtype}"
            assert np.array_equal(got, want), f"{what} {name}: values differ"


if __name__ == "__main__":
    {"write": write, "check": check}[sys.argv[1]](sys.argv[2])
