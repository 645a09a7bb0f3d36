// squall tune's GPU path on a captured launch: a kernel whose `shortcut` variants are
// faster but wrong must have every one of them rejected by verification and never
// recorded; the record merged into the wisdom directory carries its provenance; with
// --untuned a runtime that finds that record keeps the kernel, and the manifest lists every
// launch tuned or kept. Variants
// that differ by round-off only pass, unless --exact. The same
// from an in-process capture, whose arrays stay on the device.
#include "runtime/replay.h"
#include "runtime/wisdom.h"
#include "tests/support/gpu_required.h"
#include "tuner/session.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

namespace {

using namespace squall;
namespace fs = std::filesystem;

// y = 2 x + y. With shortcut=1 the odd elements are skipped: half the traffic, wrong.
const char* const kSource = R"(
template <typename T, int ITEMS, int SHORTCUT>
__global__ void scale_add(int n, const T* x, T* y) {
    const int first = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
    for (int q = 0; q < ITEMS; ++q) {
        const int p = first + q;
        if (p < n && !(SHORTCUT && (p & 1))) y[p] = T(2) * x[p] + y[p];
    }
}
)";

rt::KernelDef scale_add_def() {
    auto src = std::make_shared<rt::SourceSet>();
    src->add("scale_add.cu", kSource);
    rt::KernelDef d("scale_add", src, "scale_add.cu");
    d.tuning_key("scale_add", "double")
        .tune("block_x", {64, 128, 256, 512, 1024}, 128)
        .tune("items", {1, 2, 4}, 1)
        .tune("shortcut", {0, 1}, 0)
        .template_args("double", rt::expr("items"), rt::expr("shortcut"))
        .block_size("block_x")
        .grid_divisors("block_x * items")
        .arg_scalar("n", rt::DType::i32)
        .arg_array("x", rt::DType::f64, rt::Access::in, "n")
        .arg_array("y", rt::DType::f64, rt::Access::inout, "n");
    return d;
}

// An empty directory DIR for one test, and the options of a runtime that captures the
// launches matching PATTERN (scale_add by default) into DIR/captures and keeps no compile
// cache on disk.
fs::path fresh_dir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / (name + "_" + std::to_string(getpid()));
    fs::remove_all(dir);
    return dir;
}
rt::RuntimeOptions capturing(const fs::path& dir, const char* pattern = "scale_add_*") {
    rt::RuntimeOptions o;
    o.cache_dir = "";
    o.capture = rt::CaptureSettings{{pattern}, 0, (dir / "captures").string(), 1ull << 30};
    return o;
}

// The capture file (.json) the launch left in DIR/captures ("" if none).
std::string capture_file(const fs::path& dir) {
    std::string json;
    for (const auto& e : fs::directory_iterator(dir / "captures"))
        if (e.path().extension() == ".json") json = e.path().string();
    return json;
}

// A launch's x and y, on the host and on the device: x_p = x_step (p % x_period),
// y_p = y_base + p % y_period.
struct ScaleAddData {
    std::vector<double> x, y;
    rt::DeviceBuffer dx, dy;
    ScaleAddData(int n, double x_step, int x_period, double y_base, int y_period)
        : x(static_cast<size_t>(n)), y(static_cast<size_t>(n)), dx(x.size() * 8), dy(y.size() * 8) {
        for (int i = 0; i < n; ++i)
            x[size_t(i)] = x_step * (i % x_period), y[size_t(i)] = y_base + (i % y_period);
        dx.upload(x.data()), dy.upload(y.data());
    }
};

// One launch of scale_add on n elements (x_p = 0.25 (p % 1000), y_p = 1 + p % 7) by a
// runtime that captures into DIR: the capture file.
std::string capture_scale_add(rt::Runtime& rt, const rt::KernelDef& def, const fs::path& dir,
                              int n) {
    const ScaleAddData data(n, 0.25, 1000, 1.0, 7);
    rt.instantiate(def, rt::ProblemSize(n)).launch(nullptr, n, data.dx.get(), data.dy.get());
    rt::Driver::get().synchronize();
    return capture_file(dir);
}

