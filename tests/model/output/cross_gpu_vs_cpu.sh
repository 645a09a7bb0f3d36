#!/bin/bash
# Cross-sections of the same run on the GPU (only the planes are copied back) and on the
# CPU: every variable of every file, vorticity and w2 included, agrees to REL (default
# 1e-8) of its largest value, in double, over 120 s of drycbl at 32^3. What this checks is
# that the GPU's planes are the CPU's (a wrong plane, level or stagger differs at order 1);
# the two runs' round-off grows with the turbulence, so the run is short: after 300 s the
# eddy viscosity differed by 1.01e-8 of its largest value (9e98231, where the mixing
# length became a profile), the other variables by at most 5e-10. The dynamics of the two
# backends are compared against a round-off twin in gpu_model.drycbl_gpu_vs_cpu.
# Usage: cross_gpu_vs_cpu.sh SQUALL CASE CHECKPOINT_COMPARE
set -u
squall=$1 case=$2 compare=$3
if [ -z "${SQUALL_REQUIRE_GPU:-}" ] && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIP: no GPU"
    exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
opts=(--set grid.itot=32 --set grid.jtot=32 --set grid.ktot=32 --set time.endtime=120
      --set output.stats_every=0
      --set "output.cross={every: 60, fields: [u, v, w, th, evisc, w2, vort_x, vort_y, vort_z], xy: [100, 500], xz: [1000], yz: [1000]}")
for b in cpu gpu; do
    "$squall" run "$case" "${opts[@]}" --backend $b --set output.dir="$dir/$b" >"$dir/$b.log" 2>&1 ||
        fail "the $b run failed: $(grep -m3 -i error "$dir/$b.log" || tail -3 "$dir/$b.log")"
done
for o in xy xz yz; do
    f=$(basename "$case" .yaml).cross_$o.h5
    "$compare" "$dir/cpu/$f" "$dir/gpu/$f" --group / --rel "${REL:-1e-8}" ||
        fail "$f: the GPU run's sections differ from the CPU run's"
done
echo "the GPU run's cross-sections agree with the CPU run's to ${REL:-1e-8}"
