#!/usr/bin/env bash
# squall run --profile (as SQUALL_PROFILE=1) on the CPU: every launch of a step must be
# counted.
# drycbl 48^3, RK3, 4 steps: each substep advects u once (12 calls), ends the projection
# with the RK stage of u, v and w in one pass (12 calls), updates th on its own (12 calls)
# and damps u, v, th in the sponge only: z > 1800 m of 2400 m with dz = 50 m is the top 12
# levels (36 calls of 48x48x12).
# Usage: cpu_profile_table.sh SQUALL CASE
set -uo pipefail
squall=$1 case_file=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run() { # extra arguments go to squall run
    "$squall" run "$case_file" "$@" --backend cpu --set time.max_steps=4 --set time.adaptive=false \
        --set output.stats_every=0 --set output.status_every=1000 --set output.dir="$dir" 2>&1
}
fail=0
check() { # kernel size expected-calls (0: no row)
    local got
    got=$(awk -v k="$1" -v s="$2" '$1 == k && $2 == s { print $3 }' "$dir/log")
    if [[ "${got:-0}" != "$3" ]]; then
        echo "FAIL: $1 $2: ${got:-0} calls, expected $3"
        fail=1
    fi
}
(unset SQUALL_PROFILE; run --profile >"$dir/log") || { cat "$dir/log"; exit 1; }
sed -n '/CPU time per kernel/,$p' "$dir/log"
check advec_u_2i5 48x48x48 12
check diff_uvw_smag 48x48x48 12
check pres_out_rk 48x48x48 12
check rk_update 48x48x48 12
check rk_update 48x48x47 0
check sponge 48x48x12 36
# The timed kernels fit inside the loop's wall time.
share=$(awk '/all timed kernels/ { sub("%", "", $(NF)); print $(NF) }' "$dir/log")
if [[ -z "$share" ]] || awk -v s="$share" 'BEGIN { exit !(s <= 0 || s > 100) }'; then
    echo "FAIL: timed share '$share' is not in (0, 100]"
    fail=1
fi
# Without the setting there is no table.
(unset SQUALL_PROFILE; run >"$dir/plain") || { cat "$dir/plain"; exit 1; }
if grep -q "time per kernel" "$dir/plain"; then
    echo "FAIL: a table without SQUALL_PROFILE"
    fail=1
fi
((fail == 0)) && echo "CPU profile table: all counts as expected"
exit $fail
