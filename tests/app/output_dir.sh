#!/usr/bin/env bash
# An output directory has one owner while a run writes to it, and a fresh run's checkpoints
# are its own (docs/failures.md). Usage: output_dir.sh SQUALL CASE
#  1. two runs of one case into one directory, the second started while the first runs:
#     the second is refused (exit 1, naming the directory and the other run), the first
#     finishes with every statistics sample once, in order;
#  2. an earlier run's checkpoint later in model time than the new run reaches: a fresh
#     run is refused without --overwrite; with it the old checkpoint goes, checkpoint_keep
#     keeps the new run's, and --restart latest continues the new run.
set -u
squall=$1 case=$2
dir=$(mktemp -d)
trap 'kill %1 2>/dev/null; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
py=$(command -v /usr/bin/python3 || command -v python3)

# 1. Concurrent runs.
"$squall" run "$case" --threads 1 --set output.dir="$dir/a" --set time.max_steps=400 \
    --set output.stats_every=60 --overwrite >"$dir/first.log" 2>&1 &
for _ in $(seq 200); do grep -q "^step " "$dir/first.log" 2>/dev/null && break; sleep 0.05; done
grep -q "^step " "$dir/first.log" || fail "the first run did not start: $(tail -3 "$dir/first.log")"
"$squall" run "$case" --threads 1 --set output.dir="$dir/a" --set time.max_steps=400 \
    --set output.stats_every=60 --overwrite >"$dir/second.log" 2>&1
status=$?
[ "$status" = 1 ] || fail "the second run exited $status, want 1: $(tail -3 "$dir/second.log")"
grep -q "squall: error: output.dir '$dir/a' is in use by another run of case 'drycbl' (pid [0-9]*)" \
    "$dir/second.log" || fail "no refusal naming the other run: $(tail -3 "$dir/second.log")"
wait %1 || fail "the first run failed: $(tail -3 "$dir/first.log")"
"$py" - "$dir/a/drycbl.stats.h5" <<'PY' || fail "the first run's samples are not its own"
import sys, h5py, numpy as np
t = h5py.File(sys.argv[1], "r")["time"][()]
assert len(t) > 3 and np.all(np.diff(t) > 0), t
PY

# 2. A later checkpoint of an earlier run.
ck="--set output.checkpoint_every=600 --set output.checkpoint_keep=1 --set output.stats_every=0"
"$squall" run "$case" --threads 1 --set output.dir="$dir/b" $ck --set time.endtime=1800 \
    >"$dir/long.log" 2>&1 || fail "the earlier run failed: $(tail -3 "$dir/long.log")"
old=$(ls "$dir/b"/drycbl.chk.*.h5)
[ "$(echo "$old" | wc -l)" = 1 ] || fail "expected one checkpoint: $old"
"$squall" run "$case" --threads 1 --set output.dir="$dir/b" $ck --set time.endtime=1200 \
    >"$dir/refused.log" 2>&1 && fail "a fresh run over an earlier run's checkpoint was not refused"
grep -q "drycbl.chk.00000001800000000000.h5: exists (a checkpoint of an earlier run" \
    "$dir/refused.log" || fail "no refusal naming the checkpoint: $(tail -3 "$dir/refused.log")"
[ -f "$old" ] || fail "the refused run removed the earlier checkpoint"
"$squall" run "$case" --threads 1 --set output.dir="$dir/b" $ck --set time.endtime=1200 \
    --overwrite >"$dir/short.log" 2>&1 || fail "the --overwrite run failed: $(tail -3 "$dir/short.log")"
now=$(ls "$dir/b"/drycbl.chk.*.h5)
[ "$now" = "$dir/b/drycbl.chk.00000001200000000000.h5" ] ||
    fail "checkpoints after the --overwrite run: $now (want only its own, at 1200 s)"
"$squall" run "$case" --threads 1 --set output.dir="$dir/b" $ck --set time.endtime=1500 \
    --restart latest >"$dir/restart.log" 2>&1 || fail "--restart latest failed: $(tail -3 "$dir/restart.log")"
grep -q "squall: restart from .*drycbl.chk.00000001200000000000.h5" "$dir/restart.log" ||
    fail "the restart did not continue the new run: $(grep restart "$dir/restart.log")"
echo "PASS: one owner per output directory; a fresh run's checkpoints are its own"
