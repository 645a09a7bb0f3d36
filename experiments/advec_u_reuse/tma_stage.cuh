// The staged traversal's layout (experiments/stage/stage.cuh) filled by the bulk tensor copy
// engine: would a TMA fill make the generic staged traversal competitive? A block owns an
// X x Y column tile and marches KC levels. Every field has one box, the tile plus 4 cells
// (x, the reach 3 rounded up to 16 bytes) and 3 cells (y) on each side, and a ring of
// planes holding its window of levels (u: k-3 .. k+3, v: k, w: k .. k+1), D levels ahead,
// followed by mirrors of the ring's first w-1 planes so that every window is contiguous.
// Unlike zplanes, u's z-stencil is read from the planes, as the per-point functions do
// in the solver. One thread issues every copy of a step (one box per plane and mirror)
// on mbarrier n % (D + 1). Included by advec_u_reuse.cu.
#include "tma.cuh"

template <class T, int X, int Y, int D>
struct StageBoxes {
    static constexpr int SX = X + 8, SY = Y + 6, plane = SX * SY;
    static constexpr int plane_bytes = plane * int(sizeof(T));
    static_assert(plane_bytes % 128 == 0, "each plane must start on a 128-byte boundary");
    // Windows (w), rings (w + D + 1) and planes with mirrors (2w + D) per field.
    static constexpr int WU = 7, WV = 1, WW = 2;
    static constexpr int RU = WU + D + 1, RV = WV + D + 1, RW = WW + D + 1;
    static constexpr int OU = 0, OV = 2 * WU + D, OW = OV + 2 * WV + D;
    static constexpr int planes = OW + 2 * WW + D;
    static constexpr size_t bytes = size_t(planes) * plane_bytes;
};

template <class T, int XW, int BY, int TY, int KC, int D, int MINB>
__global__ void __launch_bounds__(32 * XW * BY, MINB)
    zstage(Args<T> a, const __grid_constant__ CUtensorMap mu,
           const __grid_constant__ CUtensorMap mv, const __grid_constant__ CUtensorMap mw,
           const __grid_constant__ CUtensorMap) {
    constexpr int X = 32 * XW, Y = BY * TY;
    using B = StageBoxes<T, X, Y, D>;
    extern __shared__ __align__(128) unsigned char smem_raw[];
    unsigned char* smem = smem_raw + ((128 - (smem_u32(smem_raw) & 127)) & 127);
    T* planes = reinterpret_cast<T*>(smem);
    __shared__ unsigned long long bars[D + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const bool leader = tx == 0 && ty == 0;
    const int i0 = blockIdx.x * X, jb = blockIdx.y * Y, k0 = blockIdx.z * KC;
    const int bx = i0 + IGC - 4, by = jb + JGC - 3; // the box's first cell (storage)
    const int jj = a.jj, kk = a.kk;

    // Step n's loads: relative level r = n + w - 1 of each window (the whole first window
    // with n = 0), window level r of a field lying at storage level k0 + KGC + zlo + r.
    // go = false only adds up the bytes: expect_tx must not trail the copies it covers.
    auto plan = [&](bool go, int n) {
        unsigned bytes = 0;
        unsigned long long* bar = &bars[n % (D + 1)];
        auto one = [&](const CUtensorMap* m, int off, int w, int ring, int zlo, int r) {
            if (r > w - 1 + KC - 1) return;
            const int slot = r % ring, z = k0 + KGC + zlo + r;
            bytes += unsigned(slot < w - 1 ? 2 : 1) * B::plane_bytes;
            if (!go) return;
            tma_load_3d(planes + (off + slot) * B::plane, m, bx, by, z, bar);
            if (slot < w - 1)
                tma_load_3d(planes + (off + slot + ring) * B::plane, m, bx, by, z, bar);
        };
        auto field = [&](const CUtensorMap* m, int off, int w, int ring, int zlo) {
            if (n == 0)
                for (int r = 0; r < w; ++r) one(m, off, w, ring, zlo, r);
            else
                one(m, off, w, ring, zlo, n + w - 1);
        };
        field(&mu, B::OU, B::WU, B::RU, -3);
        field(&mv, B::OV, B::WV, B::RV, 0);
        field(&mw, B::OW, B::WW, B::RW, 0);
        return bytes;
    };
    auto issue = [&](int n) {
        mbar_expect_tx(&bars[n % (D + 1)], plan(false, n));
        plan(true, n);
    };
    if (leader) {
        for (int b = 0; b < D + 1; ++b) mbar_init(&bars[b], 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (leader)
        for (int n = 0; n < D; ++n) issue(n);

    const int il = tx;
    const int base = (i0 + il + IGC) + (jb + ty * TY + JGC) * jj + (k0 + KGC) * kk;
    for (int kl = 0; kl < KC; ++kl) {
        if (leader) issue(kl + D);
        if (leader) mbar_wait(&bars[kl % (D + 1)], (kl / (D + 1)) & 1);
        __syncthreads(); // step kl's planes are in; step kl-1's are free for step kl+1's loads
        const T* pu = planes + (B::OU + kl % B::RU) * B::plane; // u at k-3 .. k+3
        const T* pv = planes + (B::OV + kl % B::RV) * B::plane; // v at k
        const T* pw = planes + (B::OW + kl % B::RW) * B::plane; // w at k, k+1
        const int o = base + kl * kk;
        const int kg = k0 + kl + KGC;
        const T rk = a.rho[kg], rhk = a.rhoh[kg], rhk1 = a.rhoh[kg + 1], dzk = a.dzi[kg];
#pragma unroll
        for (int r = 0; r < TY; ++r) {
            const int c = (ty * TY + r + 3) * B::SX + il + 4; // this point in every box
            T x[7], y[7], z[7];
#pragma unroll
            for (int d = -3; d <= 3; ++d) {
                x[d + 3] = pu[3 * B::plane + c + d];
                y[d + 3] = pu[3 * B::plane + c + d * B::SX];
                z[d + 3] = pu[(d + 3) * B::plane + c];
            }
            const T vm = pv[c - 1], vc = pv[c], vmn = pv[c - 1 + B::SX], vcn = pv[c + B::SX];
            const T wkm = pw[c - 1], wk = pw[c], wnm = pw[B::plane + c - 1], wn = pw[B::plane + c];
            const T val = point(x, y, z, vm, vc, vmn, vcn, wkm, wk, wnm, wn, a.dxi, a.dyi, rk, rhk,
                                rhk1, dzk);
            a.ut[o + r * jj] += val;
        }
    }
    // The loads issued past the last step carry no bytes (plan() skips them); their
    // barriers' phases complete with the leader's arrival alone.
}
