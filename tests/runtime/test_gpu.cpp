// GPU tests (ctest -L gpu): compile, launch and check results across sampled
// configurations; the disk cache is hit by a second runtime; wisdom drives selection;
// capture leaves results unchanged; profiling times every launch. They fail, not skip, when there
// is no GPU.
#include "runtime/replay.h"
#include "runtime/runtime.h"

#include "test_kernels.h"

#include "tests/support/gpu_required.h"
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <random>
#include <unistd.h>

using namespace squall::rt;
using namespace squall::rt::testing;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
    fs::path p =
        fs::temp_directory_path() / ("squall_rt_gpu_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(p);
    return p;
}

RuntimeOptions options(const fs::path& cache, const std::vector<std::string>& wisdom = {}) {
    RuntimeOptions o;
    o.cache_dir = cache.string();
    o.wisdom_dirs = wisdom;
    o.capture = CaptureSettings{};
    return o;
}

// GPU time of `work` (enqueued on the legacy default stream) between an event pair of its
// own: the independent figure the profile's rows are checked against.
double outer_event_ms(const std::function<void()>& work) {
    const Driver& drv = Driver::get();
    void* start = drv.event_create();
    void* stop = drv.event_create();
    drv.event_record(start, nullptr);
    work();
    drv.event_record(stop, nullptr);
    drv.event_synchronize(stop);
    const double ms = drv.event_elapsed_ms(start, stop);
    drv.event_destroy(start);
    drv.event_destroy(stop);
    return ms;
}

// Runs saxpy with a configuration and returns y; compares against the CPU result.
template <typename T>
void check_saxpy(Runtime& rt, const KernelDef& def, const Config& c, int n) {
    std::vector<T> x(static_cast<size_t>(n)), y(static_cast<size_t>(n)),
        out(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        x[static_cast<size_t>(i)] = static_cast<T>(std::sin(0.1 * i));
        y[static_cast<size_t>(i)] = static_cast<T>(i % 17) - T(3);
    }
    DeviceBuffer dx(sizeof(T) * x.size()), dy(sizeof(T) * y.size());
    dx.upload(x.data());
    dy.upload(y.data());
    KernelInstance k = rt.instantiate(def, ProblemSize(n), c);
    const T a = T(1.5);
    k.launch(nullptr, n, a, dx.get(), dy.get());
    Driver::get().synchronize();
    dy.download(out.data());
    for (int i = 0; i < n; ++i) {
        const size_t u = static_cast<size_t>(i);
        // NVRTC contracts a*x+y into an FMA; allow a few ulps instead of assuming it.
        const double expect = double(a) * double(x[u]) + double(y[u]) + 1.0;
        const double tol = 4 * std::numeric_limits<T>::epsilon() * (std::fabs(expect) + 4.0);
        ASSERT_NEAR(double(out[u]), expect, tol) << k.describe() << " at i=" << i;
    }
}

} // namespace

TEST(Gpu, DeviceIsPresent) {
    Runtime rt(options(fresh_dir("present")));
    SQUALL_NEED_GPU(rt.has_device(), rt.no_device_reason());
    EXPECT_EQ(rt.arch(), rt.device().arch());
    EXPECT_GT(rt.device().multiprocessor_count, 0);
    const MemoryInfo m = Driver::get().memory_info();
    EXPECT_GT(m.free, 0u);
    EXPECT_LE(m.free, m.total);
}

TEST(Gpu, SaxpyAcrossSampledConfigurations) {
    fs::path cache = fresh_dir("saxpy");
    Runtime rt(options(cache));
    SQUALL_NEED_GPU(rt.has_device(), rt.no_device_reason());
    std::mt19937_64 rng(11);
    for (const char* type : {"float", "double"}) {
        KernelDef def = saxpy_def(type);
        const int n = 100'003; // not a multiple of any block size
        check_saxpy<float>(rt, saxpy_def("float"), saxpy_def("float").space().default_config(), n);
        for (int s = 0; s < 8; ++s) {
            Config c = *def.space().sample(rng, ProblemSize(n), rt.device());
            if (std::string(type) == "float")
                check_saxpy<float>(rt, def, c, n);
            else
                check_saxpy<double>(rt, def, c, n);
        }
    }
    fs::remove_all(cache);
}