TEST(TuneGpu, RejectsAWrongKernelAndRecordsProvenance) {
    const fs::path dir = fresh_dir("squall_tune_gpu");
    rt::Runtime rt(capturing(dir));
    SQUALL_NEED_GPU(rt.has_device(), rt.no_device_reason());

    const int n = 1 << 24;
    const rt::KernelDef def = scale_add_def();
    const std::string json = capture_scale_add(rt, def, dir, n);
    ASSERT_FALSE(json.empty());
    const rt::Capture cap = rt::load_capture(json);

    tuner::SessionOptions so;
    so.tune.strategy = "random";
    so.tune.budget = {0, 0}; // the whole space (30 configurations)
    so.out_dir = (dir / "wisdom").string();
    so.journal_dir = (dir / "journal").string();
    so.from_default = true;
    so.progress = false;
    so.manifest = (dir / "launches.jsonl").string();
    rt::RuntimeOptions to;
    to.cache_dir = "";
    to.capture = rt::CaptureSettings{};
    rt::Runtime tuning(to);
    tuner::Session session(tuning, so);
    session.tune(cap, json);
    ASSERT_EQ(session.rows().size(), 1u);
    const tuner::TableRow& row = session.rows()[0];
    EXPECT_EQ(row.evaluations, 30u);
    EXPECT_EQ(row.rejected, 15u); // every shortcut variant
    EXPECT_GT(row.ceiling_fraction, 0.05);
    EXPECT_LT(row.ceiling_fraction, 1.2);

    const rt::Wisdom w = rt::Wisdom::load(def.key(), def.space(), {so.out_dir});
    ASSERT_EQ(w.records().size(), 1u);
    const rt::WisdomRecord& r = w.records()[0];
    EXPECT_EQ(r.config[size_t(def.space().param_index("shortcut"))].as_int(), 0);
    EXPECT_EQ(r.env.device_name, tuning.device().name);
    EXPECT_EQ(r.tuning.strategy, "random");
    EXPECT_EQ(r.tuning.evaluations, 30);
    EXPECT_FALSE(r.tuning.capture_hash.empty());
    EXPECT_GT(r.default_time, 0);
    EXPECT_LE(r.time, r.default_time * 1.02);

    // The journal has every evaluation; a second tune reads it and measures nothing new.
    tuner::Session again(tuning, so);
    again.tune(cap, json);
    EXPECT_EQ(again.rows()[0].from_journal, 30u);

    // --untuned: a runtime that finds the record keeps the kernel and measures nothing.
    rt::RuntimeOptions with_record = to;
    with_record.wisdom_dirs = {so.out_dir};
    rt::Runtime seeing(with_record);
    tuner::SessionOptions untuned = so;
    untuned.untuned_only = true;
    tuner::Session kept(seeing, untuned);
    kept.tune(cap, json);
    EXPECT_TRUE(kept.rows().empty());
    // The manifest: the two tunes and the kept launch, each with its kernel, size and device.
    std::ifstream manifest(so.manifest);
    std::vector<nlohmann::json> lines;
    for (std::string l; std::getline(manifest, l);) lines.push_back(nlohmann::json::parse(l));
    ASSERT_EQ(lines.size(), 3u);
    for (size_t line = 0; line < 3; ++line) {
        EXPECT_EQ(lines[line].at("key"), def.key());
        EXPECT_EQ(lines[line].at("problem_size"), nlohmann::json::array({1 << 24, 1, 1}));
        EXPECT_EQ(lines[line].at("device"), tuning.device().name);
        EXPECT_EQ(lines[line].at("tuned"), line < 2);
    }
    fs::remove_all(dir);
}

