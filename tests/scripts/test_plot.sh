#!/usr/bin/env bash
# scripts/plot: synthetic statistics and cross-section files with known values give PNGs of
# the expected samples and planes (the summary lines name them); a missing variable, a
# time outside the samples, a bad level and a missing file are one-line errors, no
# traceback. Needs matplotlib, xarray and h5netcdf (scripts/setup installs them).
set -euo pipefail
tool=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
py=python3
[[ -x /usr/bin/python3 ]] && py=/usr/bin/python3 # where apt installs h5netcdf
"$py" - "$dir" <<'EOF' || fail "cannot write the synthetic files"
import sys, h5netcdf, numpy as np
d = sys.argv[1]
# Statistics: 13 samples every 300 s, 8 levels; th = 300 + z/1000 + time/3600, so each
# sample differs; the layout of docs/output.md (coordinates in /, data in groups).
with h5netcdf.File(f"{d}/case.stats.h5", "w") as f:
    f.attrs["case"] = "synthetic"
    f.attrs["scalar"] = "th"
    time = np.arange(13) * 300.0
    z = (np.arange(8) + 0.5) * 100.0
    zh = np.arange(9) * 100.0
    f.dimensions = {"time": None, "z": 8, "zh": 9}
    f.resize_dimension("time", 13)  # unlimited, as squall writes it
    for name, vals, units in (("time", time, "s"), ("z", z, "m"), ("zh", zh, "m")):
        v = f.create_variable(name, (name,), "f8", data=vals)
        v.attrs["units"] = units
    p = f.create_group("profiles")
    for name, dim, units, vals in (
            ("th", "z", "K", 300 + z[None, :] / 1000 + time[:, None] / 3600),
            ("th_flux", "zh", "K m s-1", 0.1 * (1 - zh[None, :] / 600) + 0 * time[:, None]),
            ("w2", "zh", "m2 s-2", np.sin(np.pi * zh[None, :] / 800) ** 2 * time[:, None] / 3600)):
        v = p.create_variable(name, ("time", dim), "f8", data=vals)
        v.attrs["units"] = units
        v.attrs["long_name"] = name
    t = f.create_group("timeseries")
    for name, units, vals in (("ke", "m2 s-2", time / 3600), ("zi", "m", 200 + time / 10)):
        v = t.create_variable(name, ("time",), "f8", data=vals)
        v.attrs["units"] = units
# Cross-section xy: 3 samples, 2 selected heights, a 16 x 12 plane; w (time, zh, y, x) =
# 1000 time index + 100 level + 10 j + i, so min and max name the plane.
with h5netcdf.File(f"{d}/case.cross_xy.h5", "w") as f:
    nx, ny = 16, 12
    f.dimensions = {"time": None, "x": nx, "xh": nx, "y": ny, "yh": ny, "z": 2, "zh": 2}
    f.resize_dimension("time", 3)
    coords = {"time": np.array([60.0, 120.0, 180.0]), "x": (np.arange(nx) + 0.5) * 50,
              "xh": np.arange(nx) * 50.0, "y": (np.arange(ny) + 0.5) * 50,
              "yh": np.arange(ny) * 50.0, "z": np.array([75.0, 525.0]),
              "zh": np.array([50.0, 500.0])}
    for name, vals in coords.items():
        v = f.create_variable(name, (name,), "f8", data=vals)
        v.attrs["units"] = "s" if name == "time" else "m"
    n, k, j, i = np.meshgrid(np.arange(3), np.arange(2), np.arange(ny), np.arange(nx),
                             indexing="ij")
    w = f.create_variable("w", ("time", "zh", "y", "x"), "f8",
                          data=1000.0 * n + 100.0 * k + 10.0 * j + i)
    w.attrs["units"] = "m s-1"
    w.attrs["long_name"] = "vertical velocity"
    th = f.create_variable("th", ("time", "z", "y", "x"), "f8",
                           data=300 + 0.01 * i + 0 * n + 0 * k + 0 * j)
    th.attrs["units"] = "K"
# Cross-section xz: all 9 faces, one selected y; w = 10 k + i at the single sample.
with h5netcdf.File(f"{d}/case.cross_xz.h5", "w") as f:
    f.dimensions = {"time": None, "x": 16, "y": 1, "zh": 9}
    f.resize_dimension("time", 1)
    for name, vals in (("time", [60.0]), ("x", (np.arange(16) + 0.5) * 50), ("y", [125.0]),
                       ("zh", np.arange(9) * 100.0)):
        f.create_variable(name, (name,), "f8", data=np.asarray(vals))
    k, i = np.meshgrid(np.arange(9), np.arange(16), indexing="ij")
    f.create_variable("w", ("time", "zh", "y", "x"), "f8", data=(10.0 * k + i)[None, :, None, :])
