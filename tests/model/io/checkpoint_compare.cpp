// checkpoint_compare A B [--rel TOL] [--group G]: exit 0 when the two checkpoints hold the
// same model time, step and fields, byte for byte; otherwise print what differs and exit 1.
// With --rel (a continuation on another backend or rank count, equal only to round-off),
// the steps must agree and each field to TOL times its largest magnitude. --group compares
// the datasets of group G instead of /fields, and no step attributes (cross-section files:
// --group /).
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::int64_t int_attr(hid_t file, const char* name) {
    std::int64_t v = -1;
    const hid_t a = H5Aopen(file, name, H5P_DEFAULT);
    if (a < 0 || H5Aread(a, H5T_NATIVE_INT64, &v) < 0) std::fprintf(stderr, "no %s\n", name);
    if (a >= 0) H5Aclose(a);
    return v;
}

// The raw bytes of a dataset in its file type (so float and double compare exactly).
bool read_raw(hid_t file, const std::string& path, std::vector<char>& out) {
    const hid_t ds = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
    if (ds < 0) return false;
    const hid_t type = H5Dget_type(ds), space = H5Dget_space(ds);
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    out.resize(std::size_t(n) * H5Tget_size(type));
    const bool ok = H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) >= 0;
    H5Tclose(type);
    H5Sclose(space);
    H5Dclose(ds);
    return ok;
}

// A dataset converted to double (for the comparison to round-off).
std::vector<double> read_double(hid_t file, const std::string& path) {
    std::vector<double> out;
    const hid_t ds = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
    if (ds < 0) return out;
    const hid_t space = H5Dget_space(ds);
    out.resize(std::size_t(H5Sget_simple_extent_npoints(space)));
    if (H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) out.clear();
    H5Sclose(space);
    H5Dclose(ds);
    return out;
}

// Largest |x - y| over largest |x|; -1 when the sizes differ or a read failed.
double relative_difference(const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() != y.size() || x.empty()) return -1;
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (!(std::abs(x[i] - y[i]) <= diff)) diff = std::abs(x[i] - y[i]); // NaN wins
        scale = std::max(scale, std::abs(x[i]));
    }
    return scale > 0 ? diff / scale : diff;
}

std::vector<std::string> field_names(hid_t file, const std::string& group) {
    std::vector<std::string> r;
    const hid_t g = H5Gopen2(file, group.c_str(), H5P_DEFAULT);
    H5G_info_t info;
    if (g < 0 || H5Gget_info(g, &info) < 0) return r;
    for (hsize_t n = 0; n < info.nlinks; ++n) {
        char name[256] = {};
        H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, n, name, sizeof name, H5P_DEFAULT);
        r.push_back(name);
    }
    H5Gclose(g);
    return r;
}

} // namespace

int main(int argc, char** argv) {
    double rel = -1; // bitwise
    std::string group = "fields";
    bool usage = argc < 3;
    for (int n = 3; n < argc && !usage; n += 2) {
        const std::string opt = argv[n];
        if (n + 1 >= argc)
            usage = true;
        else if (opt == "--rel")
            rel = std::atof(argv[n + 1]), usage = !(rel >= 0);
        else if (opt == "--group")
            group = argv[n + 1];
        else
            usage = true;
    }
    if (usage) {
        std::fprintf(stderr, "usage: checkpoint_compare A.h5 B.h5 [--rel TOL] [--group G]\n");
        return 2;
    }
    const std::string prefix = group == "/" ? "/" : group + "/";
    const hid_t a = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t b = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (a < 0 || b < 0) return 2;
    int bad = 0;
    // The time step, and so the model time, may differ in the last digit of a round-off
    // continuation's CFL: only the step count must agree there.
    auto attrs = rel < 0 ? std::vector<const char*>{"itime", "nstep", "idt"}
                         : std::vector<const char*>{"nstep"};
    if (group != "fields") attrs.clear();
    for (const char* k : attrs)
        if (int_attr(a, k) != int_attr(b, k)) {
            std::printf("%s differs: %lld vs %lld\n", k, (long long)int_attr(a, k),
                        (long long)int_attr(b, k));
            ++bad;
        }
    const auto names = field_names(a, group);
    if (names != field_names(b, group) || names.empty()) {
        std::printf("the field lists differ\n");
        ++bad;
    }
    for (const auto& n : names) {
        if (rel >= 0) {
            const double d =
                relative_difference(read_double(a, prefix + n), read_double(b, prefix + n));
            std::printf("field %s: relative difference %.3g (tolerance %.3g)\n", n.c_str(), d, rel);
            if (!(d >= 0 && d <= rel)) ++bad;
            continue;
        }
        std::vector<char> x, y;
        if (!read_raw(a, prefix + n, x) || !read_raw(b, prefix + n, y) || x.size() != y.size() ||
            std::memcmp(x.data(), y.data(), x.size()) != 0) {
            std::printf("field %s differs\n", n.c_str());
            ++bad;
        } else {
            std::printf("field %s: %zu bytes equal\n", n.c_str(), x.size());
        }
    }
    H5Fclose(a);
    H5Fclose(b);
    return bad ? 1 : 0;
}
