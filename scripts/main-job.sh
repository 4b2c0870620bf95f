#!/usr/bin/env bash
# The main job: moves a real 1080p v210 flow between two MXL domains through mxl-fabrics-demo, first over tcp on
# 127.0.0.1, then over shm, through the libfabric backend, then the same two through the UCX backend where it is built,
# and prints what moved. For each run:
#   source domain --(mxl-test-source writes colour bars)--> flow --(initiator)==fabric==>(target)--> target domain
# The target's flow is checked with mxl-info while the demo runs (its head index must advance); the demos' summary
# lines give grains, bytes, lost grains and transfer latency. Exits non-zero if nothing moved in any one of the runs.
#
# Usage: scripts/main-job.sh BUILD_DIR
# Environment: MXL_MAIN_JOB_FLOW (flow definition, default flows/v210_1080p50.json),
#              MXL_MAIN_JOB_SECONDS (how long each run lasts, default 5).
set -euo pipefail

build=$(cd "${1:?usage: main-job.sh BUILD_DIR}" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
demo=$build/tools/mxl-fabrics-demo/mxl-fabrics-demo
test_source=$build/tools/mxl-test-source/mxl-test-source
info=$build/tools/mxl-info/mxl-info
flow_definition=${MXL_MAIN_JOB_FLOW:-$root/flows/v210_1080p50.json}
run_seconds=${MXL_MAIN_JOB_SECONDS:-5}

for program in "$demo" "$test_source" "$info"; do
    if [[ ! -x $program ]]; then
        echo "main-job: $program is missing; build first (scripts/build.sh $build)" >&2
        exit 1
    fi
done

work=$(mktemp -d /dev/shm/mxl-main-job.XXXXXX)
pids=()

# Every process this script started gets SIGTERM, then SIGKILL if it lingers; the domains go with the work directory.
cleanup() {
    local pid
    for pid in "${pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_for_line FILE PATTERN SECONDS PID: the first line of FILE matching PATTERN, failing early if PID exits.
wait_for_line() {
    local file=$1 pattern=$2 seconds=$3 pid=$4 line
    for _ in $(seq $((seconds * 10))); do
        if line=$(grep -m1 -e "$pattern" "$file" 2>/dev/null); then
            echo "$line"
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    return 1
}

# stop PID NAME: SIGTERM, then the exit status (1 on timeout).
stop() {
    local pid=$1 name=$2 status=0
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "main-job: $name did not stop within 10 s" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" || status=$?
    return "$status"
}

# head_index DOMAIN FLOW: the flow's head index as mxl-info reports it (empty when it cannot read it).
head_index() {
    "$info" -d "$1" -f "$2" 2>/dev/null | sed -n 's/^ *Head index *: *\([0-9]*\).*/\1/p'
}

fail() {
    echo "main-job: $provider: $*" >&2
    for log in "$dir"/*.err; do
        echo "--- $(basename "$log")" >&2
        tail -n 20 "$log" >&2
    done
    return 1
}

# run_provider LABEL BACKEND TARGET-ARGUMENTS...: one source -> initiator -> target run; prints the result line.
run_provider() {
    provider=$1
    local backend=$2
    shift 2
    dir=$work/$provider
    mkdir -p "$dir/source-domain" "$dir/target-domain"

    "$test_source" -d "$dir/source-domain" -v "$flow_definition" >"$dir/source.out" 2>"$dir/source.err" &
    local source_pid=$!
    pids+=("$source_pid")
    local flow_line flow_id
    flow_line=$(wait_for_line "$dir/source.out" '^flow ' 10 "$source_pid") || { fail "mxl-test-source did not start"; return 1; }
    flow_id=$(awk '{print $2}' <<<"$flow_line")

    "$demo" --backend "$backend" -d "$dir/target-domain" -f "$flow_definition" "$@" -t "$dir/ticket.json" >"$dir/target.out" 2>"$dir/target.err" &
    local target_pid=$!
    pids+=("$target_pid")
    wait_for_line "$dir/target.out" '^Target info: ' 10 "$target_pid" >/dev/null || { fail "the target printed no ticket"; return 1; }

    "$demo" --backend "$backend" -i -d "$dir/source-domain" -f "$flow_id" -t "@$dir/ticket.json" >"$dir/initiator.out" 2>"$dir/initiator.err" &
    local initiator_pid=$!
    pids+=("$initiator_pid")
    wait_for_line "$dir/initiator.out" '^connected to ' 15 "$initiator_pid" >/dev/null || { fail "the initiator did not connect"; return 1; }

    # Read the target's flow the way any local reader would: its head index must move while grains arrive.
    sleep 1
    local first_head last_head
    first_head=$(head_index "$dir/target-domain" "$flow_id")
    sleep "$((run_seconds > 1 ? run_seconds - 1 : 1))"
    last_head=$(head_index "$dir/target-domain" "$flow_id")
    local source_head
    source_head=$(head_index "$dir/source-domain" "$flow_id")

    local initiator_status=0 target_status=0
    stop "$initiator_pid" initiator || initiator_status=$?
    stop "$target_pid" target || target_status=$?
    stop "$source_pid" mxl-test-source || true

    local sent received
    sent=$(grep -m1 '^summary: ' "$dir/initiator.out" || true)
    received=$(grep -m1 '^summary: ' "$dir/target.out" || true)
    local grains bytes lost latency_avg latency_max target_grains
    read -r grains bytes lost latency_avg latency_max < <(sed -En \
        's/^summary: moved ([0-9]+) grains, ([0-9]+) bytes, ([0-9]+) lost, latency avg ([0-9]+) us, max ([0-9]+) us.*/\1 \2 \3 \4 \5/p' \
        <<<"$sent") || true
    target_grains=$(sed -En 's/^summary: received ([0-9]+) grains.*/\1/p' <<<"$received")

    if [[ -z ${grains:-} || -z ${target_grains:-} ]]; then
        fail "no summary line (initiator: '$sent', target: '$received')"
        return 1
    fi
    # Rates from the initiator's per-second stats lines (the run also spent time connecting and stopping).
    local rates
    rates=$(sed -En 's/^stats: .* rate=([0-9.]+) grains\/s throughput=([0-9.]+) MB\/s.*/\1 \2/p' "$dir/initiator.out" |
        awk '{ g += $1; m += $2; n++ } END { if (n) printf "%.1f grains/s, %.1f MB/s", g / n, m / n; else print "no rate" }')
    echo "$provider: moved $grains grains ($bytes bytes, $rates), lost $lost," \
        "transfer latency avg $latency_avg us max $latency_max us; target received $target_grains grains," \
        "its head index went ${first_head:-?} -> ${last_head:-?} (source at ${source_head:-?})"

    if ((grains == 0 || target_grains == 0)) || [[ -z $first_head || -z $last_head ]] || ((last_head <= first_head)); then
        fail "nothing moved"
        return 1
    fi
    if ((initiator_status != 0 || target_status != 0)); then
        fail "exit status: initiator $initiator_status, target $target_status (expected 0 after SIGTERM)"
        return 1
    fi
}

echo "main-job: $(basename "$flow_definition"), ${run_seconds} s per run"
runs=(tcp shm)
failures=0
run_provider tcp ofi -p tcp -n 127.0.0.1 -s 0 || failures=$((failures + 1))
run_provider shm ofi -p shm || failures=$((failures + 1))
if [[ -e $build/lib/fabrics/mxl-fabrics/libmxl-fabrics-ucx.so ]]; then
    runs+=(ucx-tcp ucx-shm)
    run_provider ucx-tcp ucx -p tcp -n 127.0.0.1 -s 0 || failures=$((failures + 1))
    run_provider ucx-shm ucx -p shm || failures=$((failures + 1))
else
    echo "main-job: the UCX backend is not built (MXL_FABRICS_BACKEND_UCX OFF): only the libfabric backend ran"
fi
if ((failures > 0)); then
    echo "main-job: $failures of ${#runs[@]} runs failed" >&2
    exit 1
fi
echo "main-job: ok"
