#!/bin/bash
# Cross-sections (the surface fields too) and 3-D fields of a small drycbl on 1 rank and on
# 2x2 ranks: xarray opens
# every file, coordinates and the time axis match the grid, the values match the final
# checkpoint (an independent writer of the same state), and the two runs agree bitwise.
# A second run into the same directory is refused. With BACKEND gpu (only the planes are
# copied back) the 2x2-rank run is left out: its pressure transforms are not the 1-rank
# ones, so the two agree only to round-off there.
# Usage: cross_fields.sh SQUALL CASE PYTHON CHECK_SCRIPT PRECISION MPIEXEC [BACKEND]
set -u
squall=$1 case=$2 python=$3 check=$4 prec=$5 mpiexec=$6 backend=${7:-cpu}
dir=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
if [ "$backend" = gpu ] && [ -z "${SQUALL_REQUIRE_GPU:-}" ] && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIP: no GPU"
    exit 77
fi
opts=(--backend "$backend" --set grid.itot=16 --set grid.jtot=12 --set grid.ktot=10
      --set model.precision="$prec" --set time.endtime=120 --set output.stats_every=0
      --set output.checkpoint_every=1e9
      --set "output.cross={every: 30, fields: [u, v, w, th, evisc, w2, vort_x, vort_y, vort_z], xy: [100, 500, 2400],
             xz: [2400, 10], yz: [1000, 4800, 3000], surface: [ustar, th_fluxbot, u_fluxbot, v_fluxbot, obuk_inv]}"
      --set "output.fields={every: 60, names: [u, v, w, th, evisc], float32: $([ "$prec" = float ] && echo false || echo true)}")

"$squall" run "$case" "${opts[@]}" --set output.dir="$dir/one" >"$dir/one.log" 2>&1 ||
    fail "the 1-rank run failed: $(tail -3 "$dir/one.log")"
four=-
if [ "$backend" = cpu ]; then
    four=$dir/four
    "$mpiexec" --oversubscribe -n 4 "$squall" run "$case" "${opts[@]}" --set mpi.npx=2 \
        --set mpi.npy=2 --set output.dir="$four" >"$dir/four.log" 2>&1 ||
        fail "the 2x2-rank run failed: $(tail -3 "$dir/four.log")"
fi
# A restart from the checkpoint at 60 s, after the run reached 120 s: the cross-section
# files drop their samples after 60 s and continue; everything ends as in the first run.
# Its 3-D fields without checksums: the same values.
opts+=(--set output.fields.checksum=false)
"$squall" run "$case" "${opts[@]}" --set output.checkpoint_every=60 --set output.checkpoint_keep=3 \
    --set output.dir="$dir/restart" >"$dir/restart1.log" 2>&1 ||
    fail "the run before the restart failed: $(tail -3 "$dir/restart1.log")"
"$squall" run "$case" "${opts[@]}" --set output.checkpoint_every=60 --set output.checkpoint_keep=3 \
    --set output.dir="$dir/restart" --restart "$dir/restart/drycbl.chk.00000000060000000000.h5" \
    >"$dir/restart2.log" 2>&1 || fail "the restart failed: $(tail -3 "$dir/restart2.log")"
"$python" "$check" "$dir/one" "$four" "$dir/restart" || fail "the files do not check out"

# The same run again must not replace the files.
before=$(md5sum "$dir/one/drycbl.cross_xy.h5")
"$squall" run "$case" "${opts[@]}" --set output.dir="$dir/one" >"$dir/again.log" 2>&1 &&
    fail "a second run into the same directory was not refused"
grep -q "drycbl\.[a-z0-9_.]*\.h5:\? \(the file \)\?exists" "$dir/again.log" ||
    fail "no refusal naming the file: $(tail -3 "$dir/again.log")"
[ "$before" = "$(md5sum "$dir/one/drycbl.cross_xy.h5")" ] || fail "the refused run changed a file"
echo "PASS"
