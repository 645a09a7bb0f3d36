#!/usr/bin/env bash
# Failures of `squall run` as a user meets them: each must end with a clean non-zero exit
# (no signal), a "squall: error:" message that says what went wrong, and no time step
# where the failure is known before the first one.
# Usage: app_failures.sh SQUALL CASE (drycbl.yaml)
set -u
squall=$1
case_file=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
small=(--backend cpu --set grid.itot=16 --set grid.jtot=16 --set grid.ktot=16)
fail=0

# expect_failure NAME PATTERN... : the last run failed cleanly and printed every PATTERN.
expect_failure() {
    local name=$1
    shift
    if ((status == 0 || status >= 128)); then
        echo "FAIL [$name]: exit status $status, expected a clean failure"
        fail=1
    fi
    for p in "squall: error: " "$@"; do
        if ! grep -qF -- "$p" <<<"$output"; then
            echo "FAIL [$name]: no '$p' in the output"
            fail=1
        fi
    done
}

# 1. A run that blows up (fixed dt far above the CFL limit) stops with the field, step,
# time and point, and leaves its diagnostic file.
output=$("$squall" run "$case_file" "${small[@]}" --set time.adaptive=false --set time.dt=200 \
    --set time.dtmax=200 --set init.u0=5 --set output.stats_every=0 --set output.status_every=1 \
    --set time.endtime=100000 --set output.dir="$tmp/blowup" 2>&1)
status=$?
echo "$output" | tail -5
expect_failure blowup "numerical failure after step " "(model time " " at i = " "per-level summary in"
failed=$(ls "$tmp"/blowup/drycbl.failed.*.txt 2>/dev/null | head -1)
if [[ -z $failed ]]; then
    echo "FAIL [blowup]: no drycbl.failed.<step>.txt in $tmp/blowup"
    fail=1
elif ! grep -q "^# squall: numerical failure after step" "$failed"; then
    echo "FAIL [blowup]: $failed does not hold the message"
    fail=1
fi

# 2. An output directory that cannot be created (its parent is a regular file) is refused
# before any step, naming it.
touch "$tmp/regular_file"
output=$("$squall" run "$case_file" "${small[@]}" --set time.max_steps=1 \
    --set output.dir="$tmp/regular_file/out" 2>&1)
status=$?
echo "$output" | tail -2
expect_failure unwritable_dir "cannot create output.dir '$tmp/regular_file/out'"
if grep -q "^step " <<<"$output"; then
    echo "FAIL [unwritable_dir]: the run started"
    fail=1
fi

# 3. A missing output directory (two levels) is created.
output=$("$squall" run "$case_file" "${small[@]}" --set time.max_steps=2 \
    --set output.stats_every=1 --set output.dir="$tmp/new/sub" 2>&1)
status=$?
if ((status != 0)) || [[ ! -f $tmp/new/sub/drycbl.stats.h5 ]]; then
    echo "$output" | tail -5
    echo "FAIL [missing_dir]: exit status $status, or no $tmp/new/sub/drycbl.stats.h5"
    fail=1
fi

# 4. A grid too large for host memory: refused with the figure, no std::bad_alloc.
# 1248^3 double (~190 GiB, within the 32-bit index limit): skipped where that much memory is available.
avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
if ((avail_kb < 180 * 1024 * 1024)); then
    output=$("$squall" run "$case_file" --backend cpu --set grid.itot=1248 --set grid.jtot=1248 \
        --set grid.ktot=1248 --set time.max_steps=1 --set output.dir="$tmp/huge" 2>&1)
    status=$?
    echo "$output" | tail -2
    expect_failure too_large "GiB of host memory" "is available (MemAvailable in /proc/meminfo"
    if grep -q "bad_alloc" <<<"$output"; then
        echo "FAIL [too_large]: std::bad_alloc"
        fail=1
    fi
else
    echo "skipped the memory refusal: $avail_kb kB available"
fi

((fail == 0)) && echo "all failures handled"
exit $fail
