"""Checks the cross-section and 3-D field files of cross_fields.sh.

Usage: check_output.py DIR_ONE_RANK DIR_FOUR_RANKS|- [DIR_RESTARTED]
(the restarted run's 3-D fields are written without checksums)

The grid and positions are those of cross_fields.sh (drycbl, 16 x 12 x 10 points on
4800 x 4800 x 2400 m, uniform levels). Values are compared with the final checkpoint of
the same run, which another writer produced: fields/<name> as (z, y, x) over the interior;
the vorticity components against numpy's differences of those fields (interior faces).
"""
import glob
import os
import sys

import h5py
import numpy as np
import xarray as xr

one, four = sys.argv[1], sys.argv[2]
itot, jtot, ktot = 16, 12, 10
xsize, ysize, zsize = 4800.0, 4800.0, 2400.0
dx, dy, dz = xsize / itot, ysize / jtot, zsize / ktot
grid = {
    "x": (np.arange(itot) + 0.5) * dx, "xh": np.arange(itot) * dx,
    "y": (np.arange(jtot) + 0.5) * dy, "yh": np.arange(jtot) * dy,
    "z": (np.arange(ktot) + 0.5) * dz, "zh": np.arange(ktot + 1) * dz,
}
positions = {"xy": ("z", [100.0, 500.0, 2400.0]), "xz": ("y", [2400.0, 10.0]),
             "yz": ("x", [1000.0, 4800.0, 3000.0])}
stagger = {"u": ("z", "y", "xh"), "v": ("z", "yh", "x"), "w": ("zh", "y", "x"),
           "w2": ("zh", "y", "x"), "th": ("z", "y", "x"), "evisc": ("z", "y", "x")}
# Vorticity components: on the cell edges where they need no interpolation.
vort_stagger = {"vort_x": ("zh", "yh", "x"), "vort_y": ("zh", "y", "xh"),
                "vort_z": ("z", "yh", "xh")}
errors = []


def expect(cond, msg):
    if not cond:
        errors.append(msg)


def seconds(t):
    """Time values in s (xarray decodes a variable with units "s" as timedelta64)."""
    t = np.asarray(t)
    return t / np.timedelta64(1, "s") if np.issubdtype(t.dtype, np.timedelta64) else t


def nearest(axis, values):
    return [int(np.argmin(np.abs(grid[axis] - v))) for v in values]


chk_path = sorted(glob.glob(os.path.join(one, "drycbl.chk.*.h5")))[-1]
with h5py.File(chk_path, "r") as f:
    chk = {n: f["fields/" + n][()] for n in f["fields"]}
    chk_time = float(f.attrs["time"])
chk["w2"] = chk["w"] * chk["w"]


def curl(c):
    """The vorticity of the checkpoint's fields (periodic in x and y) by numpy, NaN at the
    wall faces, which need the ghost levels that the checkpoint does not hold."""
    u, v, w = (c[n].astype(float) for n in ("u", "v", "w"))
    dzhi = np.full(ktot, np.nan)
    dzhi[1:] = 1.0 / np.diff(grid["z"])  # the faces between two centres
    ddx = lambda a: (a - np.roll(a, 1, axis=2)) / dx  # to the west face / edge
    ddy = lambda a: (a - np.roll(a, 1, axis=1)) / dy
    ddz = lambda a: np.concatenate([np.full_like(a[:1], np.nan), np.diff(a, axis=0)]) * \
        dzhi[:, None, None]
    return {"vort_x": ddy(w) - ddz(v), "vort_y": ddz(u) - ddx(w), "vort_z": ddx(v) - ddy(u)}


vort = curl(chk)