TEST(Gpu, Stencil3dAcrossSampledConfigurations) {
    fs::path cache = fresh_dir("stencil");
    Runtime rt(options(cache));
    SQUALL_NEED_GPU(rt.has_device(), rt.no_device_reason());
    const int nx = 70, ny = 33, nz = 19;
    const size_t cells = static_cast<size_t>(nx + 2) * ny * nz;
    std::vector<double> in(cells), out(cells), expect(cells, -1.0);
    for (size_t c = 0; c < cells; ++c) in[c] = std::cos(0.37 * static_cast<double>(c));
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                size_t c = (static_cast<size_t>(k) * ny + j) * (nx + 2) + i + 1;
                expect[c] = in[c - 1] + 2.0 * in[c] + in[c + 1];
            }
    DeviceBuffer din(cells * 8), dout(cells * 8);
    din.upload(in.data());
    KernelDef def = stencil_def("double");
    std::mt19937_64 rng(12);
    std::vector<Runtime::Request> reqs;
    std::vector<Config> configs;
    for (int s = 0; s < 10; ++s)
        configs.push_back(*def.space().sample(rng, ProblemSize(nx, ny, nz), rt.device()));
    for (const auto& c : configs) reqs.push_back({&def, ProblemSize(nx, ny, nz), c});
    auto instances = rt.instantiate_all(reqs); // parallel compile
    for (const auto& k : instances) {
        std::vector<double> init(cells, -1.0);
        dout.upload(init.data());
        k.launch(nullptr, din.get(), dout.get());
        Driver::get().synchronize();
        dout.download(out.data());
        for (size_t c = 0; c < cells; ++c)
            ASSERT_EQ(out[c], expect[c]) << k.describe() << " cell " << c;
    }
    fs::remove_all(cache);
}

TEST(Gpu, SecondRuntimeHitsTheDiskCache) {
    fs::path cache = fresh_dir("diskcache");
    KernelDef def = saxpy_def("float");
    Config c = def.space().config_from_json({{"block_x", 128}, {"items", 2}});
    {
        Runtime rt(options(cache));
        SQUALL_NEED_GPU(rt.has_device(), rt.no_device_reason());
        check_saxpy<float>(rt, def, c, 5000);
        EXPECT_EQ(rt.cache().stats().compiles, 1u);
        EXPECT_EQ(rt.cache().stats().disk_hits, 0u);
    }
    {
        Runtime rt(options(cache));
        check_saxpy<float>(rt, def, c, 5000);
        EXPECT_EQ(rt.cache().stats().compiles, 0u);
        EXPECT_EQ(rt.cache().stats().disk_hits, 1u);
    }
    fs::remove_all(cache);
}

TEST(Gpu, WisdomSelectsTheRecordedConfiguration) {
    fs::path cache = fresh_dir("wcache"), wdir = fresh_dir("wisdom");
    KernelDef def = saxpy_def("double");
    Runtime probe(options(cache));
    SQUALL_NEED_GPU(probe.has_device(), probe.no_device_reason());
    WisdomRecord r;
    r.problem = ProblemSize(1 << 16);
    r.config = def.space().config_from_json({{"block_x", 64}, {"items", 4}, {"min_blocks", 2}});
    r.time = 1e-5;
    r.env = current_provenance(probe.device());
    append_wisdom(wdir.string(), def.key(), def.space(), r);
    Runtime rt(options(cache, {wdir.string()}));
    auto sel = rt.select(def, ProblemSize(1 << 16));
    EXPECT_EQ(sel.level, 1) << sel.reason;
    KernelInstance k = rt.instantiate(def, ProblemSize(1 << 16));
    EXPECT_EQ(k.config(), r.config);
    EXPECT_EQ(k.geometry().block[0], 64u);
    EXPECT_EQ(rt.select(def, ProblemSize(1 << 18)).level, 2);
    check_saxpy<double>(rt, def, k.config(), 1 << 16);
    fs::remove_all(cache);
    fs::remove_all(wdir);
}

