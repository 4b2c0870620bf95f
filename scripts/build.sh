#!/usr/bin/env bash
# Configures and builds mxl into a build directory:
#   scripts/build.sh [BUILD_DIR] [extra cmake arguments...] [-- targets...]
# Without targets, everything the configuration enables is built.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${1:-$root/build}
shift || true
cmake_args=()
while (($#)) && [[ $1 != -- ]]; do
    cmake_args+=("$1")
    shift
done
shift || true
targets=()
for target in "$@"; do
    targets+=(--target "$target")
done

# ccache (installed by scripts/install-deps.sh) makes rebuilding the same sources cheap. Paths are hashed relative to
# the checkout and without the build directory, so that another clone of the same commit on this machine (CI's fresh
# clone) compiles from the cache; debug information then names the first checkout's directory.
launcher=()
if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
    export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
fi
# GNU gold (binutils) links in about half the CPU time of the default ld.bfd: a sanitizer program's link took 0.48 CPU s
# instead of 1.02, and the test command links about 130 programs and libraries. Arguments given here choose otherwise.
linker=()
if command -v ld.gold >/dev/null; then
    linker=(-DMXL_LINKER=gold)
fi
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" "${linker[@]}" "${cmake_args[@]}" >/dev/null
cmake --build "$build_dir" --parallel "$(nproc)" "${targets[@]}"
