#!/usr/bin/env bash
# The main job: install what is missing, build what it runs, then move a real flow from a test source through a fabrics
# initiator into a fabrics target on this machine (over tcp, then shm) and print what moved. It builds into the test
# command's Release directory, so that scripts/test.sh afterwards compiles only what is left.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$root/build-release" -DCMAKE_BUILD_TYPE=Release -- mxl-fabrics-demo mxl-test-source mxl-info
exec "$root/scripts/main-job.sh" "$root/build-release"
