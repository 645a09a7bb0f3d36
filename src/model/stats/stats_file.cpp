#include "model/stats/stats_file.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <stdexcept>

namespace squall::stats_io {

namespace {

struct H5Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

hid_t check(hid_t id, const std::string& what) {
    if (id < 0) throw H5Error(what);
    return id;
}
void check(herr_t err, const std::string& what) {
    if (err < 0) throw H5Error(what);
}

// Owns one HDF5 identifier and closes it with the matching function.
class Handle {
public:
    Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what)
        : id_(check(id, what)), close_(close) {}
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { close_(id_); }
    operator hid_t() const { return id_; }

private:
    hid_t id_;
    herr_t (*close_)(hid_t);
};

// Silences HDF5's automatic error stack printing while alive: failures are reported
// through exceptions instead.
class QuietHdf5 {
public:
    QuietHdf5() {
        H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

private:
    H5E_auto2_t func_ = nullptr;
    void* data_ = nullptr;
};

void write_string_attr(hid_t loc, const char* name, const std::string& value) {
    Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
    check(H5Tset_size(type, value.size() + 1), "string size");
    check(H5Tset_strpad(type, H5T_STR_NULLTERM), "string padding");
    Handle space(H5Screate(H5S_SCALAR), H5Sclose, "scalar space");
    Handle attr(H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                std::string("attribute ") + name);
    check(H5Awrite(attr, type, value.c_str()), std::string("writing attribute ") + name);
}

std::string read_string_attr(hid_t loc, const char* name) {
    Handle attr(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose, std::string("attribute ") + name);
    Handle type(H5Aget_type(attr), H5Tclose, std::string("type of attribute ") + name);
    if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) > 0)
        throw H5Error(std::string("attribute ") + name + " is not a fixed-length string");
    std::string s(H5Tget_size(type), '\0');
    check(H5Aread(attr, type, s.data()), std::string("reading attribute ") + name);
    s.resize(std::size_t(std::find(s.begin(), s.end(), '\0') - s.begin()));
    return s;
}

// File access: the latest format, which SWMR needs (readers need HDF5 >= 1.10).
hid_t latest_fapl() {
    const hid_t fapl = check(H5Pcreate(H5P_FILE_ACCESS), "file access properties");
    if (H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) < 0) {
        H5Pclose(fapl);
        throw H5Error("file format version");
    }
    return fapl;
}

std::vector<double> read_doubles(hid_t ds, const std::string& what) {
    Handle space(H5Dget_space(ds), H5Sclose, "dataspace of " + what);
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    check(hid_t(n), "size of " + what);
    std::vector<double> v(static_cast<std::size_t>(n));
    if (n > 0)
        check(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()),
              "reading " + what);
    return v;
}

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
    Handle space(H5Screate_simple(rank, dims, maxdims), H5Sclose, "dataspace of " + name);
    Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "creation properties of " + name);
    check(H5Pset_chunk(dcpl, rank, chunk), "chunks of " + name);
    if (!integer) {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        check(H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &nan), "fill value of " + name);
    }
    return check(H5Dcreate2(loc, name.c_str(), integer ? H5T_STD_I64LE : H5T_IEEE_F64LE, space,
                            H5P_DEFAULT, dcpl, H5P_DEFAULT),
                 "creating dataset " + name);
}

// Dimension scales written with the core library, following the HDF5 Dimension Scale
// specification that H5DS (hdf5_hl) implements, so that H5DS, netCDF-4 and xarray read them:
//   scale:   CLASS = "DIMENSION_SCALE", NAME = <dim name>,
//            REFERENCE_LIST = [{dataset: object ref, dimension: int}, ...];
//   dataset: DIMENSION_LIST = one vlen of object refs per dimension.
// (Avoids linking hdf5_hl, which the build does not provide.)
struct RefListEntry {
    hobj_ref_t dataset;
    int dimension;
};