// An in-process capture (the capture sink, as `squall tune --case` uses it) keeps large
// arrays on the device: replay from there reproduces the launch, verification still
// rejects every wrong variant, and the device hash tells one array's contents from another.
TEST(TuneGpu, InProcessCaptureStaysOnTheDevice) {
    const fs::path dir = fresh_dir("squall_tune_gpu_sink");
    rt::Runtime rt(capturing(dir));
    SQUALL_NEED_GPU(rt.has_device(), rt.no_device_reason());

    const int n = 1 << 22;
    ScaleAddData data(n, 0.5, 999, 2.0, 5);
    std::vector<double>& x = data.x;
    const std::vector<double>& y = data.y;

    tuner::SessionOptions so;
    so.tune.strategy = "random";
    so.tune.budget = {0, 0};
    so.out_dir = (dir / "wisdom").string();
    so.from_default = true;
    so.progress = false;
    std::unique_ptr<tuner::Session> session;
    uint64_t x_hash = 0;
    int taken = 0;
    rt::set_capture_sink([&](rt::Runtime& r, rt::Capture& c) {
        ++taken;
        ASSERT_EQ(c.arrays.size(), 2u);
        for (const rt::CapturedArray& a : c.arrays) {
            EXPECT_TRUE(a.device_before) << a.name;
            EXPECT_TRUE(a.before.empty() && a.after.empty()) << a.name;
            EXPECT_EQ(bool(a.device_after), a.access != rt::Access::in) << a.name;
        }
        EXPECT_EQ(r.pending_captures(), 0u); // this one is taken
        x_hash = c.arrays[0].hash_before;
        EXPECT_NE(c.arrays[1].hash_before, c.arrays[1].hash_after); // y changed
        EXPECT_TRUE(rt::replay_capture(r, c).identical());
        session = std::make_unique<tuner::Session>(r, so);
        session->tune(c, "in-process");
    });
    const rt::KernelDef def = scale_add_def();
    const rt::KernelInstance k = rt.instantiate(def, rt::ProblemSize(n));
    EXPECT_EQ(rt.pending_captures(), 1u);
    k.launch(nullptr, n, data.dx.get(), data.dy.get());
    rt::Driver::get().synchronize();
    rt::set_capture_sink({});
    ASSERT_EQ(taken, 1);
    ASSERT_TRUE(session);
    EXPECT_FALSE(fs::exists(dir / "captures")); // nothing went to files
    const tuner::TableRow& row = session->rows().at(0);
    EXPECT_EQ(row.evaluations, 30u);
    EXPECT_EQ(row.rejected, 15u);
    // y came out of the launch once (2 x + y), not again from a replay.
    std::vector<double> got(y.size());
    data.dy.download(got.data());
    for (size_t i = 0; i < got.size(); i += 4097) EXPECT_EQ(got[i], 2 * x[i] + y[i]) << i;

    // The device hash is of the contents: x's again, then one element changed.
    EXPECT_EQ(rt::device_hash(rt, data.dx.get(), x.size() * 8), x_hash);
    x[12345] = std::nextafter(x[12345], 1e9);
    data.dx.upload(x.data());
    EXPECT_NE(rt::device_hash(rt, data.dx.get(), x.size() * 8), x_hash);
    session.reset();
    fs::remove_all(dir);
}

