#include "model/io/cross_file.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>

#include "model/io/h5.h"

namespace squall::io {

using h5::check;
using h5::Error;
using h5::Id;

std::size_t CrossFile::axis_size(const std::string& name) const {
    for (const Axis& a : h_.axes)
        if (a.name == name) return a.values.size();
    throw Error("no axis " + name);
}

std::unique_ptr<CrossFile> CrossFile::create(const std::string& path, const CrossHeader& h,
                                             bool overwrite) {
    const h5::Quiet quiet;
    std::unique_ptr<CrossFile> f(new CrossFile(path, h));
    f->file_.create(path, overwrite);
    const hid_t fid = f->file_;
    h5::write_string_attr(fid, "case", h.case_name);
    h5::write_string_attr(fid, "squall_version", h.version);
    h5::write_string_attr(fid, "title", h.title);
    {
        // Time grows by one value per sample.
        const hsize_t dims[1] = {0}, maxdims[1] = {H5S_UNLIMITED}, chunk[1] = {256};
        Id space(H5Screate_simple(1, dims, maxdims), H5Sclose, "dataspace of time");
        Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "creation properties of time");
        check(H5Pset_chunk(dcpl, 1, chunk), "chunks of time");
        Id t(H5Dcreate2(fid, "time", H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
             H5Dclose, "creating dataset time");
        h5::write_string_attr(t, "units", "s");
        h5::write_string_attr(t, "long_name", "model time");
        h5::make_scale(t, "time");
    }
    for (const Axis& a : h.axes) h5::write_scale(fid, a.name, a.values, "m", a.long_name);
    std::map<std::string, std::vector<std::pair<std::string, int>>> refs;
    for (const CrossVar& v : h.vars) {
        const hsize_t nz = f->axis_size(v.zdim), ny = f->axis_size(v.ydim),
                      nx = f->axis_size(v.xdim);
        const hsize_t dims[4] = {0, nz, ny, nx}, maxdims[4] = {H5S_UNLIMITED, nz, ny, nx};
        // One sample per chunk; one level per chunk when a sample is large. Each sample
        // fills whole chunks, each with a Fletcher-32 checksum that readers verify.
        const hsize_t chunk[4] = {1, nz * ny * nx > (1u << 20) ? 1 : nz, ny, nx};
        Id space(H5Screate_simple(4, dims, maxdims), H5Sclose, "dataspace of " + v.name);
        Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "creation properties of " + v.name);
        check(H5Pset_chunk(dcpl, 4, chunk), "chunks of " + v.name);
        check(H5Pset_fletcher32(dcpl), "checksum filter of " + v.name);
        Id ds(H5Dcreate2(fid, v.name.c_str(), h.single ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, space,
                         H5P_DEFAULT, dcpl, H5P_DEFAULT),
              H5Dclose, "creating dataset " + v.name);
        h5::write_string_attr(ds, "units", v.units);
        h5::write_string_attr(ds, "long_name", v.long_name);
        h5::attach(fid, ds, {"/time", "/" + v.zdim, "/" + v.ydim, "/" + v.xdim});
        const std::string p = "/" + v.name;
        refs["/time"].push_back({p, 0});
        refs["/" + v.zdim].push_back({p, 1});
        refs["/" + v.ydim].push_back({p, 2});
        refs["/" + v.xdim].push_back({p, 3});
    }
    h5::write_reference_lists(fid, refs);
    f->file_.start_swmr();
    return f;
}

std::unique_ptr<CrossFile> CrossFile::resume(const std::string& path, const CrossHeader& h,
                                             double time) {
    const h5::Quiet quiet;
    if (!std::filesystem::exists(path)) throw Error("the file to continue does not exist");
    std::unique_ptr<CrossFile> f(new CrossFile(path, h));
    f->file_.open(path);
    const hid_t fid = f->file_;
    for (const Axis& a : h.axes) {
        Id ds(H5Dopen2(fid, a.name.c_str(), H5P_DEFAULT), H5Dclose, "dataset " + a.name);
        const std::vector<double> in_file = h5::read_doubles(ds, a.name);
        bool same = in_file.size() == a.values.size();
        for (std::size_t n = 0; same && n < in_file.size(); ++n)
            same = std::abs(in_file[n] - a.values[n]) <= 1e-9 * (1 + std::abs(a.values[n]));
        if (!same)
            throw Error("its coordinate " + a.name + " (" + std::to_string(in_file.size()) +
                        " values) differs from this run's (" + std::to_string(a.values.size()) +
                        " values)");
    }
    Id tds(H5Dopen2(fid, "time", H5P_DEFAULT), H5Dclose, "dataset time");
    const std::vector<double> t = h5::read_doubles(tds, "time");
    std::size_t keep = 0;
    while (keep < t.size() && t[keep] <= time) ++keep; // the time axis increases strictly
    const hsize_t tdims[1] = {keep};
    check(H5Dset_extent(tds, tdims), "resizing time");
    for (const CrossVar& v : h.vars) {
        if (H5Lexists(fid, v.name.c_str(), H5P_DEFAULT) <= 0)
            throw Error("it has no variable " + v.name + " (the run's fields differ)");
        Id ds(H5Dopen2(fid, v.name.c_str(), H5P_DEFAULT), H5Dclose, "dataset " + v.name);
        const hsize_t dims[4] = {keep, f->axis_size(v.zdim), f->axis_size(v.ydim),
                                 f->axis_size(v.xdim)};
        check(H5Dset_extent(ds, dims), "resizing " + v.name);
    }
    f->nt_ = keep;
    f->file_.start_swmr();
    return f;
}

