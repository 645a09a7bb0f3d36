#!/bin/bash
# The moist output of a small BOMEX after one hour: 3-D ql and thv, their cross-sections,
# and the 2-D liquid water path and cloud base, against each other and the statistics
# (which sum the ql_moist kernel's field level by level, where the 2-D sections come from
# the per-column kernel column_cloud): xarray opens every file; the cross-section's
# ql is the 3-D field's level; each column's cloud base is the lowest level where the 3-D
# ql is positive (-1 where none is); the cover of those columns and the mean water path are
# the statistics' cloud cover and lwp (1e-12 relative in double); clouds formed.
# Usage: moist_output.sh SQUALL CASE PYTHON [BACKEND]
set -u
squall=$1 case=$2 python=$3 backend=${4:-cpu}
dir=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
if [ "$backend" = gpu ] && [ -z "${SQUALL_REQUIRE_GPU:-}" ] && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIP: no GPU"
    exit 77
fi
"$squall" run "$case" --backend "$backend" --set grid.itot=32 --set grid.jtot=32 \
    --set grid.xsize=3200.0 --set grid.ysize=3200.0 --set time.endtime=3600.0 \
    --set output.stats_every=3600.0 --set output.dir="$dir" \
    --set "output.cross={every: 3600.0, fields: [ql, thv, qt], xy: [700.0], surface: [lwp, zcb, qt_fluxbot]}" \
    --set "output.fields={every: 3600.0, names: [ql, thv, qt, thl]}" >"$dir/log" 2>&1 ||
    fail "the run failed: $(tail -3 "$dir/log")"
"$python" - "$dir" <<'PY' || exit 1
import sys, glob
import numpy as np, xarray as xr
d = sys.argv[1]
def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)
f = xr.open_dataset(sorted(glob.glob(f"{d}/bomex.fields.*.h5"))[-1], engine="h5netcdf")
xy = xr.open_dataset(f"{d}/bomex.cross_xy.h5", engine="h5netcdf")
sf = xr.open_dataset(f"{d}/bomex.cross_surface.h5", engine="h5netcdf")
st = xr.open_dataset(f"{d}/bomex.stats.h5", engine="h5netcdf", group="timeseries")
ql = f["ql"].values[-1]  # (z, y, x)
z = f["z"].values
if not (ql > 0).any() or ql.max() < 1e-4:
    fail(f"no clouds after an hour: max ql {ql.max()}")
if (ql < 0).any() or not np.isfinite(ql).all():
    fail("ql negative or not finite")
thv = f["thv"].values[-1]
if not (290 < thv.min() and thv.max() < 320):
    fail(f"thv out of range: {thv.min()} .. {thv.max()}")
k = int(np.argmin(abs(z - xy["z"].values[0])))
if not np.array_equal(xy["ql"].values[-1][0], ql[k]):
    fail("the cross-section's ql is not the 3-D field's level")
cloudy = (ql > 0).any(axis=0)
base = np.where(cloudy, z[np.argmax(ql > 0, axis=0)], -1.0)
zcb = sf["zcb"].values[-1][0]
if not np.array_equal(base, zcb):
    fail(f"cloud base differs in {np.count_nonzero(base != zcb)} columns")
cover, lwp = float(st["cloud_cover"].values[-1]), float(st["lwp"].values[-1])
if cloudy.mean() != cover:
    fail(f"cover of the columns {cloudy.mean()} != statistics {cover}")
mean_lwp = float(sf["lwp"].values[-1].mean())
if not abs(mean_lwp - lwp) <= 1e-12 * lwp:
    fail(f"mean water path {mean_lwp} != statistics {lwp}")
print(f"cover {cover:.4f}, lwp {1e3 * lwp:.3f} g/m2, max ql {1e3 * ql.max():.3f} g/kg")
PY
echo PASS
