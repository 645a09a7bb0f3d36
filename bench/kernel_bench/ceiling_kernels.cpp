// The device source of ceiling_kernels.h, compiled by NVRTC on first use; kept out of the
// headers so that one translation unit holds it.
#include "bench/kernel_bench/ceiling_kernels.h"

#include <memory>

namespace squall::kernel_bench {
namespace {

// Device helpers: copy and max |a - b| (b == nullptr: max |a|), NaN-aware.
const char* kUtilSource = R"(
template <typename T>
__global__ void bench_copy(T* dst, const T* src, long long n) {
    for (long long p = blockIdx.x * 256ll + threadIdx.x; p < n; p += gridDim.x * 256ll) dst[p] = src[p];
}
template <typename T>
__global__ void bench_maxdiff(const T* a, const T* b, long long n, unsigned long long* out) {
    double m = 0;
    for (long long p = blockIdx.x * 256ll + threadIdx.x; p < n; p += gridDim.x * 256ll) {
        const double x = a[p], y = b ? double(b[p]) : 0.0;
        const double d = (x != x) != (y != y) ? 1e300 : (x != x ? 0.0 : fabs(x - y));
        m = d > m ? d : m;
    }
    for (int o = 16; o > 0; o /= 2) {
        const double v = __shfl_down_sync(0xffffffffu, m, o);
        m = v > m ? v : m;
    }
    if ((threadIdx.x & 31) == 0) atomicMax(out, (unsigned long long)__double_as_longlong(m));
}
// The stream ceiling of a kernel's array mix: the same arrays read, updated and written
// once, point by point, with no stencil (one point per thread). Updated arrays are all
// loaded before any store, so the loads never wait on a possibly aliasing store.
template <typename T>
struct StreamArrays {
    const T* in[12];
    T* rw[6];
    T* w[6];
};
template <typename T, int NIN, int NRW, int NW>
__global__ void bench_stream(StreamArrays<T> a, long long n) {
    const long long p = blockIdx.x * 256ll + threadIdx.x;
    if (p >= n) return;
    T s = 0, r[NRW > 0 ? NRW : 1];
#pragma unroll
    for (int q = 0; q < NIN; ++q) s += a.in[q][p];
#pragma unroll
    for (int q = 0; q < NRW; ++q) r[q] = a.rw[q][p];
#pragma unroll
    for (int q = 0; q < NRW; ++q) a.rw[q][p] = r[q] + s;
#pragma unroll
    for (int q = 0; q < NW; ++q) a.w[q][p] = s;
}
)";

const rt::SourcesPtr& util_sources() {
    static const rt::SourcesPtr src = [] {
        auto s = std::make_shared<rt::SourceSet>();
        s->add("bench_util.cu", kUtilSource);
        return rt::SourcesPtr(s);
    }();
    return src;
}

} // namespace

rt::KernelDef util_def(const char* fn, const std::string& prec) {
    rt::KernelDef d(fn, util_sources(), "bench_util.cu");
    d.tuning_key(fn, prec).tune("block_x", {256}, 256).template_args(prec);
    d.block_size("256").grid_size("1024");
    return d;
}

rt::KernelDef stream_def(const std::string& prec, const Mix& m) {
    rt::KernelDef d("bench_stream", util_sources(), "bench_util.cu");
    d.tuning_key("bench_stream", prec, std::to_string(m.in), std::to_string(m.rw),
                 std::to_string(m.w));
    d.tune("block_x", {256}, 256).template_args(prec, m.in, m.rw, m.w);
    d.block_size("256");
    return d;
}

} // namespace squall::kernel_bench
