#!/usr/bin/env bash
# scripts/plot-tune: two journals with known best-so-far times give a PNG and the expected
# summaries; a truncated last line only warns; a bad middle line or header is an error
# naming the file and line. Needs matplotlib (scripts/setup installs it): fails without.
set -euo pipefail
tool=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
hdr() { # key problem strategy seed
    printf '{"type":"squall-tune-journal","version":1,"key":"%s","problem":[%s],"device":"GPU-A","strategy":"%s","seed":%s,"batch":4,"capture_hash":"ab12","params":["block_x"]}\n' "$@"
}
ev() { # n status seconds t [extra]
    local s=""
    [[ $2 == ok ]] && s=",\"seconds\":$3"
    printf '{"n":%s,"config":{"block_x":%s},"status":"%s"%s,"t":%s%s}\n' "$1" $((32 << $1)) "$2" "$s" "$4" "${5:-}"
}
# a: the default first (1.23 ms), improvements to 0.95 and 0.90 ms, then a slower one;
# a final record.
{
    hdr advec_u_2i5_double 256,256,256 annealing 1
    ev 0 ok 1.23e-3 0.5 ',"default":true'
    ev 1 compile - 0.9
    ev 2 ok 2.0e-3 1.2
    ev 3 ok 0.95e-3 1.6
    ev 4 verify - 2.0
    ev 5 ok 0.90e-3 2.4
    ev 6 ok 1.1e-3 2.8
    echo '{"final":{"config":{"block_x":1024},"seconds":0.0009,"default_seconds":0.00123,"evaluations":6,"rejected":2}}'
} >"$dir/a.jsonl"
# b: no default evaluation, best 2.5 ms, and a last line cut short by a killed tune.
{
    hdr diff_c_double 128,64,32 forest 2
    ev 0 ok 5e-3 0.1
    ev 1 ok 4e-3 0.3
    ev 2 launch - 0.4
    ev 3 ok 4.5e-3 0.5
    ev 4 ok 2.5e-3 0.8
    ev 5 ok 2.6e-3 0.9
    printf '{"n":6,"config":{"blo'
} >"$dir/b.jsonl"
"$tool" "$dir/a.jsonl" "$dir/b.jsonl" -o "$dir/out.png" --title "test" >"$dir/out" 2>"$dir/err" ||
    fail "plot-tune failed: $(cat "$dir/out" "$dir/err")"
grep -qx "advec_u_2i5_double 256x256x256 annealing seed 1: 7 evaluations, 5 ok, default 1.2300 ms, best 0.9000 ms at 2.40 s" \
    "$dir/out" || fail "summary of a: $(cat "$dir/out")"
grep -qx "diff_c_double 128x64x32 forest seed 2: 6 evaluations, 5 ok, best 2.5000 ms at 0.80 s" \
    "$dir/out" || fail "summary of b: $(cat "$dir/out")"
grep -q "warning: .*b.jsonl:8: truncated last line" "$dir/err" || fail "no warning for the truncated line: $(cat "$dir/err")"
[[ -f $dir/out.png ]] || fail "no PNG written"
[[ $(head -c 8 "$dir/out.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "not a PNG"
size=$(stat -c %s "$dir/out.png")
((size > 10000)) || fail "PNG of only $size bytes"
# A bad line in the middle: error naming the file and line, no traceback.
sed '4s/.*/{"n":2,"config":/' "$dir/a.jsonl" >"$dir/bad.jsonl"
if "$tool" "$dir/bad.jsonl" -o "$dir/bad.png" >"$dir/o" 2>&1; then fail "bad middle line accepted"; fi
grep -q "bad.jsonl:4: not JSON" "$dir/o" || fail "no file:line for the bad line: $(cat "$dir/o")"
grep -q Traceback "$dir/o" && fail "traceback on a bad line"
# An "ok" evaluation without seconds, and a wrong header: errors too.
sed '2s/"seconds":[^,]*,//' "$dir/a.jsonl" >"$dir/noseconds.jsonl"
if "$tool" "$dir/noseconds.jsonl" -o "$dir/bad.png" >"$dir/o" 2>&1; then fail "ok without seconds accepted"; fi
grep -q "noseconds.jsonl:2: " "$dir/o" || fail "no file:line for ok without seconds: $(cat "$dir/o")"
sed '1s/squall-tune-journal/squall-wisdom/' "$dir/a.jsonl" >"$dir/hdr.jsonl"
if "$tool" "$dir/hdr.jsonl" -o "$dir/bad.png" >"$dir/o" 2>&1; then fail "wrong header accepted"; fi
grep -q "hdr.jsonl:1: not a squall-tune-journal" "$dir/o" || fail "no file:line for the header: $(cat "$dir/o")"
echo "plot-tune: ok"