void make_scale(hid_t ds, const std::string& dimname) {
    write_string_attr(ds, "CLASS", "DIMENSION_SCALE");
    write_string_attr(ds, "NAME", dimname);
}

void attach(hid_t file, hid_t ds, const std::vector<std::string>& scales) {
    std::vector<hobj_ref_t> refs(scales.size());
    std::vector<hvl_t> list(scales.size());
    for (std::size_t d = 0; d < scales.size(); ++d) {
        check(H5Rcreate(&refs[d], file, scales[d].c_str(), H5R_OBJECT, -1), "scale reference");
        list[d].len = 1;
        list[d].p = &refs[d];
    }
    Handle vtype(H5Tvlen_create(H5T_STD_REF_OBJ), H5Tclose, "vlen type");
    const hsize_t n = scales.size();
    Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose, "DIMENSION_LIST space");
    Handle attr(H5Acreate2(ds, "DIMENSION_LIST", vtype, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                "DIMENSION_LIST");
    check(H5Awrite(attr, vtype, list.data()), "writing DIMENSION_LIST");
}

// Bytes the file can still grow by: free space on its filesystem, and the process's file
// size limit.
std::uintmax_t free_bytes(const std::string& path) {
    std::error_code ec;
    const std::filesystem::space_info sp = std::filesystem::space(path, ec);
    std::uintmax_t room = ec ? std::numeric_limits<std::uintmax_t>::max() : sp.available;
    rlimit lim{};
    if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
        const std::uintmax_t size = std::filesystem::file_size(path, ec);
        const std::uintmax_t left = ec || size >= lim.rlim_cur ? 0 : lim.rlim_cur - size;
        room = std::min(room, left);
    }
    return room;
}

std::string path_of(const VarInfo& v) {
    return (v.loc == Loc::time ? "/timeseries/" : "/profiles/") + v.name;
}

} // namespace

