// Helpers shared by the runtime's test kernels; included by a quoted path to check
// that NVRTC finds embedded headers without touching the file system.
#pragma once

template <typename T>
__device__ inline T squall_test_axpy(T a, T x, T y) {
    return a * x + y + T(EXTRA_OFFSET);
}
