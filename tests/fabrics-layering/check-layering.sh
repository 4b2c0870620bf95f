#!/bin/sh
# check-layering.sh LIB_FABRICS_DIR: lists every line outside backends/ that includes <rdma/...> or a backend's header,
# or names a fi_/FI_ identifier (comments aside: they may say what libfabric does), and fails if there is one.
set -eu
cd "$1"
found=$(find . -path ./backends -prune -o \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print | sort |
    while read -r file; do
        perl -0777 -pe 's{/\*.*?\*/}{my $c = $&; $c =~ s/[^\n]//g; $c}gse; s{//[^\n]*}{}g' "$file" |
            grep -nE '#[[:space:]]*include[[:space:]]*(<rdma/|"fabrics/backends/)|(^|[^A-Za-z0-9_])(fi|FI)_[A-Za-z0-9_]' |
            sed "s|^|$file:|" || true
    done)
if [ -n "$found" ]; then
    echo "libfabric or a backend named outside lib/fabrics/backends/:"
    echo "$found"
    exit 1
fi
echo "lib/fabrics: libfabric is named only under backends/"
