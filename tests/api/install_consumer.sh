#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds a C consumer twice, with pkg-config and with
# find_package(mxl), and runs both.
set -euo pipefail
build_dir=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
libdir=$(ls -d "$work"/prefix/lib*/ | head -n1)
libdir=${libdir%/}
export PKG_CONFIG_PATH="$libdir/pkgconfig"
export LD_LIBRARY_PATH="$libdir"

# The fabrics transports are modules beside the library, where libmxl-fabrics looks for them; it links no transport.
if [ -e "$libdir/libmxl-fabrics.so" ]; then
    test -f "$libdir/mxl-fabrics/libmxl-fabrics-ofi.so"
    ! readelf -d "$libdir/libmxl-fabrics.so" | grep -q libfabric
fi

# The device module, where the build has one, is installed beside libmxl, which links no CUDA runtime itself.
if [ -e "$build_dir/lib/flow/libmxl-cuda.so" ]; then
    test -f "$libdir/libmxl-cuda.so"
fi
! readelf -d "$libdir/libmxl.so" | grep -q cudart

cc -std=c17 -Wall -Werror "$source_dir/consumer.c" $(pkg-config --cflags --libs libmxl) -o "$work/consumer-pc"
"$work/consumer-pc" | grep -q "consumer linked against mxl"

cmake -S "$source_dir" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
"$work/cmake-build/consumer" | grep -q "consumer linked against mxl"
echo "pkg-config and find_package(mxl) consumers built and ran"
