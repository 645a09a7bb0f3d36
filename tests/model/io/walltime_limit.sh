#!/bin/bash
# time.walltime_limit: squall writes a checkpoint before the limit and stops with exit
# status 0 and a message, well before time.endtime.
# Usage: walltime_limit.sh SQUALL CASE
set -u
squall=$1 case=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
start=$(date +%s%N)
"$squall" run "$case" --backend cpu --set grid.itot=16 --set grid.jtot=16 --set grid.ktot=16 \
    --set output.stats_every=0 --set output.status_every=1 --set time.endtime=1e8 \
    --set time.walltime_limit=2 --set output.dir="$dir" >"$dir/log" 2>&1
rc=$?
took_ms=$((($(date +%s%N) - start) / 1000000))
[ $rc -eq 0 ] || fail "exit status $rc: $(tail -3 "$dir/log")"
grep -q 'squall: time.walltime_limit 2 s nearly reached after .* s: checkpoint .* written at step' \
    "$dir/log" || fail "no message: $(tail -3 "$dir/log")"
[ "$(ls "$dir"/drycbl.chk.*.h5 | wc -l)" -eq 1 ] || fail "no checkpoint"
# The limit counts from the model's set-up; allow for MPI start-up on a busy machine.
[ "$took_ms" -lt 4000 ] || fail "took $took_ms ms for a 2 s limit"
echo "stopped after $took_ms ms with a checkpoint"
