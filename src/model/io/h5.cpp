#include "model/io/h5.h"

#include <sys/stat.h>

#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <limits>

namespace squall::h5 {

FailInjection& fail_injection() {
    static FailInjection f;
    return f;
}

bool library_threadsafe() {
    hbool_t safe = 0;
    return H5is_library_threadsafe(&safe) >= 0 && safe;
}

namespace {
bool g_close_failed = false;
} // namespace

herr_t close_file(hid_t fid) {
    const herr_t r = H5Fclose(fid);
    if (r < 0) g_close_failed = true;
    return r;
}

void take_over_shutdown() {
    H5dont_atexit();
}

void shutdown() {
    if (!g_close_failed) H5close();
}

AppendFile::~AppendFile() {
    const Quiet quiet;
    if (fid_ >= 0) close_file(fid_);
}

void AppendFile::create(const std::string& path, bool overwrite) {
    if (!overwrite && std::filesystem::exists(path))
        throw Error("the file exists; use --overwrite to replace it or --restart to continue "
                    "its run");
    Id fapl(latest_fapl(), H5Pclose, "file access properties");
    fid_ =
        check(H5Fcreate(path.c_str(), overwrite ? H5F_ACC_TRUNC : H5F_ACC_EXCL, H5P_DEFAULT, fapl),
              "cannot create the file");
    swmr_ = false;
    remember(path);
}

void AppendFile::remember(const std::string& path) {
    struct stat st {};
    path_ = path;
    if (::stat(path.c_str(), &st) == 0) dev_ = st.st_dev, ino_ = st.st_ino;
}

void AppendFile::open(const std::string& path) {
    Id fapl(latest_fapl(), H5Pclose, "file access properties");
    fid_ = H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl);
    if (fid_ < 0) {
        // A run killed while writing leaves the file marked as open for SWMR writing; a
        // restart takes it over (HDF5's internal property behind `h5clear -s`).
        hbool_t clear = true;
        if (H5Pset(fapl, "clear_status_flags", &clear) >= 0)
            fid_ = H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl);
    }
    check(fid_, "cannot open the file for appending");
    swmr_ = false;
    remember(path);
}

void AppendFile::close() {
    if (fid_ < 0) return;
    const Quiet quiet;
    const hid_t fid = fid_;
    fid_ = -1;
    check(close_file(fid), "closing the file");
}

void AppendFile::abandon() {
    const hid_t fid = fid_;
    fid_ = -1;
    if (fid >= 0) close_file(fid);
}

void AppendFile::flush() {
    check(H5Fflush(fid_, H5F_SCOPE_GLOBAL), "flushing the file");
}

void AppendFile::start_swmr() {
    flush();
    check(H5Fstart_swmr_write(fid_), "starting SWMR (single-writer/multiple-reader) mode");
    swmr_ = true;
}

void AppendFile::require_open() const {
    if (fid_ < 0) throw Error("the file was closed after an earlier error");
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0 || st.st_dev != dev_ || st.st_ino != ino_)
        throw Error("the file was deleted or replaced during the run, so its samples from "
                    "here on would be lost; the run stops (a restart with --overwrite starts a "
                    "new file)");
}

