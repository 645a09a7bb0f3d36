#include "stats_compare.h"

#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <sstream>

namespace squall::test {

namespace {

// HDF5 prints its error stack by default; here a failure is reported as a difference.
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

// One HDF5 identifier, closed with the matching function (an invalid one is not closed).
class Id {
public:
    Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
    Id(const Id&) = delete;
    Id& operator=(const Id&) = delete;
    ~Id() {
        if (id_ >= 0) close_(id_);
    }
    operator hid_t() const { return id_; }
    bool ok() const { return id_ >= 0; }

private:
    hid_t id_;
    herr_t (*close_)(hid_t);
};

herr_t collect_link(hid_t, const char* name, const H5L_info_t*, void* out) {
    static_cast<std::vector<std::string>*>(out)->push_back(std::string("/") + name);
    return 0;
}

herr_t collect_attr(hid_t, const char* name, const H5A_info_t*, void* out) {
    static_cast<std::vector<std::string>*>(out)->push_back(name);
    return 0;
}

// Every object below the root, by path, in name order; "/" first.
std::vector<std::string> object_paths(hid_t file) {
    std::vector<std::string> r{"/"};
    H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, collect_link, &r);
    return r;
}

std::vector<std::string> attribute_names(hid_t obj) {
    std::vector<std::string> r;
    hsize_t idx = 0;
    H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_attr, &r);
    return r;
}

std::string ref_name(hid_t file, const hobj_ref_t& ref) {
    char name[512] = {};
    if (H5Rget_name(file, H5R_OBJECT, &ref, name, sizeof name) < 0) return "<bad reference>";
    return name;
}

// An attribute as comparable bytes. References become the paths they name.
std::string attribute_value(hid_t file, hid_t obj, const std::string& name) {
    Id attr(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose);
    Id type(attr.ok() ? H5Aget_type(attr) : -1, H5Tclose);
    Id space(attr.ok() ? H5Aget_space(attr) : -1, H5Sclose);
    if (!type.ok() || !space.ok()) return "<unreadable>";
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    if (n < 0) return "<unreadable>";
    std::string out;
    if (name == "DIMENSION_LIST") {
        // One variable-length list of scale references per dimension.
        Id vtype(H5Tvlen_create(H5T_STD_REF_OBJ), H5Tclose);
        std::vector<hvl_t> lists(static_cast<std::size_t>(n));
        if (H5Aread(attr, vtype, lists.data()) < 0) return "<unreadable>";
        for (const hvl_t& l : lists) {
            for (std::size_t i = 0; i < l.len; ++i)
                out += ref_name(file, static_cast<const hobj_ref_t*>(l.p)[i]) + " ";
            out += "| ";
        }
        H5Dvlen_reclaim(vtype, space, H5P_DEFAULT, lists.data());
        return out;
    }
    if (name == "REFERENCE_LIST") {
        // (dataset reference, dimension) pairs; their order carries no meaning.
        struct Entry {
            hobj_ref_t ref;
            int dim;
        };
        Id ctype(H5Tcreate(H5T_COMPOUND, sizeof(Entry)), H5Tclose);
        H5Tinsert(ctype, "dataset", HOFFSET(Entry, ref), H5T_STD_REF_OBJ);
        H5Tinsert(ctype, "dimension", HOFFSET(Entry, dim), H5T_NATIVE_INT);
        std::vector<Entry> e(static_cast<std::size_t>(n));
        if (H5Aread(attr, ctype, e.data()) < 0) return "<unreadable>";
        std::vector<std::string> items;
        for (const Entry& x : e)
            items.push_back(ref_name(file, x.ref) + ":" + std::to_string(x.dim));
        std::sort(items.begin(), items.end());
        for (const auto& s : items) out += s + " ";
        return out;
    }
    // The type's class and size, then the bytes in the file's type.
    out = std::to_string(int(H5Tget_class(type))) + "/" + std::to_string(H5Tget_size(type)) + ":";
    std::string bytes(static_cast<std::size_t>(n) * H5Tget_size(type), '\0');
    if (H5Aread(attr, type, bytes.data()) < 0) return "<unreadable>";
    return out + bytes;
}

