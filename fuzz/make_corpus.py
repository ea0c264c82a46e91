"""Seed files for the fuzz targets (see make_corpus.sh): argv[1] is the
scratch directory where zarr_chunk wrote its arrays a0..a6."""
import io
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ARRAYS = sys.argv[1]
DTYPES = {"bool": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "uint8": 5, "uint16": 6,
          "uint32": 7, "uint64": 8, "float32": 9, "float64": 10, "complex64": 11, "complex128": 12}


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def put(target, name, data):
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def arrays():
    rng = np.random.default_rng(0)
    yield "f64_2d", rng.random((5, 4))
    yield "i16_1d", np.arange(-7, 9, dtype=np.int16)
    yield "bool_2d", rng.random((3, 3)) > 0.5
    yield "c128_1d", np.array([1 + 2j, -3.5j, 0], dtype=np.complex128)
    yield "f64_fortran", np.asfortranarray(rng.random((3, 5)))
    yield "f64_empty", np.zeros((0, 4))
    yield "u16_3d", np.arange(24, dtype=np.uint16).reshape(2, 3, 4)


for name, a in arrays():
    buffer = io.BytesIO()
    np.save(buffer, a)
    put("npy_file", name + ".npy", buffer.getvalue())
    shape = struct.pack("<B", a.ndim) + b"".join(struct.pack("<Q", n) for n in a.shape)
    data = np.ascontiguousarray(a).tobytes()
    code = DTYPES[a.dtype.name]
    put("wire_block", name, bytes([code]) + shape + data)
    header = b"CHKSPIL1" + bytes([code, a.ndim]) + b"".join(struct.pack("<Q", n) for n in a.shape)
    put("spill_record", name, header + struct.pack("<I", crc32c(data)) + data)
# Reduction partials (sum, count) as Wire::values writes them.
pairs = [(1.5, 2), (-0.25, 7)]
put("wire_block", "partials", struct.pack("<BQ", 1, len(pairs)) + b"".join(struct.pack("<dQ", s, n) for s, n in pairs))
put("spill_record", "opaque", b"CHKSPIL1" + bytes([255, 0]) + struct.pack("<I", crc32c(b"image")) + b"image")

for k in range(7):
    folder = os.path.join(ARRAYS, f"a{k}")
    with open(os.path.join(folder, "zarr.json"), "rb") as f:
        put("zarr_metadata", f"a{k}.json", f.read())
    for chunk in ("0/0", "1/0"):
        with open(os.path.join(folder, "c", chunk), "rb") as f:
            put("zarr_chunk", f"a{k}_{chunk.replace('/', '_')}", bytes([k]) + f.read())
