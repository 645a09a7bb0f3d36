#!/usr/bin/env bash
# scripts/validate gabls1: a synthetic statistics file with known values over the ninth hour
# (h_stress 180 m, u* 0.25 m/s, a jet peaking at 9.5 m/s at 175 m: 9.498 at the level 178.1 m) gives those means and exit status
# 0 (inside the LES range at 6.25 m), a depth outside the range exit status 3, a file that
# is not a GABLS1 run status 1 with one line. scripts/validate bomex likewise: over hours
# 3-6 a cover of 0.12, a cloud-fraction peak of 0.05 at 540 m and a water path of 8 g/m2
# (other values before the window), inside; a cover of 0.25 outside. Needs h5py and numpy.
set -euo pipefail
tool=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
py=python3
[[ -x /usr/bin/python3 ]] && py=/usr/bin/python3
"$py" - "$dir" <<'PY' || fail "cannot write the synthetic files"
import sys, h5py, numpy as np
d = sys.argv[1]
def write(path, h):
    t = np.arange(0, 32401, 600.0)
    z = (np.arange(64) + 0.5) * 6.25
    zh = np.arange(65) * 6.25
    with h5py.File(path, "w") as f:
        f["time"], f["z"], f["zh"] = t, z, zh
        p, s = f.create_group("profiles"), f.create_group("timeseries")
        speed = 9.5 * np.exp(-((z - 175.0) / 80.0) ** 2) + 8 * (1 - np.exp(-((z - 175.0) / 80.0) ** 2)) * (z > 175)
        p["u"] = np.tile(speed * 0.8, (len(t), 1))
        p["v"] = np.tile(speed * 0.6, (len(t), 1))
        p["th"] = np.tile(263 + 0.01 * z, (len(t), 1))
        for n in ("u_flux", "v_flux", "th_flux"):
            p[n] = np.zeros((len(t), len(zh)))
        s["h_stress"] = np.where(t >= 28800, h, 50.0)
        s["ustar"] = np.where(t >= 28800, 0.25, 0.4)
        s["th_fluxbot"] = np.full(len(t), -0.012)
        s["obuk_inv"] = np.full(len(t), 0.01)
write(f"{d}/in.stats.h5", 180.0)
write(f"{d}/out.stats.h5", 250.0)
with h5py.File(f"{d}/other.stats.h5", "w") as f:
    f["time"], f["z"], f["zh"] = [0.0], [1.0], [0.0, 2.0]
    f.create_group("profiles"), f.create_group("timeseries")
PY
out=$("$tool" gabls1 "$dir/in.stats.h5" --json "$dir/in.json") || fail "inside the range: status $?: $out"
grep -q "h (stress)           180.0 m .*range 158-211 m  inside" <<<"$out" || fail "summary: $out"
grep -q "u\*                  0.2500 m/s" <<<"$out" || fail "u* not the ninth hour's: $out"
grep -q "low-level jet        9.498 m/s at 178.1 m" <<<"$out" || fail "jet: $out"
grep -q '"h_in_range": true' "$dir/in.json" || fail "json: $(cat "$dir/in.json")"
rc=0
out=$("$tool" gabls1 "$dir/out.stats.h5") || rc=$?
((rc == 3)) || fail "outside the range: status $rc, expected 3: $out"
grep -q "OUTSIDE" <<<"$out" || fail "no OUTSIDE: $out"
rc=0
out=$("$tool" gabls1 "$dir/other.stats.h5" 2>&1) || rc=$?
((rc == 1)) || fail "not a GABLS1 run: status $rc: $out"
(($(wc -l <<<"$out") == 1)) || fail "more than one line: $out"
grep -q "no h_stress: not a GABLS1 run" <<<"$out" || fail "message: $out"
"$py" - "$dir" <<'PY' || fail "cannot write the synthetic BOMEX files"
import sys, h5py, numpy as np
d = sys.argv[1]
def write(path, cover):
    t = np.arange(0, 21601, 300.0)
    z = (np.arange(75) + 0.5) * 40.0
    zh = np.arange(76) * 40.0
    late = t >= 10800
    with h5py.File(path, "w") as f:
        f["time"], f["z"], f["zh"] = t, z, zh
        p, s = f.create_group("profiles"), f.create_group("timeseries")
        cf = 0.05 * np.exp(-((z - 540.0) / 200.0) ** 2) * (z > 500)
        p["cloud_fraction"] = np.where(late[:, None], cf, 0.2 * cf)
        p["ql"] = np.tile(1e-5 * cf, (len(t), 1))
        for n, v in (("thl", 300 + 0.004 * z), ("qt", 0.017 - 4e-6 * z), ("u", -8 + 0 * z),
                     ("v", 0 * z)):
            p[n] = np.tile(v, (len(t), 1))
        for n in ("thl_flux", "qt_flux"):
            p[n] = np.zeros((len(t), len(zh)))
        s["cloud_cover"] = np.where(late, cover, 0.3)
        s["lwp"] = np.where(late, 8e-3, 1.0)
        s["zcb"] = np.full(len(t), 500.0)
        s["zct"] = np.full(len(t), 1700.0)
write(f"{d}/bomex_in.stats.h5", 0.12)
write(f"{d}/bomex_out.stats.h5", 0.25)
PY
out=$("$tool" bomex "$dir/bomex_in.stats.h5" --json "$dir/bomex.json") ||
    fail "BOMEX inside the range: status $?: $out"
grep -q "cloud cover             0.120      LES 0.13, range 0.08-0.17  inside" <<<"$out" ||
    fail "BOMEX cover: $out"
grep -q "cloud fraction peak     0.050 .* inside" <<<"$out" || fail "BOMEX peak: $out"
grep -q "at                    540 m .* inside" <<<"$out" || fail "BOMEX peak height: $out"
grep -q "liquid water path        8.00 g/m2" <<<"$out" || fail "BOMEX lwp: $out"
grep -q '"cloud_cover": true' "$dir/bomex.json" || fail "BOMEX json: $(cat "$dir/bomex.json")"
rc=0
out=$("$tool" bomex "$dir/bomex_out.stats.h5") || rc=$?
((rc == 3)) || fail "BOMEX outside the range: status $rc, expected 3: $out"
rc=0
out=$("$tool" bomex "$dir/in.stats.h5" 2>&1) || rc=$?
((rc == 1)) || fail "GABLS1 file as BOMEX: status $rc: $out"
grep -q "no cloud_cover: not a BOMEX run" <<<"$out" || fail "BOMEX message: $out"
echo PASS
