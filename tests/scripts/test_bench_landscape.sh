#!/usr/bin/env bash
# scripts/bench-landscape: per-parameter best times relative to the overall best, from a
# benchmark JSON with timings; a file without them or a bad file is reported clearly.
set -euo pipefail
tool=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat >"$dir/b.json" <<'JSON'
{"ceiling_bytes_per_s": 3.99e12, "device": "X", "kernels": [
 {"key": "k_double", "problem": [8, 8, 8], "timings": [
   {"config": {"block_x": 64, "defer": 0}, "ms": 2.0},
   {"config": {"block_x": 128, "defer": 0}, "ms": 3.0},
   {"config": {"block_x": 64, "defer": 1}, "ms": 1.0}]},
 {"key": "old_float", "problem": [8, 8, 8]}]}
JSON
out=$("$tool" "$dir/b.json")
echo "$out" | grep -q "k_double 8x8x8: 3 configurations, best 1.0000 ms" || fail "summary: $out"
echo "$out" | grep -Eq "block_x +64:1.00  128:3.00" || fail "block_x line: $out"
echo "$out" | grep -Eq "defer +0:2.00  1:1.00" || fail "defer line: $out"
echo "$out" | grep -q "old_float: no timings recorded" || fail "old file not reported: $out"
"$tool" "$dir/b.json" k_double | grep -q "old_float" && fail "KEY did not filter"
if "$tool" "$dir/b.json" nope >"$dir/o" 2>&1; then fail "unknown key accepted"; fi
grep -q "no kernel 'nope'" "$dir/o" || fail "no message for an unknown key"
echo '{"kernels": ' >"$dir/bad.json"
if "$tool" "$dir/bad.json" >"$dir/o" 2>&1; then fail "bad JSON accepted"; fi
grep -q "not a gpu_kernel_bench JSON file" "$dir/o" || fail "no message for bad JSON"
echo "bench-landscape: ok"
