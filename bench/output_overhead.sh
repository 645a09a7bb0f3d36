#!/usr/bin/env bash
# What output costs a GPU run (docs/performance.md, "Output"). The same STEPS steps at a
# fixed time step: without output; with one cross-section (w at one height) at every step;
# with a set of them (u, v, w, th, vort_z at three heights, one xz and one yz plane). Only
# those planes leave the device. Then one checkpoint and one 3-D field file (u, v, w, th)
# and a restart that reads the checkpoint back, timed by squall's own log lines (device
# copies included), and dd writing the checkpoint's bytes with fdatasync (the disk's
# speed; the checkpoint is fsynced too). Writes the figures to OUT.json.
# Usage: output_overhead.sh SQUALL CASE PRECISION STEPS OUT.json  (BACKEND=cpu: on the CPU)
set -uo pipefail
squall=$1 case_file=$2 precision=$3 steps=$4 json=$5
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
dt=1
common=(run "$case_file" --backend "${BACKEND:-gpu}" --set model.precision="$precision"
        --set time.adaptive=false --set time.dt=$dt --set output.stats_every=0
        --set output.status_every=100000)
fail() { echo "FAIL: $*"; exit 1; }
run() { # NAME OUTPUT_DIR ARGS...: the log is NAME.log
    local name=$1 out=$2; shift 2
    "$squall" "${common[@]}" --set output.dir="$dir/$out" "$@" >"$dir/$name.log" 2>&1 ||
        fail "$name: $(tail -3 "$dir/$name.log")"
}
s_per_step() { sed -nE 's/.*: ([0-9.eE+-]+) s\/step.*/\1/p' "$dir/$1.log" | tail -1; }
# MB and seconds of the last log line matching PATTERN in NAME's log.
mb_of() { grep "$2" "$dir/$1.log" | tail -1 | sed -nE 's/.* ([0-9.]+) MB in.*/\1/p'; }
s_of() { grep "$2" "$dir/$1.log" | tail -1 | sed -nE 's/.* MB in ([0-9.]+) s.*/\1/p'; }

# One plane costs about 1 % of a 512^3 step, as much as two runs differ: the runs with and
# without it alternate three times, and each takes its fastest.
for rep in 1 2 3; do
    run base$rep base$rep --set time.max_steps="$steps"
    run cross1_$rep cross1_$rep --set time.max_steps="$steps" \
        --set "output.cross={every: $dt, fields: [w], xy: [500]}"
done
run cross_set cross_set --set time.max_steps="$steps" \
    --set "output.cross={every: $dt, fields: [u, v, w, th, vort_z], xy: [100, 500, 1000], xz: [100], yz: [100]}"
run io io --set time.max_steps=1 --set output.checkpoint_every=1e9 \
    --set "output.fields={every: 1e9, names: [u, v, w, th]}"
run restart io --set time.max_steps=2 --set output.checkpoint_every=1e9 --restart latest
grep -hE "^squall: (checkpoint|fields|[0-9]+ steps)" "$dir"/*.log
chk_mb=$(mb_of io "written at step 1") chk_s=$(s_of io "written at step 1")
read_s=$(s_of restart " read: ") fld_mb=$(mb_of io "^squall: fields") fld_s=$(s_of io "^squall: fields")
count=$(python3 -c "print(max(1, round($chk_mb)))")
disk=$(dd if=/dev/zero of="$dir/dd" bs=1M count="$count" conv=fdatasync 2>&1 | tail -1)
disk_s=$(sed -nE 's/.* copied, ([0-9.]+) s,.*/\1/p' <<<"$disk")
fastest() { for rep in 1 2 3; do s_per_step "$1$rep"; done | sort -g | head -1; }
base=$(fastest base) cross1=$(fastest cross1_) cross_set=$(s_per_step cross_set)
for v in base cross1 cross_set chk_s read_s fld_s disk_s; do
    [[ -n ${!v} ]] || fail "no figure for $v"
done
python3 - "$json" <<PY
import json, sys
r = {"case": "$(basename "$case_file" .yaml)", "precision": "$precision", "steps": $steps,
     "s_per_step": $base,
     "cross1_ms_per_sample": round(($cross1 - $base) * 1e3, 3),
     "cross1_fraction_of_step": round(($cross1 - $base) / $base, 4),
     "cross_set_ms_per_sample": round(($cross_set - $base) * 1e3, 3),
     "cross_set_fraction_of_step": round(($cross_set - $base) / $base, 4),
     "checkpoint_mb": $chk_mb, "checkpoint_write_s": $chk_s, "checkpoint_read_s": $read_s,
     "dd_fdatasync_s": $disk_s, "checkpoint_write_over_dd": round($chk_s / $disk_s, 3),
     "fields_mb": $fld_mb, "fields_s": $fld_s}
json.dump(r, open(sys.argv[1], "w"))
print(json.dumps(r))
PY
