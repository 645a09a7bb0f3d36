// Every kernel the model launches compiles under NVRTC for sm_90 through the GPU
// backend's definitions, in the default configuration and in sampled configurations of
// the tunable space, float and double. No GPU needed: a compile-only runtime with a
// memory-only cache, so everything really compiles.
#include "backends/cuda/gpu_launch.h"
#include "kernel_list.h"
#include "kernels/vorticity.cuh"
#include "runtime/log.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <random>
#include <set>
#include <string>

namespace {

using namespace squall;
using namespace squall::gpu::testing;

struct Job {
    rt::KernelDef def;
    rt::ProblemSize problem;
    rt::Config config;
};

rt::RuntimeOptions compile_only() {
    rt::RuntimeOptions o;
    o.use_device = false;
    o.arch = "sm_90";
    o.cache_dir = ""; // memory only
    return o;
}

const TestGrid kGrid{40, 36, 28};

template <template <class> class K, class T>
void add_default(std::vector<Job>& jobs, gpu::Form form) {
    const auto f = blank_kernel<K<T>>(kGrid);
    const sq::Range3 r = form == gpu::Form::traverse2d ? kGrid.range_2d() : kGrid.range<K<T>>();
    rt::KernelDef d = gpu::def_for(r, f, form);
    jobs.push_back({d, gpu::problem_of(r), d.space().default_config()});
}

template <template <class> class... K>
void add_defaults(std::vector<Job>& jobs, KernelList<K...>, gpu::Form form) {
    (add_default<K, float>(jobs, form), ...);
    (add_default<K, double>(jobs, form), ...);
}

std::vector<Job> compile_all(const std::vector<Job>& jobs) {
    rt::Runtime rt(compile_only());
    std::vector<rt::CompileSpec> specs;
    for (const Job& j : jobs) specs.push_back(rt.compile_spec(j.def, j.config, j.problem));
    auto out = rt.cache().get_all(specs);
    for (size_t n = 0; n < out.size(); ++n) {
        EXPECT_TRUE(out[n] && !out[n]->cubin.empty()) << specs[n].description;
        EXPECT_EQ(out[n]->log.find("warning"), std::string::npos) << specs[n].description << "\n"
                                                                  << out[n]->log;
    }
    return jobs;
}

TEST(GpuKernelsNvrtc, EveryKernelDefaultConfigFloatAndDouble) {
    std::vector<Job> jobs;
    add_defaults(jobs, Kernels3d{}, gpu::Form::traverse3d);
    add_defaults(jobs, sq::VorticityKernels{}, gpu::Form::traverse3d); // cross-sections
    add_defaults(jobs, Kernels2d{}, gpu::Form::traverse2d);
    add_defaults(jobs, Reductions{}, gpu::Form::reduce_max);
    for (const char* acc : {"float", "double"})
        for (int op : {0, 1})
            jobs.push_back({gpu::make_reduce_final_def(acc, op), rt::ProblemSize(1),
                            gpu::make_reduce_final_def(acc, op).space().default_config()});
    // Keys are "<name>_<precision>" and unique per (kernel, precision, form).
    std::set<std::string> keys;
    for (const Job& j : jobs) keys.insert(j.def.key());
    EXPECT_EQ(keys.size(), jobs.size());
    EXPECT_TRUE(keys.count("advec_u_2i5_double"));
    EXPECT_TRUE(keys.count("diff_uvw_smag_float"));
    compile_all(jobs);
}

// Sampled configurations, spread round-robin over the 3-D kernels and both precisions.
TEST(GpuKernelsNvrtc, SampledConfigurations) {
    std::vector<Job> defaults;
    add_defaults(defaults, Kernels3d{}, gpu::Form::traverse3d);
    std::mt19937_64 rng(2026);
    const rt::DeviceInfo dev = rt::DeviceInfo::for_arch("sm_90");
    std::vector<Job> jobs;
    const size_t count = 64;
    for (size_t n = 0; n < count; ++n) {
        const Job& base = defaults[(n * 7) % defaults.size()];
        auto c = base.def.space().sample(rng, base.problem, dev);
        ASSERT_TRUE(c.has_value()) << base.def.key();
        jobs.push_back({base.def, base.problem, *c});
    }
    compile_all(jobs);
}

// Every kernel that declares plane inputs compiles with the planes traversal (planes.cuh:
// tensor-map boxes, register windows), float and double, in three shapes: one row per
// thread, several rows per thread, the deepest ring with a tile that does not divide the
// grid; each uses one tensor map per input.
TEST(GpuKernelsNvrtc, PlanesConfigurations) {
    std::vector<Job> defaults, jobs;
    add_defaults(defaults, Kernels3d{}, gpu::Form::traverse3d);
    const rt::DeviceInfo dev = rt::DeviceInfo::for_arch("sm_90");
    size_t kernels = 0, carried = 0;
    for (const Job& base : defaults) {
        const rt::ConfigSpace& space = base.def.space();
        if (space.param_index("planes") < 0) continue;
        ++kernels;
        const bool carry = space.param_index("plane_carry") >= 0;
        carried += carry;
        const int ring =
            int(space.params()[size_t(space.param_index("plane_ring"))].values.back().as_int());
        const nlohmann::json shapes[] = {{{"planes", 1}, {"block_x", 32}, {"block_y", 8}},
                                         {{"planes", 1},
                                          {"block_x", 64},
                                          {"block_y", 4},
                                          {"tile_y", 2},
                                          {"contig_y", 1},
                                          {"plane_levels", 256},
                                          {"blocks_per_sm", 2}},
                                         // 32 columns: the fused momentum kernel's five
                                         // inputs fill the deepest ring of 64 in double.
                                         {{"planes", 1},
                                          {"block_x", 32},
                                          {"block_y", 2},
                                          {"tile_y", 4},
                                          {"contig_y", 1},
                                          {"plane_ring", ring},
                                          {"plane_levels", 32}}};
        for (const auto& j : shapes) {
            const rt::Config c = space.config_from_json(j);
            ASSERT_TRUE(space.is_valid(c, base.problem, dev)) << base.def.key() << " " << j;
            EXPECT_EQ(base.def.tensor_maps(c, base.problem, dev).size(),
                      base.def.tensor_map_defs().size());
            jobs.push_back({base.def, base.problem, c});
            if (carry) { // the same march with the z faces carried
                nlohmann::json jc = j;
                jc["plane_carry"] = 1;
                const rt::Config cc = space.config_from_json(jc);
                ASSERT_TRUE(space.is_valid(cc, base.problem, dev)) << base.def.key() << " " << jc;
                jobs.push_back({base.def, base.problem, cc});
            }
        }
        EXPECT_TRUE(base.def.tensor_maps(space.default_config(), base.problem, dev).empty());
    }
    // advec_u/v/w/s_2i5, advec_w_2i5_buoy, diff_uvw_smag, strain_evisc_smag,
    // tend_uvw_2i5_smag, tend_s_2i5_smag; 2 precisions. The z-carry form: the two tend_*.
    EXPECT_EQ(kernels, 18u);
    EXPECT_EQ(carried, 4u);
    compile_all(jobs);
}

// Every tunable kernel declares its arguments, so SQUALL_CAPTURE can save them: the 3-D
// kernels as separate parameters, the others as one struct with its members, reductions
// plus their partial results.
TEST(GpuKernelsNvrtc, CaptureLayoutForEveryTunableKernel) {
    std::vector<Job> jobs;
    add_defaults(jobs, Kernels3d{}, gpu::Form::traverse3d);
    add_defaults(jobs, HaloKernels{}, gpu::Form::traverse3d);
    const size_t flat = jobs.size();
    add_defaults(jobs, Kernels2d{}, gpu::Form::traverse2d);
    add_defaults(jobs, Reductions{}, gpu::Form::reduce_max);
    add_defaults(jobs, SumReductions{}, gpu::Form::reduce_sum);
    for (const char* acc : {"float", "double"})
        for (int op : {0, 1})
            jobs.push_back({gpu::make_reduce_final_def(acc, op), rt::ProblemSize(1), {}});
    EXPECT_EQ(jobs.size(),
              2u * (list_size(Kernels3d{}) + list_size(HaloKernels{}) + list_size(Kernels2d{}) +
                    list_size(Reductions{}) + list_size(SumReductions{})) +
                  4);
    for (size_t n = 0; n < jobs.size(); ++n) {
        const rt::KernelDef& d = jobs[n].def;
        ASSERT_FALSE(d.args().empty()) << d.key();
        size_t arrays = 0, structs = 0;
        for (const auto& a : d.args()) {
            arrays += a.is_array;
            structs += a.is_struct();
            for (const auto& m : a.members) {
                arrays += m.is_array;
                EXPECT_LE(m.offset + (m.is_array ? 8 : rt::dtype_size(m.dtype)), a.struct_bytes)
                    << d.key() << " " << m.name;
            }
        }
        EXPECT_GE(arrays, d.function_name() == "sq_reduce" ? 2u : 1u) << d.key();
        EXPECT_EQ(structs, n < flat || d.function_name() == "sq_reduce_final" ? 0u : 1u) << d.key();
    }
}

} // namespace

