#include "runtime/capture.h"
#include "runtime/hash.h"
#include "runtime/replay.h"

#include "test_kernels.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sys/wait.h>
#include <thread>
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
    EXPECT_FALSE(s.matches("diff_uvw_float2"));
    EXPECT_EQ(s.skip, 3u);
    EXPECT_EQ(s.dir, "/tmp/caps");
    EXPECT_EQ(s.max_bytes, 10u << 20);
    CaptureSettings none = CaptureSettings::from_env();
    EXPECT_FALSE(none.enabled());
    EXPECT_EQ(none.max_bytes, 4096ull << 20);
}

// A kernel's bare name selects its keys in every precision (and other '_' arguments), not
// other kernels whose names merely begin with it.
TEST(Capture, BareNameSelectsEveryPrecision) {
    CaptureSettings s;
    s.patterns = {"tend_uvw_2i5_smag", "diff_c"};
    EXPECT_TRUE(s.matches("tend_uvw_2i5_smag_double"));
    EXPECT_TRUE(s.matches("tend_uvw_2i5_smag_float"));
    EXPECT_TRUE(s.matches("tend_uvw_2i5_smag"));
    EXPECT_FALSE(s.matches("tend_uvw_2i5_smagx_float"));
    EXPECT_FALSE(s.matches("tend_uvw_2i5_sma"));
    EXPECT_TRUE(s.matches("diff_c_smag_double")); // diff_c with the arguments smag, double
    EXPECT_FALSE(s.matches("diff_cx_double"));
    s.patterns = {"tend_uvw_2i5_smag?"}; // a wildcard: the pattern alone decides
    EXPECT_FALSE(s.matches("tend_uvw_2i5_smag_double"));
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
    CapturedScalar sn, sa;
    sn.name = "n", sn.dtype = DType::i32, sn.value = Value(static_cast<long long>(n));
    int32_t n32 = static_cast<int32_t>(n);
    sn.raw.assign(reinterpret_cast<char*>(&n32), reinterpret_cast<char*>(&n32) + 4);
    sa.name = "a", sa.dtype = DType::f32, sa.value = Value(0.5);
    float a = 0.5f;
    sa.raw.assign(reinterpret_cast<char*>(&a), reinterpret_cast<char*>(&a) + 4);
    c.scalars = {sn, sa};
    CapturedArray x, y;
    x.name = "x", x.dtype = DType::f32, x.access = Access::in, x.count = n;
    y.name = "y", y.dtype = DType::f32, y.access = Access::inout, y.count = n;
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
    c.order = {
        {ArgKind::scalar, 0}, {ArgKind::scalar, 1}, {ArgKind::array, 0}, {ArgKind::array, 1}};
    return c;
}

fs::path fresh_dir(const std::string& name) {
    fs::path p =
        fs::temp_directory_path() / ("squall_rt_capture_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(p);
    return p;
}

} // namespace

// hash_arrays (one thread per array) gives each array the hashes of its own bytes, the
// same that write_capture records and load_capture verifies.
TEST(Capture, ArraysAreHashedEachFromItsOwnBytes) {
    Capture c = make_capture(5000);
    hash_arrays(c);
    for (const CapturedArray& a : c.arrays) {
        EXPECT_EQ(a.hash_before, hash64(a.before.data(), a.before.size())) << a.name;
        EXPECT_EQ(a.hash_after, hash64(a.after.data(), a.after.size())) << a.name;
    }
    EXPECT_NE(c.arrays[0].hash_before, c.arrays[1].hash_before);
    EXPECT_NE(c.arrays[1].hash_before, c.arrays[1].hash_after);
}

// Partial results are known by the launch argument of the array's name; a struct member
// of that name is not the argument, and an array no argument names holds plain values.
TEST(Capture, PartialsComeFromTheArgumentOfTheArraysName) {
    std::vector<ArgDef> args(2);
    args[0].name = "partial", args[0].is_array = true, args[0].partials = Partials::max;
    args[1].name = "field", args[1].is_array = true;
    CapturedArray a;
    a.name = "partial";
    EXPECT_EQ(partials_of(args, a), Partials::max);
    a.member.parent = 0; // a struct's member called "partial"
    EXPECT_EQ(partials_of(args, a), Partials::none);
    CapturedArray b;
    b.name = "field";
    EXPECT_EQ(partials_of(args, b), Partials::none);
    b.name = "other";
    EXPECT_EQ(partials_of(args, b), Partials::none);
}

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