struct Raw {
    std::string type; // the file type's class and size
    std::vector<hsize_t> dims, maxdims;
    std::vector<char> bytes;
    bool ok = false;
};

Raw read_dataset(hid_t ds) {
    Raw r;
    Id type(H5Dget_type(ds), H5Tclose);
    Id space(H5Dget_space(ds), H5Sclose);
    if (!type.ok() || !space.ok()) return r;
    const H5T_class_t cls = H5Tget_class(type);
    if (cls != H5T_FLOAT && cls != H5T_INTEGER) return r; // the statistics have no others
    r.type = (cls == H5T_FLOAT ? "float" : "integer") + std::to_string(8 * H5Tget_size(type)) +
             (H5Tget_order(type) == H5T_ORDER_LE ? "le" : "be");
    const int rank = H5Sget_simple_extent_ndims(space);
    if (rank < 0) return r;
    r.dims.resize(std::size_t(rank));
    r.maxdims.resize(std::size_t(rank));
    H5Sget_simple_extent_dims(space, r.dims.data(), r.maxdims.data());
    r.bytes.resize(std::size_t(H5Sget_simple_extent_npoints(space)) * H5Tget_size(type));
    r.ok = r.bytes.empty() || H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, r.bytes.data()) >= 0;
    return r;
}

std::string dims_text(const std::vector<hsize_t>& d) {
    std::string s = "(";
    for (std::size_t i = 0; i < d.size(); ++i)
        s += (i ? ", " : "") +
             (d[i] == H5S_UNLIMITED ? std::string("unlimited") : std::to_string(d[i]));
    return s + ")";
}

// The first differing element of two equally long arrays of 8-byte values, described.
std::string first_difference(const Raw& a, const Raw& b) {
    const std::size_t n = a.bytes.size() / 8;
    for (std::size_t i = 0; i < n; ++i) {
        if (std::memcmp(&a.bytes[8 * i], &b.bytes[8 * i], 8) == 0) continue;
        std::ostringstream s;
        s.precision(17);
        if (a.type.rfind("float64", 0) == 0) {
            double x, y;
            std::memcpy(&x, &a.bytes[8 * i], 8);
            std::memcpy(&y, &b.bytes[8 * i], 8);
            s << "element " << i << ": " << x << " vs " << y;
        } else {
            s << "element " << i;
        }
        return s.str();
    }
    return "bytes differ";
}

void check_time_axis(const std::string& path, std::vector<std::string>& diffs) {
    const std::vector<double> t = stats_times(path);
    for (std::size_t i = 1; i < t.size(); ++i)
        if (!(t[i] > t[i - 1])) {
            std::ostringstream s;
            s << path << ": time " << t[i] << " at sample " << i << " is not after " << t[i - 1];
            diffs.push_back(s.str());
        }
}

template <typename V>
std::vector<V> read_1d(const std::string& path, const char* name, hid_t mtype) {
    const QuietHdf5 quiet;
    std::vector<V> v;
    Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file.ok()) return v;
    Id ds(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
    Id space(ds.ok() ? H5Dget_space(ds) : -1, H5Sclose);
    if (!space.ok()) return v;
    v.resize(std::size_t(H5Sget_simple_extent_npoints(space)));
    if (!v.empty() && H5Dread(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0) v.clear();
    return v;
}

} // namespace

std::vector<double> stats_times(const std::string& path) {
    return read_1d<double>(path, "/time", H5T_NATIVE_DOUBLE);
}

std::vector<long long> stats_steps(const std::string& path) {
    return read_1d<long long>(path, "/timeseries/step", H5T_NATIVE_LLONG);
}

std::string stats_attribute(const std::string& path, const std::string& name) {
    const QuietHdf5 quiet;
    Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    Id attr(file.ok() ? H5Aopen(file, name.c_str(), H5P_DEFAULT) : -1, H5Aclose);
    Id type(attr.ok() ? H5Aget_type(attr) : -1, H5Tclose);
    if (!type.ok() || H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) > 0) return "";
    std::string s(H5Tget_size(type), '\0');
    if (H5Aread(attr, type, s.data()) < 0) return "";
    return s.substr(0, s.find('\0'));
}

