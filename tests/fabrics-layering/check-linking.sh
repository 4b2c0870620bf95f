#!/bin/sh
# check-linking.sh LIBRARY: fails if LIBRARY needs a transport's library (libfabric, UCX) when it is loaded: libmxl-fabrics
# loads its transports as backend modules, so that one missing transport never stops a program from starting.
set -eu
needed=$(readelf -d "$1" | grep NEEDED || true)
transports=$(printf '%s\n' "$needed" | grep -E 'libfabric|libucp|libuct|libucs' || true)
if [ -n "$transports" ]; then
    echo "$1 links a transport's library:"
    echo "$transports"
    exit 1
fi
echo "$1 links no transport's library"
