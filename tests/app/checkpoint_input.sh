#!/usr/bin/env bash
# Restarts from checkpoints a run cannot continue as asked (docs/failures.md):
#  1. an edited checkpoint whose itime is negative: refused, naming the file and the value
#     (it was taken, and the t = 0 sample dropped);
#  2. a checkpoint at or past time.endtime: nothing runs, exit 0, and a line says why
#     (it ran 0 steps without a word).
# Usage: checkpoint_input.sh SQUALL CASE
set -u
squall=$1 case=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
py=$(command -v /usr/bin/python3 || command -v python3)
opts=(--threads 1 --set output.dir="$dir/out" --set output.checkpoint_every=600
      --set output.stats_every=0)
"$squall" run "$case" "${opts[@]}" --set time.endtime=600 >"$dir/first.log" 2>&1 ||
    fail "the first run failed: $(tail -3 "$dir/first.log")"
chk="$dir/out/drycbl.chk.00000000600000000000.h5"
[ -f "$chk" ] || fail "no checkpoint at 600 s: $(ls "$dir/out")"

"$squall" run "$case" "${opts[@]}" --set time.endtime=300 --restart latest >"$dir/past.log" 2>&1 ||
    fail "a restart past the end time failed: $(tail -3 "$dir/past.log")"
grep -q "at or past time.endtime = 300 s: nothing to run" "$dir/past.log" ||
    fail "no word on the restart past the end time: $(tail -3 "$dir/past.log")"

cp "$chk" "$dir/edited.h5"
"$py" -c 'import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f: f.attrs["itime"] = np.int64(-5)' "$dir/edited.h5" ||
    fail "could not edit the checkpoint"
"$squall" run "$case" "${opts[@]}" --set time.endtime=1200 --restart "$dir/edited.h5" \
    >"$dir/edited.log" 2>&1
status=$?
[ "$status" = 1 ] || fail "a checkpoint at itime -5 gave exit $status: $(tail -3 "$dir/edited.log")"
grep -q "cannot read checkpoint $dir/edited.h5: itime -5" "$dir/edited.log" ||
    fail "no refusal naming the file and itime: $(tail -3 "$dir/edited.log")"
echo "PASS: restarts the run cannot continue are refused or explained"