TEST(Gpu, CaptureRecordsReferenceWithoutChangingResults) {
    fs::path cache = fresh_dir("ccache"), cdir = fresh_dir("captures");
    RuntimeOptions o = options(cache);
    o.capture = CaptureSettings{{"saxpy_*"}, 1, cdir.string(), 64ull << 20};
    Runtime rt(o);
    SQUALL_NEED_GPU(rt.has_device(), rt.no_device_reason());
    KernelDef def = saxpy_def("float");
    const int n = 3001;
    std::vector<float> x(n), y(n, 2.0f), out(n);
    for (int i = 0; i < n; ++i) x[static_cast<size_t>(i)] = 0.5f * static_cast<float>(i);
    DeviceBuffer dx(n * 4), dy(n * 4);
    dx.upload(x.data());
    dy.upload(y.data());
    KernelInstance k = rt.instantiate(def, ProblemSize(n));
    for (int rep = 0; rep < 3; ++rep)
        k.launch(nullptr, n, 2.0f, dx.get(), dy.get()); // 2nd is captured
    Driver::get().synchronize();
    dy.download(out.data());
    for (int i = 0; i < n; ++i) {
        float v = 2.0f;
        for (int rep = 0; rep < 3; ++rep) v = 2.0f * x[static_cast<size_t>(i)] + v + 1.0f;
        ASSERT_EQ(out[static_cast<size_t>(i)], v) << i;
    }
    std::vector<fs::path> jsons;
    for (const auto& e : fs::directory_iterator(cdir))
        if (e.path().extension() == ".json") jsons.push_back(e.path());
    ASSERT_EQ(jsons.size(), 1u);
    Capture cap = load_capture(jsons[0].string());
    ASSERT_EQ(cap.arrays.size(), 2u);
    // Skip=1: the capture saw y after one launch and recorded it after the second.
    const float* before = reinterpret_cast<const float*>(cap.arrays[1].before.data());
    const float* after = reinterpret_cast<const float*>(cap.arrays[1].after.data());
    for (int i = 0; i < n; ++i) {
        float y1 = 2.0f * x[static_cast<size_t>(i)] + 2.0f + 1.0f;
        ASSERT_EQ(before[i], y1);
        ASSERT_EQ(after[i], 2.0f * x[static_cast<size_t>(i)] + y1 + 1.0f);
    }
    // Replay reproduces the launch bit for bit, with the captured configuration and
    // with another one, and notices a reference that does not match.
    ReplayResult same = replay_capture(rt, cap);
    ASSERT_EQ(same.outputs.size(), 1u);
    EXPECT_EQ(same.outputs[0].count, size_t(n));
    EXPECT_TRUE(same.identical());
    const Config other =
        def.space().config_from_json({{"block_x", 64}, {"items", 4}, {"min_blocks", 2}});
    EXPECT_TRUE(replay_capture(rt, cap, other).identical());
    float* ref = reinterpret_cast<float*>(cap.arrays[1].after.data());
    ref[17] += 1.0f;
    ReplayResult wrong = replay_capture(rt, cap);
    EXPECT_EQ(wrong.outputs[0].differing, 1u);
    EXPECT_NEAR(wrong.outputs[0].max_abs, 1.0, 1e-5);
    // A capture over the size limit is refused and the run continues.
    RuntimeOptions small = options(cache);
    small.capture = CaptureSettings{{"*"}, 0, (cdir / "small").string(), 1024};
    Runtime rt2(small);
    KernelInstance k2 = rt2.instantiate(def, ProblemSize(n));
    k2.launch(nullptr, n, 2.0f, dx.get(), dy.get());
    Driver::get().synchronize();
    EXPECT_FALSE(fs::exists(cdir / "small") && !fs::is_empty(cdir / "small"));
    fs::remove_all(cache);
    fs::remove_all(cdir);
}

// Library work (what cuFFT's transforms go through) is a row of its own per name and size:
// every call counted, its time inside an outer event pair around it, none when it does
// nothing on the device.
TEST(Gpu, ProfileLibraryTimesWorkAsItsOwnRow) {
    fs::path cache = fresh_dir("lcache");
    RuntimeOptions o = options(cache);
    o.profile = true;
    Runtime rt(o);
    SQUALL_NEED_GPU(rt.has_device(), rt.no_device_reason());
    const size_t n = size_t(1) << 26; // 256 MiB: a copy of a few ms
    std::vector<float> host(n, 1.5f);
    DeviceBuffer dev(n * 4);
    const double outer_ms = outer_event_ms([&] {
        for (int r = 0; r < 2; ++r)
            rt.profile_library("library_copy", ProblemSize(7, 3), nullptr,
                               [&] { dev.upload(host.data()); });
        rt.profile_library("library_idle", ProblemSize(7, 3), nullptr, [] {});
    });
    const std::vector<ProfileRow> rows = rt.profile();
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].key, "library_copy"); // slowest first
    EXPECT_EQ(rows[0].problem, ProblemSize(7, 3).to_string());
    EXPECT_EQ(rows[0].config, "library");
    EXPECT_EQ(rows[0].calls, 2u);
    EXPECT_GT(rows[0].total_ms, 0.5 * outer_ms);
    EXPECT_LE(rows[0].total_ms, outer_ms * 1.001 + 0.002);
    EXPECT_EQ(rows[1].key, "library_idle");
    EXPECT_EQ(rows[1].calls, 1u);
    EXPECT_LT(rows[1].total_ms, 0.05 * rows[0].total_ms);
    fs::remove_all(cache);
}

