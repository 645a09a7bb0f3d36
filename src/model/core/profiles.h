#pragma once
// Tables by height from a case (forcing, initial profiles) at the model's levels.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace squall {

// values(z) from the table (zs strictly increasing, as load_config checks): linear between
// its heights, constant beyond its ends.
inline double interpolate_linear(const std::vector<double>& zs, const std::vector<double>& values,
                                 double z) {
    if (z <= zs.front()) return values.front();
    if (z >= zs.back()) return values.back();
    const std::size_t n = std::size_t(std::upper_bound(zs.begin(), zs.end(), z) - zs.begin());
    const double w = (z - zs[n - 1]) / (zs[n] - zs[n - 1]);
    return values[n - 1] + w * (values[n] - values[n - 1]);
}

} // namespace squall
