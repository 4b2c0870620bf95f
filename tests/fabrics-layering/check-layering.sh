#!/bin/sh
# check-layering.sh LIB_FABRICS_DIR: lists every line outside backends/ that includes <rdma/...>, <ucp/...>, <uct/...>,
# <ucs/...> or a backend's header, or names a fi_/FI_ (libfabric) or ucp_/UCP_/ucs_/UCS_ (UCX) identifier (comments
# aside: they may say what a transport does), and fails if there is one.
set -eu
cd "$1"
found=$(find . -path ./backends -prune -o \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print | sort |
    while read -r file; do
        perl -0777 -pe 's{/\*.*?\*/}{my $c = $&; $c =~ s/[^\n]//g; $c}gse; s{//[^\n]*}{}g' "$file" |
            grep -nE '#[[:space:]]*include[[:space:]]*(<rdma/|<ucp/|<uct/|<ucs/|"fabrics/backends/)|(^|[^A-Za-z0-9_])(fi|FI|ucp|UCP|ucs|UCS)_[A-Za-z0-9_]' |
            sed "s|^|$file:|" || true
    done)
if [ -n "$found" ]; then
    echo "libfabric, UCX or a backend named outside lib/fabrics/backends/:"
    echo "$found"
    exit 1
fi
echo "lib/fabrics: libfabric and UCX are named only under backends/"