// SQUALL_PROFILE: each launch is timed by two events; the per-instance totals must match
// an independent event pair around the same launches, count every call and leave the
// results unchanged.
TEST(Gpu, ProfileTimesEveryLaunch) {
    fs::path cache = fresh_dir("pcache");
    RuntimeOptions o = options(cache);
    o.profile = true;
    Runtime rt(o);
    SQUALL_NEED_GPU(rt.has_device(), rt.no_device_reason());
    ASSERT_TRUE(rt.profiling());
    const KernelDef def = saxpy_def("float");
    const int big = 1 << 26, small = 1000; // 256 MiB per array: ~0.2 ms a launch
    DeviceBuffer dx(size_t(big) * 4), dy(size_t(big) * 4);
    std::vector<float> x(size_t(big), 0.25f), y(size_t(big), 1.0f);
    dx.upload(x.data());
    dy.upload(y.data());
    KernelInstance kb = rt.instantiate(def, ProblemSize(big));
    KernelInstance ks = rt.instantiate(def, ProblemSize(small));
    kb.launch(nullptr, big, 2.0f, dx.get(), dy.get()); // warm-up, forgotten below
    Driver::get().synchronize();
    rt.profile_reset();
    EXPECT_TRUE(rt.profile().empty());

    const double outer_ms = outer_event_ms([&] {
        for (int r = 0; r < 5; ++r) kb.launch(nullptr, big, 2.0f, dx.get(), dy.get());
        for (int r = 0; r < 3; ++r) ks.launch(nullptr, small, 2.0f, dx.get(), dy.get());
    });

    const std::vector<ProfileRow> rows = rt.profile();
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].key, "saxpy_float");
    EXPECT_EQ(rows[0].problem, ProblemSize(big).to_string()); // slowest first
    EXPECT_EQ(rows[0].calls, 5u);
    EXPECT_EQ(rows[1].problem, ProblemSize(small).to_string());
    EXPECT_EQ(rows[1].calls, 3u);
    EXPECT_EQ(rows[0].config, def.space().format(kb.config()));
    const double sum = rows[0].total_ms + rows[1].total_ms;
    std::printf("profiled %.4f ms (%.4f + %.4f), outer events %.4f ms\n", sum, rows[0].total_ms,
                rows[1].total_ms, outer_ms);
    // The brackets lie inside the outer pair; the big launches fill nearly all of it.
    EXPECT_LE(sum, outer_ms * 1.001 + 0.002);
    EXPECT_GE(rows[0].total_ms, 0.8 * outer_ms);
    EXPECT_GT(rows[1].total_ms, 0.0);

    // Results unchanged: y = 2 x + y + 1, 5 times over the big array (the first 1000
    // elements 3 more times), after the warm-up.
    dy.download(y.data());
    float expect_tail = 1.0f, expect_head;
    for (int r = 0; r < 6; ++r) expect_tail = 2.0f * 0.25f + expect_tail + 1.0f;
    expect_head = expect_tail;
    for (int r = 0; r < 3; ++r) expect_head = 2.0f * 0.25f + expect_head + 1.0f;
    EXPECT_EQ(y[0], expect_head);
    EXPECT_EQ(y[size_t(small) - 1], expect_head);
    EXPECT_EQ(y[size_t(small)], expect_tail);
    EXPECT_EQ(y[size_t(big) - 1], expect_tail);

    rt.profile_reset();
    EXPECT_TRUE(rt.profile().empty());
    fs::remove_all(cache);
}
