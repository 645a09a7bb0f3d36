#!/bin/bash
# Bitwise restart through the squall program on one backend, precision and rank count:
# N+M steps straight, and N steps then `--restart latest` for M more, must end in the same
# checkpoint, byte for byte, with the same statistics file. With OTHER_BACKEND or
# OTHER_RANKS set, the run stopped at step N (its checkpoint and statistics) is also
# continued on that backend or rank count: the log must say it continues to round-off, and
# the fields must agree with the straight run to REL_TOL (default 1e-8) of their scale.
# Usage: restart_continue.sh SQUALL CASE CHECKPOINT_COMPARE STATS_COMPARE BACKEND PRECISION
#                            NRANKS [MPIEXEC...]
set -u
squall=$1 case=$2 compare=$3 stats_compare=$4 backend=$5 precision=$6 nranks=$7
shift 7
mpiexec=("$@")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
n_first=6 n_total=12
opts=(--set model.precision="$precision" --set grid.itot=32 --set grid.jtot=32
      --set grid.ktot=32 --set output.stats_every=20 --set output.status_every=1
      --set output.checkpoint_every=1e9)
# Without a GPU the gpu variants skip (exit 77), unless the machine must have one.
if [ "$backend" = gpu ] && [ -z "${SQUALL_REQUIRE_GPU:-}" ] && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIP: no GPU"
    exit 77
fi
fail() { echo "FAIL ($backend, $precision, $nranks rank(s)): $*"; exit 1; }
run() { # NRANKS LOG ARGS...: one squall run on 1, 2 (2 x 1) or 4 (2 x 2) ranks, its log kept
    local n=$1 log=$2 launch=() layout=(--set mpi.npx=1 --set mpi.npy=1)
    shift 2
    [ "$n" -gt 1 ] && launch=("${mpiexec[@]}" -n "$n")
    [ "$n" -eq 2 ] && layout=(--set mpi.npx=2 --set mpi.npy=1)
    [ "$n" -eq 4 ] && layout=(--set mpi.npx=2 --set mpi.npy=2)
    "${launch[@]}" "$squall" run "$case" "${opts[@]}" "${layout[@]}" "$@" >"$log" 2>&1 ||
        fail "squall $*: $(grep -m3 -i "error" "$log" || tail -3 "$log")"
}

run "$nranks" "$dir/straight.log" --backend "$backend" --set time.max_steps=$n_total \
    --set output.dir="$dir/straight"
run "$nranks" "$dir/first.log" --backend "$backend" --set time.max_steps=$n_first \
    --set output.dir="$dir/stopped"
mid=$(ls "$dir/stopped"/*.chk.*.h5)
[ "$(echo "$mid" | wc -l)" -eq 1 ] || fail "expected one checkpoint after $n_first steps: $mid"
cp -r "$dir/stopped" "$dir/other" # the state at step N, for the other continuation
run "$nranks" "$dir/restarted.log" --backend "$backend" --set time.max_steps=$n_total \
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

if [ -n "${OTHER_BACKEND:-}${OTHER_RANKS:-}" ]; then
    other_backend=${OTHER_BACKEND:-$backend} other_ranks=${OTHER_RANKS:-$nranks}
    what="$other_backend on $other_ranks rank(s)"
    run "$other_ranks" "$dir/other.log" --backend "$other_backend" --set time.max_steps=$n_total \
        --set output.dir="$dir/other" --restart latest
    grep -q "continues to round-off, not bitwise" "$dir/other.log" ||
        fail "the log of the continuation on $what does not say it is not bitwise"
    other=$(ls "$dir/other"/*.chk.*.h5 | tail -1)
    "$compare" "$final" "$other" --rel "${REL_TOL:-1e-8}" ||
        fail "the continuation on $what is not within ${REL_TOL:-1e-8} of the $backend run"
    echo "continued on $what: within ${REL_TOL:-1e-8} of the $backend run"
fi