for o, (axis, pos) in positions.items():
    path = os.path.join(one, f"drycbl.cross_{o}.h5")
    ds = xr.open_dataset(path, engine="h5netcdf")
    # Kept indices of each axis: all, or the nearest centres/faces of the positions.
    idx = {a: np.arange(len(grid[a])) for a in grid}
    idx[axis] = nearest(axis, pos)
    idx[axis + "h"] = nearest(axis + "h", pos)
    for a in grid:
        expect(np.allclose(ds[a].values, grid[a][idx[a]], rtol=0, atol=1e-9 * zsize),
               f"{o}: coordinate {a} is {ds[a].values}, expected {grid[a][idx[a]]}")
        expect(ds[a].attrs.get("units") == "m", f"{o}: {a} has no units m")
    expect(np.array_equal(seconds(ds.time.values), [0.0, 30.0, 60.0, 90.0, 120.0]),
           f"{o}: time axis {seconds(ds.time.values)!r}")
    expect(abs(chk_time - seconds(ds.time.values)[-1]) < 1e-6, f"{o}: last sample is not the checkpoint's")
    with h5py.File(path, "r") as f:
        expect(all(f[n].fletcher32 for n in stagger), f"{o}: a section without a checksum")
    for name, dims in stagger.items():
        v = ds[name]
        expect(v.dims == ("time",) + dims, f"{o}: {name} has dims {v.dims}, expected {dims}")
        expect("units" in v.attrs and "long_name" in v.attrs, f"{o}: {name} lacks attributes")
        # The last sample against the checkpoint (w at the top face is not in it).
        kz, jy, ix = (idx[d] for d in dims)
        kz = np.asarray(kz)
        inside = kz < ktot
        got = v.values[-1][inside]
        want = chk[name][np.ix_(kz[inside], np.asarray(jy), np.asarray(ix))]
        expect(np.array_equal(got, want),
               f"{o}: {name} differs from the checkpoint by up to "
               f"{np.max(np.abs(got.astype(float) - want.astype(float)))}")
    for name, dims in vort_stagger.items():
        var = ds[name]
        expect(var.dims == ("time",) + dims, f"{o}: {name} has dims {var.dims}, expected {dims}")
        expect(var.attrs.get("units") == "s-1", f"{o}: {name} has no units s-1")
        kz, jy, ix = (np.asarray(idx[d]) for d in dims)
        keep = kz < ktot
        want = vort[name][np.ix_(kz[keep], jy, ix)]
        got = var.values[-1][keep].astype(float)
        finite = np.isfinite(want)  # the wall faces are not compared
        err = np.max(np.abs(got[finite] - want[finite])) if finite.any() else np.inf
        scale = np.max(np.abs(want[finite])) if finite.any() else 0.0
        tol = (1e-5 if var.dtype == np.float32 else 1e-12) * scale
        expect(err <= tol, f"{o}: {name} differs from the checkpoint's curl by {err} (> {tol})")
    # One explicit point: u at the second xy height, j = 3, i = 5.
    if o == "xy":
        k = nearest("z", [500.0])[0]
        expect(v.dtype == chk["u"].dtype, f"xy: stored as {v.dtype}, the model as {chk['u'].dtype}")
        expect(ds.u.values[-1, 1, 3, 5] == chk["u"][k, 3, 5], "xy: u(500 m, j=3, i=5) differs")

# The surface fields: one (y, x) plane per sample at z = 0, u's flux on the u faces; the
# prescribed scalar flux (drycbl: 0.1 K m/s) everywhere, u* positive.
ds = xr.open_dataset(os.path.join(one, "drycbl.cross_surface.h5"), engine="h5netcdf")
expect(np.array_equal(seconds(ds.time.values), [0.0, 30.0, 60.0, 90.0, 120.0]),
       f"surface: time {ds.time.values}")
expect(ds.z.values.tolist() == [0.0], f"surface: z {ds.z.values}")
for name, dims in {"ustar": ("z", "y", "x"), "th_fluxbot": ("z", "y", "x"),
                   "u_fluxbot": ("z", "y", "xh"), "v_fluxbot": ("z", "yh", "x"),
                   "obuk_inv": ("z", "y", "x")}.items():
    expect(ds[name].dims == ("time",) + dims, f"surface: {name} has dims {ds[name].dims}")
    expect(ds[name].shape[2:] == (12, 16), f"surface: {name} has shape {ds[name].shape}")
    expect(np.all(np.isfinite(ds[name].values)), f"surface: {name} is not finite")
