#!/usr/bin/env bash
# Every test: install what is missing, build, run the whole suite, build the Release configuration the benchmarks use,
# then run the suite again under AddressSanitizer and UndefinedBehaviorSanitizer. Where the CUDA Toolkit is installed
# the test builds have MXL_WITH_CUDA on, and the Release build turns it off, so that both ways compile.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=$(nproc)
# Said outright rather than left to the option's default, which a build directory configured before keeps in its cache.
cuda=OFF
if [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null; then
    cuda=ON
fi
"$root/scripts/install-deps.sh"

echo "== build (RelWithDebInfo) =="
"$root/scripts/build.sh" "$root/build" -DMXL_WITH_CUDA=$cuda
echo "== tests =="
ctest --test-dir "$root/build" --output-on-failure --parallel "$jobs" --timeout 300

echo "== build (Release, the benchmarks' build in docs/performance.md; libraries, tools and benchmarks; without CUDA) =="
"$root/scripts/build.sh" "$root/build-release" -DCMAKE_BUILD_TYPE=Release -DMXL_WITH_TESTS=OFF -DMXL_WITH_CUDA=OFF

echo "== build (address,undefined sanitizers) =="
"$root/scripts/build.sh" "$root/build-sanitize" -DMXL_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=Debug -DMXL_WITH_CUDA=$cuda
echo "== tests under sanitizers =="
# UCX's own leaks (tests/sanitizers/lsan-ucx.supp says which) are suppressed; the processes the tests start inherit it.
# intercept_tls_get_addr=0: GCC 12's runtime takes a dynamic TLS block (UCX's, loaded with a backend) whose address
# starts 16 bytes into a page for a glibc 2.19 header and reads an address and a size from before it; the leak tracer
# then faults at exit ("Tracer caught signal 11") at random, after a test passed. Fixed after GCC 13 and LLVM 16.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0 UBSAN_OPTIONS=print_stacktrace=1 \
    LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan-ucx.supp" \
    ctest --test-dir "$root/build-sanitize" --output-on-failure --parallel "$jobs" --timeout 600
