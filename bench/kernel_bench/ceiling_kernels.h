#pragma once
// The benchmark's own device code, beside the model's kernels: a copy (resets, and the copy
// ceiling), max |a - b| (verification) and a stencil-free stream kernel per array mix (the
// stream ceiling), the yardsticks the tuned kernels are measured against.
#include "runtime/runtime.h"

#include <string>
#include <tuple>

namespace squall::kernel_bench {

constexpr double kCeiling = 3.99e12; // bytes/s, copy kernel on the H200 (GPU.md)

// bench_copy or bench_maxdiff in precision prec: 1024 blocks of 256 threads.
rt::KernelDef util_def(const char* fn, const std::string& prec);

// An array mix: arrays only read, read and written, only written.
struct Mix {
    int in = 0, rw = 0, w = 0;
    int arrays() const { return in + 2 * rw + w; }
    bool operator<(const Mix& o) const { return std::tie(in, rw, w) < std::tie(o.in, o.rw, o.w); }
};
constexpr int kMaxIn = 12, kMaxOut = 6;

// Host image of StreamArrays<T> in the device source (pointers are 8 bytes on both sides).
struct StreamArraysHost {
    rt::DevicePtr in[kMaxIn]{}, rw[kMaxOut]{}, w[kMaxOut]{};
};

// bench_stream for a mix over n points: one thread per point, grid ceil(n / 256).
rt::KernelDef stream_def(const std::string& prec, const Mix& m);

} // namespace squall::kernel_bench
