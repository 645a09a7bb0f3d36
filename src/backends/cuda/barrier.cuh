#pragma once
// mbarrier helpers (sm_90) for the strategies that wait on the copy engine (planes.cuh):
// `bar` is a barrier's shared-memory address. Device code only.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)

namespace sq {

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return unsigned(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}
__device__ __forceinline__ void mbar_init_fence() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// Arrives on the barrier and announces bytes the copy engine will deliver to its phase.
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(unsigned bar, unsigned parity) {
    unsigned done;
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, "
                 "[%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return done != 0;
}
__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
// Until the phase of the given parity has completed. A copy that never completes (a byte
// count that does not match the boxes: a defect) would hang the run; after 10 s of
// waiting the kernel traps instead: the run stops with a launch failure, reported at the
// next synchronisation, rather than never ending.
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
    if (mbar_try_wait(bar, parity)) return;
    const unsigned long long t0 = global_ns();
    while (!mbar_try_wait(bar, parity))
        if (global_ns() - t0 > 10000000000ull) __trap();
}

} // namespace sq

#endif
