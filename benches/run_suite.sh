#!/usr/bin/env bash
# The benchmark suite in one command: makes the Python environment (dask[array],
# numpy, zarr, h5py from PyPI) when missing, then runs every workload in chunked,
# dask and numpy and prints the markdown table (JSON in target/suite.json).
# Arguments go to benches/python/suite.py: --scale S --repeat R --only a,b --json FILE
# Then, where mpirun is installed, the TSQR scaling rows under MPI
# (benches/run_mpi.sh --tsqr-only; the full MPI series is benches/run_mpi.sh),
# and where nvidia-smi finds a GPU, the GPU rows against dask + CuPy
# (benches/python/gpu_suite.py; CuPy is installed into the environment then).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_python.sh
target/pyenv/bin/python benches/python/suite.py "$@"
if command -v mpirun >/dev/null 2>&1; then
    echo
    echo "TSQR under MPI (one worker thread per rank):"
    bash benches/run_mpi.sh --tsqr-only
fi
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    echo
    # CuPy's wheel for the driver's CUDA major version.
    cuda_major=$(nvidia-smi | sed -n 's/.*CUDA Version: \([0-9]*\).*/\1/p' | head -1)
    target/pyenv/bin/pip install -q "cupy-cuda${cuda_major:-12}x" || echo "CuPy could not be installed: dask + CuPy rows skipped"
    target/pyenv/bin/python benches/python/gpu_suite.py "$@"
else
    echo
    echo "GPU rows skipped: no NVIDIA GPU (nvidia-smi finds none)"
fi
