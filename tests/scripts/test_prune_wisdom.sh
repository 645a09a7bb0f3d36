#!/usr/bin/env bash
# scripts/prune-wisdom: a manifest's launches replace those of the same case and precision
# in launches.json; --prune removes only this device's records no launch needs (a file
# left empty goes), keeping squall tune's records of kernels no case launches (multi-GPU);
# --check finds a record no case launches, a captured launch without a record and too few
# records from squall tune; a corrupt manifest is refused without a change.
set -euo pipefail
prune=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
w=$dir/w
mkdir "$w"
fail() { echo "FAIL: $*"; exit 1; }
hdr() { printf '{"key":"%s","objective":"time","param_names":["block_x"],"type":"squall-wisdom","version":1}\n' "$1"; }
rec() { # size device [tuned]
    local t=""
    [[ ${3:-} == tuned ]] && t=',"tuning":{"capture_hash":"ab","evaluations":9,"rejected":0,"strategy":"local"}'
    printf '{"config":{"block_x":64},"default_time":1.0,"environment":{"device_name":"%s"},"problem_size":[%s,%s,%s],"time":0.5%s}\n' \
        "$2" "$1" "$1" "$1" "$t"
}
launch() { # key size case device tuned [captured]
    printf '{"key":"%s","problem_size":[%s,%s,%s],"device":"%s","source":"/r/cases/%s.yaml (launch of %s)","tuned":%s,"captured":%s}\n' \
        "$1" "$2" "$2" "$2" "$4" "$3" "$1" "$5" "${6:-true}"
}
{ hdr a_double; rec 64 H tuned; rec 32 H; rec 8 H; rec 64 OTHER; } >"$w/a_double.wisdom"
{ hdr a_float; rec 64 H tuned; } >"$w/a_float.wisdom"
{ hdr b_double; rec 16 H; } >"$w/b_double.wisdom"
{ hdr halo_double; rec 3 H tuned; rec 5 H; } >"$w/halo_double.wisdom"
# a_double at 32 was loaded but not captured in one run and captured in the other.
{ launch a_double 64 big H true; launch a_double 32 small H false false; launch a_float 64 big H true
  launch a_double 32 small H false true; } >"$dir/m1"
"$prune" --add "$dir/m1" "$w" >/dev/null
[[ $(grep -c '"captured": true' "$w/launches.json") -eq 3 ]] || fail "captured not merged: $(cat "$w/launches.json")"
"$prune" --prune "$w" >/dev/null
[[ -f $w/b_double.wisdom ]] && fail "b_double (no launch, not from squall tune) kept"
grep -q '"device_name":"OTHER"' "$w/a_double.wisdom" || fail "another device's record removed"
[[ $(grep -c '"device_name":"H"' "$w/a_double.wisdom") -eq 2 ]] || fail "a launched record removed or 8 kept"
grep -q '"problem_size":\[3,3,3\]' "$w/halo_double.wisdom" || fail "squall tune's record of an unlaunched kernel removed"
grep -q '"problem_size":\[5,5,5\]' "$w/halo_double.wisdom" && fail "an old record of an unlaunched kernel kept"
out=$("$prune" --check "$w" 2>&1) && fail "check passed with 3 of 4 records tuned: $out"
grep -q "3 of 4 records carry" <<<"$out" || fail "message: $out"
# case small in double launches a_double at 16 now: its launch at 32 goes, the one at 16 comes.
launch a_double 16 small H true >"$dir/m2"
"$prune" --add "$dir/m2" "$w" >/dev/null
grep -q '"case": "big"' "$w/launches.json" || fail "case big's launches lost"
grep -A6 '"case": "small"' "$w/launches.json" | grep -q '^ *32' && fail "small's old launch kept"
out=$("$prune" --check "$w" 2>&1) && fail "check passed without a record at 16"
grep -q "a_double at (16, 16, 16) on H: launched by a shipped case, no record" <<<"$out" || fail "message: $out"
grep -q "a_double.wisdom: a record at (32, 32, 32) that no shipped case launches" <<<"$out" || fail "message: $out"
# Records for every captured launch, all of this device's from squall tune (the other
# device's old one does not count): check passes. A launch never captured needs no record.
{ hdr a_double; rec 16 H tuned; rec 64 H tuned; rec 64 OTHER; } >"$w/a_double.wisdom"
launch c_float 9 small H false false >"$dir/m4"
cat "$dir/m2" "$dir/m4" >"$dir/m5"
"$prune" --add "$dir/m5" "$w" >/dev/null
"$prune" --check "$w" >/dev/null || fail "check refused a consistent directory: $("$prune" --check "$w" 2>&1)"
# A corrupt manifest: refused, launches.json unchanged.
cp "$w/launches.json" "$dir/before"
echo '{"key":' >"$dir/m3"
out=$("$prune" --add "$dir/m3" "$w" 2>&1) && fail "corrupt manifest accepted"
grep -q "not a launch line" <<<"$out" || fail "message: $out"
cmp -s "$dir/before" "$w/launches.json" || fail "launches.json changed by a refused manifest"
echo "prune-wisdom: ok"
