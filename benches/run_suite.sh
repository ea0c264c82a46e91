#!/usr/bin/env bash
# The benchmark suite in one command: makes the Python environment (dask[array],
# numpy, zarr, h5py from PyPI) when missing, then runs every workload in chunked,
# dask and numpy and prints the markdown table (JSON in target/suite.json).
# Arguments go to benches/python/suite.py: --scale S --repeat R --only a,b --json FILE
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_python.sh
exec target/pyenv/bin/python benches/python/suite.py "$@"