bool flip_last_bit_for_testing(const std::string& path, const std::string& dataset, std::size_t n) {
    const QuietHdf5 quiet;
    Id file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    Id ds(file.ok() ? H5Dopen2(file, dataset.c_str(), H5P_DEFAULT) : -1, H5Dclose);
    if (!ds.ok()) return false;
    std::vector<double> v(
        std::size_t(H5Sget_simple_extent_npoints(Id(H5Dget_space(ds), H5Sclose))));
    if (n >= v.size() ||
        H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
        return false;
    unsigned long long bits;
    std::memcpy(&bits, &v[n], 8);
    bits ^= 1;
    std::memcpy(&v[n], &bits, 8);
    return H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0;
}

std::vector<std::string> stats_differences(const std::string& a, const std::string& b,
                                           const std::vector<std::string>& ignore) {
    const QuietHdf5 quiet;
    std::vector<std::string> diffs;
    Id fa(H5Fopen(a.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    Id fb(H5Fopen(b.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!fa.ok() || !fb.ok()) return {"cannot open " + (fa.ok() ? b : a)};
    check_time_axis(a, diffs);
    check_time_axis(b, diffs);
    const std::vector<std::string> pa = object_paths(fa), pb = object_paths(fb);
    const std::set<std::string> sb(pb.begin(), pb.end());
    for (const std::string& p : pb)
        if (std::find(pa.begin(), pa.end(), p) == pa.end()) diffs.push_back(p + ": only in " + b);
    for (const std::string& path : pa) {
        if (!sb.count(path)) {
            diffs.push_back(path + ": only in " + a);
            continue;
        }
        Id oa(H5Oopen(fa, path.c_str(), H5P_DEFAULT), H5Oclose);
        Id ob(H5Oopen(fb, path.c_str(), H5P_DEFAULT), H5Oclose);
        if (!oa.ok() || !ob.ok()) {
            diffs.push_back(path + ": cannot open");
            continue;
        }
        if (H5Iget_type(oa) != H5Iget_type(ob)) {
            diffs.push_back(path + ": a group in one file, a dataset in the other");
            continue;
        }
        if (H5Iget_type(oa) == H5I_DATASET) {
            const Raw x = read_dataset(oa), y = read_dataset(ob);
            if (!x.ok || !y.ok)
                diffs.push_back(path + ": unreadable dataset");
            else if (x.type != y.type)
                diffs.push_back(path + ": type " + x.type + " vs " + y.type);
            else if (x.dims != y.dims || x.maxdims != y.maxdims)
                diffs.push_back(path + ": shape " + dims_text(x.dims) + " max " +
                                dims_text(x.maxdims) + " vs " + dims_text(y.dims) + " max " +
                                dims_text(y.maxdims));
            else if (x.bytes != y.bytes)
                diffs.push_back(path + ": values differ, first at " + first_difference(x, y));
        }
        const std::vector<std::string> na = attribute_names(oa), nb = attribute_names(ob);
        const std::string prefix = path == "/" ? "/" : path + "/";
        auto ignored = [&](const std::string& n) {
            return std::find(ignore.begin(), ignore.end(), prefix + n) != ignore.end();
        };
        for (const std::string& n : nb)
            if (!ignored(n) && std::find(na.begin(), na.end(), n) == na.end())
                diffs.push_back(prefix + n + ": attribute only in " + b);
        for (const std::string& n : na) {
            if (ignored(n)) continue;
            if (std::find(nb.begin(), nb.end(), n) == nb.end())
                diffs.push_back(prefix + n + ": attribute only in " + a);
            else if (attribute_value(fa, oa, n) != attribute_value(fb, ob, n))
                diffs.push_back(prefix + n + ": attribute differs");
        }
    }
    return diffs;
}

} // namespace squall::test
