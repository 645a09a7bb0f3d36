#pragma once
// The staged traversal's device side, as it was in src/backends/cuda/traverse.cuh
// (record only, not built; see README.md "How it plugged in"). It relied on the
// solver's traverse.cuh of that time: TraverseShape and traverse_thread, which called
// visit.begin_block(ci, cj, ck) once per block and visit.next_chunk(mk, ck) before each
// z-chunk, TravVisit, kernel_value_type, stage_thread's geometry defines, and the
// mbarrier helpers smem_addr, mbar_init, mbar_init_fence and mbar_wait (now
// src/backends/cuda/barrier.cuh), plus stage.cuh beside this file.
//   SQ_STAGE SQ_STAGE_DEPTH  1: stage the 3-D inputs in shared memory (stage.cuh), loading
//                            SQ_STAGE_DEPTH levels ahead; the block marches SQ_MZ levels
//   SQ_STAGE_FILL         0: cp.async per element, 1: bulk row copies (stage.cuh)
#include "stage.cuh"

namespace sq {

// Announces bytes the copy engine will deliver to the barrier's current phase.
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
}

#if defined(SQ_STAGE) && SQ_STAGE
// The thread's index in its block, x fastest.
__device__ __forceinline__ int stage_thread() {
    return int(threadIdx.x + SQ_BX * (threadIdx.y + SQ_BY * threadIdx.z));
}

// Element-wise asynchronous global-to-shared copies (sm_80 and later), stage_fill 0.
struct StageCopyAsync {
    static constexpr bool by_rows = false;
    template <typename T>
    static __device__ __forceinline__ void copy(T* dst, const T* src) {
        const unsigned d = unsigned(__cvta_generic_to_shared(dst));
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(d), "l"(src),
                     "n"(int(sizeof(T)))
                     : "memory");
    }
    __device__ void init() const {}
    __device__ void commit(int) const { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
    // Until at most SQ_STAGE_DEPTH groups (the levels ahead) are in flight, then a barrier.
    __device__ void wait(int) const {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(SQ_STAGE_DEPTH) : "memory");
        __syncthreads();
    }
};

// Row copies by the copy engine (sm_90 and later), stage_fill 1. Step n's loads complete
// on mbarrier n % (depth + 1), which expects one arrival per warp: a thread announces the
// bytes of each bulk copy (expect_tx) before issuing it, and lane 0 arrives once the
// whole warp has issued. The few element copies (row tails, unaligned rows) are plain
// loads and stores, done before the barrier that ends the step, so every thread sees them
// by the time they are read. Thread 0 waits for the phase; the barrier after it passes
// what it saw on to the block.
struct StageCopyBulk {
    static constexpr bool by_rows = true;
    static constexpr int nbar = SQ_STAGE_DEPTH + 1;
    static constexpr int warps = (SQ_BX * SQ_BY * SQ_BZ + 31) / 32;
    unsigned bar0; // shared-memory address of the first mbarrier

    __device__ unsigned bar(int n) const { return bar0 + 8u * unsigned(n % nbar); }
    __device__ void init() const {
        if (stage_thread() == 0) {
            for (int n = 0; n < nbar; ++n) mbar_init(bar(n), warps);
            mbar_init_fence();
        }
        __syncthreads();
    }
    template <typename T>
    static __device__ __forceinline__ void copy(T* dst, const T* src) {
        *dst = *src;
    }
    template <typename T>
    __device__ void bulk(T* dst, const T* src, int count, int n) const {
        const unsigned bytes = unsigned(count) * unsigned(sizeof(T));
        mbar_expect_tx(bar(n), bytes);
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst)),
                     "l"(src), "r"(bytes), "r"(bar(n))
                     : "memory");
    }
    __device__ void commit(int n) const {
        __syncwarp();
        if (stage_thread() % 32 == 0)
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar(n)) : "memory");
    }
    __device__ void wait(int s) const {
        if (stage_thread() == 0) mbar_wait(bar(s), unsigned(s / nbar) & 1u);
        __syncthreads(); // also: step s - 1's planes are free for the loads issued at s + 1
    }
};

