"""Consolidated Zarr groups with zarr-python (2.x or 3.x). Usage:
python groups.py DIR write: writes theirs_v2.zarr (and with zarr-python 3,
theirs_v3.zarr): a group holding array a, group sub and array sub/x,
consolidated, then array late written after the consolidation.
python groups.py DIR read: opens ours_v2.zarr (and with zarr-python 3,
ours_v3.zarr) with open_consolidated and checks members and values.
Exits 1 on any mismatch."""
import sys

import numpy as np
import zarr

root, action = sys.argv[1], sys.argv[2]
three = int(zarr.__version__.split(".")[0]) >= 3
formats = [2, 3] if three else [2]
failures = []


def check(name, ok):
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


for fmt in formats:
    path = f"{root}/{'theirs' if action == 'write' else 'ours'}_v{fmt}.zarr"
    if action == "write":
        kw = {"zarr_format": fmt} if three else {}
        g = zarr.open_group(path, mode="w", **kw)
        g.create_array("a", shape=(8,), chunks=(4,), dtype="f8") if three else g.create_dataset("a", shape=(8,), chunks=(4,), dtype="f8")
        sub = g.create_group("sub")
        sub.create_array("x", shape=(6,), chunks=(3,), dtype="i4") if three else sub.create_dataset("x", shape=(6,), chunks=(3,), dtype="i4")
        g["a"][...] = np.linspace(0.0, 1.0, 8)
        sub["x"][...] = np.arange(6)
        zarr.consolidate_metadata(path)
        g.create_array("late", shape=(2,), dtype="u1") if three else g.create_dataset("late", shape=(2,), dtype="u1")
    else:
        kw = {"zarr_format": fmt} if three else {}
        g = zarr.open_consolidated(path, mode="r", **kw)
        check(f"v{fmt} members", sorted(g.keys()) == ["a", "sub"])
        check(f"v{fmt} a", np.array_equal(g["a"][...], np.linspace(0.0, 1.0, 8)))
        check(f"v{fmt} sub/x", np.array_equal(g["sub"]["x"][...], np.arange(6, dtype="i4")))
sys.exit(1 if failures else 0)