// MPI ranks of one run capture the same kernels into one directory at the same moment.
// Every capture must survive intact: none overwritten, no data file shared between two.
TEST(Capture, ConcurrentWritersNeverShareAStem) {
    fs::path dir = fresh_dir("concurrent");
    fs::create_directories(dir);
    constexpr int writers = 4, per_writer = 12;
    const auto start = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    std::vector<pid_t> children;
    for (int w = 0; w < writers; ++w) {
        const pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            std::this_thread::sleep_until(start);
            int status = 0;
            try {
                for (int r = 0; r < per_writer; ++r) {
                    Capture c = make_capture(20000);
                    // Tag the capture's data with its writer and round.
                    const float tag = float(w * per_writer + r);
                    std::memcpy(c.arrays[0].before.data(), &tag, sizeof tag);
                    write_capture(dir.string(), c);
                }
            } catch (...) {
                status = 1;
            }
            _exit(status);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = -1;
        waitpid(pid, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    std::set<int> tags;
    int json_files = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        EXPECT_EQ(name.find(".claim"), std::string::npos) << "left behind: " << name;
        if (e.path().extension() != ".json") continue;
        ++json_files;
        const Capture r = load_capture(e.path().string()); // verifies every data file's hash
        float tag = -1;
        std::memcpy(&tag, r.arrays[0].before.data(), sizeof tag);
        tags.insert(int(tag));
    }
    EXPECT_EQ(json_files, writers * per_writer);
    EXPECT_EQ(int(tags.size()), writers * per_writer);
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
    // Loaded without verification, the short file is refused by replay before anything
    // is compiled or uploaded (a compile-only runtime would otherwise fail differently).
    const Capture unverified = load_capture(path, /*verify=*/false);
    RuntimeOptions o;
    o.use_device = false;
    o.cache_dir = "";
    Runtime rt(o);
    try {
        replay_capture(rt, unverified);
        FAIL() << "short data file not refused";
    } catch (const CaptureError& e) {
        EXPECT_NE(std::string(e.what()).find("'y'"), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}

TEST(Capture, UnwritableDirectoryIsRefused) {
    Capture c = make_capture(16);
    EXPECT_THROW(write_capture("/proc/squall_not_writable", c), CaptureError);
    EXPECT_THROW(load_capture("/nonexistent/capture.json"), CaptureError);
}

// A struct argument: its scalar members feed the array counts, a null member pointer is
// recorded as null, and everything survives a write and a load.
TEST(Capture, StructArgumentsAreDescribedAndRoundTrip) {
    struct Params {
        double* out;
        const double* in;
        const double* absent;
        int n, stride;
        double scale;
    };
    KernelDef def = squall::rt::testing::saxpy_def("double");
    def.arg_scalar("levels", DType::i32)
        .arg_struct("f", sizeof(Params))
        .member_array("out", DType::f64, Access::out, "f.n * levels", offsetof(Params, out))
        .member_array("in", DType::f64, Access::in, "n * stride + 1", offsetof(Params, in))
        .member_array("absent", DType::f64, Access::in, "n", offsetof(Params, absent))
        .member_scalar("n", DType::i32, offsetof(Params, n))
        .member_scalar("stride", DType::i32, offsetof(Params, stride))
        .member_scalar("scale", DType::f64, offsetof(Params, scale));
    EXPECT_THROW(KernelDef(def).member_scalar("x", DType::f64, sizeof(Params) - 4),
                 std::logic_error);
    EXPECT_THROW(squall::rt::testing::saxpy_def("double").member_scalar("x", DType::f64, 0),
                 std::logic_error);
    // The definition keeps its arguments through JSON (captures rebuild it).
    KernelDef back = KernelDef::from_json(def.to_json());
    ASSERT_EQ(back.args().size(), def.args().size());
    EXPECT_EQ(back.args().back().members.size(), 6u);
    EXPECT_EQ(back.args().back().members[1].offset, offsetof(Params, in));
    EXPECT_EQ(back.to_json(), def.to_json());

    // Fake launch: the pointer values only have to be distinct (nothing is downloaded).
    Params p{reinterpret_cast<double*>(0x1000),
             reinterpret_cast<const double*>(0x9000),
             nullptr,
             7,
             3,
             0.25};
    int n = 5, levels = 4;
    float a = 2.0f;
    uint64_t x = 0x100, y = 0x200;
    std::vector<void*> params{&n, &a, &x, &y, &levels, &p};
    Capture c;
    c.kernel = def.to_json();
    c.problem = ProblemSize(n);
    std::vector<uint64_t> from;
    describe_launch(c, def.args(), params.data(), params.size(), from);
    ASSERT_EQ(c.order.size(), 6u);
    EXPECT_EQ(c.order[5], std::make_pair(ArgKind::structure, size_t(0)));
    ASSERT_EQ(c.arrays.size(), 5u);
    EXPECT_EQ(c.arrays[2].name, "out");
    EXPECT_EQ(c.arrays[2].count, 28u); // f.n (member) * levels (argument)
    EXPECT_EQ(c.arrays[3].count, 16u); // n: the argument; stride: the member
    EXPECT_TRUE(c.arrays[4].null);
    EXPECT_EQ(from, (std::vector<uint64_t>{0x100, 0x200, 0x1000, 0x9000, 0}));
    EXPECT_EQ(c.arrays[3].member.parent, 0);
    EXPECT_EQ(c.arrays[3].member.offset, offsetof(Params, in));
    ASSERT_EQ(c.structs.size(), 1u);
    EXPECT_EQ(c.structs[0].raw.size(), sizeof(Params));
    EXPECT_THROW(describe_launch(c, def.args(), params.data(), 5, from), CaptureError);

    // Fill the data and write it out.
    for (size_t i = 0; i < c.arrays.size(); ++i) {
        auto& arr = c.arrays[i];
        if (!arr.has_data()) continue;
        arr.before.assign(arr.bytes(), char(i + 1));
        if (arr.access != Access::in) arr.after.assign(arr.bytes(), char(i + 7));
    }
    fs::path dir = fresh_dir("struct");
    const std::string path = write_capture(dir.string(), c);
    Capture r = load_capture(path);
    EXPECT_EQ(r.order, c.order);
    ASSERT_EQ(r.structs.size(), 1u);
    EXPECT_EQ(r.structs[0].raw, c.structs[0].raw);
    ASSERT_EQ(r.arrays.size(), c.arrays.size());
    for (size_t i = 0; i < r.arrays.size(); ++i) {
        EXPECT_EQ(r.arrays[i].name, c.arrays[i].name);
        EXPECT_EQ(r.arrays[i].count, c.arrays[i].count);
        EXPECT_EQ(r.arrays[i].null, c.arrays[i].null);
        EXPECT_EQ(r.arrays[i].member.parent, c.arrays[i].member.parent);
        EXPECT_EQ(r.arrays[i].member.offset, c.arrays[i].member.offset);
        EXPECT_EQ(r.arrays[i].before, c.arrays[i].before);
        EXPECT_EQ(r.arrays[i].after, c.arrays[i].after);
    }
    ASSERT_EQ(r.scalars.size(), c.scalars.size());
    EXPECT_EQ(r.scalars.back().name, "scale");
    EXPECT_DOUBLE_EQ(r.scalars.back().value.as_float(), 0.25);
    EXPECT_EQ(r.scalars.back().member.parent, 0);

    // A member placed past its struct's end is malformed, not a crash.
    nlohmann::json doc = nlohmann::json::parse(std::ifstream(path));
    doc["arguments"][5]["members"][0]["member_offset"] = 4096;
    std::ofstream(path) << doc.dump();
    EXPECT_THROW(load_capture(path), CaptureError);
    fs::remove_all(dir);
}

// Tensor maps (KernelDef::tensor_map): declared only on real arrays declared before, used
// by the configurations their condition selects, with boxes evaluated per configuration
// and checked against the copy engine's 1..256, and kept through JSON (captures rebuild
// the definition and the launch re-encodes the maps for the replayed arrays).
TEST(Capture, TensorMapsAreEvaluatedPerConfigurationAndRoundTrip) {
    KernelDef def = squall::rt::testing::saxpy_def("double");
    EXPECT_THROW(KernelDef(def).tensor_map("n", 0, {8, 8, 8}, {"1", "1", "1"}), std::logic_error);
    EXPECT_THROW(KernelDef(def).tensor_map("nope", 0, {8, 8, 8}, {"1", "1", "1"}),
                 std::logic_error);
    EXPECT_THROW(KernelDef(def).tensor_map("x", 0, {8, 0, 8}, {"1", "1", "1"}), std::logic_error);
    EXPECT_THROW(KernelDef(def).tensor_map("x", 0, {8, 8, 8}, {"nope", "1", "1"}), ExprError);
    def.tensor_map("y", -3, {96, 10, 7}, {"block_x / 4", "items + 1", "1"}, "items > 1");
    const DeviceInfo dev = DeviceInfo::for_arch("sm_90");
    const ProblemSize p(4096);
    auto config = [&](int block_x, int items) {
        return def.space().config_from_json({{"block_x", block_x}, {"items", items}});
    };
    EXPECT_TRUE(def.tensor_maps(config(256, 1), p, dev).empty());
    const auto maps = def.tensor_maps(config(256, 4), p, dev);
    ASSERT_EQ(maps.size(), 1u);
    EXPECT_EQ(maps[0].arg, 3u); // n, a, x, y
    EXPECT_EQ(maps[0].elem_bytes, 8u);
    EXPECT_EQ(maps[0].offset, -3);
    EXPECT_EQ(maps[0].dims, (std::array<long long, 3>{96, 10, 7}));
    EXPECT_EQ(maps[0].box, (std::array<unsigned, 3>{64, 5, 1}));
    EXPECT_NO_THROW(def.tensor_maps(config(1024, 2), p, dev)); // box 256 x 3
    KernelDef wide = def;
    wide.tensor_map("x", 0, {96, 10, 7}, {"block_x", "1", "1"});
    EXPECT_EQ(wide.tensor_maps(config(256, 1), p, dev).size(), 1u);
    EXPECT_THROW(wide.tensor_maps(config(512, 1), p, dev), std::invalid_argument);
    KernelDef back = KernelDef::from_json(def.to_json());
    ASSERT_EQ(back.tensor_map_defs().size(), 1u);
    EXPECT_EQ(back.to_json(), def.to_json());
    EXPECT_EQ(back.tensor_maps(config(256, 4), p, dev)[0].box, maps[0].box);
}
