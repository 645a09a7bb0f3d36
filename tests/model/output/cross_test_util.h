#pragma once
// Helpers of the cross-section tests: a scratch directory, and the files read back with
// the HDF5 C API (dimension scales with the high-level H5DS functions).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/model/stats/stats_test_util.h"

namespace squall::cross_test {

// Removed when the tests end (CleanScratch).
inline std::string scratch_dir() {
    static const std::string dir = [] {
        const auto p =
            std::filesystem::temp_directory_path() / ("squall_cross_" + std::to_string(getpid()));
        std::filesystem::create_directories(p);
        return p.string();
    }();
    return dir;
}

struct CleanScratch : ::testing::Environment {
    void TearDown() override { std::filesystem::remove_all(scratch_dir()); }
};
inline const auto* const clean_scratch = ::testing::AddGlobalTestEnvironment(new CleanScratch);

template <typename T>
const char* precision_name() {
    return sizeof(T) == 4 ? "float" : "double";
}

inline double nearest(const std::vector<double>& values, double v) {
    double best = values.at(0);
    for (double x : values)
        if (std::abs(x - v) < std::abs(best - v)) best = x;
    return best;
}

struct Dataset {
    std::vector<double> data;
    std::vector<unsigned long long> dims;
};

// A dataset as doubles (HDF5 converts float32), with its dimensions.
inline Dataset read(const std::string& file, const std::string& name) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) throw std::runtime_error("cannot open " + file);
    const hid_t ds = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
    if (ds < 0) {
        H5Fclose(f);
        throw std::runtime_error(file + ": no dataset " + name);
    }
    const hid_t space = H5Dget_space(ds);
    const int rank = H5Sget_simple_extent_ndims(space);
    std::vector<hsize_t> dims(std::size_t(std::max(rank, 0)));
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    Dataset out;
    std::size_t n = 1;
    for (hsize_t d : dims) out.dims.push_back(d), n *= d;
    out.data.resize(n);
    if (n > 0) H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data.data());
    H5Sclose(space);
    H5Dclose(ds);
    H5Fclose(f);
    return out;
}

// Is the dimension scale `scale` attached to dimension `dim` of dataset `name`?
inline bool attached(const std::string& file, const std::string& name, const std::string& scale,
                     unsigned dim) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t ds = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
    const hid_t sc = H5Dopen2(f, scale.c_str(), H5P_DEFAULT);
    const htri_t r = ds >= 0 && sc >= 0 ? H5DSis_attached(ds, sc, dim) : -1;
    if (sc >= 0) H5Dclose(sc);
    if (ds >= 0) H5Dclose(ds);
    H5Fclose(f);
    return r > 0;
}

using stats_test::read_string_attr; // tests/model/stats

} // namespace squall::cross_test
