// Test kernel: y[i] = a * x[i] + y[i] + EXTRA_OFFSET, ITEMS elements per thread,
// block-strided. Templated on the element type and tiling factor.
#include "test_common.cuh"

#ifdef SQUALL_TEST_FAIL
#error "deliberate compile failure requested by the test"
#endif

template <typename T, int ITEMS>
__global__ void SQUALL_LAUNCH_BOUNDS saxpy(int n, T a, const T* __restrict__ x, T* __restrict__ y) {
    const int base = blockIdx.x * blockDim.x * ITEMS + threadIdx.x;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        int i = base + k * blockDim.x;
        if (i < n) y[i] = squall_test_axpy(a, x[i], y[i]);
    }
}
