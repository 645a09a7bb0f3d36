// NVRTC in worker processes (runtime/compile_workers.h): the same cubin as a compile in
// this process, errors carried back, a worker that dies or cannot start reported.
#include "runtime/compile_workers.h"

#include "test_kernels.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <future>
#include <thread>

using namespace squall::rt;
using namespace squall::rt::testing;

#ifdef SQUALL_HAVE_CUDA

namespace {
std::vector<CompileSpec> specs() {
    const DeviceInfo d = DeviceInfo::for_arch("sm_90");
    std::vector<CompileSpec> out;
    for (int block : {64, 128, 256})
        for (int items : {1, 2}) {
            const KernelDef def = saxpy_def(block == 64 ? "double" : "float");
            const Config c = def.space().config_from_json({{"block_x", block}, {"items", items}});
            out.push_back(def.compile_spec(c, ProblemSize(4096), d, "sm_90"));
        }
    const KernelDef st = stencil_def("float");
    out.push_back(st.compile_spec(
        st.space().config_from_json({{"block_x", 32}, {"block_y", 4}, {"tile_z", 2}}),
        ProblemSize(64, 32, 16), d, "sm_90"));
    return out;
}
} // namespace

TEST(CompileWorkers, GiveTheSameCubinAsACompileInThisProcess) {
    CompileWorkers workers({SQUALL_COMPILE_WORKER, "unused"}, 2);
    const std::vector<CompileSpec> all = specs();
    // Seven requests at once on two workers, so that both are busy and each gets the
    // sources once, then names them by hash.
    std::vector<std::future<CompiledKernel>> got;
    for (const CompileSpec& s : all)
        got.push_back(std::async(std::launch::async, [&] { return workers.compile(s); }));
    for (size_t n = 0; n < all.size(); ++n) {
        const CompiledKernel here = nvrtc_compile(all[n]);
        const CompiledKernel there = got[n].get();
        EXPECT_EQ(there.cubin, here.cubin) << all[n].description;
        EXPECT_EQ(there.lowered_name, here.lowered_name);
        EXPECT_GT(there.compile_ms, 0);
    }
}

TEST(CompileWorkers, CarryTheCompileErrorBack) {
    CompileWorkers workers({SQUALL_COMPILE_WORKER}, 1);
    const KernelDef def = saxpy_def("float").define("SQUALL_TEST_FAIL", 1);
    const Config c = def.space().config_from_json({{"block_x", 128}, {"items", 2}});
    const CompileSpec bad = def.compile_spec(c, ProblemSize(4096), DeviceInfo{}, "sm_90");
    try {
        workers.compile(bad);
        FAIL() << "expected a compile error";
    } catch (const CompileError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("deliberate compile failure"), std::string::npos) << m;
        EXPECT_NE(m.find("block_x=128, items=2"), std::string::npos) << m;
    }
    // The worker is still there for the next request.
    EXPECT_FALSE(workers.compile(specs()[0]).cubin.empty());
}

// A worker that exits after each answer: the next request finds it gone, starts it again
// and sends the sources again, and every request is answered.
TEST(CompileWorkers, StartAWorkerAgainThatExited) {
    ASSERT_EQ(setenv("SQUALL_TEST_WORKER_REQUESTS", "1", 1), 0);
    CompileWorkers workers({SQUALL_COMPILE_WORKER}, 1);
    const std::vector<CompileSpec> all = specs();
    for (const CompileSpec& s : all)
        EXPECT_EQ(workers.compile(s).cubin, nvrtc_compile(s).cubin) << s.description;
    unsetenv("SQUALL_TEST_WORKER_REQUESTS");
}

TEST(CompileWorkers, ReportAWorkerThatNeverAnswersOrCannotStart) {
    const CompileSpec s = specs()[0];
    const auto message = [&](CompileWorkers& w) {
        try {
            w.compile(s);
        } catch (const CompileWorkerError& e) {
            return std::string(e.what());
        }
        return std::string("no CompileWorkerError");
    };
    CompileWorkers exits({"/bin/true"}, 1); // starts and exits at once, twice
    EXPECT_NE(message(exits).find("exited twice without answering"), std::string::npos);
    EXPECT_NE(message(exits).find("exited twice without answering"), std::string::npos);
    CompileWorkers missing({"/nonexistent/squall-compile-worker"}, 1);
    const std::string m = message(missing);
    EXPECT_NE(m.find("cannot start '/nonexistent/squall-compile-worker'"), std::string::npos) << m;
}

TEST(CompileWorkers, ServeTheKernelCacheOnceInstalled) {
    use_compile_workers(std::make_shared<CompileWorkers>(
        std::vector<std::string>{"/nonexistent/squall-compile-worker"}, 1));
    KernelCache cache("");
    EXPECT_THROW(cache.get(specs()[1]), CompileWorkerError); // it went to the missing worker
    use_compile_workers(nullptr);
    KernelCache again("");
    EXPECT_FALSE(again.get(specs()[1])->cubin.empty()); // NVRTC in this process
}

#endif
