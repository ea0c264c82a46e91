"""dask's npy stacks beside chunked's: `write DIR` stores stacks with
da.to_npy_stack for chunked to read; `read DIR` checks exactly the stacks
chunked wrote with da.from_npy_stack. Exits 1 on any mismatch."""
import os
import sys

import dask.array as da
import numpy as np

from write_fixtures import floats, ints

action, root = sys.argv[1], sys.argv[2]
if action == "write":
    da.to_npy_stack(os.path.join(root, "dask_rows"), da.from_array(floats(), chunks=(10, 7)), axis=0)
    da.to_npy_stack(os.path.join(root, "dask_cols"), da.from_array(ints().astype("u2"), chunks=(16, 5)), axis=1)
    print("wrote dask stacks")
else:
    failures = []
    for name, want, chunks in [("ours_rows", floats(), ((10, 10, 10, 7), (23,))),
                               ("ours_cols", ints().astype("i8"), ((37,), (6, 6, 6, 5)))]:
        got = da.from_npy_stack(os.path.join(root, name))
        ok = got.chunks == chunks and got.dtype == want.dtype and np.array_equal(got.compute(), want)
        print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {got.chunks} {got.dtype}"))
        if not ok:
            failures.append(name)
    sys.exit(1 if failures else 0)
