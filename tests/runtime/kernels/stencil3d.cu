// Test kernel: out = in(i-1) + 2 in(i) + in(i+1) along x on an nx*ny*nz box with one
// ghost cell in x; the extents are compile-time constants (NX, NY, NZ); each thread
// handles TILE_Z points along z.
template <typename T>
__global__ void SQUALL_LAUNCH_BOUNDS stencil3d(const T* __restrict__ in, T* __restrict__ out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k0 = (blockIdx.z * blockDim.z + threadIdx.z) * TILE_Z;
    if (i >= NX || j >= NY) return;
    for (int t = 0; t < TILE_Z; ++t) {
        const int k = k0 + t;
        if (k >= NZ) return;
        const long c = (long(k) * NY + j) * (NX + 2) + i + 1;
        out[c] = in[c - 1] + T(2) * in[c] + in[c + 1];
    }
}
