#!/usr/bin/env bash
# Full RK3 time step on the GPU: runs `squall run CASE --backend gpu` for STEPS steps in
# PRECISION and writes {"ns_per_point_step", "s_per_step", ...} to JSON, parsed from the
# summary line Model::run prints ("... s/step, X ns per grid point per step (RK3)").
# Kernel compilation happens before the time loop and is not in the figure.
# Usage: step_timing.sh SQUALL CASE PRECISION STEPS OUT.json [squall run options...]
set -uo pipefail
squall=$1 case_file=$2 precision=$3 steps=$4 json=$5
shift 5
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$squall" run "$case_file" --backend gpu --set model.precision="$precision" \
    --set time.max_steps="$steps" --set output.stats_every=0 --set output.status_every=100000 \
    --set output.dir="$dir" "$@" >"$dir/log" 2>&1
status=$?
grep -E "^squall|^step|rror" "$dir/log"
line=$(grep "ns per grid point per step" "$dir/log" | tail -1)
compile=$(grep -o "in parallel in [0-9.]* s" "$dir/log" | grep -o "[0-9.]*" | head -1)
if ((status != 0)) || [[ -z $line ]]; then echo "FAIL: no summary line"; exit 1; fi
ns=$(sed -E 's/.*, ([0-9.]+) ns per grid point.*/\1/' <<<"$line")
sps=$(sed -E 's/.*: ([0-9.eE+-]+) s\/step.*/\1/' <<<"$line")
printf '{"case": "%s", "precision": "%s", "steps": %s, "s_per_step": %s, "ns_per_point_step": %s, "compile_s": %s}\n' \
    "$(basename "$case_file" .yaml)" "$precision" "$steps" "$sps" "$ns" "${compile:-null}" | tee "$json"
