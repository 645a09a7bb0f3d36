#pragma once
// gpu_kernel_bench's options, apart from the command line that sets them, since every
// part of the benchmark (array pool, kernel list, search, report) reads them.
#include "tests/backends/cuda/kernel_list.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace squall::kernel_bench {

using gpu::testing::TestGrid;

struct Options {
    bool quick = false, unaligned = false;
    std::string json_path, wisdom_dir, precision = "both";
    std::string only;        // comma-separated kernel names; empty: all
    std::string seed_wisdom; // this directory's record for the size is timed and starts the search
    std::string config;      // a configuration (JSON) timed besides
    int evals = 60;          // the search's evaluations: advec_u_2i5 and diff_uvw_smag
    int others = 12;         // every other 3-D kernel
    std::string strategy = "annealing";
    uint64_t seed = 1;
    std::vector<TestGrid> grids{{256, 256, 256}, {512, 512, 512}};
};

inline bool wanted(const Options& o, std::string_view name) {
    return o.only.empty() ||
           ("," + o.only + ",").find("," + std::string(name) + ",") != std::string::npos;
}

} // namespace squall::kernel_bench
