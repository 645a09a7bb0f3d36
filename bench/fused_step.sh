#!/usr/bin/env bash
# The fused tendency kernels on the GPU (docs/performance.md, "Full RK3 step"): the step
# with the separate kernels (shipped wisdom), then `squall tune --case` of the fused
# kernels alone (tend_*, strain_evisc_*) from their default for SECONDS each, then the step with them
# (model.tendencies=fused). Writes the step times and their ratio to OUT.json.
# Usage: fused_step.sh SQUALL CASE PRECISION SECONDS OUT.json
# FUSED_WISDOM_DIR=DIR keeps the fused kernels' wisdom there (merged, the best record per
# size kept) instead of in a temporary directory, to ship with scripts/merge-wisdom.
set -uo pipefail
squall=$1 case_file=$2 precision=$3 seconds=$4 json=$5
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
user=${FUSED_WISDOM_DIR:-$tmp/user}
mkdir -p "$user"
sps() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['s_per_step'])" "$1"; }
bash "$here/step_timing.sh" "$squall" "$case_file" "$precision" 50 "$tmp/separate.json" \
    --set model.tendencies=separate || exit 1
SQUALL_WISDOM_USER_DIR="$user" "$squall" tune --case "$case_file" \
    --set model.precision="$precision" --set model.tendencies=fused --only 'tend_*,strain_evisc_*' \
    --time "$seconds" --from-default --out "$user" 2>&1 | grep -v "^squall: info: wisdom for"
SQUALL_WISDOM_USER_DIR="$user" bash "$here/step_timing.sh" "$squall" "$case_file" \
    "$precision" 50 "$tmp/fused.json" --set model.tendencies=fused || exit 1
separate=$(sps "$tmp/separate.json") fused=$(sps "$tmp/fused.json")
printf '{"case": "%s", "precision": "%s", "s_per_step_separate": %s, "s_per_step_fused": %s, "fused_over_separate": %s}\n' \
    "$(basename "$case_file" .yaml)" "$precision" "$separate" "$fused" \
    "$(python3 -c "print(round($fused / $separate, 4))")" | tee "$json"
