// Kernel definitions, embedded sources and NVRTC compilation; none of it needs a GPU.
#include "runtime/compiler.h"
#include "runtime/driver.h"
#include "runtime/runtime.h"

#include "test_kernels.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace squall::rt;
using namespace squall::rt::testing;
namespace fs = std::filesystem;

namespace {
[[maybe_unused]] fs::path fresh_dir(const std::string& name) {
    fs::path p =
        fs::temp_directory_path() / ("squall_rt_nvrtc_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(p);
    return p;
}
[[maybe_unused]] bool is_elf(const std::string& image) {
    return image.size() > 4 && image.compare(0, 4,
                                             "\x7f"
                                             "ELF") == 0;
}
} // namespace

TEST(Sources, EmbeddedTableMatchesTheFiles) {
    auto src = squall::embedded::runtime_test_sources();
    ASSERT_EQ(src->files().size(), 4u);
    for (const auto& [path, text] : src->files()) {
        std::ifstream in(std::string(SQUALL_SOURCE_DIR) + "/" + path, std::ios::binary);
        ASSERT_TRUE(in) << path;
        std::stringstream ss;
        ss << in.rdbuf();
        EXPECT_EQ(ss.str(), text) << path;
    }
    EXPECT_NE(src->find("saxpy.cu"), nullptr);
    EXPECT_NE(src->find("kernels/saxpy.cu"), nullptr);
    EXPECT_EQ(src->find("missing.cu"), nullptr);
}

TEST(KernelDef, BuildsSpecAndGeometry) {
    KernelDef def = saxpy_def("double");
    EXPECT_EQ(def.key(), "saxpy_double");
    Config c = def.space().config_from_json({{"block_x", 128}, {"items", 4}, {"min_blocks", 2}});
    DeviceInfo d = DeviceInfo::for_arch("sm_90");
    LaunchGeometry g = def.geometry(c, ProblemSize(1000), d);
    EXPECT_EQ(g.block[0], 128u);
    EXPECT_EQ(g.grid[0], 2u); // ceil(1000 / (128*4))
    EXPECT_EQ(g.grid[1], 1u);
    CompileSpec s = def.compile_spec(c, ProblemSize(1000), d, "sm_90");
    EXPECT_EQ(s.name_expression, "saxpy<double, 4>");
    EXPECT_NE(s.program.find("__launch_bounds__(128, 2)"), std::string::npos) << s.program;
    EXPECT_NE(s.program.find("#define EXTRA_OFFSET 1"), std::string::npos) << s.program;
    EXPECT_NE(s.program.find("#include \"tests/runtime/kernels/saxpy.cu\""), std::string::npos);
    // Different configurations give different cache keys; the same one the same key.
    Config c2 = c;
    c2.values[1] = Value(2);
    EXPECT_NE(def.compile_spec(c2, ProblemSize(1000), d, "sm_90").hash(), s.hash());
    EXPECT_EQ(def.compile_spec(c, ProblemSize(1000), d, "sm_90").hash(), s.hash());
    EXPECT_NE(def.compile_spec(c, ProblemSize(1000), d, "sm_80").hash(), s.hash());
    // Invalid configurations are refused with the reason.
    Config bad = def.space().config_from_json({{"block_x", 1024}, {"items", 8}});
    EXPECT_THROW(def.geometry(bad, ProblemSize(100), d), std::invalid_argument);
}

// The L1/shared carveout is a launch attribute: the driver's choice unless the definition
// gives an expression, validated per configuration and kept through JSON.
TEST(KernelDef, PreferredCarveout) {
    DeviceInfo d = DeviceInfo::for_arch("sm_90");
    KernelDef def = saxpy_def("double");
    const Config c = def.space().default_config();
    EXPECT_EQ(def.geometry(c, ProblemSize(1000), d).carveout, -1);
    def.preferred_carveout("min_blocks == 1 ? 0 : 50");
    EXPECT_EQ(def.geometry(c, ProblemSize(1000), d).carveout, 0);
    Config c2 = def.space().config_from_json({{"min_blocks", 2}});
    EXPECT_EQ(def.geometry(c2, ProblemSize(1000), d).carveout, 50);
    const KernelDef back = KernelDef::from_json(def.to_json());
    EXPECT_EQ(back.geometry(c2, ProblemSize(1000), d).carveout, 50);
    def.preferred_carveout("min_blocks * 60");
    EXPECT_THROW(def.geometry(c2, ProblemSize(1000), d), std::invalid_argument);
    EXPECT_THROW(def.preferred_carveout("no_such_param"), ExprError);
}

TEST(KernelDef, TyposFailAtDefinition) {
    EXPECT_THROW(saxpy_def().restriction("block_y > 1"), ExprError);
    EXPECT_THROW(saxpy_def().block_size("blockx"), ExprError);
    EXPECT_THROW(KernelDef("k", squall::embedded::runtime_test_sources(), "nope.cu"),
                 std::invalid_argument);
}

TEST(KernelDef, JsonRoundTrip) {
    for (const KernelDef& def : {saxpy_def("float"), stencil_def("double"), empty_def()}) {
        KernelDef back = KernelDef::from_json(def.to_json());
        EXPECT_EQ(back.to_json(), def.to_json()) << def.key();
        Config c = def.space().default_config();
        ProblemSize p(256, 64, 32);
        DeviceInfo d;
        if (def.space().is_valid(c, p, d)) {
            EXPECT_EQ(back.compile_spec(c, p, d, "sm_90").hash(),
                      def.compile_spec(c, p, d, "sm_90").hash());
        }
    }
}

#ifdef SQUALL_HAVE_CUDA

TEST(Nvrtc, CompilesTemplatedKernelsWithDefinesAndLaunchBounds) {
    ASSERT_GT(nvrtc_version(), 0);
    DeviceInfo d = DeviceInfo::for_arch("sm_90");
    struct Case {
        KernelDef def;
        ProblemSize p;
        nlohmann::json config;
    };
    std::vector<Case> cases = {
        {saxpy_def("float"),
         ProblemSize(1 << 20),
         {{"block_x", 256}, {"items", 4}, {"min_blocks", 2}}},
        {saxpy_def("double"),
         ProblemSize(1000),
         {{"block_x", 64}, {"items", 1}, {"min_blocks", 1}}},
        {stencil_def("float"),
         ProblemSize(64, 32, 16),
         {{"block_x", 32}, {"block_y", 4}, {"tile_z", 2}}},
        {empty_def(), ProblemSize(1), {}},
    };
    for (const auto& c : cases) {
        CompileSpec spec =
            c.def.compile_spec(c.def.space().config_from_json(c.config), c.p, d, "sm_90");
        CompiledKernel k = nvrtc_compile(spec);
        EXPECT_TRUE(is_elf(k.cubin)) << spec.description;
        EXPECT_FALSE(k.lowered_name.empty());
        if (c.def.key() == "empty_kernel") {
            EXPECT_EQ(k.lowered_name, "empty_kernel"); // extern "C"
        } else {
            EXPECT_EQ(k.lowered_name.rfind("_Z", 0), 0u) << k.lowered_name;
        }
    }
}

TEST(Nvrtc, CompileErrorShowsLogAndConfiguration) {
    KernelDef def = saxpy_def("float").define("SQUALL_TEST_FAIL", 1);
    Config c = def.space().config_from_json({{"block_x", 128}, {"items", 2}});
    try {
        nvrtc_compile(def.compile_spec(c, ProblemSize(4096), DeviceInfo{}, "sm_90"));
        FAIL() << "expected a compile error";
    } catch (const CompileError& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("deliberate compile failure"), std::string::npos) << m; // NVRTC log
        EXPECT_NE(m.find("block_x=128, items=2"), std::string::npos) << m;       // configuration
        EXPECT_NE(m.find("saxpy_float"), std::string::npos) << m;
    }
}