// A reference that the default misses by round-off cancellation amplified (put there:
// 20 times the double tolerance at one element) widens that output's tolerance for the
// tune, which searches and records as usual, the wrong shortcut variants still rejected;
// a reference off by more than round-off explains (1e-8 of its largest value) stops the
// tune before its search (CaptureEvaluator::calibrate, docs/tuning.md).
TEST(TuneGpu, RoundOffAboveTheToleranceWidensItForTheTune) {
    const fs::path dir = fresh_dir("squall_tune_gpu_calibrate");
    rt::Runtime rt(capturing(dir));
    SQUALL_NEED_GPU(rt.has_device(), rt.no_device_reason());
    const int n = 1 << 20;
    const rt::KernelDef def = scale_add_def();
    const std::string json = capture_scale_add(rt, def, dir, n);
    ASSERT_FALSE(json.empty());
    const rt::Capture cap = rt::load_capture(json);

    for (const double off : {20e-12, 1e-8}) {
        rt::Capture moved = cap;
        auto y = std::find_if(moved.arrays.begin(), moved.arrays.end(),
                              [](const rt::CapturedArray& a) { return a.name == "y"; });
        ASSERT_NE(y, moved.arrays.end());
        ASSERT_EQ(y->after.size(), size_t(n) * sizeof(double));
        std::vector<double> after(static_cast<size_t>(n));
        std::memcpy(after.data(), y->after.data(), y->after.size());
        double largest = 0;
        for (double v : after) largest = std::max(largest, std::abs(v));
        after[12345] += off * largest;
        std::memcpy(y->after.data(), after.data(), y->after.size());

        tuner::SessionOptions so;
        so.tune.strategy = "random";
        so.tune.budget = {0, 0}; // the whole space (30 configurations)
        so.out_dir = (dir / fmt::format("wisdom_{}", off)).string();
        so.from_default = true;
        so.progress = false;
        rt::RuntimeOptions to;
        to.cache_dir = "";
        rt::Runtime tuning(to);
        tuner::Session session(tuning, so);
        if (off < 1e-10) {
            session.tune(moved, json);
            ASSERT_EQ(session.rows().size(), 1u);
            EXPECT_EQ(session.rows()[0].evaluations, 30u);
            EXPECT_EQ(session.rows()[0].rejected, 15u); // every shortcut variant
            const rt::Wisdom w = rt::Wisdom::load(def.key(), def.space(), {so.out_dir});
            ASSERT_EQ(w.records().size(), 1u);
            EXPECT_EQ(w.records()[0].config[size_t(def.space().param_index("shortcut"))].as_int(),
                      0);
        } else {
            try {
                session.tune(moved, json);
                ADD_FAILURE() << "a default 1e-8 off its reference was accepted";
            } catch (const std::runtime_error& e) {
                EXPECT_NE(std::string(e.what()).find("does not reproduce"), std::string::npos)
                    << e.what();
            }
        }
    }
    fs::remove_all(dir);
}

// y = 0.1 x + y, in one FMA or, with separate = 1, with the product rounded before the
// sum: the same arithmetic up to round-off, as configurations of one kernel that the
// compiler contracts differently (docs/tuning.md).
const char* const kRoundSource = R"(
template <int SEPARATE>
__global__ void axpy_round(int n, const double* x, double* y) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n) y[p] = SEPARATE ? __dadd_rn(__dmul_rn(0.1, x[p]), y[p]) : fma(0.1, x[p], y[p]);
}
)";

TEST(TuneGpu, RoundOffPassesUnlessExact) {
    const fs::path dir = fresh_dir("squall_tune_gpu_round");
    rt::Runtime rt(capturing(dir, "axpy_round_*"));
    SQUALL_NEED_GPU(rt.has_device(), rt.no_device_reason());
    auto src = std::make_shared<rt::SourceSet>();
    src->add("axpy_round.cu", kRoundSource);
    rt::KernelDef def("axpy_round", src, "axpy_round.cu");
    def.tuning_key("axpy_round", "double")
        .tune("block_x", {128, 256}, 128)
        .tune("separate", {0, 1}, 0)
        .template_args(rt::expr("separate"))
        .block_size("block_x")
        .arg_scalar("n", rt::DType::i32)
        .arg_array("x", rt::DType::f64, rt::Access::in, "n")
        .arg_array("y", rt::DType::f64, rt::Access::inout, "n");
    const int n = 1 << 20;
    const ScaleAddData data(n, 0.37, 1000, 1.0, 7);
    rt.instantiate(def, rt::ProblemSize(n)).launch(nullptr, n, data.dx.get(), data.dy.get());
    rt::Driver::get().synchronize();
    const std::string json = capture_file(dir);
    ASSERT_FALSE(json.empty());
    const rt::Capture cap = rt::load_capture(json);

    for (const bool exact : {false, true}) {
        tuner::SessionOptions so;
        so.tune.strategy = "random";
        so.tune.budget = {0, 0}; // all 4 configurations
        so.out_dir = (dir / (exact ? "exact" : "tolerant")).string();
        so.from_default = true;
        so.progress = false;
        so.verify.exact = exact;
        rt::RuntimeOptions to;
        to.cache_dir = "";
        rt::Runtime tuning(to);
        tuner::Session session(tuning, so);
        session.tune(cap, json);
        const tuner::TableRow& row = session.rows().at(0);
        EXPECT_EQ(row.evaluations, 4u) << exact;
        EXPECT_EQ(row.rejected, exact ? 2u : 0u) << exact; // the rounded-apart variants
    }
    fs::remove_all(dir);
}

} // namespace
