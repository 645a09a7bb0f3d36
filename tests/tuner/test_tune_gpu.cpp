// squall tune's GPU path on a captured launch: a kernel whose `shortcut` variants are
// faster but wrong must have every one of them rejected by verification and never
// recorded; the record merged into the wisdom directory carries its provenance.
#include "runtime/wisdom.h"
#include "tests/support/gpu_required.h"
#include "tuner/session.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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

TEST(TuneGpu, RejectsAWrongKernelAndRecordsProvenance) {
    const fs::path dir =
        fs::temp_directory_path() / ("squall_tune_gpu_" + std::to_string(getpid()));
    fs::remove_all(dir);
    rt::RuntimeOptions o;
    o.cache_dir = "";
    o.capture = rt::CaptureSettings{{"scale_add_*"}, 0, (dir / "captures").string(), 1ull << 30};
    rt::Runtime rt(o);
    SQUALL_NEED_GPU(rt.has_device(), rt.no_device_reason());

    const int n = 1 << 24;
    std::vector<double> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) x[size_t(i)] = 0.25 * (i % 1000), y[size_t(i)] = 1.0 + (i % 7);
    rt::DeviceBuffer dx(x.size() * 8), dy(y.size() * 8);
    dx.upload(x.data()), dy.upload(y.data());
    const rt::KernelDef def = scale_add_def();
    rt.instantiate(def, rt::ProblemSize(n)).launch(nullptr, n, dx.get(), dy.get());
    rt::Driver::get().synchronize();
    std::string json;
    for (const auto& e : fs::directory_iterator(dir / "captures"))
        if (e.path().extension() == ".json") json = e.path().string();
    ASSERT_FALSE(json.empty());
    const rt::Capture cap = rt::load_capture(json);

    tuner::SessionOptions so;
    so.tune.strategy = "random";
    so.tune.budget = {0, 0}; // the whole space (30 configurations)
    so.out_dir = (dir / "wisdom").string();
    so.journal_dir = (dir / "journal").string();
    so.from_default = true;
    so.progress = false;
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
    fs::remove_all(dir);
}

} // namespace
