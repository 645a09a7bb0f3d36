#!/usr/bin/env bash
# squall tune without a GPU: a non-zero exit and a message that says so, for a case and
# for capture files (CUDA_VISIBLE_DEVICES= hides any GPU this machine has); a case with
# several strategies or seeds, or --cold-cache, is refused, and so are a malformed
# SQUALL_COMPILE_PROCESSES and fewer than two batches in flight.
set -u
squall=$1 case_file=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
echo '{}' >"$tmp/capture.json" # exists: a missing file is refused before the GPU check
for args in "--case $case_file" "$tmp/capture.json"; do
    out=$(CUDA_VISIBLE_DEVICES= "$squall" tune $args --out "$tmp/w" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -ne 0 ] || fail "squall tune $args exited 0 without a GPU"
    grep -q "needs a GPU" <<<"$out" || fail "no 'needs a GPU' message for squall tune $args"
done
# Several strategies or seeds are for captures; a case is refused before anything runs.
for args in "--strategy random,local" "--seed 1,2" "--cold-cache"; do
    out=$("$squall" tune --case "$case_file" $args --out "$tmp/w" 2>&1)
    [ $? -ne 0 ] && grep -q "are for captures, not --case" <<<"$out" ||
        fail "squall tune --case $args was not refused: $out"
done
# A compile-process count that is not a number is named, before anything runs.
out=$(SQUALL_COMPILE_PROCESSES=many "$squall" tune --case "$case_file" --out "$tmp/w" 2>&1)
[ $? -ne 0 ] && grep -q "SQUALL_COMPILE_PROCESSES='many'" <<<"$out" ||
    fail "SQUALL_COMPILE_PROCESSES=many was not refused: $out"
# Fewer than two batches in flight is refused, naming the option.
out=$("$squall" tune --case "$case_file" --in-flight 1 --out "$tmp/w" 2>&1)
[ $? -ne 0 ] && grep -q -- "--in-flight: Value 1 not in range" <<<"$out" ||
    fail "squall tune --in-flight 1 was not refused: $out"
[ ! -e "$tmp/w" ] || fail "a wisdom directory was written"
echo PASS