EOF
png_ok() { # file
    [[ -f $1 ]] || fail "no PNG $1"
    [[ $(head -c 8 "$1" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "$1 is not a PNG"
    local size
    size=$(stat -c %s "$1")
    ((size > 10000)) || fail "$1: PNG of only $size bytes"
}
run() { # expected-summary args...
    local want=$1
    shift
    "$tool" "$@" >"$dir/out" 2>"$dir/err" || fail "plot $* failed: $(cat "$dir/out" "$dir/err")"
    grep -qxF "$want" "$dir/out" || fail "plot $*: summary '$(cat "$dir/out")', expected '$want'"
}
# Profiles: 700 s and 1900 s are nearest the samples at 600 s and 1800 s.
run "profiles: th, th_flux, w2 at t = 600, 1800, 3600 s" \
    profiles "$dir/case.stats.h5" -o "$dir/prof.png" --times 700,1900,3600
png_ok "$dir/prof.png"
# Default variables (the scalar, its flux, w2) and four samples from first to last.
run "profiles: th, th_flux, w2 at t = 0, 1200, 2400, 3600 s" \
    profiles "$dir/case.stats.h5" -o "$dir/prof2.png" --zmax 400
png_ok "$dir/prof2.png"
run "series: ke, zi over t = 0 to 3600 s (13 samples)" \
    series "$dir/case.stats.h5" -o "$dir/series.png" --vars ke,zi
png_ok "$dir/series.png"
# Cross: the last sample (index 2) by default, level 0: w from 2000 to 2000 + 110 + 15.
run "cross: w at t = 180 s, zh = 50 m, y x x 12 x 16, min 2000 max 2125" \
    cross "$dir/case.cross_xy.h5" -o "$dir/cross.png" --var w
png_ok "$dir/cross.png"
# 130 s is nearest 120 s (index 1), level 1: 1100 to 1225.
run "cross: w at t = 120 s, zh = 500 m, y x x 12 x 16, min 1100 max 1225" \
    cross "$dir/case.cross_xy.h5" -o "$dir/cross2.png" --var w --time 130 --level 1
png_ok "$dir/cross2.png"
# An xz file: the plane spans zh and x, at the selected y.
run "cross: w at t = 60 s, y = 125 m, zh x x 9 x 16, min 0 max 95" \
    cross "$dir/case.cross_xz.h5" -o "$dir/cross3.png" --var w
png_ok "$dir/cross3.png"
# Averages over windows (0, 300, 600, 900 s and 2700 ... 3600 s), heights over zi, size and
# resolution.
run "profiles: th, th_flux, w2 averaged over 0-900 s (4 samples); 2700-3600 s (4 samples)" \
    profiles "$dir/case.stats.h5" -o "$dir/avg.png" --average 0,900 --average 2700,3600 \
    --normalise zi --size 9,3 --dpi 60
png_ok "$dir/avg.png"
# The anomaly of each level of an xz section: w - mean over x = i - 7.5.
run "cross: w at t = 60 s, y = 125 m, zh x x 9 x 16, min -7.5 max 7.5" \
    cross "$dir/case.cross_xz.h5" -o "$dir/anom.png" --var w --anomaly
png_ok "$dir/anom.png"
# Errors: one line naming the problem, exit 1, no traceback.
err() { # pattern args...
    local pattern=$1 rc=0
    shift
    "$tool" "$@" >"$dir/o" 2>&1 || rc=$?
    ((rc == 1)) || fail "plot $*: exit status $rc, expected 1: $(cat "$dir/o")"
    grep -q Traceback "$dir/o" && fail "plot $*: traceback: $(cat "$dir/o")"
    (($(wc -l <"$dir/o") == 1)) || fail "plot $*: more than one line: $(cat "$dir/o")"
    grep -q -- "$pattern" "$dir/o" || fail "plot $*: message '$(cat "$dir/o")' lacks '$pattern'"
}
err "no samples in --average 5000,6000" profiles "$dir/case.stats.h5" -o "$dir/e.png" --average 5000,6000
err "ke is 0 at 0-0 s (1 samples): cannot normalise" profiles "$dir/case.stats.h5" -o "$dir/e.png" --average 0,0 --normalise ke
err "--size 9: expected W,H in inches" series "$dir/case.stats.h5" -o "$dir/e.png" --size 9
err "no variable qq (available: th, th_flux, w2)" profiles "$dir/case.stats.h5" -o "$dir/e.png" --vars th,qq
err "no variable u (available: w, th)" cross "$dir/case.cross_xy.h5" -o "$dir/e.png" --var u
err "time 5000 s outside the samples (0 to 3600 s)" profiles "$dir/case.stats.h5" -o "$dir/e.png" --times 5000
err "time 10 s outside the samples (60 to 180 s)" cross "$dir/case.cross_xy.h5" -o "$dir/e.png" --var w --time 10
err "level 2 outside 0..1 (zh)" cross "$dir/case.cross_xy.h5" -o "$dir/e.png" --var w --level 2
err "nothere.h5: no such file" series "$dir/nothere.h5" -o "$dir/e.png"
[[ -e $dir/e.png ]] && fail "an error case wrote a PNG"
echo "plot: ok"
