#!/usr/bin/env bash
# Makes target/pyenv with dask[array] and numpy from PyPI, then runs the core comparison.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x target/pyenv/bin/python ] || python3 -m venv target/pyenv
target/pyenv/bin/pip install -q "dask[array]" numpy
exec target/pyenv/bin/python benches/python/compare_core.py "$@"
