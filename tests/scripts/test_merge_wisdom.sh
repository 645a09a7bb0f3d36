#!/usr/bin/env bash
# scripts/merge-wisdom: a source record replaces the destination's record for the same
# size and device, others are kept, a new kernel file is created, and a corrupt source
# is refused without touching the destination.
set -euo pipefail
merge=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/src" "$dir/dst"
hdr='{"key":"k_double","objective":"time","param_names":["block_x"],"type":"squall-wisdom","version":1}'
rec() { # size time device
    printf '{"config":{"block_x":%s},"default_time":1.0,"environment":{"device_name":"%s"},"problem_size":[%s,%s,%s],"time":%s}\n' \
        "$1" "$3" "$1" "$1" "$1" "$2"
}
{ echo "$hdr"; rec 32 0.5 GPU-A; rec 64 0.6 GPU-A; rec 64 0.7 GPU-B; } >"$dir/dst/k_double.wisdom"
{ echo "$hdr"; rec 64 0.1 GPU-A; rec 128 0.2 GPU-A; } >"$dir/src/k_double.wisdom"
{ echo "${hdr/k_double/q_float}"; rec 16 0.3 GPU-A; } >"$dir/src/q_float.wisdom"
"$merge" "$dir/src" "$dir/dst" >/dev/null
fail() { echo "FAIL: $*"; cat "$dir/dst/k_double.wisdom"; exit 1; }
lines=$(grep -c . "$dir/dst/k_double.wisdom")
[[ $lines -eq 5 ]] || fail "expected header + 4 records, got $lines lines"
head -1 "$dir/dst/k_double.wisdom" | grep -q '"type":"squall-wisdom"' || fail "header not first"
grep -q '"problem_size":\[64,64,64\],"time":0.1' "$dir/dst/k_double.wisdom" || fail "64 on GPU-A not replaced"
grep -q '"problem_size":\[64,64,64\],"time":0.6' "$dir/dst/k_double.wisdom" && fail "old 64 on GPU-A kept"
grep -q '"GPU-B"},"problem_size":\[64,64,64\],"time":0.7' "$dir/dst/k_double.wisdom" || fail "GPU-B record lost"
grep -q '"problem_size":\[32,32,32\],"time":0.5' "$dir/dst/k_double.wisdom" || fail "32 record lost"
grep -q '"problem_size":\[128,128,128\]' "$dir/dst/k_double.wisdom" || fail "128 record not added"
[[ -f $dir/dst/q_float.wisdom ]] || fail "new kernel file not created"
# A corrupt source line: error, destination unchanged.
cp "$dir/dst/k_double.wisdom" "$dir/before"
{ echo "$hdr"; echo '{"config":'; } >"$dir/src/k_double.wisdom"
if "$merge" "$dir/src" "$dir/dst" >"$dir/out" 2>&1; then fail "corrupt source accepted"; fi
grep -q "not JSON" "$dir/out" || fail "no message naming the problem: $(cat "$dir/out")"
cmp -s "$dir/before" "$dir/dst/k_double.wisdom" || fail "destination changed by a failed merge"
# A source whose space gained a parameter at the end: merged under the new header.
hdr2=${hdr/\"block_x\"\]/\"block_x\",\"defer\"]}
{ echo "$hdr2"; rec 256 0.05 GPU-A; } >"$dir/src/k_double.wisdom"
"$merge" "$dir/src" "$dir/dst" >/dev/null || fail "appended parameter refused"
head -1 "$dir/dst/k_double.wisdom" | grep -q '"param_names":\["block_x","defer"\]' || fail "header not updated"
grep -q '"problem_size":\[32,32,32\],"time":0.5' "$dir/dst/k_double.wisdom" || fail "old record lost"
# A source whose parameters differ otherwise: refused.
{ echo "${hdr/block_x/block_y}"; rec 8 0.05 GPU-A; } >"$dir/src/k_double.wisdom"
if "$merge" "$dir/src" "$dir/dst" >/dev/null 2>&1; then fail "different parameters accepted"; fi
echo "merge-wisdom: ok"