namespace {

// The shipped H200 wisdom: every tunable kernel has records at 256^3 and 512^3 in both
// precisions, all parse without warnings, every record (of any device) is valid at its own
// size on its architecture, and selection at 512^3 on an H200 finds an
// exact-size record (level 1) whose configuration is valid. The header's param_names are
// the definition's parameters in order (a prefix: older files lack the newest ones).
// A kernel written where no GPU was lent goes in kNotYetTuned until its records are shipped
// (it must have no wisdom file meanwhile, so the list empties as they land).
const std::set<std::string> kNotYetTuned = {};

template <template <class> class K, class T>
void check_wisdom(std::vector<std::string>& problems) {
    const auto f = blank_kernel<K<T>>(kGrid);
    const rt::KernelDef d = gpu::def_for(kGrid.range<K<T>>(), f);
    const std::string dir = std::string(SQUALL_SOURCE_DIR) + "/wisdom";
    if (kNotYetTuned.count(K<T>::name)) {
        if (std::ifstream(dir + "/" + rt::wisdom_file_name(d.key())))
            problems.push_back(d.key() + ": has wisdom now; remove it from kNotYetTuned");
        return;
    }
    std::ifstream file(dir + "/" + rt::wisdom_file_name(d.key()));
    if (!file) {
        problems.push_back(d.key() + ": no shipped wisdom file (squall tune --case ... --only)");
        return;
    }
    const rt::Wisdom w = rt::Wisdom::load(d.key(), d.space(), {dir});
    std::string header;
    std::getline(file, header);
    const auto names = nlohmann::json::parse(header).at("param_names");
    const auto& params = d.space().params();
    bool prefix = names.size() <= params.size();
    for (size_t n = 0; prefix && n < names.size(); ++n) prefix = names[n] == params[n].name;
    if (!prefix) problems.push_back(d.key() + ": header param_names " + names.dump());
    bool has256 = false, has512 = false;
    for (const auto& r : w.records()) {
        has256 |= r.problem[0] == 256;
        has512 |= r.problem[0] == 512;
        // Every device's record, valid at the size it was tuned for on its architecture.
        std::string arch = "sm_" + r.env.compute_capability;
        std::erase(arch, '.');
        if (!d.space().is_valid(r.config, r.problem, rt::DeviceInfo::for_arch(arch)))
            problems.push_back(d.key() + ": " + r.origin + " (" + r.env.device_name +
                               ") is not valid at its own size");
    }
    if (!has256 || !has512) problems.push_back(d.key() + ": missing 256^3 or 512^3 records");
    rt::DeviceInfo h200 = rt::DeviceInfo::for_arch("sm_90");
    h200.name = "NVIDIA H200";
    // The moist kernels run in bomex_512 (512 x 512 x 256; thv also on both ghost levels).
    const std::string name = K<T>::name;
    const rt::ProblemSize p = name == "thv_moist"   ? rt::ProblemSize(512, 512, 258)
                              : name == "ql_moist"  ? rt::ProblemSize(512, 512, 256)
                              : on_w_levels<K<T>>() ? rt::ProblemSize(512, 512, 511)
                                                    : rt::ProblemSize(512, 512, 512);
    const auto sel = w.select(p, h200, h200.name, d.space());
    if (sel.level != 1) problems.push_back(d.key() + ": no H200 record at its 512^2 case size");
    if (!d.space().is_valid(sel.config, p, h200)) problems.push_back(d.key() + ": invalid");
}

template <template <class> class... K>
void check_all_wisdom(KernelList<K...>, std::vector<std::string>& problems) {
    (check_wisdom<K, float>(problems), ...);
    (check_wisdom<K, double>(problems), ...);
}

TEST(GpuKernelsWisdom, ShippedH200RecordsForEveryTunableKernel) {
    std::vector<std::string> warnings, problems;
    rt::set_log_sink([&](rt::LogLevel level, const std::string& msg) {
        if (level >= rt::LogLevel::warn) warnings.push_back(msg);
    });
    check_all_wisdom(Kernels3d{}, problems);
    rt::set_log_sink(nullptr);
    EXPECT_TRUE(warnings.empty()) << warnings.front();
    for (const auto& p : problems) ADD_FAILURE() << p;
}

} // namespace

