// 2.5-D blocking with Hopper's bulk tensor copy (TMA): a block owns an X x Y column tile
// and marches KC levels up it. Per level one thread asks the copy engine for u's plane
// (the tile plus 3 (x) and 3 (y) halo cells; 4 in x, see PlaneGeom), v's
// plane (i-1 .. and j .. j+Y) and w's plane one level up, into a ring of RING slots in
// shared memory, RING-1 levels ahead. The threads read x and y neighbours from the plane
// and keep u's z-stencil in registers, taking its new top value from plane k+3 as it
// arrives. Included by advec_u_reuse.cu.
#include "tma.cuh"

template <class T, int X, int Y>
struct PlaneGeom {
    static constexpr int UX = X + 8, UY = Y + 6; // u box: i0-4 .. i0+X+3, j0-3 .. j0+Y+2
    // A box's first cell must lie on a 16-byte boundary, so v's and w's boxes (which need
    // i0-1 ..) start at i0-4 as well.
    static constexpr int VX = X + 8, VY = Y + 1; // v box: i0-4 .. i0+X+3, j0 .. j0+Y
    static constexpr int WX = X + 8, WY = Y;     // w box: i0-4 .. i0+X+3, j0 .. j0+Y-1
    static constexpr int UB = UX * UY * int(sizeof(T)), VB = VX * VY * int(sizeof(T)),
                         WB = WX * WY * int(sizeof(T));
    // Each box starts on a 128-byte boundary (the copy engine's requirement).
    static constexpr int UB128 = (UB + 127) / 128 * 128, VB128 = (VB + 127) / 128 * 128,
                         WB128 = (WB + 127) / 128 * 128;
    static constexpr int slot_bytes = UB128 + VB128 + WB128;
};

// UTM: ut comes in by the copy engine too (its own ring of UR planes, UL levels ahead) and
// goes back by a tensor store from the same plane once the level is done, so the threads
// issue no global loads or stores in the march at all.
// ROWS: the same planes by one-dimensional bulk copies, one box row per thread (UY + VY +
// WY threads, each announcing its own bytes), to compare the copy engine's cost per request.
template <class T, int XW, int BY, int TY, int KC, int RING, int MINB, bool ROWS = false,
          bool UTM = false>
