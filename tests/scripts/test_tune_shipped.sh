#!/usr/bin/env bash
# scripts/tune-shipped: every case in both precisions from the default, with the separate
# tendency kernels and, where they apply, the fused ones, then one merge into the wisdom
# directory (--dry-run lists the commands); bad arguments are refused.
# Usage: test_tune_shipped.sh SCRIPT SQUALL
set -uo pipefail
script=$1 squall=$2
fail() { echo "FAIL: $*"; exit 1; }
root=$(cd "$(dirname "$script")/.." && pwd)
out=$("$script" --dry-run --squall "$squall") || fail "dry run exited $?"
tunes=$(grep -c " tune --case " <<<"$out")
for c in "$root"/cases/*.yaml; do
    for p in float double; do
        grep -q -- "--case $c --set model.precision=$p --set model.tendencies=separate --from-default" <<<"$out" ||
            fail "no tune of $(basename "$c") in $p with the separate kernels"
    done
done
# drycbl (2i5, smag2, dry) runs the fused kernels too; couette (2, constant, no thermo) cannot.
for p in float double; do
    grep -q -- "--case $root/cases/drycbl.yaml --set model.precision=$p --set model.tendencies=fused" <<<"$out" ||
        fail "no tune of drycbl in $p with the fused kernels"
done
grep -q -- "couette.yaml .*model.tendencies=fused" <<<"$out" && fail "couette tuned with fused kernels"
nfused=$(grep -c "model.tendencies=fused" <<<"$out")
ncases=$(ls "$root"/cases/*.yaml | wc -l)
[[ $tunes -eq $((2 * ncases + nfused)) ]] || fail "expected $((2 * ncases + nfused)) tunes, got $tunes"
[[ $(grep -c "merge-wisdom" <<<"$out") -eq 1 ]] || fail "expected one merge"
grep "merge-wisdom" <<<"$out" | grep -q " $root/wisdom$" || fail "merge not into wisdom/"
[[ $(tail -1 <<<"$out") == *merge-wisdom* ]] || fail "the merge must come after every tune"
grep " tune " <<<"$out" | grep -qv "SQUALL_WISDOM_USER_DIR=" && fail "a tune sees the user wisdom"
out=$("$script" --dry-run --squall "$squall" --cases "drycbl nosuchcase" 2>&1) && fail "unknown case accepted"
grep -q "no case cases/nosuchcase.yaml" <<<"$out" || fail "message: $out"
out=$("$script" --dry-run --precisions half 2>&1) && fail "bad precision accepted"
grep -q "precision 'half'" <<<"$out" || fail "message: $out"
out=$("$script" --squall /nonexistent/squall 2>&1) && fail "missing squall accepted"
grep -q "no squall at /nonexistent/squall" <<<"$out" || fail "message: $out"
echo "tune-shipped: ok ($tunes tunes)"
