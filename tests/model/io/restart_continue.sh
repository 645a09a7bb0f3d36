#!/bin/bash
# Bitwise restart through the squall program on one backend, precision and rank count:
# N+M steps straight, and N steps then `--restart latest` for M more, must end in the same
# checkpoint, byte for byte, with the same statistics file. With OTHER_BACKEND set, the
# step-N checkpoint is also continued there: the log must say it continues to round-off,
# and the fields must agree with the straight run to REL_TOL (default 1e-8) of their scale.
# Usage: restart_continue.sh SQUALL CASE CHECKPOINT_COMPARE STATS_COMPARE BACKEND PRECISION
#                            NRANKS [MPIEXEC...]
set -u
squall=$1 case=$2 compare=$3 stats_compare=$4 backend=$5 precision=$6 nranks=$7
shift 7
mpiexec=("$@")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
n_first=6 n_total=12
npx=1 npy=1
[ "$nranks" -eq 2 ] && npx=2
[ "$nranks" -eq 4 ] && npx=2 npy=2
launch=()
[ "$nranks" -gt 1 ] && launch=("${mpiexec[@]}" -n "$nranks")
opts=(--set model.precision="$precision" --set grid.itot=32 --set grid.jtot=32
      --set grid.ktot=32 --set mpi.npx=$npx --set mpi.npy=$npy --set output.stats_every=20
      --set output.status_every=1 --set output.checkpoint_every=1e9)
# Without a GPU the gpu variants skip (exit 77), unless the machine must have one.
if [ "$backend" = gpu ] && [ -z "${SQUALL_REQUIRE_GPU:-}" ] && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIP: no GPU"
    exit 77
fi
fail() { echo "FAIL ($backend, $precision, $nranks rank(s)): $*"; exit 1; }
run() { # LOG ARGS...: one squall run, its log kept
    local log=$1; shift
    "${launch[@]}" "$squall" run "$case" "${opts[@]}" "$@" >"$log" 2>&1 ||
        fail "squall $*: $(tail -3 "$log")"
}

run "$dir/straight.log" --backend "$backend" --set time.max_steps=$n_total \
    --set output.dir="$dir/straight"
run "$dir/first.log" --backend "$backend" --set time.max_steps=$n_first \
    --set output.dir="$dir/stopped"
mid=$(ls "$dir/stopped"/*.chk.*.h5)
[ "$(echo "$mid" | wc -l)" -eq 1 ] || fail "expected one checkpoint after $n_first steps: $mid"
cp "$mid" "$dir/mid.h5"
run "$dir/restarted.log" --backend "$backend" --set time.max_steps=$n_total \
    --set output.dir="$dir/stopped" --restart latest
grep -q "squall: restart from .* at step $n_first" "$dir/restarted.log" ||
    fail "no restart message: $(tail -3 "$dir/restarted.log")"
final=$(ls "$dir/straight"/*.chk.*.h5)
cont=$(ls "$dir/stopped"/*.chk.*.h5 | tail -1)
"$compare" "$final" "$cont" || fail "the continued run differs from the uninterrupted one"
stats=$(basename "$(ls "$dir/straight"/*.stats.h5)")
"$stats_compare" "$dir/straight/$stats" "$dir/stopped/$stats" --ignore /configuration ||
    fail "the continued statistics differ from the uninterrupted run's"
echo "$backend, $precision, $nranks rank(s): restarted at step $n_first, bitwise equal at step $n_total"

if [ -n "${OTHER_BACKEND:-}" ]; then
    mkdir -p "$dir/other"
    cp "$dir/mid.h5" "$dir/other/"
    run "$dir/other.log" --backend "$OTHER_BACKEND" --set time.max_steps=$n_total \
        --set output.dir="$dir/other" --restart "$dir/other/mid.h5"
    grep -q "continues to round-off, not bitwise" "$dir/other.log" ||
        fail "the log of the $OTHER_BACKEND continuation does not say it is not bitwise"
    other=$(ls "$dir/other"/*.chk.*.h5 | grep -v mid.h5 | tail -1)
    "$compare" "$final" "$other" --rel "${REL_TOL:-1e-8}" ||
        fail "the $OTHER_BACKEND continuation is not within ${REL_TOL:-1e-8} of the $backend run"
    echo "continued on $OTHER_BACKEND: within ${REL_TOL:-1e-8} of the $backend run"
fi
