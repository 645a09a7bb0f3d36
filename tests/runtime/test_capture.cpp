#include "runtime/capture.h"
#include "runtime/hash.h"

#include "test_kernels.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace squall::rt;
namespace fs = std::filesystem;

TEST(Capture, GlobPatterns) {
    EXPECT_TRUE(glob_match("advec*", "advec_u_double"));
    EXPECT_TRUE(glob_match("*", "anything"));
    EXPECT_TRUE(glob_match("*_double", "diff_uvw_double"));
    EXPECT_TRUE(glob_match("a*c*e", "abcde"));
    EXPECT_TRUE(glob_match("exact", "exact"));
    EXPECT_FALSE(glob_match("exact", "exactly"));
    EXPECT_FALSE(glob_match("advec*", "diff_uvw"));
    EXPECT_FALSE(glob_match("*_float", "advec_u_double"));
    EXPECT_TRUE(glob_match("", ""));
    EXPECT_FALSE(glob_match("", "x"));
}

TEST(Capture, SettingsFromEnvironment) {
    setenv("SQUALL_CAPTURE", "advec*, diff_uvw_float ,", 1);
    setenv("SQUALL_CAPTURE_SKIP", "3", 1);
    setenv("SQUALL_CAPTURE_DIR", "/tmp/caps", 1);
    setenv("SQUALL_CAPTURE_MAX_MB", "10", 1);
    CaptureSettings s = CaptureSettings::from_env();
    for (const char* v :
         {"SQUALL_CAPTURE", "SQUALL_CAPTURE_SKIP", "SQUALL_CAPTURE_DIR", "SQUALL_CAPTURE_MAX_MB"})
        unsetenv(v);
    ASSERT_EQ(s.patterns.size(), 2u);
    EXPECT_TRUE(s.matches("advec_u_double"));
    EXPECT_TRUE(s.matches("diff_uvw_float"));
    EXPECT_FALSE(s.matches("diff_uvw_double"));
    EXPECT_EQ(s.skip, 3u);
    EXPECT_EQ(s.dir, "/tmp/caps");
    EXPECT_EQ(s.max_bytes, 10u << 20);
    CaptureSettings none = CaptureSettings::from_env();
    EXPECT_FALSE(none.enabled());
    EXPECT_EQ(none.max_bytes, 4096ull << 20);
}

TEST(Capture, HashDetectsSingleBitChanges) {
    std::vector<char> data(1 << 16);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 131 + 7);
    uint64_t h = hash64(data.data(), data.size());
    for (size_t pos : {size_t(0), size_t(31), size_t(32), size_t(4097), data.size() - 1}) {
        data[pos] ^= 1;
        EXPECT_NE(hash64(data.data(), data.size()), h) << pos;
        data[pos] ^= 1;
    }
    EXPECT_EQ(hash64(data.data(), data.size()), h);
    EXPECT_NE(hash64(data.data(), data.size() - 1), h);
    EXPECT_NE(hash64("", 0), hash64("\0", 1));
}

