#!/usr/bin/env bash
# Writes the seed corpus of every fuzz target into fuzz/corpus/<target>: real
# files of each format (from chunked's own writer and from NumPy), which the
# fuzzer then mutates. Run from the repository root after `cargo +nightly fuzz
# build`; needs target/pyenv (scripts/setup_python.sh) for NumPy.
set -euo pipefail
cd "$(dirname "$0")"
before=$(ls -d /tmp/chunked-fuzz-* 2>/dev/null || true)
# One empty input makes zarr_chunk write its arrays into its scratch directory.
mkdir -p /tmp/chunked-fuzz-empty
cargo +nightly fuzz run zarr_chunk /tmp/chunked-fuzz-empty -- -runs=1 >/dev/null 2>&1
arrays=$(comm -13 <(echo "$before" | sort) <(ls -d /tmp/chunked-fuzz-* | grep -v empty | sort) | head -1)
../target/pyenv/bin/python make_corpus.py "$arrays"
rm -rf /tmp/chunked-fuzz-empty "$arrays"
