#!/usr/bin/env bash
# Only the C API is exported: every defined dynamic symbol of our libraries starts with "mxl".
set -euo pipefail
status=0
for library in "$@"; do
    leaked=$(nm -D --defined-only "$library" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | grep -v '^mxl' || true)
    count=$(nm -D --defined-only "$library" | awk '$2 == "T" && $3 ~ /^mxl/' | wc -l)
    if [[ -n "$leaked" ]]; then
        echo "$library exports non-API symbols:"; echo "$leaked" | head -20; status=1
    fi
    echo "$library: $count API functions exported"
    ((count > 0)) || status=1
done
exit $status