namespace {

// The dynamic shared memory each strategy launches with: none for the tiled traversal
// (default and a tiled, deferred, marching configuration), the ring of boxes plus the
// alignment slack (planes.cuh: PlaneLayout) for `planes`.
template <class F>
void check_shared_memory(int& kernels) {
    using T = sq::precision_t<F>;
    const F f = blank_kernel<F>(kGrid);
    const sq::Range3 r = kGrid.range<F>();
    const rt::KernelDef d = gpu::def_for(r, f);
    const rt::ConfigSpace& space = d.space();
    const rt::DeviceInfo dev = rt::DeviceInfo::for_arch("sm_90");
    const rt::ProblemSize p = gpu::problem_of(r);
    auto smem = [&](const nlohmann::json& j) {
        const rt::Config c = space.config_from_json(j);
        EXPECT_TRUE(space.is_valid(c, p, dev)) << d.key() << " " << j;
        return d.geometry(c, p, dev).shared_mem;
    };
    EXPECT_EQ(smem(nlohmann::json::object()), 0u) << d.key();
    nlohmann::json tiled = {
        {"block_x", 32}, {"block_y", 8}, {"tile_z", 4}, {"contig_z", 1}, {"march_z", 2}};
    if (space.param_index("defer") >= 0) tiled["defer"] = 1;
    EXPECT_EQ(smem(tiled), 0u) << d.key() << " tiled";
    if constexpr (requires { F::plane_inputs; }) {
        const size_t want = 6 * sq::PlaneLayout<F, 64, 8, int(sizeof(T))>::slot_bytes + 128;
        EXPECT_EQ(smem({{"planes", 1},
                        {"block_x", 64},
                        {"block_y", 4},
                        {"tile_y", 2},
                        {"contig_y", 1},
                        {"plane_ring", 6}}),
                  want)
            << d.key() << " planes";
    }
    ++kernels;
}

TEST(GpuKernelsNvrtc, SharedMemoryOfEachStrategy) {
    int kernels = 0;
    check_shared_memory<sq::AdvecU2i5<double>>(kernels);
    check_shared_memory<sq::AdvecU2i5<float>>(kernels);
    check_shared_memory<sq::AdvecV2i5<double>>(kernels);
    check_shared_memory<sq::DiffUVWSmag<float>>(kernels);
    check_shared_memory<sq::AdvecU2<double>>(kernels);
    check_shared_memory<sq::RkUpdate<float>>(kernels);
    EXPECT_EQ(kernels, 6);
}

} // namespace
