#!/usr/bin/env bash
# scripts/tune-shipped: every GPU case in both precisions from the default, with the
# separate tendency kernels and, where they apply, the fused ones, each listing its launches
# in one manifest; then one merge into the wisdom directory, the manifest folded into
# launches.json and, after a full run only, the prune (--dry-run lists the commands); bad
# arguments are refused.
# Usage: test_tune_shipped.sh SCRIPT SQUALL
set -uo pipefail
script=$1 squall=$2
fail() { echo "FAIL: $*"; exit 1; }
root=$(cd "$(dirname "$script")/.." && pwd)
out=$("$script" --dry-run --squall "$squall") || fail "dry run exited $?"
tunes=$(grep -c " tune --case " <<<"$out")
cases="drycbl_256 drycbl_512 gabls1_512 bomex_512"
for c in $cases; do
    for p in float double; do
        grep -q -- "--case $root/cases/$c.yaml --set model.precision=$p --set model.tendencies=separate --from-default" <<<"$out" ||
            fail "no tune of $c in $p with the separate kernels"
        # All four (2i5, Smagorinsky) run the fused kernels too.
        grep -q -- "--case $root/cases/$c.yaml --set model.precision=$p --set model.tendencies=fused --from-default" <<<"$out" ||
            fail "no tune of $c in $p with the fused kernels"
    done
done
[[ $tunes -eq 16 ]] || fail "expected 16 tunes, got $tunes"
[[ $(grep " tune " <<<"$out" | grep -c -- "--manifest $(sed -n 's/.*--manifest \([^ ]*\).*/\1/p' <<<"$out" | head -1)") -eq 16 ]] ||
    fail "the tunes do not share one manifest"
grep " tune " <<<"$out" | grep -q -- "--untuned" && fail "--untuned without asking"
[[ $(grep -c "merge-wisdom" <<<"$out") -eq 1 ]] || fail "expected one merge"
grep "merge-wisdom" <<<"$out" | grep -q " $root/wisdom$" || fail "merge not into wisdom/"
tail -3 <<<"$out" | head -1 | grep -q "merge-wisdom" || fail "the merge must come after every tune"
tail -2 <<<"$out" | head -1 | grep -q "prune-wisdom --add .* $root/wisdom$" || fail "no manifest fold after the merge"
tail -1 <<<"$out" | grep -q "prune-wisdom --prune $root/wisdom$" || fail "a full run must prune last"
grep " tune " <<<"$out" | grep -qv "SQUALL_WISDOM_USER_DIR=" && fail "a tune sees the user wisdom"
grep " tune " <<<"$out" | grep -qv "SQUALL_WISDOM_PATH= " && fail "a tune sees SQUALL_WISDOM_PATH"
grep " tune " <<<"$out" | grep -qv "SQUALL_WISDOM_PROJECT_DIR=$root/wisdom " && fail "a tune looks elsewhere for records"
# One case, --untuned: passed on; no prune unless asked.
out=$("$script" --dry-run --squall "$squall" --cases drycbl --untuned) || fail "drycbl dry run exited $?"
[[ $(grep " tune " <<<"$out" | grep -c -- "--untuned") -eq 4 ]] || fail "--untuned not passed to each tune"
grep -q "prune-wisdom --prune" <<<"$out" && fail "a partial run pruned"
# --untuned merges after each tune instead, so that the next one keeps what it tuned.
[[ $(grep -c "merge-wisdom .* $root/wisdom$" <<<"$out") -eq 4 ]] || fail "--untuned: not one merge after each tune"
[[ $(grep -A1 " tune " <<<"$out" | grep -c "merge-wisdom") -eq 4 ]] || fail "--untuned: a tune not followed by its merge"
# Every shipped case in another order is a full run too.
out=$("$script" --dry-run --squall "$squall" --cases "bomex_512 gabls1_512 drycbl_512 drycbl_256" \
    --precisions "double float") || fail "reordered dry run exited $?"
tail -1 <<<"$out" | grep -q "prune-wisdom --prune" || fail "a full run in another order did not prune"
out=$("$script" --dry-run --squall "$squall" --cases couette --prune) || fail "couette dry run exited $?"
grep -q -- "couette.yaml .*model.tendencies=fused" <<<"$out" && fail "couette tuned with fused kernels"
grep -q "prune-wisdom --prune" <<<"$out" || fail "--prune ignored"
# --work: the journals, records and manifest go there and stay, so a stopped run resumes.
work=$(mktemp -d)
out=$("$script" --dry-run --squall "$squall" --cases drycbl --work "$work/w") || fail "--work dry run exited $?"
[[ $(grep " tune " <<<"$out" | grep -c -- "--out $work/w/wisdom --journal $work/w/journal --manifest $work/w/launches.jsonl") -eq 4 ]] ||
    fail "--work not used by every tune"
[[ -d $work/w ]] || fail "--work directory removed"
rm -rf "$work"
# --deadline: each tune's budget is cut to what is left, less the merge's 15 s; with under
# 45 s left no tune starts, and the stop is exit status 3, without a prune.
out=$("$script" --dry-run --squall "$squall" --cases drycbl --total-time 300 --deadline 100) ||
    fail "--deadline 100 dry run exited $?"
# 85 s less the seconds the run took before each tune (its `squall check` calls).
budgets=$(grep " tune " <<<"$out" | grep -o -- "--total-time [0-9]*" | cut -d' ' -f2)
[[ $(wc -w <<<"$budgets") -eq 4 ]] || fail "--deadline 100: not 4 tunes: $out"
for b in $budgets; do
    ((b <= 85 && b >= 65)) || fail "--deadline 100: a tune's --total-time is $b, not 85 less the time spent"
done
out=$("$script" --dry-run --squall "$squall" --cases drycbl --total-time 60 --deadline 100) || fail "dry run exited $?"
[[ $(grep " tune " <<<"$out" | grep -c -- "--total-time 60 ") -eq 4 ]] || fail "--deadline raised --total-time: $out"
out=$("$script" --dry-run --squall "$squall" --cases drycbl --deadline 44 2>&1)
rc=$?
[[ $rc -eq 3 ]] || fail "--deadline 44: exit $rc, not 3"
grep -q " tune " <<<"$out" && fail "--deadline 44 started a tune"
grep -q "prune-wisdom --prune" <<<"$out" && fail "a run stopped by its deadline pruned"
grep -q "the deadline (44 s) left 4 tune(s) to run" <<<"$out" || fail "message: $out"
out=$("$script" --dry-run --squall "$squall" --deadline soon 2>&1) && fail "--deadline soon accepted"
grep -q "deadline 'soon' is not whole seconds" <<<"$out" || fail "message: $out"
out=$("$script" --dry-run --squall "$squall" --cases "drycbl nosuchcase" 2>&1) && fail "unknown case accepted"
grep -q "no case cases/nosuchcase.yaml" <<<"$out" || fail "message: $out"
out=$("$script" --dry-run --precisions half 2>&1) && fail "bad precision accepted"
grep -q "precision 'half'" <<<"$out" || fail "message: $out"
out=$("$script" --squall /nonexistent/squall 2>&1) && fail "missing squall accepted"
grep -q "no squall at /nonexistent/squall" <<<"$out" || fail "message: $out"
echo "tune-shipped: ok ($tunes tunes)"
