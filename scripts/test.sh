#!/usr/bin/env bash
# Runs every test of the workspace on a fresh Debian machine: installs what the
# tests need when it is missing, then builds every target and runs the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages the tests need: a C compiler; Chromium to render the profile
# report; Graphviz for graph pictures; Python for checking exports. (HDF5 and MPI
# join this list with the issues that use them.)
need_apt=()
command -v cc >/dev/null 2>&1 || need_apt+=(build-essential)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v dot >/dev/null 2>&1 || need_apt+=(graphviz)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
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

# Every target compiles (benches and examples included), then every test runs:
# unit, integration, property (256 cases per operation) and doc tests.
cargo build --workspace --all-targets
cargo test --workspace