std::unique_ptr<StatsFile> StatsFile::create(const std::string& path, const Header& h,
                                             bool overwrite) {
    const QuietHdf5 quiet;
    if (!overwrite && std::filesystem::exists(path))
        throw H5Error("the file exists; use --overwrite to replace it or --restart to "
                      "continue its run");
    Handle fapl(latest_fapl(), H5Pclose, "file access properties");
    const hid_t fid =
        check(H5Fcreate(path.c_str(), overwrite ? H5F_ACC_TRUNC : H5F_ACC_EXCL, H5P_DEFAULT, fapl),
              "cannot create the file");
    std::unique_ptr<StatsFile> f(new StatsFile(path, fid));
    f->nz_ = h.z.size();
    f->nzh_ = h.zh.size();
    f->last_time_ = -std::numeric_limits<double>::infinity();
    write_string_attr(fid, "case", h.case_name);
    write_string_attr(fid, "squall_version", h.version);
    write_string_attr(fid, "configuration", h.yaml);
    write_string_attr(fid, "scalar", h.scalar);
    write_string_attr(fid, "title", "squall statistics: horizontal-mean profiles and time series");
    {
        Handle t(create_growing(fid, "time", 0, 0, false), H5Dclose, "time");
        write_string_attr(t, "units", "s");
        write_string_attr(t, "long_name", "model time");
        make_scale(t, "time");
    }
    auto level_scale = [&](const char* name, const std::vector<double>& val, const char* ln) {
        const hsize_t n = val.size();
        Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose, std::string("space of ") + name);
        Handle ds(
            H5Dcreate2(fid, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
            H5Dclose, std::string("creating dataset ") + name);
        check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, val.data()),
              std::string("writing ") + name);
        write_string_attr(ds, "units", "m");
        write_string_attr(ds, "long_name", ln);
        make_scale(ds, name);
    };
    level_scale("z", h.z, "height of the cell centres");
    level_scale("zh", h.zh, "height of the cell faces");
    Handle prof(H5Gcreate2(fid, "profiles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                "group profiles");
    Handle ts(H5Gcreate2(fid, "timeseries", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
              "group timeseries");
    {
        Handle ds(create_growing(ts, "step", 0, 0, true), H5Dclose, "step");
        write_string_attr(ds, "units", "1");
        write_string_attr(ds, "long_name", "time step number");
        attach(fid, ds, {"/time"});
    }
    check(H5Fflush(fid, H5F_SCOPE_GLOBAL), "flushing the file");
    return f;
}

void StatsFile::open_rdwr() {
    Handle fapl(latest_fapl(), H5Pclose, "file access properties");
    fid_ = H5Fopen(path_.c_str(), H5F_ACC_RDWR, fapl);
    if (fid_ < 0) {
        // A run killed while writing leaves the file marked as open for (SWMR) writing; a
        // restart takes it over (HDF5's internal property behind `h5clear -s`).
        hbool_t clear = true;
        if (H5Pset(fapl, "clear_status_flags", &clear) >= 0)
            fid_ = H5Fopen(path_.c_str(), H5F_ACC_RDWR, fapl);
    }
    check(fid_, "cannot open the file for appending");
    swmr_ = false;
}

std::unique_ptr<StatsFile> StatsFile::resume(const std::string& path, const Header& h,
                                             double time) {
    const QuietHdf5 quiet;
    if (!std::filesystem::exists(path)) throw H5Error("the file to continue does not exist");
    std::unique_ptr<StatsFile> f(new StatsFile(path, -1));
    f->open_rdwr();
    const hid_t fid = f->fid_;
    f->nz_ = h.z.size();
    f->nzh_ = h.zh.size();
    const std::string scalar = read_string_attr(fid, "scalar");
    if (scalar != h.scalar)
        throw H5Error("written for the scalar '" + scalar + "', this run has '" + h.scalar + "'");
    for (const auto& [name, levels] : {std::pair{"z", &h.z}, std::pair{"zh", &h.zh}}) {
        Handle ds(H5Dopen2(fid, name, H5P_DEFAULT), H5Dclose, std::string("dataset ") + name);
        const std::vector<double> in_file = read_doubles(ds, name);
        bool same = in_file.size() == levels->size();
        for (std::size_t k = 0; same && k < in_file.size(); ++k)
            same = std::abs(in_file[k] - (*levels)[k]) <= 1e-9 * (1 + std::abs((*levels)[k]));
        if (!same)
            throw H5Error(std::string("its levels ") + name + " (" +
                          std::to_string(in_file.size()) + " values) differ from this run's (" +
                          std::to_string(levels->size()) + " values)");
    }
    for (const char* group : {"profiles", "timeseries"}) {
        Handle g(H5Gopen2(fid, group, H5P_DEFAULT), H5Gclose, std::string("group ") + group);
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
            if (name == "step") continue;
            Handle ds(H5Dopen2(g, name.c_str(), H5P_DEFAULT), H5Dclose, "dataset " + name);
            Handle space(H5Dget_space(ds), H5Sclose, "dataspace of " + name);
            hsize_t dims[2] = {0, 0};
            const int rank = H5Sget_simple_extent_ndims(space);
            if (rank < 1 || rank > 2) throw H5Error("unexpected dataset " + name);
            check(H5Sget_simple_extent_dims(space, dims, nullptr), "dimensions of " + name);
            const Loc loc = rank == 1 ? Loc::time : (dims[1] == f->nz_ ? Loc::z : Loc::zh);
            f->vars_.push_back(
                {name, loc, read_string_attr(ds, "long_name"), read_string_attr(ds, "units")});
        }
    }
    // Keep the samples up to `time` (the time axis is strictly increasing).
    Handle tds(H5Dopen2(fid, "time", H5P_DEFAULT), H5Dclose, "dataset time");
    const std::vector<double> t = read_doubles(tds, "time");
    std::size_t keep = 0;
    while (keep < t.size() && t[keep] <= time) ++keep;
    f->set_extent_all(keep);
    f->nt_ = keep;
    f->last_time_ = keep > 0 ? t[keep - 1] : -std::numeric_limits<double>::infinity();
    check(H5Fflush(fid, H5F_SCOPE_GLOBAL), "flushing the file");
    return f;
}

StatsFile::~StatsFile() {
    const QuietHdf5 quiet;
    if (fid_ >= 0) H5Fclose(fid_);
}

void StatsFile::close() {
    if (fid_ < 0) return;
    const QuietHdf5 quiet;
    const hid_t fid = fid_;
    fid_ = -1;
    check(H5Fclose(fid), "closing the file");
}

void StatsFile::set_extent_all(hsize_t nt) {
    auto set = [&](const std::string& path, hsize_t len) {
        Handle ds(H5Dopen2(fid_, path.c_str(), H5P_DEFAULT), H5Dclose, "dataset " + path);
        const hsize_t dims[2] = {nt, len};
        check(H5Dset_extent(ds, dims), "resizing " + path);
    };
    set("/time", 0);
    set("/timeseries/step", 0);
    for (const VarInfo& v : vars_) set(path_of(v), row_length(v.loc, nz_, nzh_));
}

void StatsFile::write_reference_lists() {
    std::map<std::string, std::vector<std::pair<std::string, int>>> refs;
    refs["/time"].push_back({"/timeseries/step", 0});
    for (const VarInfo& v : vars_) {
        refs["/time"].push_back({path_of(v), 0});
        if (v.loc != Loc::time) refs[v.loc == Loc::z ? "/z" : "/zh"].push_back({path_of(v), 1});
    }
    Handle ctype(H5Tcreate(H5T_COMPOUND, sizeof(RefListEntry)), H5Tclose, "compound type");
    check(H5Tinsert(ctype, "dataset", HOFFSET(RefListEntry, dataset), H5T_STD_REF_OBJ),
          "compound member");
    check(H5Tinsert(ctype, "dimension", HOFFSET(RefListEntry, dimension), H5T_NATIVE_INT),
          "compound member");
    for (const auto& [scale, list] : refs) {
        std::vector<RefListEntry> entries(list.size());
        for (std::size_t i = 0; i < list.size(); ++i) {
            check(H5Rcreate(&entries[i].dataset, fid_, list[i].first.c_str(), H5R_OBJECT, -1),
                  "reference to " + list[i].first);
            entries[i].dimension = list[i].second;
        }
        Handle ds(H5Dopen2(fid_, scale.c_str(), H5P_DEFAULT), H5Dclose, "dataset " + scale);
        if (H5Aexists(ds, "REFERENCE_LIST") > 0)
            check(H5Adelete(ds, "REFERENCE_LIST"), "replacing REFERENCE_LIST of " + scale);
        const hsize_t n = entries.size();
        Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose, "REFERENCE_LIST space");
        Handle attr(H5Acreate2(ds, "REFERENCE_LIST", ctype, space, H5P_DEFAULT, H5P_DEFAULT),
                    H5Aclose, "REFERENCE_LIST of " + scale);
        check(H5Awrite(attr, ctype, entries.data()), "writing REFERENCE_LIST of " + scale);
    }
}

