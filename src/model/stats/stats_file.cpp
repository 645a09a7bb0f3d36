#include "model/stats/stats_file.h"

#include "model/io/h5.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

namespace squall::stats_io {

namespace {

// The CF standard name of a statistic where one exists (else nullptr): the horizontal mean
// of a quantity carries the quantity's name.
const char* cf_standard_name(const std::string& name) {
    static const std::map<std::string, const char*> names = {
        {"u", "x_wind"},
        {"v", "y_wind"},
        {"w", "upward_air_velocity"},
        {"th", "air_potential_temperature"},
        {"ql", "mass_fraction_of_cloud_liquid_water_in_air"},
        {"cloud_fraction", "cloud_area_fraction_in_atmosphere_layer"},
        {"cloud_cover", "cloud_area_fraction"},
        {"lwp", "atmosphere_mass_content_of_cloud_liquid_water"},
        {"zi", "atmosphere_boundary_layer_thickness"},
        {"h_stress", "atmosphere_boundary_layer_thickness"}};
    const auto it = names.find(name);
    return it == names.end() ? nullptr : it->second;
}

using h5::check;
using h5::Error;
using h5::Id;

hsize_t row_length(Loc loc, std::size_t nz, std::size_t nzh) {
    return loc == Loc::time ? 1 : (loc == Loc::z ? nz : nzh);
}

// Rows per chunk: about 2-8 KiB per chunk, at least one whole profile.
hsize_t chunk_rows(hsize_t len) {
    return std::clamp<hsize_t>(1024 / len, 1, 256);
}

// A dataset growing along time (rows of `len` values; len 0: one value per row, rank 1),
// with nt rows (NaN) now.
hid_t create_growing(hid_t loc, const std::string& name, hsize_t len, hsize_t nt, bool integer) {
    const int rank = len == 0 ? 1 : 2;
    const hsize_t dims[2] = {nt, len}, maxdims[2] = {H5S_UNLIMITED, len};
    const hsize_t chunk[2] = {chunk_rows(std::max<hsize_t>(len, 1)), len};
    Id space(H5Screate_simple(rank, dims, maxdims), H5Sclose, "dataspace of " + name);
    Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "creation properties of " + name);
    check(H5Pset_chunk(dcpl, rank, chunk), "chunks of " + name);
    if (!integer) {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        check(H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &nan), "fill value of " + name);
    }
    return check(H5Dcreate2(loc, name.c_str(), integer ? H5T_STD_I64LE : H5T_IEEE_F64LE, space,
                            H5P_DEFAULT, dcpl, H5P_DEFAULT),
                 "creating dataset " + name);
}

std::string path_of(const VarInfo& v) {
    return (v.loc == Loc::time ? "/timeseries/" : "/profiles/") + v.name;
}

} // namespace

