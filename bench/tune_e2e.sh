#!/usr/bin/env bash
# End-to-end check of `squall tune` on this GPU (docs/tuning.md): the shipped wisdom
# without this device's records, `squall tune --case` with a budget, then the case again.
# Prints and writes (OUT.json) the step time with the shipped wisdom, without this
# device's records, and with the new records, and how many kernels took a new record.
# Usage: tune_e2e.sh SQUALL CASE PRECISION SECONDS_PER_KERNEL OUT.json [tune options...]
set -uo pipefail
squall=$1 case_file=$2 precision=$3 budget=$4 json=$5
shift 5
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
mkdir -p "$tmp/project" "$tmp/user"
# The shipped wisdom minus this device's records.
python3 - "$here/../wisdom" "$tmp/project" "$device" <<'PY'
import json, os, sys
src, dst, device = sys.argv[1:]
for name in os.listdir(src):
    if not name.endswith(".wisdom"):
        continue
    lines = open(os.path.join(src, name)).read().splitlines()
    keep = [lines[0]] + [l for l in lines[1:] if l.strip() and
                         json.loads(l)["environment"]["device_name"] != device]
    open(os.path.join(dst, name), "w").write("\n".join(keep) + "\n")
PY
step() { # label, then env assignments for the run
    local label=$1; shift
    env "$@" bash "$here/step_timing.sh" "$squall" "$case_file" "$precision" 100 "$tmp/$label.json" \
        >"$tmp/$label.log" 2>&1 || { cat "$tmp/$label.log"; echo "FAIL: $label"; exit 1; }
    python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['s_per_step'])" "$tmp/$label.json"
}
shipped=$(step shipped)
stripped=$(step stripped SQUALL_WISDOM_PROJECT_DIR="$tmp/project" SQUALL_WISDOM_USER_DIR="$tmp/user")
t0=$SECONDS
SQUALL_WISDOM_PROJECT_DIR="$tmp/project" SQUALL_WISDOM_USER_DIR="$tmp/user" \
    "$squall" tune --case "$case_file" --set model.precision="$precision" --time "$budget" "$@" \
    2>&1 | grep -v "^squall: info: wisdom for" | tee "$tmp/tune.log"
tune_s=$((SECONDS - t0))
# The run with the new records: its log names the file of each record it took.
SQUALL_WISDOM_PROJECT_DIR="$tmp/project" SQUALL_WISDOM_USER_DIR="$tmp/user" \
    "$squall" run "$case_file" --backend gpu --set model.precision="$precision" \
    --set time.max_steps=1 --set output.stats_every=0 --set output.dir="$tmp/run" >"$tmp/run.log" 2>&1
used=$(grep "wisdom for" "$tmp/run.log" | grep -c "$tmp/user/")
total=$(grep -c "wisdom for" "$tmp/run.log")
grep "wisdom for" "$tmp/run.log" | grep "$tmp/user/" | head -3
tuned=$(step tuned SQUALL_WISDOM_PROJECT_DIR="$tmp/project" SQUALL_WISDOM_USER_DIR="$tmp/user")
printf '{"case": "%s", "precision": "%s", "budget_s_per_kernel": %s, "tune_wall_s": %s, "s_per_step_shipped": %s, "s_per_step_without_device_records": %s, "s_per_step_tuned": %s, "kernels_with_new_records": %s, "wisdom_selections": %s}\n' \
    "$(basename "$case_file" .yaml)" "$precision" "$budget" "$tune_s" "$shipped" "$stripped" "$tuned" "$used" "$total" | tee "$json"
python3 -c "import sys; s,t=float(sys.argv[1]),float(sys.argv[2]); print(f'tuned / shipped step time: {t/s:.3f}')" "$shipped" "$tuned"
