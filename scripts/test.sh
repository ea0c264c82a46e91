#!/usr/bin/env bash
# Runs every test of the workspace on a fresh Debian machine: installs what the
# tests need when it is missing, then builds every target and runs the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages the tests need: a C compiler; Chromium to render the profile
# report; Graphviz for graph pictures; Python (with venv) for checking exports and
# for the Zarr/HDF5 interop tests; libhdf5 for the `hdf5` feature; Open MPI and
# MPICH (and libclang, which the mpi crate's bindgen needs) for the MPI
# scheduler, whose tests run under mpirun -np 1 to 4 with each of them;
# OpenBLAS for the gemm kernels' second backend.
need_apt=()
command -v cc >/dev/null 2>&1 || need_apt+=(build-essential)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v dot >/dev/null 2>&1 || need_apt+=(graphviz)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
# Debian's python3 has the venv module but not ensurepip, which venv needs.
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need_apt+=(python3-venv)
pkg-config --exists hdf5 2>/dev/null || [ -e /usr/include/hdf5/serial/hdf5.h ] || need_apt+=(libhdf5-dev)
command -v mpicc.openmpi >/dev/null 2>&1 && command -v mpirun.openmpi >/dev/null 2>&1 || need_apt+=(libopenmpi-dev openmpi-bin)
command -v mpicc.mpich >/dev/null 2>&1 && command -v mpirun.mpich >/dev/null 2>&1 || need_apt+=(libmpich-dev mpich)
# A system BLAS, which the gemm kernels load at run time when it is faster
# than faer's (the tests run both).
compgen -G "/usr/lib/*/libopenblas.so.0" >/dev/null || need_apt+=(libopenblas0-pthread)
# libclang itself, not libclang-cpp (which LLVM's own packages bring and which
# bindgen cannot load).
compgen -G "/usr/lib/llvm-*/lib/libclang.so*" >/dev/null || need_apt+=(libclang-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}"
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo not found: install Rust (https://rustup.rs) and rerun" >&2
    exit 1
fi

# The real Python clients (zarr-python 3 and 2, h5py, numpy, dask) for the
# interop tests, in target/pyenv and target/pyenv-zarr2.
bash scripts/setup_python.sh

FEATURES=chunked-array/hdf5,chunked-array/cloud,chunked-examples/mpi

# Formatting and lints first: they fail in seconds, and clippy type-checks every
# target (benches and examples included) without code generation.
cargo fmt --all --check
python3 scripts/check_layers.py
cargo clippy --workspace --all-targets --features "$FEATURES" -- -D warnings

# The API docs build without a warning (broken links included), and every
# public item's docs have an example (which the doc tests below run).
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --features "$FEATURES"
python3 scripts/check_doc_examples.py target/doc

# Every test: unit, integration (one binary per crate), property (256 cases per
# operation) and doc tests, with the optional HDF5 support and the MPI example
# jobs on. One build, in the test profile.
# NVRTC from the Python environment, so that every generated CUDA kernel is
# compiled (no GPU needed); the test that compiles them fails without it.
NVRTC_LIB=$(target/pyenv/bin/python -c 'import os, nvidia.cuda_nvrtc as m; print(os.path.join(list(m.__path__)[0], "lib"))')
export LD_LIBRARY_PATH="$NVRTC_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CHUNKED_REQUIRE_NVRTC=1
# ptxas from the same environment assembles those kernels for sm_80 and sm_90.
CHUNKED_PTXAS=$(target/pyenv/bin/python -c 'import os, nvidia.cuda_nvcc as m; print(os.path.join(list(m.__path__)[0], "bin", "ptxas"))')
export CHUNKED_PTXAS
# The tools installed above are required: a test that finds one missing fails.
export CHUNKED_REQUIRE_TOOLS=1
cargo test --workspace --features "$FEATURES"
# The kernels, products and decompositions again with a BLAS as the gemm
# backend (the run above takes the backend its first gemm measured faster,
# and tests Debian's OpenBLAS itself): NumPy's own OpenBLAS, whose 64-bit
# integers and `scipy_` names are the loader's other flavour.
NUMPY_OPENBLAS=$(compgen -G "target/pyenv/lib/python3*/site-packages/numpy.libs/libscipy_openblas*.so" | head -n 1 || true)
CHUNKED_BLAS=blas CHUNKED_BLAS_LIBRARY="$PWD/$NUMPY_OPENBLAS" cargo test --workspace --features "$FEATURES" --test it -- \
    kernels:: tsqr:: solvers:: decompositions:: complex:: matmul:: einsum::

# The MPI tests again, built against and launched by MPICH (the build above uses
# Debian's default MPI, Open MPI). mpi-sys does not rebuild when MPICC changes,
# so its artifacts are removed first: only mpi-sys, mpi and chunked-distributed
# build again, not the workspace (the same package selection and features as
# above keep every other crate's build). Removing them once more afterwards
# leaves the next build to bind the default MPI again.
cargo clean -q -p mpi-sys
MPICC=mpicc.mpich CHUNKED_MPIRUN=mpirun.mpich cargo test --workspace --features "$FEATURES" --test mpirun
cargo clean -q -p mpi-sys

# Miri over the unit tests of chunked-array's unsafe code: uninitialised
# buffers made owned, bytes read back as values (delayed results, spill
# records, sort lanes), the key merge that fills its buffer before setting its
# length, the Philox batches and the histogram kernel, and whole computes of
# rechunk, pad, overlap, fused elementwise with strided and broadcast leaves,
# the assembly of a result and the wire form of blocks (`ops::unsafe_paths`).
# Without features (zarr's and hdf5's C libraries cannot run under Miri); file
# access needs isolation off; the Box-Muller test compares with the scalar definition
# bit for bit, so Miri's deliberate error on ln/sin/cos is off; fewer property
# cases, since Miri interprets every step.
rustup toolchain install nightly --profile minimal --component miri --component rust-src
MIRIFLAGS="-Zmiri-disable-isolation -Zmiri-deterministic-floats" PROPTEST_CASES=16 cargo +nightly miri test -p chunked-array --lib \
    --no-default-features -- block::alloc delayed::encode memory::spill::tests ops::counting::uniform \
    ops::elementwise::loops ops::random::tests ops::sorting::keys::tests::merges ops::sorting::lanes \
    ops::unsafe_paths

# The fuzz targets (fuzz/: npy files, Zarr metadata and chunks, spill records,
# wire blocks), built by cargo-fuzz on the nightly toolchain with
# AddressSanitizer, each run from its checked-in corpus for a fixed number of
# inputs. An input that panics, trips the sanitizer, or allocates more than
# 512 MiB at once fails the run, and libFuzzer prints it. New inputs go to a
# scratch directory, not to the checked-in corpus.
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked --version 0.13.2
(cd fuzz && cargo +nightly fuzz build)
for target_runs in spill_record:200000 wire_block:200000 npy_file:20000 zarr_metadata:20000 zarr_chunk:10000; do
    target=${target_runs%%:*}
    scratch=$(mktemp -d)
    if ! (cd fuzz && cargo +nightly fuzz run "$target" "$scratch" "corpus/$target" -- \
        -runs="${target_runs##*:}" -malloc_limit_mb=512 -rss_limit_mb=4096) >"$scratch.log" 2>&1; then
        tail -n 100 "$scratch.log"
        exit 1
    fi
    echo "fuzz $target: $(grep -E 'Done [0-9]+ runs' "$scratch.log")"
    rm -rf "$scratch" "$scratch.log" /tmp/chunked-fuzz-*
done
