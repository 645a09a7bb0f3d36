#!/usr/bin/env bash
# What output costs a GPU run (docs/performance.md, "Output"): the same STEPS steps at a
# fixed time step without output, and with cross-sections at every step (u, v, w, th and
# vort_z at three heights, one xz and one yz plane: only these planes leave the device);
# then one checkpoint and one 3-D field file (u, v, w, th), timed by squall's own log
# lines (device copy and write). Writes {"cross_ms_per_sample", "checkpoint_s", ...} to JSON.
# Usage: output_overhead.sh SQUALL CASE PRECISION STEPS OUT.json  (BACKEND=cpu: on the CPU)
set -uo pipefail
squall=$1 case_file=$2 precision=$3 steps=$4 json=$5
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
dt=1
common=(run "$case_file" --backend "${BACKEND:-gpu}" --set model.precision="$precision" --set time.adaptive=false
        --set time.dt=$dt --set output.stats_every=0 --set output.status_every=100000)
s_per_step() { sed -nE 's/.*: ([0-9.]+) s\/step.*/\1/p' "$1" | tail -1; }

"$squall" "${common[@]}" --set time.max_steps="$steps" --set output.dir="$dir/base" \
    >"$dir/base.log" 2>&1 || { tail -5 "$dir/base.log"; exit 1; }
"$squall" "${common[@]}" --set time.max_steps="$steps" --set output.dir="$dir/cross" \
    --set "output.cross={every: $dt, fields: [u, v, w, th, vort_z], xy: [100, 500, 1000], xz: [100], yz: [100]}" \
    >"$dir/cross.log" 2>&1 || { tail -5 "$dir/cross.log"; exit 1; }
"$squall" "${common[@]}" --set time.max_steps=1 --set output.dir="$dir/io" \
    --set output.checkpoint_every=1e9 --set "output.fields={every: 1e9, names: [u, v, w, th]}" \
    >"$dir/io.log" 2>&1 || { tail -5 "$dir/io.log"; exit 1; }
grep -E "^squall: (checkpoint|fields|[0-9]+ steps)" "$dir"/*.log
base=$(s_per_step "$dir/base.log") cross=$(s_per_step "$dir/cross.log")
chk_line=$(grep "^squall: checkpoint .* written at step" "$dir/io.log" | tail -1)
fld_line=$(grep "^squall: fields " "$dir/io.log" | tail -1)
chk_mb=$(sed -nE 's/.*: ([0-9.]+) MB in.*/\1/p' <<<"$chk_line")
chk_s=$(sed -nE 's/.* MB in ([0-9.]+) s.*/\1/p' <<<"$chk_line")
fld_mb=$(sed -nE 's/.*, ([0-9.]+) MB in.*/\1/p' <<<"$fld_line")
fld_s=$(sed -nE 's/.* MB in ([0-9.]+) s.*/\1/p' <<<"$fld_line")
if [[ -z $base || -z $cross || -z $chk_s || -z $fld_s ]]; then
    echo "FAIL: a summary or output line is missing"
    exit 1
fi
python3 - "$json" <<PY
import json, sys
r = {"case": "$(basename "$case_file" .yaml)", "precision": "$precision", "steps": $steps,
     "s_per_step": $base, "s_per_step_cross_every_step": $cross,
     "cross_ms_per_sample": round(($cross - $base) * 1e3, 3),
     "checkpoint_mb": $chk_mb, "checkpoint_s": $chk_s, "checkpoint_gb_per_s": round($chk_mb / 1e3 / $chk_s, 3),
     "fields_mb": $fld_mb, "fields_s": $fld_s, "fields_gb_per_s": round($fld_mb / 1e3 / $fld_s, 3)}
json.dump(r, open(sys.argv[1], "w"))
print(json.dumps(r))
PY
