#!/usr/bin/env bash
# Every test: install what is missing, build the Release configuration (the one the benchmarks and the main job use)
# with the tests and run the whole suite there, then build again with AddressSanitizer and UndefinedBehaviorSanitizer
# and run the suite again. Where the CUDA Toolkit is installed the Release build has MXL_WITH_CUDA on and the sanitizer
# build has it off, so that both ways compile. Each stage says how long it took. The plain suite runs one test a core;
# the sanitizer suite two where the machine is otherwise idle, one where it is not. MXL_TEST_PARALLEL=N runs both suites
# N tests at a time.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=$(nproc)
# Said outright rather than left to the option's default, which a build directory configured before keeps in its cache.
cuda=OFF
if [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null; then
    cuda=ON
fi
started=$SECONDS
stage_started=$SECONDS
stage() {
    if [[ -n ${stage_name:-} ]]; then
        echo "== $stage_name: $((SECONDS - stage_started)) s =="
    fi
    stage_name=$1
    stage_started=$SECONDS
    [[ -z $stage_name ]] || echo "== $stage_name =="
}
# The share of the CPU, in per cent, that was idle over the next three seconds (/proc/stat: user nice system idle iowait
# irq softirq steal).
idle_percent() {
    local -a before after
    read -ra before </proc/stat
    sleep 3
    read -ra after </proc/stat
    local total=0 field
    for field in 1 2 3 4 5 6 7 8; do
        total=$((total + after[field] - before[field]))
    done
    echo $((total > 0 ? 100 * (after[4] + after[5] - before[4] - before[5]) / total : 0))
}

stage "install"
"$root/scripts/install-deps.sh"

stage "build (Release, with the tests)"
"$root/scripts/build.sh" "$root/build-release" -DCMAKE_BUILD_TYPE=Release -DMXL_WITH_TESTS=ON -DMXL_WITH_CUDA=$cuda

stage "tests (the sanitizer build compiles beside them at the lowest priority)"
# Much of the suite waits on processes, links and timers; the sanitizer build takes the CPU it leaves, and yields it at
# once when a test wants it. It runs in a session of its own, so that an early exit ends all of it; the kernel gives
# each session (autogroup) a fair share whatever its processes' nice, so the session's own weight is lowered too.
mkdir -p "$root/build-sanitize"
# Line tables only: a sanitizer's report still names the function, file and line of every frame (at -O0 nothing is
# inlined), without the types and variables that only a debugger reads; a test batch compiled in 12 % less CPU time.
sanitize_debug_flags=-g1
sanitize_log=$root/build-sanitize/build.log
setsid -w bash -c 'echo 19 >/proc/self/autogroup 2>/dev/null || true; exec nice -n 19 "$@"' sanitize-build \
    "$root/scripts/build.sh" "$root/build-sanitize" -DMXL_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=Debug \
    -DMXL_WITH_CUDA=OFF "-DCMAKE_CXX_FLAGS_DEBUG=$sanitize_debug_flags" "-DCMAKE_C_FLAGS_DEBUG=$sanitize_debug_flags" \
    >"$sanitize_log" 2>&1 &
sanitize_build=$!
trap 'kill -- -$sanitize_build 2>/dev/null || true' EXIT
trap 'exit 130' INT TERM
ctest --test-dir "$root/build-release" --output-on-failure --parallel "${MXL_TEST_PARALLEL:-$jobs}" --timeout 300

stage "build (address,undefined sanitizers; without CUDA): the rest"
if ! wait "$sanitize_build"; then
    tail -n 60 "$sanitize_log"
    echo "test.sh: the sanitizer build failed; its whole output is in $sanitize_log" >&2
    exit 1
fi
trap - EXIT
stage "tests under sanitizers"
# Most of this suite waits on processes, links and timers, so on an otherwise idle machine a second test a core uses the
# CPU the first leaves (589 s instead of 754 s on an idle 2-vCPU host); where something else already uses the CPU, a second test a core only
# stretches every wait, so it stays at one (docs/performance.md, "Two tests per core where the machine is idle").
sanitize_parallel=${MXL_TEST_PARALLEL:-}
if [[ -z $sanitize_parallel ]]; then
    idle=$(idle_percent)
    sanitize_parallel=$jobs
    if ((idle >= 90)); then
        sanitize_parallel=$((2 * jobs))
    fi
    echo "the CPU was $idle % idle over 3 s: $sanitize_parallel tests at a time"
fi
# UCX's own leaks (tests/sanitizers/lsan-ucx.supp says which) are suppressed; the processes the tests start inherit it.
# intercept_tls_get_addr=0: GCC 12's runtime takes a dynamic TLS block (UCX's, loaded with a backend) whose address
# starts 16 bytes into a page for a glibc 2.19 header and reads an address and a size from before it; the leak tracer
# then faults at exit ("Tracer caught signal 11") at random, after a test passed. Fixed after GCC 13 and LLVM 16.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0 UBSAN_OPTIONS=print_stacktrace=1 \
    LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan-ucx.supp" \
    ctest --test-dir "$root/build-sanitize" --output-on-failure --parallel "$sanitize_parallel" --timeout 600
stage ""
echo "== all tests passed in $((SECONDS - started)) s =="
