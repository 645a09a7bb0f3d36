#!/usr/bin/env bash
# compute-sanitizer memcheck on one full time step of a small drycbl run on the GPU.
# Fails on any reported error (or a failed run); exit 77 (skip) without a GPU or sanitizer,
# unless SQUALL_REQUIRE_GPU is set (the GPU machine, scripts/gpu-check): then both must be
# there, and a missing one fails.
# Usage: memcheck_one_step.sh SQUALL CASE [squall run options...]
set -u
squall=$1
case_file=$2
shift 2
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [[ ! -x $sanitizer ]]; then
    if [ -n "${SQUALL_REQUIRE_GPU:-}" ]; then
        echo "FAIL: compute-sanitizer not found (not on PATH, not $sanitizer)," \
            "and SQUALL_REQUIRE_GPU is set: this check must run here"
        exit 1
    fi
    echo "SKIP: no compute-sanitizer"
    exit 77
fi
# Without SQUALL_REQUIRE_GPU a missing GPU skips; with it, the run below fails.
if [ -z "${SQUALL_REQUIRE_GPU:-}" ] && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIP: no GPU"
    exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# Warm the kernel cache outside the sanitizer (NVRTC under it is slow), then check.
args=(run "$case_file" --backend gpu --set time.max_steps=1 --set grid.itot=32
      --set grid.jtot=24 --set grid.ktot=16 --set output.stats_every=0 --set output.dir="$dir" "$@")
"$squall" "${args[@]}" >"$dir/warm.log" 2>&1 || { cat "$dir/warm.log"; echo "FAIL: run failed"; exit 1; }
"$sanitizer" --tool memcheck --error-exitcode 99 --leak-check no "$squall" "${args[@]}" 2>&1 | tee "$dir/log"
status=${PIPESTATUS[0]}
if ((status != 0)); then echo "FAIL: compute-sanitizer exit status $status"; exit 1; fi
if ! grep -q "ERROR SUMMARY: 0 errors" "$dir/log"; then echo "FAIL: memcheck reported errors"; exit 1; fi
if ! grep -q "backend gpu" "$dir/log"; then echo "FAIL: the run did not use the GPU"; exit 1; fi
echo "memcheck clean"
