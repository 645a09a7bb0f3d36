#pragma once
// GPU tests skip on machines without a GPU, so that a plain `ctest` passes anywhere; on the
// GPU machine scripts/gpu-check sets SQUALL_REQUIRE_GPU=1 and a missing device fails instead.
#include <cstdlib>
#include <cstring>

#include <gtest/gtest.h>

namespace squall::test {
inline bool gpu_required() {
    const char* v = std::getenv("SQUALL_REQUIRE_GPU");
    return v && std::strcmp(v, "0") != 0 && *v;
}
} // namespace squall::test

// Use at the top of a GPU test: SQUALL_NEED_GPU(runtime.has_device(), runtime.no_device_reason());
#define SQUALL_NEED_GPU(has_device, reason)                                                        \
    do {                                                                                           \
        if (!(has_device)) {                                                                       \
            if (::squall::test::gpu_required())                                                    \
                FAIL() << "no GPU (SQUALL_REQUIRE_GPU): " << (reason);                             \
            GTEST_SKIP() << "no GPU: " << (reason);                                                \
        }                                                                                          \
    } while (0)
