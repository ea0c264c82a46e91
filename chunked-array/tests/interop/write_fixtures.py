"""Writes Zarr, HDF5 and .npy fixtures with the real Python clients.

Usage: python write_fixtures.py DIR [zarr2]
With "zarr2", writes Zarr v2 arrays with zarr-python 2.x; otherwise Zarr v3 and v2
with zarr-python 3.x, HDF5 with h5py and .npy with NumPy. Values follow the
formulas in io_interop.rs, which checks them exactly.
"""
import sys

import numpy as np

SHAPE = (37, 23)
CHUNKS = (10, 8)


def floats(shape=SHAPE, dtype="<f8"):
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    return (a * -0.37 + 0.125).astype(dtype)


def ints(shape=SHAPE, dtype="<i4"):
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    return (a - 400).astype(dtype)


def zarr3(root):
    import numcodecs
    import zarr
    from zarr.codecs import BloscCodec, BytesCodec, GzipCodec, ZstdCodec

    def v3(name, data, **kw):
        z = zarr.create_array(store=f"{root}/{name}", shape=data.shape, chunks=CHUNKS, dtype=data.dtype, zarr_format=3, **kw)
        z[...] = data

    v3("v3_zstd.zarr", floats(), compressors=ZstdCodec(level=3))
    v3("v3_none.zarr", floats(), compressors=None)
    v3("v3_blosc.zarr", floats(), compressors=BloscCodec(cname="lz4", clevel=5, shuffle="shuffle"))
    v3("v3_gzip.zarr", floats(), compressors=GzipCodec(level=5))
    v3("v3_big.zarr", floats(), serializer=BytesCodec(endian="big"), compressors=None)
    v3("v3_dot.zarr", floats(), chunk_key_encoding={"name": "default", "separator": "."})
    v3("v3_i4.zarr", ints())
    v3("v3_sharded.zarr", floats(), shards=(20, 16))

    def v2(name, data, **kw):
        z = zarr.create_array(store=f"{root}/{name}", shape=data.shape, chunks=CHUNKS, dtype=data.dtype, zarr_format=2, **kw)
        z[...] = data

    v2("v2_blosc_F.zarr", floats(), compressors=numcodecs.Blosc(cname="lz4", clevel=5), order="F")
    v2("v2_zlib_big.zarr", floats(dtype=">f8"), compressors=numcodecs.Zlib(level=4))
    v2("v2_gzip_slash.zarr", floats(), compressors=numcodecs.GZip(level=4), chunk_key_encoding={"name": "v2", "separator": "/"})
    v2("v2_zstd.zarr", floats(), compressors=numcodecs.Zstd(level=1))
    v2("v2_none_i4.zarr", ints(), compressors=None)

    # zarr-python groups: an array inside a group.
    g = zarr.open_group(f"{root}/grouped.zarr", mode="w")
    a = g.create_array("sub/x", shape=SHAPE, chunks=CHUNKS, dtype="<f8")
    a[...] = floats()


def zarr2(root):
    import numcodecs
    import zarr

    # These fixtures are what zarr-python 2.x writes (Zarr v2 with .zarray).
    assert zarr.__version__.startswith("2"), f"zarr {zarr.__version__} is not zarr-python 2.x"

    def v2(name, data, **kw):
        z = zarr.open(f"{root}/{name}", mode="w", shape=data.shape, chunks=CHUNKS, dtype=data.dtype, **kw)
        z[...] = data

    v2("z2_default.zarr", floats())  # blosc lz4, C order, "." separator
    v2("z2_F_slash.zarr", floats(), order="F", dimension_separator="/")
    v2("z2_big_zlib.zarr", floats(dtype=">f8"), compressor=numcodecs.Zlib(level=3))
    v2("z2_gzip_i4.zarr", ints(), compressor=numcodecs.GZip(level=3))
    v2("z2_none.zarr", floats(), compressor=None)
    v2("z2_zstd_big_i4.zarr", ints(dtype=">i4"), compressor=numcodecs.Zstd(level=2))


def hdf5_and_npy(root):
    import h5py

    with h5py.File(f"{root}/fixtures.h5", "w") as f:
        f.create_dataset("chunked_gzip", data=floats(), chunks=CHUNKS, compression="gzip")
        f.create_dataset("contiguous", data=floats())
        f.create_dataset("big_endian", data=floats(dtype=">f8"), chunks=(5, 23))
        f.create_dataset("group/int32", data=ints())
    np.save(f"{root}/c.npy", floats())
    np.save(f"{root}/f.npy", np.asfortranarray(floats()))
    np.save(f"{root}/big.npy", floats(dtype=">f8"))
    np.save(f"{root}/i4.npy", ints())


if __name__ == "__main__":
    root = sys.argv[1]
    if sys.argv[2:] == ["zarr2"]:
        zarr2(root)
    else:
        zarr3(root)
        hdf5_and_npy(root)
