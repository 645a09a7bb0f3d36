#!/usr/bin/env bash
# The best known configurations of tuned kernels (docs/performance.md, "Tuning"): at least
# TARGET verified, measured evaluations per kernel and size, from random sampling and
# annealing with fresh seeds, accumulated across calls (and device sessions) in gzipped
# journals kept in DIR (default bench/best_known). Each call captures KERNELS of CASE in
# PRECISION from one step, then tunes each capture that has fewer than TARGET evaluations
# for SECONDS with the next unused seed, alternating random and annealing, until every
# capture has TARGET or TOTAL seconds have passed. Prints per kernel and size the
# evaluations, the best time, its configuration and the journal that found it.
# Usage: best_known.sh SQUALL CASE PRECISION KERNELS SECONDS TOTAL [TARGET] [DIR]
#   KERNELS: SQUALL_CAPTURE patterns, e.g. advec_u_2i5_double,diff_uvw_smag_double
set -uo pipefail
squall=$1 case_file=$2 precision=$3 kernels=$4 seconds=$5 total=$6 target=${7:-3000}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${8:-$here/best_known}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$dir" "$tmp/journals"
for z in "$dir"/*.jsonl.gz; do
    [[ -e $z ]] && gunzip -c "$z" >"$tmp/journals/$(basename "$z" .gz)"
done
SQUALL_CAPTURE="$kernels" SQUALL_CAPTURE_DIR="$tmp/captures" SQUALL_CAPTURE_MAX_MB=65536 \
    "$squall" run "$case_file" --backend gpu --set model.precision="$precision" \
    --set time.max_steps=1 --set output.stats_every=0 --set output.dir="$tmp/run" \
    >"$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; exit 1; }
# The journals' evaluations that were verified and measured, per "key size" (stdin: a
# key and size to count; no argument: the report).
count() {
    python3 - "$tmp/journals" "$@" <<'PY'
import glob, json, os, sys
found = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.jsonl"))):
    lines = [l for l in open(path).read().splitlines() if l.strip()]
    head = json.loads(lines[0])
    key = (head["key"], "x".join(map(str, head["problem"])))
    for l in lines[1:]:
        try:
            e = json.loads(l)
        except json.JSONDecodeError:
            break
        if "final" in e or e.get("status") != "ok" or e.get("same_program"):
            continue
        n, best = found.get(key, (0, None))
        if best is None or e["seconds"] < best[0]:
            best = (e["seconds"], e["config"], os.path.basename(path))
        found[key] = (n + 1, best)
if len(sys.argv) == 4:
    print(found.get((sys.argv[2], sys.argv[3]), (0, None))[0])
    sys.exit()
for (key, size), (n, best) in sorted(found.items()):
    print(f"{key} {size}: {n} verified evaluations, best {best[0] * 1e3:.4f} ms "
          f"by {best[2]}: {json.dumps(best[1], separators=(',', ':'))}")
PY
}
t0=$SECONDS
for round in $(seq 1 1000); do
    strategy=random
    ((round % 2 == 0)) && strategy=annealing
    busy=0
    for capture in "$tmp"/captures/*.json; do
        read -r key size < <(python3 -c "import json,sys; c=json.load(open(sys.argv[1])); print(c['key'], 'x'.join(map(str, c['problem_size'])))" "$capture")
        (($(count "$key" "$size") >= target)) && continue
        ((SECONDS - t0 >= total)) && break 2
        busy=1
        seed=1
        while [[ -e "$tmp/journals/${key}_${size}_${strategy}_s$seed.jsonl" ]]; do ((seed++)); done
        SQUALL_CACHE_DIR="$tmp/cache" SQUALL_WISDOM_USER_DIR="" \
            "$squall" tune "$capture" --strategy "$strategy" --seed "$seed" --time "$seconds" \
            --from-default --out "$tmp/wisdom" --journal "$tmp/journals" 2>&1 |
            grep -E "compiled \(" || true
    done
    ((busy)) || break
done
for j in "$tmp"/journals/*.jsonl; do
    [[ -e $j ]] && gzip -c "$j" >"$dir/$(basename "$j").gz"
done
count
