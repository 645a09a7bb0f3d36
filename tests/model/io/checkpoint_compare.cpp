// checkpoint_compare A B: exit 0 when the two checkpoints hold the same model time, step
// and fields, byte for byte; otherwise print what differs and exit 1.
#include <hdf5.h>

#include <cstdint>
#include <cstdio>
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

std::vector<std::string> field_names(hid_t file) {
    std::vector<std::string> r;
    const hid_t g = H5Gopen2(file, "fields", H5P_DEFAULT);
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
    if (argc != 3) {
        std::fprintf(stderr, "usage: checkpoint_compare A.h5 B.h5\n");
        return 2;
    }
    const hid_t a = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t b = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (a < 0 || b < 0) return 2;
    int bad = 0;
    for (const char* k : {"itime", "nstep", "idt"})
        if (int_attr(a, k) != int_attr(b, k)) {
            std::printf("%s differs: %lld vs %lld\n", k, (long long)int_attr(a, k),
                        (long long)int_attr(b, k));
            ++bad;
        }
    const auto names = field_names(a);
    if (names != field_names(b) || names.empty()) {
        std::printf("the field lists differ\n");
        ++bad;
    }
    for (const auto& n : names) {
        std::vector<char> x, y;
        if (!read_raw(a, "fields/" + n, x) || !read_raw(b, "fields/" + n, y) ||
            x.size() != y.size() || std::memcmp(x.data(), y.data(), x.size()) != 0) {
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
