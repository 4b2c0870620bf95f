#!/usr/bin/env bash
# The main job: install what is missing, build, then move a real flow from a test source through a fabrics
# initiator into a fabrics target on this machine (over tcp, then shm) and print what moved.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$root/build"
exec "$root/scripts/main-job.sh" "$root/build"
