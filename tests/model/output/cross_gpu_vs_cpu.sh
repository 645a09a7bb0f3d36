#!/bin/bash
# Cross-sections of the same run on the GPU (only the planes are copied back) and on the
# CPU: every variable of every file, vorticity and w2 included, agrees to REL (default
# 1e-8) of its largest value, in double, after 300 s of drycbl at 32^3.
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
opts=(--set grid.itot=32 --set grid.jtot=32 --set grid.ktot=32 --set time.endtime=300
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
