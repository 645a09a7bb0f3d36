#include "stats_test_util.h"

#include <hdf5.h>
#include <hdf5_hl.h>

#include <algorithm>
#include <stdexcept>

namespace stats_test {

Dataset read_dataset(const std::string& file, const std::string& path) {
    Dataset out;
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) throw std::runtime_error("cannot open " + file);
    const hid_t ds = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
    if (ds < 0) {
        H5Fclose(f);
        throw std::runtime_error("no dataset " + path);
    }
    const hid_t sp = H5Dget_space(ds);
    const int rank = H5Sget_simple_extent_ndims(sp);
    std::vector<hsize_t> dims(rank);
    H5Sget_simple_extent_dims(sp, dims.data(), nullptr);
    hsize_t n = 1;
    for (hsize_t d : dims) n *= d;
    out.dims.assign(dims.begin(), dims.end());
    out.data.resize(n);
    if (n > 0) H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data.data());
    H5Sclose(sp);
    H5Dclose(ds);
    H5Fclose(f);
    return out;
}

std::string read_string_attr(const std::string& file, const std::string& obj,
                             const std::string& name) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t a = H5Aopen_by_name(f, obj.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
    std::string s;
    if (a >= 0) {
        const hid_t t = H5Aget_type(a);
        s.resize(H5Tget_size(t));
        H5Aread(a, t, s.data());
        s.resize(std::find(s.begin(), s.end(), '\0') - s.begin());
        H5Tclose(t);
        H5Aclose(a);
    }
    H5Fclose(f);
    if (a < 0) throw std::runtime_error("no attribute " + obj + "@" + name);
    return s;
}

bool scale_attached(const std::string& file, const std::string& path, const std::string& scale,
                    unsigned dim) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t ds = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
    const hid_t sc = H5Dopen2(f, scale.c_str(), H5P_DEFAULT);
    const htri_t r = H5DSis_attached(ds, sc, dim);
    H5Dclose(sc);
    H5Dclose(ds);
    H5Fclose(f);
    return r > 0;
}

bool is_scale(const std::string& file, const std::string& path) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t ds = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
    const htri_t r = H5DSis_scale(ds);
    H5Dclose(ds);
    H5Fclose(f);
    return r > 0;
}

static herr_t collect(hid_t, const char* name, const H5O_info_t* info, void* op) {
    if (info->type == H5O_TYPE_DATASET)
        static_cast<std::vector<std::string>*>(op)->push_back(std::string("/") + name);
    return 0;
}

std::vector<std::string> list_datasets(const std::string& file) {
    std::vector<std::string> out;
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    H5Ovisit(f, H5_INDEX_NAME, H5_ITER_INC, collect, &out);
    H5Fclose(f);
    std::sort(out.begin(), out.end());
    return out;
}

squall::Config test_config() {
    squall::Config cfg;
    cfg.grid.itot = 8;
    cfg.grid.jtot = 6;
    cfg.grid.ktot = 5;
    cfg.grid.xsize = 2.0;
    cfg.grid.ysize = 1.5;
    cfg.grid.zsize = 1.0;
    cfg.grid.z = {0.05, 0.15, 0.3, 0.5, 0.8};
    return cfg;
}

} // namespace stats_test