TEST(Nvrtc, DiskCacheIsHitBySecondCache) {
    fs::path dir = fresh_dir("cache");
    KernelDef def = saxpy_def("float");
    CompileSpec spec =
        def.compile_spec(def.space().default_config(), ProblemSize(4096), DeviceInfo{}, "sm_90");
    std::string first;
    {
        KernelCache cache(dir.string());
        auto k = cache.get(spec);
        EXPECT_FALSE(k->from_disk);
        EXPECT_EQ(cache.stats().compiles, 1u);
        EXPECT_EQ(cache.get(spec), k); // memory hit: same object
        EXPECT_EQ(cache.stats().memory_hits, 1u);
        EXPECT_TRUE(fs::exists(cache.disk_path(spec)));
        first = k->cubin;
    }
    {
        KernelCache cache(dir.string()); // a new process would see the same
        auto k = cache.get(spec);
        EXPECT_TRUE(k->from_disk);
        EXPECT_EQ(cache.stats().compiles, 0u);
        EXPECT_EQ(cache.stats().disk_hits, 1u);
        EXPECT_EQ(k->cubin, first);
    }
    // A corrupted cache file is detected and replaced by a fresh compilation.
    {
        KernelCache cache(dir.string());
        std::fstream f(cache.disk_path(spec), std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(-10, std::ios::end);
        f.put('\x55');
        f.close();
        auto k = cache.get(spec);
        EXPECT_FALSE(k->from_disk);
        EXPECT_EQ(k->cubin, first);
    }
    // No temporary files are left behind.
    for (const auto& e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
    fs::remove_all(dir);
}

TEST(Nvrtc, ParallelCompileOfManyInstances) {
    fs::path dir = fresh_dir("parallel");
    KernelCache cache(dir.string());
    KernelDef def = stencil_def("double");
    std::mt19937_64 rng(5);
    ProblemSize p(128, 64, 32);
    std::vector<CompileSpec> specs;
    for (int i = 0; i < 6; ++i)
        specs.push_back(
            def.compile_spec(*def.space().sample(rng, p, DeviceInfo{}), p, DeviceInfo{}, "sm_90"));
    specs.push_back(specs[0]); // duplicate: compiled once
    auto out = cache.get_all(specs, 4);
    ASSERT_EQ(out.size(), specs.size());
    for (const auto& k : out) EXPECT_TRUE(is_elf(k->cubin));
    EXPECT_EQ(out[0], out.back());
    EXPECT_LE(cache.stats().compiles.load(), 6u);
    fs::remove_all(dir);
}

TEST(Runtime, CompileOnlyRuntimeWorksWithoutDevice) {
    RuntimeOptions o;
    o.use_device = false;
    o.cache_dir = "";
    o.wisdom_dirs = {};
    Runtime rt(o);
    EXPECT_FALSE(rt.has_device());
    EXPECT_EQ(rt.arch(), "sm_90");
    KernelDef def = saxpy_def("float");
    auto sel = rt.select(def, ProblemSize(1 << 20));
    auto k = rt.compile(def, sel.config, ProblemSize(1 << 20));
    EXPECT_TRUE(is_elf(k->cubin));
    EXPECT_THROW(rt.instantiate(def, ProblemSize(1 << 20)), NoDeviceError);
}

#else

TEST(Nvrtc, ReportsCudaNotBuilt) {
    EXPECT_EQ(nvrtc_version(), 0);
    KernelDef def = saxpy_def("float");
    try {
        nvrtc_compile(def.compile_spec(def.space().default_config(), ProblemSize(4096),
                                       DeviceInfo{}, "sm_90"));
        FAIL();
    } catch (const NoDeviceError& e) {
        EXPECT_NE(std::string(e.what()).find("CUDA support not built"), std::string::npos);
    }
}

#endif

// On a machine without a GPU (CI), the driver must report that clearly.
TEST(Driver, MissingGpuIsReportedNotFatal) {
    Driver& d = Driver::get();
    if (d.available()) GTEST_SKIP() << "a GPU is present";
#ifdef SQUALL_HAVE_CUDA
    EXPECT_NE(d.error().find("no CUDA driver/GPU found"), std::string::npos) << d.error();
#else
    EXPECT_NE(d.error().find("CUDA support not built"), std::string::npos) << d.error();
#endif
    EXPECT_THROW(d.require(), NoDeviceError);
    EXPECT_THROW(d.alloc(16), NoDeviceError);
    EXPECT_THROW(d.memory_info(), NoDeviceError);
    Runtime rt;
    EXPECT_FALSE(rt.has_device());
    EXPECT_EQ(rt.no_device_reason(), d.error());
}