namespace {

Capture make_capture(size_t n) {
    Capture c;
    c.kernel = squall::rt::testing::saxpy_def("float").to_json();
    c.problem = ProblemSize(static_cast<int64_t>(n));
    c.config = nlohmann::json{{"block_x", 128}, {"items", 2}, {"min_blocks", 1}};
    c.device_name = "test device";
    CapturedScalar sn{"n", DType::i32, Value(static_cast<long long>(n)), {}};
    int32_t n32 = static_cast<int32_t>(n);
    sn.raw.assign(reinterpret_cast<char*>(&n32), reinterpret_cast<char*>(&n32) + 4);
    CapturedScalar sa{"a", DType::f32, Value(0.5), {}};
    float a = 0.5f;
    sa.raw.assign(reinterpret_cast<char*>(&a), reinterpret_cast<char*>(&a) + 4);
    c.scalars = {sn, sa};
    CapturedArray x{"x", DType::f32, Access::in, n, {}, {}, 0, 0};
    CapturedArray y{"y", DType::f32, Access::inout, n, {}, {}, 0, 0};
    std::vector<float> xv(n), yv(n), yout(n);
    for (size_t i = 0; i < n; ++i) {
        xv[i] = static_cast<float>(i) * 0.25f;
        yv[i] = 1.0f / static_cast<float>(i + 1);
        yout[i] = 0.5f * xv[i] + yv[i] + 1.0f;
    }
    auto bytes = [](const std::vector<float>& v) {
        return std::vector<char>(reinterpret_cast<const char*>(v.data()),
                                 reinterpret_cast<const char*>(v.data() + v.size()));
    };
    x.before = bytes(xv);
    y.before = bytes(yv);
    y.after = bytes(yout);
    c.arrays = {x, y};
    c.order = {{false, 0}, {false, 1}, {true, 0}, {true, 1}};
    return c;
}

fs::path fresh_dir(const std::string& name) {
    fs::path p =
        fs::temp_directory_path() / ("squall_rt_capture_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(p);
    return p;
}

} // namespace

TEST(Capture, RoundTripIsByteIdentical) {
    fs::path dir = fresh_dir("roundtrip");
    Capture c = make_capture(1000);
    std::string path = write_capture(dir.string(), c);
    EXPECT_TRUE(fs::exists(path));
    Capture r = load_capture(path);
    EXPECT_EQ(r.kernel, c.kernel);
    EXPECT_EQ(r.config, c.config);
    EXPECT_EQ(r.problem, c.problem);
    ASSERT_EQ(r.arrays.size(), 2u);
    EXPECT_EQ(r.arrays[0].before, c.arrays[0].before);
    EXPECT_TRUE(r.arrays[0].after.empty()); // input only: no reference output
    EXPECT_EQ(r.arrays[1].before, c.arrays[1].before);
    EXPECT_EQ(r.arrays[1].after, c.arrays[1].after);
    EXPECT_EQ(r.arrays[1].access, Access::inout);
    ASSERT_EQ(r.scalars.size(), 2u);
    EXPECT_EQ(r.scalars[0].value.as_int(), 1000);
    EXPECT_DOUBLE_EQ(r.scalars[1].value.as_float(), 0.5);
    EXPECT_EQ(r.scalars[1].raw, c.scalars[1].raw);
    EXPECT_EQ(r.order, c.order);
    // The definition can be rebuilt for replay.
    KernelDef def = r.kernel_def();
    EXPECT_EQ(def.key(), "saxpy_float");
    EXPECT_EQ(def.space().to_json(), squall::rt::testing::saxpy_def("float").space().to_json());
    // A second capture of the same kernel and size does not overwrite the first.
    Capture c2 = make_capture(1000);
    EXPECT_NE(write_capture(dir.string(), c2), path);
    fs::remove_all(dir);
}

TEST(Capture, FlippedByteIsDetected) {
    fs::path dir = fresh_dir("flip");
    Capture c = make_capture(4096);
    std::string path = write_capture(dir.string(), c);
    fs::path data =
        dir /
        nlohmann::json::parse(std::ifstream(path))["arguments"][3]["after_file"].get<std::string>();
    {
        std::fstream f(data, std::ios::in | std::ios::out | std::ios::binary);
        f.seekg(777);
        char b;
        f.read(&b, 1);
        b ^= 0x10;
        f.seekp(777);
        f.write(&b, 1);
    }
    try {
        load_capture(path);
        FAIL() << "flipped byte not detected";
    } catch (const CaptureError& e) {
        EXPECT_NE(std::string(e.what()).find("hash check"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(data.filename().string()), std::string::npos)
            << e.what();
    }
    EXPECT_NO_THROW(load_capture(path, /*verify=*/false));
    fs::resize_file(data, 100);
    EXPECT_THROW(load_capture(path), CaptureError);
    fs::remove_all(dir);
}

TEST(Capture, UnwritableDirectoryIsRefused) {
    Capture c = make_capture(16);
    EXPECT_THROW(write_capture("/proc/squall_not_writable", c), CaptureError);
    EXPECT_THROW(load_capture("/nonexistent/capture.json"), CaptureError);
}
