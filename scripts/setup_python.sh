#!/usr/bin/env bash
# Python clients for the interop tests and the side-by-side benchmarks, from PyPI:
#   target/pyenv        dask[array], numpy, zarr (3.x), h5py, NVRTC and ptxas
#                       (nvidia-cuda-nvrtc-cu12 and nvidia-cuda-nvcc-cu12:
#                       compile the generated CUDA kernels and assemble them
#                       for sm_80 and sm_90 without a GPU; one version of
#                       both, since ptxas refuses PTX newer than itself),
#                       moto's S3 server and s3fs (the object store tests
#                       and zarr-python reading and writing S3)
#   target/pyenv-zarr2  zarr 2.x (to read and write Zarr v2 as zarr-python 2 does)
# Idempotent: a venv whose packages import is left as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
make_venv() {
    local dir=$1 check=$2
    shift 2
    if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "$check" >/dev/null 2>&1; then
        return
    fi
    python3 -m venv "$dir"
    "$dir/bin/pip" install -q --disable-pip-version-check "$@"
}
make_venv target/pyenv "import dask.array, numpy, zarr, h5py, nvidia.cuda_nvrtc, nvidia.cuda_nvcc, moto.server, s3fs; assert zarr.__version__.startswith('3')" \
    "dask[array]" numpy "zarr>=3,<4" h5py nvidia-cuda-nvrtc-cu12==12.9.86 nvidia-cuda-nvcc-cu12==12.9.86 "moto[server]" s3fs
make_venv target/pyenv-zarr2 "import zarr, numcodecs; assert zarr.__version__.startswith('2')" \
    "zarr>=2.18,<3" numpy
