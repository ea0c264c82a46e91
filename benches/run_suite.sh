#!/usr/bin/env bash
# The benchmark suite in one command: makes the Python environment (dask[array],
# numpy, zarr, h5py from PyPI) when missing, then runs every workload in chunked,
# dask and numpy and prints the markdown table (JSON in target/suite.json).
# Arguments go to benches/python/suite.py: --scale S --repeat R --only a,b --json FILE
# Then, where mpirun is installed, the TSQR scaling rows under MPI
# (benches/run_mpi.sh --tsqr-only; the full MPI series is benches/run_mpi.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_python.sh
target/pyenv/bin/python benches/python/suite.py "$@"
if command -v mpirun >/dev/null 2>&1; then
    echo
    echo "TSQR under MPI (one worker thread per rank):"
    bash benches/run_mpi.sh --tsqr-only
fi