// TravVisit whose value() reads the staged inputs; stores go to the global fields.
template <class F>
struct StagedVisit : TravVisit<F> {
    using T = decltype(kernel_value_type(static_cast<const F*>(nullptr)));
    static constexpr int reach = F::stage_reach;
#if defined(SQ_STAGE_FILL) && SQ_STAGE_FILL
    using Copy = StageCopyBulk;
    static __device__ Copy make_copy(unsigned bars) {
        return Copy{bars};
    }
#else
    using Copy = StageCopyAsync;
    static __device__ Copy make_copy(unsigned) {
        return Copy{};
    }
#endif
    static constexpr int lx = stage_reach_x(reach, int(sizeof(T)), Copy::by_rows);
    mutable F staged;
    static constexpr int threads = SQ_BX * SQ_BY * SQ_BZ;
    static constexpr int box = (SQ_BX * SQ_TX + 2 * lx) * (SQ_BY * SQ_TY + 2 * reach);
    static constexpr int maxe = Copy::by_rows ? 1 : (box + threads - 1) / threads;
    mutable Stager<F, T, Copy, maxe> st;
    int nlev;

    __device__ StagedVisit(const F& g, T* smem, int nlev_, unsigned bars)
        : TravVisit<F>{g}, staged(g), st{{}, smem, 0, threads, make_copy(bars), {}}, nlev(nlev_) {}
    // Before the traversal's loops, so that every geometry value is a constant or
    // loop-invariant there.
    __device__ void begin_block(int ci, int cj, int ck) const {
        StageGeom& b = st.g;
        b.box(SQ_BX * SQ_TX, SQ_BY * SQ_TY, lx, reach, SQ_I0, SQ_J0, SQ_NI, SQ_NJ, ci, cj);
        b.depth = SQ_STAGE_DEPTH, b.jj = SQ_JJ, b.kk = SQ_KK;
        b.kb = SQ_K0 + ck, b.steps = min_(SQ_MZ, SQ_NK - ck), b.nlev = nlev;
        st.tid = stage_thread();
        st.begin(this->g, staged);
    }
    // Chunk mk of the block is level kb + mk (block_z = tile_z = 1, march_y = 1).
    __device__ void next_chunk(int mk, int) const {
        st.step(mk, this->g, staged);
    }
    __device__ void operator()(int i, int j, int k) const {
        this->store(i, j, k, value(i, j, k));
    }
    __device__ auto value(int i, int j, int k) const {
        return staged.value(SQ_I0 + i, SQ_J0 + j, SQ_K0 + k);
    }
};
#endif

// The staged branch of traverse_body (the plain one used TravVisit<F>{g} and ignored nlev).
template <class F>
__device__ __forceinline__ void traverse_body(const F& g, int nlev) {
    constexpr TraverseShape s{SQ_NI, SQ_NJ, SQ_NK, SQ_BX, SQ_BY,   SQ_BZ, SQ_TX, SQ_TY,
                              SQ_TZ, SQ_CX, SQ_CY, SQ_CZ, SQ_PERM, SQ_MY, SQ_MZ, SQ_GROUP};
    constexpr int maxpts = SQ_TX * SQ_TY * SQ_TZ; // staging requires defer = 1
    extern __shared__ __align__(16) unsigned char sq_stage_smem[];
#if defined(SQ_STAGE_FILL) && SQ_STAGE_FILL
    __shared__ __align__(8) unsigned long long sq_stage_bars[SQ_STAGE_DEPTH + 1];
    const unsigned bars = unsigned(__cvta_generic_to_shared(sq_stage_bars));
#else
    const unsigned bars = 0;
#endif
    using T = typename StagedVisit<F>::T;
    const StagedVisit<F> visit(g, reinterpret_cast<T*>(sq_stage_smem), nlev, bars);
    traverse_thread<maxpts>(s, int(blockIdx.x), int(threadIdx.x), int(threadIdx.y),
                            int(threadIdx.z), visit);
}

} // namespace sq
