"""zarr-python with s3fs against an S3 server (moto): `write` stores arrays
for chunked to read; `read` checks exactly what chunked wrote. Usage:
python s3_interop.py ENDPOINT write|read. Exits 1 on any mismatch."""
import sys

import numpy as np
import zarr

from write_fixtures import floats, ints

endpoint, action = sys.argv[1], sys.argv[2]
storage = {"endpoint_url": endpoint, "key": "testing", "secret": "testing",
           "client_kwargs": {"region_name": "us-east-1"}}

if action == "write":
    a = zarr.create_array("s3://interop/theirs.zarr/f8", shape=floats().shape, chunks=(10, 7),
                          dtype="f8", storage_options=storage)
    a[...] = floats()
    i = zarr.create_array("s3://interop/theirs.zarr/i2", shape=ints().shape, chunks=(16, 16),
                          dtype="i2", storage_options=storage, compressors=None)
    i[...] = ints().astype("i2")
    print("wrote theirs.zarr")
else:
    failures = []
    for name, want in [("f8", floats()), ("u2", (ints() + 400).astype("u2")), ("sharded", floats()), ("v2", floats())]:
        z = zarr.open_array(f"s3://interop/ours.zarr/{name}", mode="r", storage_options=storage)
        got = z[...]
        if name == "v2" and (z.metadata.zarr_format != 2 or z.attrs["units"] != "m"):
            got = np.zeros(0)
        ok = got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)
        print(("ok   " if ok else "FAIL ") + name)
        if not ok:
            failures.append(name)
    sys.exit(1 if failures else 0)
