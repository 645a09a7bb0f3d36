#!/usr/bin/env bash
# The tuner's strategies against each other on real captures (docs/performance.md,
# "Tuning"): captures KERNELS of CASE in PRECISION from one step, then tunes each capture
# with every strategy and seed for SECONDS, from the default, with an empty compile cache
# per run, and reports with tune_strategies_report.py (the best configuration found by
# any run is the reference).
# Usage: tune_strategies.sh SQUALL CASE PRECISION KERNELS SECONDS SEEDS OUTDIR [STRATEGIES]
#   KERNELS: SQUALL_CAPTURE patterns, e.g. advec_u_2i5_double,diff_uvw_smag_double
#   SEEDS, STRATEGIES: separated by spaces or commas, e.g. "1,2,3"
# REFERENCE_WISDOM=DIR also measures DIR's record for each capture (its journal goes to
# OUTDIR/reference): it joins the best known without counting as a strategy.
set -uo pipefail
squall=$1 case_file=$2 precision=$3 kernels=$4 seconds=$5 seeds=${6//,/ } out=$7
strategies=${8:-random local annealing forest}
strategies=${strategies//,/ }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
SQUALL_CAPTURE="$kernels" SQUALL_CAPTURE_DIR="$tmp/captures" SQUALL_CAPTURE_MAX_MB=65536 \
    "$squall" run "$case_file" --backend gpu --set model.precision="$precision" \
    --set time.max_steps=1 --set output.stats_every=0 --set output.dir="$tmp/run" \
    >"$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; exit 1; }
for capture in "$tmp"/captures/*.json; do
    if [ -n "${REFERENCE_WISDOM:-}" ]; then
        SQUALL_WISDOM_PROJECT_DIR="$REFERENCE_WISDOM" SQUALL_WISDOM_USER_DIR="" \
            "$squall" tune "$capture" --strategy local --evals 2 --out "$tmp/wisdom-ref" \
            --journal "$out/reference" 2>&1 | grep -E "^(advec|diff|[a-z_]+_(float|double) )" || true
    fi
    for strategy in $strategies; do
        for seed in $seeds; do
            rm -rf "$tmp/cache"
            SQUALL_CACHE_DIR="$tmp/cache" SQUALL_WISDOM_USER_DIR="" \
                "$squall" tune "$capture" --strategy "$strategy" --seed "$seed" \
                --time "$seconds" --from-default --out "$tmp/wisdom" --journal "$out/journals" \
                2>&1 | grep -E "^(advec|diff|[a-z_]+_(float|double) )|compiled \(" || true
        done
    done
done
python3 "$here/tune_strategies_report.py" "$out/journals" "$out/tune_strategies.json" \
    ${REFERENCE_WISDOM:+"$out/reference"}