__global__ void __launch_bounds__(32 * XW * BY, MINB)
    zplanes(Args<T> a, const __grid_constant__ CUtensorMap mu,
            const __grid_constant__ CUtensorMap mv, const __grid_constant__ CUtensorMap mw,
            const __grid_constant__ CUtensorMap mt) {
    constexpr int X = 32 * XW, Y = BY * TY;
    using G = PlaneGeom<T, X, Y>;
    extern __shared__ __align__(128) unsigned char smem_raw[];
    // The launch asks for 128 bytes more than the ring, to start it on a 128-byte boundary.
    unsigned char* smem = smem_raw + ((128 - (smem_u32(smem_raw) & 127)) & 127);
    __shared__ unsigned long long bars[RING];
    constexpr int UR = 3, UL = 1, UTB = X * Y * int(sizeof(T)); // ut's ring, lookahead, plane
    __shared__ unsigned long long utbars[UR];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const bool leader = tx == 0 && ty == 0;
    constexpr int rows = G::UY + G::VY + G::WY;
    const int tid = tx + ty * 32 * XW;
    const bool issuer = ROWS ? tid < rows : leader;
    const int i0 = blockIdx.x * X, jb = blockIdx.y * Y, k0 = blockIdx.z * KC;
    const int jj = a.jj, kk = a.kk;
    auto plane_u = [&](int s) { return reinterpret_cast<T*>(smem + s * G::slot_bytes); };
    auto plane_v = [&](int s) { return reinterpret_cast<T*>(smem + s * G::slot_bytes + G::UB128); };
    auto plane_w = [&](int s) {
        return reinterpret_cast<T*>(smem + s * G::slot_bytes + G::UB128 + G::VB128);
    };
    // Storage coordinates of the boxes' first cells for the block's level k0 + p.
    auto issue_row = [&](int p) {
        const int s = p % RING, z = k0 + p + KGC, x = i0 + IGC - 4;
        T* dst;
        const T* src;
        int nx;
        if (tid < G::UY) {
            dst = plane_u(s) + tid * G::UX, nx = G::UX;
            src = a.u + x + (jb + JGC - 3 + tid) * jj + z * kk;
        } else if (tid < G::UY + G::VY) {
            const int r = tid - G::UY;
            dst = plane_v(s) + r * G::VX, nx = G::VX;
            src = a.v + x + (jb + JGC + r) * jj + z * kk;
        } else {
            const int r = tid - G::UY - G::VY;
            dst = plane_w(s) + r * G::WX, nx = G::WX;
            src = a.w + x + (jb + JGC + r) * jj + (z + 1) * kk;
        }
        // The tensor copy fills cells past the last level with zeros; a row copy must not
        // read them (w one level up from the top plane, which only u's stencil needs).
        const bool inside = tid < G::UY + G::VY || z + 1 < N + 2 * KGC;
        const unsigned bytes = inside ? unsigned(nx * int(sizeof(T))) : 0u;
        mbar_expect_tx(&bars[s], bytes);
        if (inside)
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                         " [%0], [%1], %2, [%3];" ::"r"(smem_u32(dst)),
                         "l"(src), "r"(bytes), "r"(smem_u32(&bars[s]))
                         : "memory");
    };
    auto issue = [&](int p) {
        if (ROWS) return issue_row(p);
        const int s = p % RING;
        mbar_expect_tx(&bars[s], G::UB + G::VB + G::WB);
        const int z = k0 + p + KGC;
        tma_load_3d(plane_u(s), &mu, i0 + IGC - 4, jb + JGC - 3, z, &bars[s]);
        tma_load_3d(plane_v(s), &mv, i0 + IGC - 4, jb + JGC, z, &bars[s]);
        tma_load_3d(plane_w(s), &mw, i0 + IGC - 4, jb + JGC, z + 1, &bars[s]);
    };
    constexpr int last = KC + 2; // the last plane a block reads (u's z-stencil at k + 3)
    auto plane_t = [&](int s) {
        return reinterpret_cast<T*>(smem + RING * G::slot_bytes + (s % UR) * UTB);
    };
    auto issue_ut = [&](int p) {
        mbar_expect_tx(&utbars[p % UR], UTB);
        tma_load_3d(plane_t(p), &mt, i0 + IGC, jb + JGC, k0 + p + KGC, &utbars[p % UR]);
    };
    auto store_ut = [&](int p) {
        asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group"
                     " [%0, {%1, %2, %3}], [%4];" ::"l"(reinterpret_cast<unsigned long long>(&mt)),
                     "r"(i0 + IGC), "r"(jb + JGC), "r"(k0 + p + KGC), "r"(smem_u32(plane_t(p)))
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    };
    if (leader) {
        for (int s = 0; s < RING; ++s) mbar_init(&bars[s], ROWS ? rows : 1);
        if (UTM)
            for (int s = 0; s < UR; ++s) mbar_init(&utbars[s], 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (issuer)
        for (int p = 0; p < RING - 1 && p <= last; ++p) issue(p);
    if (UTM && leader)
        for (int p = 0; p < UL && p < KC; ++p) issue_ut(p);

    const int il = tx;
    const int base = (i0 + il + IGC) + (jb + ty * TY + JGC) * jj + (k0 + KGC) * kk;
    T zw[TY][7], wk[TY], wkm[TY], utn[TY];
#pragma unroll
    for (int r = 0; r < TY; ++r) {
        const int o = base + r * jj;
#pragma unroll
        for (int d = 0; d < 6; ++d) zw[r][d + 1] = a.u[o + (d - 3) * kk];
        wk[r] = a.w[o];
        wkm[r] = a.w[o - 1];
        if (!UTM) utn[r] = a.ut[o];
    }
    for (int kl = 0; kl < KC; ++kl) {
        __syncthreads(); // every thread is done with level kl-1: its slot is free
        // Every issued plane is waited for before the block exits (none lands in freed memory).
        if (issuer && kl + RING - 1 <= last) issue(kl + RING - 1);
        if (UTM && leader) {
            if (kl > 0) store_ut(kl - 1);
            if (kl + UL < KC) {
                // The slot's previous level (kl + UL - UR) must have been read out by its store.
                asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(UR - UL - 1) : "memory");
                issue_ut(kl + UL);
            }
        }
        if (UTM) mbar_wait(&utbars[kl % UR], (kl / UR) & 1);
        const int s = kl % RING, s3 = (kl + 3) % RING;
        mbar_wait(&bars[s3], ((kl + 3) / RING) & 1);
        mbar_wait(&bars[s], (kl / RING) & 1);
        const T* pu = plane_u(s);
        const T* pu3 = plane_u(s3);
        const T* pv = plane_v(s);
        const T* pw = plane_w(s);
        const int o = base + kl * kk;
        T utc[TY];
        if (!UTM) {
#pragma unroll
            for (int r = 0; r < TY; ++r) {
                utc[r] = utn[r];
                if (kl + 1 < KC) utn[r] = a.ut[o + kk + r * jj];
            }
        }
        const int kg = k0 + kl + KGC;
        const T rk = a.rho[kg], rhk = a.rhoh[kg], rhk1 = a.rhoh[kg + 1], dzk = a.dzi[kg];
#pragma unroll
        for (int r = 0; r < TY; ++r) {
            const int jl = ty * TY + r;
            const int cu = (jl + 3) * G::UX + il + 4; // this point in u's plane
#pragma unroll
            for (int d = 0; d < 6; ++d) zw[r][d] = zw[r][d + 1];
            zw[r][6] = pu3[cu];
            T x[7], y[7];
#pragma unroll
            for (int d = -3; d <= 3; ++d) {
                x[d + 3] = pu[cu + d];
                y[d + 3] = pu[cu + d * G::UX];
            }
            const int cv = jl * G::VX + il + 4;
            const T vm = pv[cv - 1], vc = pv[cv], vmn = pv[cv - 1 + G::VX], vcn = pv[cv + G::VX];
            const T wnm = pw[cv - 1], wn = pw[cv];
            const T val = point(x, y, zw[r], vm, vc, vmn, vcn, wkm[r], wk[r], wnm, wn, a.dxi, a.dyi,
                                rk, rhk, rhk1, dzk);
            if (UTM)
                plane_t(kl)[jl * X + il] += val;
            else
                a.ut[o + r * jj] = utc[r] + val;
            wk[r] = wn;
            wkm[r] = wnm;
        }
        // The tensor store (async proxy) must see this thread's writes to ut's plane.
        if (UTM) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    if (UTM) {
        __syncthreads();
        if (leader) {
            store_ut(KC - 1);
            asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
        }
    }
}