expect(np.all(ds.th_fluxbot.values == ds.th_fluxbot.dtype.type(0.1)),
       "surface: th_fluxbot is not the prescribed 0.1")
expect(np.all(ds.ustar.values > 0), "surface: ustar is not positive")
expect(np.all(ds.u_fluxbot.values[-1] != 0), "surface: u_fluxbot is 0 somewhere")

fields = sorted(glob.glob(os.path.join(one, "drycbl.fields.*.h5")))
expect([os.path.basename(p)[14:34] for p in fields] ==
       ["%020d" % (t * 10**9) for t in (0, 60, 120)], f"3-D field files {fields}")
ds = xr.open_dataset(fields[-1], engine="h5netcdf")
expect(seconds(ds.time.values).tolist() == [120.0], f"fields: time {ds.time.values}")
for a in grid:
    expect(np.allclose(ds[a].values, grid[a], rtol=0, atol=1e-9 * zsize), f"fields: {a} differs")
field_names = ["u", "v", "w", "th", "evisc"]
for name in field_names:
    v = ds[name]
    expect(v.dims == ("time",) + stagger[name], f"fields: {name} has dims {v.dims}")
    got = v.values[0, :ktot]
    want = chk[name].astype(v.dtype)  # float32 storage rounds the model's values
    expect(np.array_equal(got, want), f"fields: {name} differs from the checkpoint")
    if name == "w":
        expect(np.all(v.values[0, ktot] == 0), "fields: w at the top face is not 0")

# Each 3-D field carries HDF5's Fletcher-32 checksum: a copy with one byte of a chunk
# changed is refused by the reader, the original reads.
with h5py.File(fields[-1], "r") as f:
    for name in field_names:
        expect(f[name].fletcher32 and f[name].chunks is not None,
               f"fields: {name} has no checksum (chunks {f[name].chunks})")
    chunk = f["th"].id.get_chunk_info(0)
bad = os.path.join(one, "corrupt.h5")
with open(fields[-1], "rb") as f:
    data = bytearray(f.read())
data[chunk.byte_offset + chunk.size // 2] ^= 0x10
with open(bad, "wb") as f:
    f.write(data)
try:
    with h5py.File(bad, "r") as f:
        f["th"][()]
    errors.append("fields: a changed byte of th was read without an error")
except OSError as e:
    expect("checksum" in str(e).lower() or "filter" in str(e).lower(),
           f"fields: the changed byte gave an unexpected error: {e}")
with h5py.File(bad, "r") as f:  # the other fields of that file still read
    expect(np.array_equal(f["u"][()], ds["u"].values),
           "fields: u of the file with a changed th differs")
os.remove(bad)
for other in ([four] if four != "-" else []) + sys.argv[3:]:  # 2x2 ranks: 8 x 6 chunks
    with h5py.File(os.path.join(other, os.path.basename(fields[-1])), "r") as f:
        expect(f["th"].fletcher32 == (other == four),
               f"fields: th in {other} has fletcher32 {f['th'].fletcher32}")

# 2x2 ranks and a restarted run: the same files, bitwise.
others = [] if four == "-" else [(four, "2x2 ranks")]
for other, what in others + [(d, "the restarted run") for d in sys.argv[3:]]:
    for p in sorted(glob.glob(os.path.join(one, "drycbl.cross_*.h5")) + fields):
        a = xr.open_dataset(p, engine="h5netcdf")
        b = xr.open_dataset(os.path.join(other, os.path.basename(p)), engine="h5netcdf")
        expect(a.sizes == b.sizes, f"{os.path.basename(p)}: sizes {dict(b.sizes)} in {what}")
        for n in a.variables:
            expect(a[n].shape == b[n].shape and np.array_equal(a[n].values, b[n].values),
                   f"{os.path.basename(p)}: {n} differs in {what}")

for e in errors:
    print("check_output:", e)
sys.exit(1 if errors else 0)