void CrossFile::append(double time, const std::vector<const void*>& data) {
    file_.require_open();
    const h5::Quiet quiet;
    const hsize_t nt = nt_ + 1;
    try {
        // A full disk is detected before HDF5 touches the file: the room needed is one
        // sample (a new chunk) per variable, the time value and some metadata.
        std::uintmax_t need = 64 * 1024 + 256 * 8;
        for (const CrossVar& v : h_.vars)
            need += axis_size(v.zdim) * axis_size(v.ydim) * axis_size(v.xdim) * (h_.single ? 4 : 8);
        if (const std::uintmax_t room = h5::free_bytes(path_); room < need)
            throw Error("no room to write: " + std::to_string(need) + " bytes needed, " +
                        std::to_string(room) + " available (disk full?)");
        for (std::size_t n = 0; n < h_.vars.size(); ++n) {
            const CrossVar& v = h_.vars[n];
            Id ds(H5Dopen2(file_, v.name.c_str(), H5P_DEFAULT), H5Dclose, "dataset " + v.name);
            const hsize_t count[4] = {1, axis_size(v.zdim), axis_size(v.ydim), axis_size(v.xdim)};
            const hsize_t dims[4] = {nt, count[1], count[2], count[3]}, start[4] = {nt_, 0, 0, 0};
            check(H5Dset_extent(ds, dims), "extending " + v.name);
            Id fspace(H5Dget_space(ds), H5Sclose, "dataspace of " + v.name);
            check(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr),
                  "selecting a sample of " + v.name);
            Id mspace(H5Screate_simple(4, count, nullptr), H5Sclose, "memory space");
            check(H5Dwrite(ds, h_.single ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, mspace, fspace,
                           H5P_DEFAULT, data[n]),
                  "writing " + v.name);
        }
        // Last: the time axis commits a sample.
        Id ds(H5Dopen2(file_, "time", H5P_DEFAULT), H5Dclose, "dataset time");
        const hsize_t dims[1] = {nt}, start[1] = {nt_}, count[1] = {1};
        check(H5Dset_extent(ds, dims), "extending time");
        Id fspace(H5Dget_space(ds), H5Sclose, "dataspace of time");
        check(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr),
              "selecting a sample of time");
        Id mspace(H5Screate_simple(1, count, nullptr), H5Sclose, "memory space");
        check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, &time), "writing time");
        file_.flush();
    } catch (...) {
        roll_back();
        file_.abandon();
        throw;
    }
    nt_ = nt;
}

void CrossFile::roll_back() noexcept {
    // Unchecked calls: after a failure this is all that can still be tried, and it needs no
    // new room on the disk.
    std::vector<std::string> names{"time"};
    for (const CrossVar& v : h_.vars) names.push_back(v.name);
    for (const std::string& name : names) {
        const hid_t ds = H5Dopen2(file_, name.c_str(), H5P_DEFAULT);
        if (ds < 0) continue;
        if (const hid_t space = H5Dget_space(ds); space >= 0) {
            hsize_t dims[4] = {0, 0, 0, 0};
            if (H5Sget_simple_extent_dims(space, dims, nullptr) >= 1 && dims[0] > nt_) {
                dims[0] = nt_;
                H5Dset_extent(ds, dims);
            }
            H5Sclose(space);
        }
        H5Dclose(ds);
    }
    H5Fflush(file_, H5F_SCOPE_GLOBAL);
    // Objects a failed step left open would keep the file open after closing it (and
    // then refuse SWMR to a restart in this process).
    const unsigned types = H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR;
    const ssize_t n = H5Fget_obj_count(file_, types | H5F_OBJ_LOCAL);
    if (n <= 0) return;
    std::vector<hid_t> ids(std::size_t(n), -1);
    const ssize_t got = H5Fget_obj_ids(file_, types | H5F_OBJ_LOCAL, std::size_t(n), ids.data());
    for (ssize_t k = 0; k < got; ++k) {
        const hid_t id = ids[std::size_t(k)];
        if (H5Iget_type(id) == H5I_ATTR)
            H5Aclose(id);
        else
            H5Oclose(id);
    }
}

} // namespace squall::io
