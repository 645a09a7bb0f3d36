#pragma once
// Compares two statistics files object by object: the same groups and datasets, each
// dataset with the same type, shape and bytes (so NaN padding and float/double values compare
// exactly), and every attribute equal. Dimension-scale attributes hold object references,
// whose addresses depend on the file layout: they are compared as the lists of object paths
// they name (REFERENCE_LIST as a sorted list, as its order carries no meaning).
// Also checks that each file's time axis is strictly increasing (no sample twice).
#include <cstddef>
#include <string>
#include <vector>

namespace squall::test {

// What differs between statistics files a and b (empty: equal). Attributes named in
// `ignore` ("/configuration", "/time/units", ...) are not compared.
std::vector<std::string> stats_differences(const std::string& a, const std::string& b,
                                           const std::vector<std::string>& ignore = {});

// The file's /time and /timeseries/step datasets (empty when missing).
std::vector<double> stats_times(const std::string& path);
std::vector<long long> stats_steps(const std::string& path);
// A fixed-length string attribute of the root group ("" when missing).
std::string stats_attribute(const std::string& path, const std::string& name);

// For the tests of the comparison: flips the lowest bit of element n of a double dataset.
bool flip_last_bit_for_testing(const std::string& path, const std::string& dataset, std::size_t n);

} // namespace squall::test