void write_string_attr(hid_t loc, const char* name, const std::string& value) {
    Id type(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
    check(H5Tset_size(type, value.size() + 1), "string size");
    check(H5Tset_strpad(type, H5T_STR_NULLTERM), "string padding");
    Id space(H5Screate(H5S_SCALAR), H5Sclose, "scalar space");
    Id attr(H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
            std::string("attribute ") + name);
    check(H5Awrite(attr, type, value.c_str()), std::string("writing attribute ") + name);
}

namespace {
// A scalar attribute of file type `stored`, written from / read into a value of `memory` type.
void write_scalar_attr(hid_t loc, const char* name, hid_t stored, hid_t memory, const void* value) {
    Id space(H5Screate(H5S_SCALAR), H5Sclose, "scalar space");
    Id attr(H5Acreate2(loc, name, stored, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
            std::string("attribute ") + name);
    check(H5Awrite(attr, memory, value), std::string("writing attribute ") + name);
}
void read_scalar_attr(hid_t loc, const char* name, hid_t memory, void* value) {
    Id attr(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose, std::string("attribute ") + name);
    check(H5Aread(attr, memory, value), std::string("reading attribute ") + name);
}
} // namespace

void write_int_attr(hid_t loc, const char* name, std::int64_t value) {
    write_scalar_attr(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}

void write_real_attr(hid_t loc, const char* name, double value) {
    write_scalar_attr(loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

void write_uint_attr(hid_t loc, const char* name, std::uint64_t value) {
    write_scalar_attr(loc, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value);
}

std::string read_string_attr(hid_t loc, const char* name) {
    Id attr(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose, std::string("attribute ") + name);
    Id type(H5Aget_type(attr), H5Tclose, std::string("type of attribute ") + name);
    if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) > 0)
        throw Error(std::string("attribute ") + name + " is not a fixed-length string");
    std::string s(H5Tget_size(type), '\0');
    check(H5Aread(attr, type, s.data()), std::string("reading attribute ") + name);
    s.resize(std::size_t(std::find(s.begin(), s.end(), '\0') - s.begin()));
    return s;
}

std::int64_t read_int_attr(hid_t loc, const char* name) {
    std::int64_t v = 0;
    read_scalar_attr(loc, name, H5T_NATIVE_INT64, &v);
    return v;
}

std::uint64_t read_uint_attr(hid_t loc, const char* name) {
    std::uint64_t v = 0;
    read_scalar_attr(loc, name, H5T_NATIVE_UINT64, &v);
    return v;
}

bool has_attr(hid_t loc, const char* name) {
    return check(H5Aexists(loc, name), std::string("attribute ") + name) > 0;
}

hid_t latest_fapl() {
    const hid_t fapl = check(H5Pcreate(H5P_FILE_ACCESS), "file access properties");
    if (H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) < 0) {
        H5Pclose(fapl);
        throw Error("file format version");
    }
    return fapl;
}

std::vector<double> read_doubles(hid_t ds, const std::string& what) {
    Id space(H5Dget_space(ds), H5Sclose, "dataspace of " + what);
    const hssize_t n = check(H5Sget_simple_extent_npoints(space), "size of " + what);
    std::vector<double> v(static_cast<std::size_t>(n));
    if (n > 0)
        check(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()),
              "reading " + what);
    return v;
}

void make_scale(hid_t ds, const std::string& dimname) {
    write_string_attr(ds, "CLASS", "DIMENSION_SCALE");
    write_string_attr(ds, "NAME", dimname);
}

void attach(hid_t file, hid_t ds, const std::vector<std::string>& scales) {
    std::vector<hobj_ref_t> refs(scales.size());
    std::vector<hvl_t> list(scales.size());
    for (std::size_t d = 0; d < scales.size(); ++d) {
        check(H5Rcreate(&refs[d], file, scales[d].c_str(), H5R_OBJECT, -1),
              "reference to " + scales[d]);
        list[d].len = 1;
        list[d].p = &refs[d];
    }
    Id vtype(H5Tvlen_create(H5T_STD_REF_OBJ), H5Tclose, "vlen type");
    const hsize_t n = scales.size();
    Id space(H5Screate_simple(1, &n, nullptr), H5Sclose, "DIMENSION_LIST space");
    Id attr(H5Acreate2(ds, "DIMENSION_LIST", vtype, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
            "DIMENSION_LIST");
    check(H5Awrite(attr, vtype, list.data()), "writing DIMENSION_LIST");
}

namespace {
struct RefListEntry {
    hobj_ref_t dataset;
    int dimension;
};
} // namespace

void write_reference_lists(
    hid_t file, const std::map<std::string, std::vector<std::pair<std::string, int>>>& refs) {
    Id ctype(H5Tcreate(H5T_COMPOUND, sizeof(RefListEntry)), H5Tclose, "compound type");
    check(H5Tinsert(ctype, "dataset", HOFFSET(RefListEntry, dataset), H5T_STD_REF_OBJ),
          "compound member");
    check(H5Tinsert(ctype, "dimension", HOFFSET(RefListEntry, dimension), H5T_NATIVE_INT),
          "compound member");
    for (const auto& [scale, list] : refs) {
        std::vector<RefListEntry> entries(list.size());
        for (std::size_t i = 0; i < list.size(); ++i) {
            check(H5Rcreate(&entries[i].dataset, file, list[i].first.c_str(), H5R_OBJECT, -1),
                  "reference to " + list[i].first);
            entries[i].dimension = list[i].second;
        }
        Id ds(H5Dopen2(file, scale.c_str(), H5P_DEFAULT), H5Dclose, "dataset " + scale);
        if (H5Aexists(ds, "REFERENCE_LIST") > 0)
            check(H5Adelete(ds, "REFERENCE_LIST"), "replacing REFERENCE_LIST of " + scale);
        const hsize_t n = entries.size();
        Id space(H5Screate_simple(1, &n, nullptr), H5Sclose, "REFERENCE_LIST space");
        Id attr(H5Acreate2(ds, "REFERENCE_LIST", ctype, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                "REFERENCE_LIST of " + scale);
        check(H5Awrite(attr, ctype, entries.data()), "writing REFERENCE_LIST of " + scale);
    }
}

void write_scale(hid_t loc, const std::string& name, const std::vector<double>& values,
                 const std::string& units, const std::string& long_name) {
    const hsize_t n = values.size();
    Id space(H5Screate_simple(1, &n, nullptr), H5Sclose, "space of " + name);
    Id ds(
        H5Dcreate2(loc, name.c_str(), H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
        H5Dclose, "creating dataset " + name);
    if (n > 0)
        check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
              "writing " + name);
    write_string_attr(ds, "units", units);
    write_string_attr(ds, "long_name", long_name);
    make_scale(ds, name);
}

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

} // namespace squall::h5
