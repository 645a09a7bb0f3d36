// Starts the runtime with the driver library pointed at a file that does not exist,
// as on a machine without a GPU driver, and checks that everything CPU-side works and
// that device use fails with a clear message. Own process: the driver loads once.
#include "runtime/driver.h"
#include "runtime/runtime.h"

#include "test_kernels.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace squall::rt;

static int failures = 0;
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "FAILED: %s (line %d)\n", #cond, __LINE__);                       \
            ++failures;                                                                            \
        }                                                                                          \
    } while (0)

int main() {
    setenv("SQUALL_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    setenv("SQUALL_PROFILE", "1", 1); // asked for, but there is nothing to profile
    CHECK(profile_from_env());
    RuntimeOptions o;
    o.cache_dir = "";
    Runtime rt(o);
    CHECK(!rt.has_device());
    CHECK(!rt.profiling() && rt.profile().empty());
    int library_calls = 0; // library work runs untimed
    rt.profile_library("library_work", ProblemSize(7, 3), nullptr, [&] { ++library_calls; });
    CHECK(library_calls == 1 && rt.profile().empty());
    setenv("SQUALL_PROFILE", "0", 1);
    CHECK(!profile_from_env());
    unsetenv("SQUALL_PROFILE");
    CHECK(!profile_from_env());
    std::string why = rt.no_device_reason();
    std::printf("reason: %s\n", why.c_str());
#ifdef SQUALL_HAVE_CUDA
    CHECK(why.find("no CUDA driver/GPU found") != std::string::npos);
    CHECK(why.find("/nonexistent/libcuda.so.1") != std::string::npos);
#else
    CHECK(why.find("CUDA support not built") != std::string::npos);
#endif
    KernelDef def = testing::saxpy_def("float");
    bool threw = false;
    try {
        rt.instantiate(def, ProblemSize(1024));
    } catch (const NoDeviceError& e) {
        threw = std::string(e.what()) == why;
    }
    CHECK(threw);
    threw = false;
    try {
        DeviceBuffer b(64);
    } catch (const NoDeviceError&) {
        threw = true;
    }
    CHECK(threw);
    CHECK(rt.select(def, ProblemSize(1024)).level == 5);
#ifdef SQUALL_HAVE_CUDA
    CHECK(!rt.compile(def, def.space().default_config(), ProblemSize(1024))->cubin.empty());
#endif
    std::printf(failures ? "no-GPU startup check FAILED\n" : "no-GPU startup check passed\n");
    return failures ? 1 : 0;
}