std::unique_ptr<StatsFile> StatsFile::create(const std::string& path, const Header& h,
                                             bool overwrite) {
    const h5::Quiet quiet;
    std::unique_ptr<StatsFile> f(new StatsFile(path));
    f->file_.create(path, overwrite);
    const hid_t fid = f->file_;
    f->nz_ = h.z.size();
    f->nzh_ = h.zh.size();
    f->last_time_ = -std::numeric_limits<double>::infinity();
    h5::write_string_attr(fid, "case", h.case_name);
    h5::write_string_attr(fid, "squall_version", h.version);
    h5::write_string_attr(fid, "configuration", h.yaml);
    h5::write_string_attr(fid, "scalar", h.scalar);
    h5::write_string_attr(fid, "title",
                          "squall statistics: horizontal-mean profiles and time series");
    h5::write_string_attr(fid, "Conventions", "CF-1.8");
    // The coordinates, in the root and again in each group: a reader that opens one group
    // (xarray's group=) finds its coordinates there. The groups' datasets use their own.
    auto time_axis = [](hid_t loc) {
        Id t(create_growing(loc, "time", 0, 0, false), H5Dclose, "time");
        h5::write_string_attr(t, "units", "s");
        h5::write_string_attr(t, "long_name", "model time");
        h5::write_string_attr(t, "standard_name", "time");
        h5::write_string_attr(t, "axis", "T");
        h5::make_scale(t, "time");
    };
    auto height_axes = [&](hid_t loc) {
        for (const auto& [name, levels, what] :
             {std::tuple{"z", &h.z, "height of the cell centres"},
              std::tuple{"zh", &h.zh, "height of the cell faces"}}) {
            h5::write_scale(loc, name, *levels, "m", what);
            Id ds(H5Dopen2(loc, name, H5P_DEFAULT), H5Dclose, std::string("dataset ") + name);
            h5::write_string_attr(ds, "standard_name", "height");
            h5::write_string_attr(ds, "axis", "Z");
            h5::write_string_attr(ds, "positive", "up");
        }
    };
    time_axis(fid);
    height_axes(fid);
    Id prof(H5Gcreate2(fid, "profiles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
            "group profiles");
    time_axis(prof);
    height_axes(prof);
    Id ts(H5Gcreate2(fid, "timeseries", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
          "group timeseries");
    time_axis(ts);
    {
        Id ds(create_growing(ts, "step", 0, 0, true), H5Dclose, "step");
        h5::write_string_attr(ds, "units", "1");
        h5::write_string_attr(ds, "long_name", "time step number");
        h5::attach(fid, ds, {"/timeseries/time"});
    }
    f->file_.flush();
    return f;
}

std::unique_ptr<StatsFile> StatsFile::resume(const std::string& path, const Header& h,
                                             double time) {
    const h5::Quiet quiet;
    if (!std::filesystem::exists(path))
        throw Error("the file to continue does not exist (--overwrite starts a new one)");
    std::unique_ptr<StatsFile> f(new StatsFile(path));
    f->file_.open(path);
    const hid_t fid = f->file_;
    f->nz_ = h.z.size();
    f->nzh_ = h.zh.size();
    const std::string scalar = h5::read_string_attr(fid, "scalar");
    if (scalar != h.scalar)
        throw Error("written for the scalar '" + scalar + "', this run has '" + h.scalar + "'");
    for (const auto& [name, levels] : {std::pair{"z", &h.z}, std::pair{"zh", &h.zh}}) {
        Id ds(H5Dopen2(fid, name, H5P_DEFAULT), H5Dclose, std::string("dataset ") + name);
        const std::vector<double> in_file = h5::read_doubles(ds, name);
        bool same = in_file.size() == levels->size();
        for (std::size_t k = 0; same && k < in_file.size(); ++k)
            same = std::abs(in_file[k] - (*levels)[k]) <= 1e-9 * (1 + std::abs((*levels)[k]));
        if (!same)
            throw Error(std::string("its levels ") + name + " (" + std::to_string(in_file.size()) +
                        " values) differ from this run's (" + std::to_string(levels->size()) +
                        " values)");
    }
    for (const char* group : {"profiles", "timeseries"}) {
        Id g(H5Gopen2(fid, group, H5P_DEFAULT), H5Gclose, std::string("group ") + group);
        H5G_info_t info;
        check(H5Gget_info(g, &info), std::string("contents of ") + group);
        for (hsize_t i = 0; i < info.nlinks; ++i) {
            const ssize_t len =
                H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
            check(hid_t(len), std::string("names in ") + group);
            std::string name(std::size_t(len) + 1, '\0');
            check(hid_t(H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(),
                                           name.size(), H5P_DEFAULT)),
                  std::string("names in ") + group);
            name.resize(std::size_t(len));
            if (name == "step" || name == "time" || name == "z" || name == "zh") continue;
            Id ds(H5Dopen2(g, name.c_str(), H5P_DEFAULT), H5Dclose, "dataset " + name);
            Id space(H5Dget_space(ds), H5Sclose, "dataspace of " + name);
            hsize_t dims[2] = {0, 0};
            const int rank = H5Sget_simple_extent_ndims(space);
            if (rank < 1 || rank > 2) throw Error("unexpected dataset " + name);
            check(H5Sget_simple_extent_dims(space, dims, nullptr), "dimensions of " + name);
            const Loc loc = rank == 1 ? Loc::time : (dims[1] == f->nz_ ? Loc::z : Loc::zh);
            f->vars_.push_back({name, loc, h5::read_string_attr(ds, "long_name"),
                                h5::read_string_attr(ds, "units")});
        }
    }
    // Keep the samples up to `time` (the time axis is strictly increasing).
    Id tds(H5Dopen2(fid, "time", H5P_DEFAULT), H5Dclose, "dataset time");
    const std::vector<double> t = h5::read_doubles(tds, "time");
    std::size_t keep = 0;
    while (keep < t.size() && t[keep] <= time) ++keep;
    f->set_extent_all(keep);
    f->nt_ = keep;
    f->last_time_ = keep > 0 ? t[keep - 1] : -std::numeric_limits<double>::infinity();
    f->file_.flush();
    return f;
}

void StatsFile::set_extent_all(hsize_t nt) {
    auto set = [&](const std::string& path, hsize_t len) {
        Id ds(H5Dopen2(file_, path.c_str(), H5P_DEFAULT), H5Dclose, "dataset " + path);
        const hsize_t dims[2] = {nt, len};
        check(H5Dset_extent(ds, dims), "resizing " + path);
    };
    for (const char* t : {"/time", "/profiles/time", "/timeseries/time", "/timeseries/step"})
        set(t, 0);
    for (const VarInfo& v : vars_) set(path_of(v), row_length(v.loc, nz_, nzh_));
}

void StatsFile::write_reference_lists() {
    std::map<std::string, std::vector<std::pair<std::string, int>>> refs;
    refs["/timeseries/time"].push_back({"/timeseries/step", 0});
    for (const VarInfo& v : vars_) {
        if (v.loc == Loc::time) {
            refs["/timeseries/time"].push_back({path_of(v), 0});
        } else {
            refs["/profiles/time"].push_back({path_of(v), 0});
            refs[v.loc == Loc::z ? "/profiles/z" : "/profiles/zh"].push_back({path_of(v), 1});
        }
    }
    h5::write_reference_lists(file_, refs);
}

void StatsFile::define(const std::vector<VarInfo>& vars, bool exact) {
    file_.require_open();
    const h5::Quiet quiet;
    auto has = [](const std::vector<VarInfo>& list, const VarInfo& v) {
        return std::any_of(list.begin(), list.end(),
                           [&](const VarInfo& x) { return x.name == v.name && x.loc == v.loc; });
    };
    std::vector<VarInfo> missing;
    for (const VarInfo& v : vars)
        if (!has(vars_, v)) missing.push_back(v);
    if (exact) {
        std::string diff;
        for (const VarInfo& v : missing) diff += " +" + v.name;
        for (const VarInfo& v : vars_)
            if (!has(vars, v)) diff += " -" + v.name;
        if (!diff.empty())
            throw Error("this run's variables differ from the file's (+ new, - missing):" + diff);
    }
    if (!missing.empty()) {
        // New objects and attributes cannot be made in SWMR mode: leave it for a moment.
        if (file_.swmr()) {
            file_.close();
            file_.open(path_);
        }
        for (const VarInfo& v : missing) {
            const bool series = v.loc == Loc::time;
            Id g(H5Gopen2(file_, series ? "timeseries" : "profiles", H5P_DEFAULT), H5Gclose,
                 "group of " + v.name);
            Id ds(create_growing(g, v.name, series ? 0 : row_length(v.loc, nz_, nzh_), nt_, false),
                  H5Dclose, v.name);
            h5::write_string_attr(ds, "units", v.units);
            h5::write_string_attr(ds, "long_name", v.long_name);
            if (const char* cf = cf_standard_name(v.name))
                h5::write_string_attr(ds, "standard_name", cf);
            if (series)
                h5::attach(file_, ds, {"/timeseries/time"});
            else
                h5::attach(file_, ds,
                           {"/profiles/time", v.loc == Loc::z ? "/profiles/z" : "/profiles/zh"});
            vars_.push_back(v);
        }
        write_reference_lists();
    }
    if (!file_.swmr()) file_.start_swmr();
}

void StatsFile::append(const std::vector<double>& time, const std::vector<long long>& step,
                       const std::vector<const std::vector<double>*>& data) {
    file_.require_open();
    const h5::Quiet quiet;
    const hsize_t n = time.size(), nt = nt_ + n;
    auto put = [&](const std::string& path, hsize_t len, hid_t mtype, const void* buf) {
        Id ds(H5Dopen2(file_, path.c_str(), H5P_DEFAULT), H5Dclose, "dataset " + path);
        const hsize_t dims[2] = {nt, len}, start[2] = {nt_, 0}, count[2] = {n, len};
        check(H5Dset_extent(ds, dims), "extending " + path);
        if (!buf) return; // rows stay NaN (the fill value)
        const int rank = len == 0 ? 1 : 2;
        Id fspace(H5Dget_space(ds), H5Sclose, "dataspace of " + path);
        check(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr),
              "selecting rows of " + path);
        Id mspace(H5Screate_simple(rank, count, nullptr), H5Sclose, "memory space");
        check(H5Dwrite(ds, mtype, mspace, fspace, H5P_DEFAULT, buf), "writing " + path);
    };
    try {
        // A full disk is detected before HDF5 touches the file, so that the file stays as the
        // last flush left it: the room needed is the new rows, a new chunk per dataset and
        // some metadata.
        std::uintmax_t need = 64 * 1024 + 4 * (n + chunk_rows(1)) * 8;
        for (const VarInfo& v : vars_) {
            const hsize_t len = row_length(v.loc, nz_, nzh_);
            need += (n + chunk_rows(len)) * len * 8;
        }
        if (const std::uintmax_t room = h5::free_bytes(path_); room < need)
            throw Error("no room to write: " + std::to_string(need) + " bytes needed, " +
                        std::to_string(room) + " available (disk full?)");
        for (std::size_t i = 0; i < vars_.size(); ++i) {
            const VarInfo& v = vars_[i];
            const hsize_t len = v.loc == Loc::time ? 0 : row_length(v.loc, nz_, nzh_);
            put(path_of(v), len, H5T_NATIVE_DOUBLE, data[i] ? data[i]->data() : nullptr);
        }
        put("/timeseries/step", 0, H5T_NATIVE_LLONG, step.data());
        put("/profiles/time", 0, H5T_NATIVE_DOUBLE, time.data());
        put("/timeseries/time", 0, H5T_NATIVE_DOUBLE, time.data());
        put("/time", 0, H5T_NATIVE_DOUBLE, time.data()); // last: the time axis commits a sample
        file_.flush();
    } catch (...) {
        // Close the file: after a refused write (no room) it is as the last flush left
        // it; after a failure inside HDF5 closing retries the flush once.
        file_.abandon();
        throw;
    }
    nt_ = nt;
    last_time_ = time.back();
}

} // namespace squall::stats_io
