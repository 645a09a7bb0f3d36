#!/bin/bash
# A real SIGTERM: squall stops at the end of the step with a checkpoint, exit status 143
# (128 + 15) and a message; `--restart latest` then reaches the same final state, byte for
# byte, as a run that was never interrupted, and the statistics file it continued equals
# the uninterrupted run's, sample for sample and byte for byte.
# Usage: sigterm_restart.sh SQUALL CASE CHECKPOINT_COMPARE STATS_COMPARE
set -u
squall=$1 case=$2 compare=$3 stats_compare=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
opts=(--backend cpu --set grid.itot=16 --set grid.jtot=16 --set grid.ktot=16
      --set output.stats_every=600 --set output.status_every=1 --set time.endtime=30000
      --set output.checkpoint_every=1e9)
fail() { echo "FAIL: $*"; exit 1; }

"$squall" run "$case" "${opts[@]}" --set output.dir="$dir/straight" >"$dir/straight.log" 2>&1 ||
    fail "the uninterrupted run failed: $(tail -3 "$dir/straight.log")"

"$squall" run "$case" "${opts[@]}" --set output.dir="$dir/stopped" >"$dir/stopped.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
    grep -q '^step *20 ' "$dir/stopped.log" && break
    sleep 0.05
done
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 143 ] || fail "exit status $rc after SIGTERM, expected 143: $(tail -3 "$dir/stopped.log")"
grep -q 'squall: SIGTERM received: checkpoint .* written at step [0-9]*, time .*; continue with --restart latest' \
    "$dir/stopped.log" || fail "no SIGTERM message: $(tail -3 "$dir/stopped.log")"
stopped_step=$(sed -n 's/.*written at step \([0-9]*\),.*/\1/p' "$dir/stopped.log")
n=$(ls "$dir/stopped"/drycbl.chk.*.h5 | wc -l)
[ "$n" -eq 1 ] || fail "expected one checkpoint after the stop, found $n"
final=$(ls "$dir/straight"/drycbl.chk.*.h5)
last_step=$(grep -c '^step ' "$dir/straight.log")
[ "$stopped_step" -lt $((last_step - 1)) ] || fail "the run ended (step $stopped_step) before the signal"

"$squall" run "$case" "${opts[@]}" --set output.dir="$dir/stopped" --restart latest \
    >"$dir/restarted.log" 2>&1 || fail "the restart failed: $(tail -3 "$dir/restarted.log")"
grep -q "squall: restart from .* at step $stopped_step" "$dir/restarted.log" ||
    fail "no restart message"
cont=$(ls "$dir/stopped"/drycbl.chk.*.h5 | tail -1)
[ "$(basename "$cont")" = "$(basename "$final")" ] || fail "final checkpoints $cont vs $final"
"$compare" "$final" "$cont" || fail "the continued run differs from the uninterrupted one"
# The statistics file the restart continued, every dataset and attribute; only the root
# attribute "configuration" differs legitimately (output.dir).
"$stats_compare" "$dir/straight/drycbl.stats.h5" "$dir/stopped/drycbl.stats.h5" \
    --ignore /configuration ||
    fail "the continued statistics differ from the uninterrupted run's"
echo "stopped at step $stopped_step of the run; the continued run's fields and statistics"
echo "equal the uninterrupted run's"