void StatsFile::start_swmr() {
    check(H5Fflush(fid_, H5F_SCOPE_GLOBAL), "flushing the file");
    check(H5Fstart_swmr_write(fid_), "starting SWMR (single-writer/multiple-reader) mode");
    swmr_ = true;
}

void StatsFile::define(const std::vector<VarInfo>& vars, bool exact) {
    if (fid_ < 0) throw H5Error("the file was closed after an earlier error");
    const QuietHdf5 quiet;
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
            throw H5Error("this run's variables differ from the file's (+ new, - missing):" + diff);
    }
    if (!missing.empty()) {
        // New objects and attributes cannot be made in SWMR mode: leave it for a moment.
        if (swmr_) {
            close();
            open_rdwr();
        }
        for (const VarInfo& v : missing) {
            const bool series = v.loc == Loc::time;
            Handle g(H5Gopen2(fid_, series ? "timeseries" : "profiles", H5P_DEFAULT), H5Gclose,
                     "group of " + v.name);
            Handle ds(
                create_growing(g, v.name, series ? 0 : row_length(v.loc, nz_, nzh_), nt_, false),
                H5Dclose, v.name);
            write_string_attr(ds, "units", v.units);
            write_string_attr(ds, "long_name", v.long_name);
            if (series)
                attach(fid_, ds, {"/time"});
            else
                attach(fid_, ds, {"/time", v.loc == Loc::z ? "/z" : "/zh"});
            vars_.push_back(v);
        }
        write_reference_lists();
    }
    if (!swmr_) start_swmr();
}

