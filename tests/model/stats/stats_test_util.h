#pragma once
// Helpers for the statistics tests: reading the file back with the HDF5 C API.
#include <string>
#include <vector>

#include "model/grid.h"

namespace stats_test {

struct Dataset {
    std::vector<double> data;
    std::vector<unsigned long long> dims;
};
Dataset read_dataset(const std::string& file, const std::string& path);
std::string read_string_attr(const std::string& file, const std::string& obj,
                             const std::string& name);
// Is the scale at scale_path attached to dimension dim of the dataset (H5DS, hdf5_hl)?
bool scale_attached(const std::string& file, const std::string& path, const std::string& scale,
                    unsigned dim);
bool is_scale(const std::string& file, const std::string& path);
// All dataset paths below the root, sorted.
std::vector<std::string> list_datasets(const std::string& file);

// A test grid: 8 x 6 x 5 cells on 2 x 1.5 x 1 m with stretched explicit levels.
squall::Config test_config();

} // namespace stats_test
