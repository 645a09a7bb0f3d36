"""Reads a squall statistics file with xarray (engine h5netcdf) as an SWMR reader, so that
it also works while the model is still writing, and prints what the C++ tests check as
JSON: the time and z coordinates (they live in the root group), the dimensions and values
of profiles/<var> and of timeseries/<series>.

usage: read_stats.py FILE PROFILE SERIES
"""
import json
import sys

import h5netcdf
import xarray as xr


def main():
    path, var, series = sys.argv[1:4]
    out = {}
    with h5netcdf.File(path, "r", swmr=True) as f:
        prof = xr.open_dataset(xr.backends.H5NetCDFStore(f, group="profiles"))
        ts = xr.open_dataset(xr.backends.H5NetCDFStore(f, group="timeseries"))
        root = xr.open_dataset(xr.backends.H5NetCDFStore(f))
        out["time"] = [float(t) for t in root["time"].values]
        out["z"] = [float(z) for z in root["z"].values]
        out["dims"] = list(prof[var].dims)
        out["values"] = [[float(x) for x in row] for row in prof[var].values]
        out["series"] = [float(x) for x in ts[series].values]
        out["series_dims"] = list(ts[series].dims)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
