// GPU (label gpu): every tunable 3-D kernel, in its default and 20 sampled configurations
// per precision (6 of them with the planes traversal where the kernel declares plane
// inputs), gives the CPU path's result on random non-zero fields of a non-cubic grid with
// ghost cells. Outputs are poisoned (NaN) outside the range first; the poison must survive
// exactly where it survives on the CPU. Also the dispatch (launch.h with the backend active), the
// reductions and the 2-D kernels. Skips without a GPU.
#include "backends/launch.h"
#include "gpu_harness.h"
#include "kernels/vorticity.cuh"

#include "tests/support/gpu_required.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>

namespace {

using namespace squall;
using namespace squall::gpu::testing;

const TestGrid kGrid{40, 36, 28};
constexpr int kSamples = 20;
constexpr int kPlaneSamples = 6;

rt::Runtime* runtime() {
    static std::unique_ptr<rt::Runtime> rt = [] {
        rt::RuntimeOptions o;
        o.cache_dir = ""; // compile everything: the test is about these sources
        return std::make_unique<rt::Runtime>(o);
    }();
    return rt.get();
}

#define SKIP_WITHOUT_GPU() SQUALL_NEED_GPU(runtime()->has_device(), runtime()->no_device_reason())

template <typename T>
double tolerance() {
    return sizeof(T) == 8 ? 1e-13 : 1e-5;
}

// One kernel in one precision: default + sampled configurations, compiled in one batch
// with all others; the checks run once everything is loaded.
template <class F>
void add_check(std::vector<rt::Runtime::Request>& reqs, std::vector<rt::KernelDef>& defs,
               std::vector<std::function<void(const std::vector<rt::KernelInstance>&)>>& runs,
               uint32_t seed) {
    const sq::Range3 r = kGrid.range<F>();
    const F blank = blank_kernel<F>(kGrid);
    defs.push_back(gpu::def_for(r, blank));
    const rt::KernelDef& def = defs.back();
    const size_t first = reqs.size();
    std::mt19937_64 rng(seed);
    std::vector<rt::Config> configs{def.space().default_config()};
    // Uniform samples of the space, then kPlaneSamples of the planes traversal where the
    // kernel declares plane inputs (drawn inside its subspace: uniform samples of the whole
    // space hit it about once in 10^4).
    const rt::ConfigSpace& space = def.space();
    while (configs.size() < kSamples + 1 - (space.param_index("planes") >= 0 ? kPlaneSamples : 0)) {
        auto c = space.sample(rng, gpu::problem_of(r), runtime()->device());
        if (c) configs.push_back(*c);
    }
    while (configs.size() < kSamples + 1) {
        auto c = space.sample(rng, gpu::problem_of(r), runtime()->device());
        if (!c) continue;
        nlohmann::json j = space.config_to_json(*c);
        for (const char* one : {"planes", "block_z", "tile_x", "tile_z", "march_y", "march_z"})
            j[one] = 1;
        j["contig_x"] = 0, j["contig_z"] = 0, j["defer"] = 0;
        j["contig_y"] = j["tile_y"].get<int>() > 1 ? 1 : 0;
        const rt::Config p = space.config_from_json(j);
        if (space.is_valid(p, gpu::problem_of(r), runtime()->device())) configs.push_back(p);
    }
    for (const auto& c : configs) reqs.push_back({nullptr, gpu::problem_of(r), c});
    const size_t index = defs.size() - 1;
    runs.push_back([first, configs, r, index, seed, &defs](const auto& ks) {
        using T = typename KernelHarness<F>::T;
        KernelHarness<F> h(kGrid, seed, r);
        for (size_t n = 0; n < configs.size(); ++n) {
            h.reset();
            gpu::launch_instance(ks[first + n], r, h.device_kernel());
            rt::Driver::get().synchronize();
            std::string where;
            const double d = h.compare(&where);
            EXPECT_LE(d, tolerance<T>())
                << defs[index].key() << " [" << defs[index].space().format(configs[n])
                << "]: worst at " << where;
        }
    });
}

template <typename T, template <class> class... K>
void check_all(KernelList<K...>) {
    std::vector<rt::Runtime::Request> reqs;
    std::vector<rt::KernelDef> defs;
    defs.reserve(sizeof...(K));
    std::vector<std::function<void(const std::vector<rt::KernelInstance>&)>> runs;
    uint32_t seed = sizeof(T);
    (add_check<K<T>>(reqs, defs, runs, seed++), ...);
    // Point the requests at their definitions now that the vector no longer moves.
    size_t n = 0;
    for (size_t d = 0; d < defs.size(); ++d)
        for (int c = 0; c < kSamples + 1; ++c) reqs[n++].def = &defs[d];
    const auto ks = runtime()->instantiate_all(reqs);
    for (auto& run : runs) run(ks);
}

template <typename T>
class GpuKernels : public ::testing::Test {};
using Precisions = ::testing::Types<double, float>;
TYPED_TEST_SUITE(GpuKernels, Precisions);

TYPED_TEST(GpuKernels, Every3dKernelMatchesCpu) {
    SKIP_WITHOUT_GPU();
    check_all<TypeParam>(Kernels3d{});
}

// The cross-sections' vorticity components (not in the model's step, so not in Kernels3d).
TYPED_TEST(GpuKernels, VorticityKernelsMatchCpu) {
    SKIP_WITHOUT_GPU();
    check_all<TypeParam>(sq::VorticityKernels{});
}

// The dispatch: launch(), launch_max() and launch_sum() of launch.h with the backend active,
// against the CPU backend on the same data.
TEST(GpuDispatch, LaunchAndReductionsThroughLaunchH) {
    SKIP_WITHOUT_GPU();
    gpu::activate();
    {
        const sq::Range3 r = kGrid.range<sq::AdvecU2i5<double>>();
        KernelHarness<sq::AdvecU2i5<double>> h(kGrid, 7, r);
        launch(r, h.device_kernel());
        rt::Driver::get().synchronize();
        EXPECT_LE(h.compare(), 1e-13);
        // Cfl over the same device arrays vs the CPU reduction over host copies.
        const auto& f = h.device_kernel();
        const sq::Cfl<double> cfl{.u = f.u,
                                  .v = f.v,
                                  .w = f.w,
                                  .dzi = f.dzi,
                                  .dxi = f.dxi,
                                  .dyi = f.dyi,
                                  .jj = f.jj,
                                  .kk = f.kk};
        // A summed reduction (launch_sum takes those alone): u dz over the same arrays.
        const sq::ValueDz<double> u_dz{.a = f.u, .dz = f.dzi, .jj = f.jj, .kk = f.kk};
        const double gpu_max = launch_max(r, cfl);
        const double gpu_sum = launch_sum(r, u_dz);
        std::vector<double> u(size_t(kGrid.ncells())), v(u.size()), w(u.size()),
            dzi(size_t(kGrid.kcells()));
        auto& drv = rt::Driver::get();
        drv.download(u.data(), rt::DevicePtr(f.u), u.size() * 8);
        drv.download(v.data(), rt::DevicePtr(f.v), v.size() * 8);
        drv.download(w.data(), rt::DevicePtr(f.w), w.size() * 8);
        drv.download(dzi.data(), rt::DevicePtr(f.dzi), dzi.size() * 8);
        const sq::Cfl<double> host{.u = u.data(),
                                   .v = v.data(),
                                   .w = w.data(),
                                   .dzi = dzi.data(),
                                   .dxi = f.dxi,
                                   .dyi = f.dyi,
                                   .jj = f.jj,
                                   .kk = f.kk};
        const double ref_max = cpu::reduce_max(r, host); // same point values up to FMA
        EXPECT_NEAR(gpu_max, ref_max, 1e-14 * ref_max);
        const double ref_sum = cpu::reduce_sum(
            r, sq::ValueDz<double>{.a = u.data(), .dz = dzi.data(), .jj = f.jj, .kk = f.kk});
        EXPECT_NEAR(gpu_sum, ref_sum, 1e-12 * std::abs(ref_sum));
        // The same launch again takes the cached instance.
        EXPECT_EQ(launch_max(r, cfl), gpu_max);
    }
    // Recording: launches only note variants; end_recording compiles them.
    gpu::Backend& b = gpu::backend();
    b.begin_recording();
    const sq::Range3 r = kGrid.range<sq::RkUpdate<float>>();
    sq::RkUpdate<float> rk{.a = nullptr,
                           .at = nullptr,
                           .b_dt = 1.f,
                           .a_next = 0.f,
                           .jj = kGrid.jj(),
                           .kk = kGrid.kk(),
                           .drop_tendency = 0};
    launch(r, rk); // no data: would fault if it ran
    EXPECT_EQ(b.end_recording(), 1u);
    gpu::deactivate();
    EXPECT_FALSE(gpu::active());
}

// A float max-reduction and a 2-D kernel through the dispatch.
TEST(GpuDispatch, FloatMaxAnd2dKernel) {
    SKIP_WITHOUT_GPU();
    gpu::activate();
    const TestGrid g = kGrid;
    std::vector<float> a(size_t(g.ncells()));
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-2.f, 2.f);
    for (float& x : a) x = dist(rng);
    auto& drv = rt::Driver::get();
    rt::DevicePtr d = drv.alloc(a.size() * 4);
    drv.upload(d, a.data(), a.size() * 4);
    // Ghost mirror on the device and on the host.
    sq::GhostMirror<float> gm_d{.a = reinterpret_cast<float*>(d),
                                .kstart = g.kstart(),
                                .kend = g.kend(),
                                .jj = g.jj(),
                                .kk = g.kk()};
    sq::GhostMirror<float> gm_h{
        .a = a.data(), .kstart = g.kstart(), .kend = g.kend(), .jj = g.jj(), .kk = g.kk()};
    launch_2d(g.range_2d(), gm_d);
    cpu::for_each_2d(g.range_2d(), gm_h);
    std::vector<float> back(a.size());
    drv.download(back.data(), d, back.size() * 4);
    EXPECT_EQ(back, a);
    // DnConst has no strides and reads only dzi.
    std::vector<float> dzi(size_t(g.kcells()));
    for (float& x : dzi) x = 1.f + dist(rng) * 0.25f;
    drv.upload(d, dzi.data(), dzi.size() * 4);
    const sq::DnConst<float> dn_d{
        .K = 0.3f, .dzi = reinterpret_cast<float*>(d), .dxi = 2.f, .dyi = 3.f};
    const sq::DnConst<float> dn_h{.K = 0.3f, .dzi = dzi.data(), .dxi = 2.f, .dyi = 3.f};
    const sq::Range3 r = g.range<sq::DnConst<float>>();
    const float ref = cpu::reduce_max(r, dn_h);
    EXPECT_NEAR(launch_max(r, dn_d), ref, 1e-6f * ref);
    drv.free(d);
    gpu::deactivate();
}

} // namespace
