// A synthetic tuning objective over the real configuration spaces of advec_u_2i5 and
// diff_uvw_smag (sm_90, a 512^3 grid): the "time" is a known function of the
// configuration with its minimum at a chosen valid configuration. No GPU.
#pragma once

#include "backends/cuda/gpu_launch.h"
#include "tests/backends/cuda/kernel_list.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace squall::tuner::testing {

using namespace squall::gpu::testing;

struct Case {
    std::string kernel;
    rt::KernelDef def;
    rt::ProblemSize problem;
    rt::DeviceInfo device = rt::DeviceInfo::for_arch("sm_90");
    const rt::ConfigSpace& space() const { return def.space(); }
};

template <class F>
Case make_case() {
    const TestGrid g{512, 512, 512};
    const sq::Range3 r = g.range<F>();
    return {F::name, gpu::def_for(r, blank_kernel<F>(g)), gpu::problem_of(r)};
}

inline const std::vector<Case>& cases() {
    static const std::vector<Case> all = {make_case<sq::AdvecU2i5<double>>(),
                                          make_case<sq::DiffUVWSmag<double>>()};
    return all;
}

// The objective: 1 at the optimum, plus per parameter a weighted distance of the value's
// position from the optimum's, plus a penalty for threads per block away from 256.
class Objective {
public:
    explicit Objective(const Case& c) : case_(&c) {
        const rt::ConfigSpace& s = c.space();
        const nlohmann::json best = {{"block_x", 64},      {"block_y", 4},       {"block_z", 1},
                                     {"tile_x", 1},        {"tile_y", 2},        {"tile_z", 4},
                                     {"contig_y", 1},      {"contig_z", 1},      {"perm", 3},
                                     {"blocks_per_sm", 4}, {"march_y", 2},       {"l1_carveout", 0},
                                     {"group", 4},         {"plane_levels", 256}};
        optimum_ = s.config_from_json(best);
        const auto& params = s.params();
        // Weights 0.04 .. 0.2 spread over the parameters.
        for (size_t p = 0; p < params.size(); ++p)
            weight_.push_back(0.04 + 0.16 * double((p * 7) % 10) / 9.0);
        block_ = {s.param_index("block_x"), s.param_index("block_y"), s.param_index("block_z")};
    }
    const rt::Config& optimum() const { return optimum_; }

    double operator()(const rt::Config& c) const {
        const auto& params = case_->space().params();
        double t = 1.0;
        for (size_t p = 0; p < params.size(); ++p) {
            const auto& v = params[p].values;
            const auto pos = [&](const rt::Value& x) {
                return double(std::find(v.begin(), v.end(), x) - v.begin());
            };
            const double span = std::max(1.0, double(v.size() - 1));
            t += weight_[p] * std::abs(pos(c[p]) - pos(optimum_[p])) / span;
        }
        double threads = 1;
        for (int b : block_) threads *= double(c[size_t(b)].as_int());
        return t + 0.05 * std::abs(std::log2(threads / 256.0));
    }

private:
    const Case* case_;
    rt::Config optimum_;
    std::vector<double> weight_;
    std::vector<int> block_;
};

} // namespace squall::tuner::testing
