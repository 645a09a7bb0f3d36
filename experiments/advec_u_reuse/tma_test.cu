// Checks the helpers of tma.cuh on their own: one 40 x 22 box of a 64 x 64 x 8 field,
// at a 16-byte aligned x offset, into shared memory and back; every value compared.
//   nvcc -O3 -std=c++17 -arch=sm_90 tma_test.cu -o tma_test -lcuda && ./tma_test
#include "tma.cuh"
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>
__global__ void t(const __grid_constant__ CUtensorMap m, double* out) {
    extern __shared__ __align__(128) unsigned char raw[];
    unsigned char* sm = raw + ((128 - (smem_u32(raw) & 127)) & 127);
    __shared__ unsigned long long bar;
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        mbar_expect_tx(&bar, 40 * 22 * 8);
        tma_load_3d(sm, &m, 4, 3, 2, &bar);
    }
    mbar_wait(&bar, 0);
    for (int q = threadIdx.x; q < 40 * 22; q += blockDim.x)
        out[q] = reinterpret_cast<double*>(sm)[q];
}
int main() {
    const int nx = 64, ny = 64, nz = 8;
    std::vector<double> h(nx * ny * nz);
    for (size_t q = 0; q < h.size(); ++q) h[q] = q;
    double *d, *o;
    cudaMalloc(&d, h.size() * 8);
    cudaMalloc(&o, 40 * 22 * 8);
    cudaMemcpy(d, h.data(), h.size() * 8, cudaMemcpyHostToDevice);
    CUtensorMap m = field_map(d, nx, ny, nz, 40, 22);
    t<<<1, 128, 40 * 22 * 8 + 128>>>(m, o);
    cudaError_t e = cudaDeviceSynchronize();
    printf("tma test: %s\n", cudaGetErrorString(e));
    std::vector<double> r(40 * 22);
    cudaMemcpy(r.data(), o, r.size() * 8, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int y = 0; y < 22; ++y)
        for (int x = 0; x < 40; ++x)
            if (r[y * 40 + x] != h[(2 * ny + 3 + y) * nx + 4 + x]) ++bad;
    printf("tma test: %d wrong of %d\n", bad, 40 * 22);
    return bad != 0 || e != cudaSuccess;
}