void StatsFile::append(const std::vector<double>& time, const std::vector<long long>& step,
                       const std::vector<const std::vector<double>*>& data) {
    if (fid_ < 0) throw H5Error("the file was closed after an earlier error");
    const QuietHdf5 quiet;
    const hsize_t n = time.size(), nt = nt_ + n;
    auto put = [&](const std::string& path, hsize_t len, hid_t mtype, const void* buf) {
        Handle ds(H5Dopen2(fid_, path.c_str(), H5P_DEFAULT), H5Dclose, "dataset " + path);
        const hsize_t dims[2] = {nt, len}, start[2] = {nt_, 0}, count[2] = {n, len};
        check(H5Dset_extent(ds, dims), "extending " + path);
        if (!buf) return; // rows stay NaN (the fill value)
        const int rank = len == 0 ? 1 : 2;
        Handle fspace(H5Dget_space(ds), H5Sclose, "dataspace of " + path);
        check(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr),
              "selecting rows of " + path);
        Handle mspace(H5Screate_simple(rank, count, nullptr), H5Sclose, "memory space");
        check(H5Dwrite(ds, mtype, mspace, fspace, H5P_DEFAULT, buf), "writing " + path);
    };
    try {
        // A full disk is detected before HDF5 touches the file, so that the file stays as the
        // last flush left it: the room needed is the new rows, a new chunk per dataset and
        // some metadata.
        std::uintmax_t need = 64 * 1024 + 2 * (n + chunk_rows(1)) * 8;
        for (const VarInfo& v : vars_) {
            const hsize_t len = row_length(v.loc, nz_, nzh_);
            need += (n + chunk_rows(len)) * len * 8;
        }
        if (const std::uintmax_t room = free_bytes(path_); room < need)
            throw H5Error("no room to write: " + std::to_string(need) + " bytes needed, " +
                          std::to_string(room) + " available (disk full?)");
        for (std::size_t i = 0; i < vars_.size(); ++i) {
            const VarInfo& v = vars_[i];
            const hsize_t len = v.loc == Loc::time ? 0 : row_length(v.loc, nz_, nzh_);
            put(path_of(v), len, H5T_NATIVE_DOUBLE, data[i] ? data[i]->data() : nullptr);
        }
        put("/timeseries/step", 0, H5T_NATIVE_LLONG, step.data());
        put("/time", 0, H5T_NATIVE_DOUBLE, time.data()); // last: the time axis commits a sample
        check(H5Fflush(fid_, H5F_SCOPE_GLOBAL), "flushing the file");
    } catch (...) {
        // Close the file: after a refused write (no room) it is as the last flush left
        // it; after a failure inside HDF5 closing retries the flush once.
        const hid_t fid = fid_;
        fid_ = -1;
        H5Fclose(fid);
        throw;
    }
    nt_ = nt;
    last_time_ = time.back();
}

} // namespace squall::stats_io
