#pragma once
// The single launch point for every per-point kernel. Model code never loops over
// grid points itself: it hands a kernel struct and a range to launch(), and the active
// backend maps it onto threads. Today that is the CPU backend; the GPU backend plugs in
// here by dispatching on the kernel's `name` to a tuned, runtime-compiled instance.
#include "backends/cpu/cpu_launch.h"

namespace squall {

template <class F>
void launch(const sq::Range3& r, const F& f) {
    cpu::for_each(r, f);
}

// Per-column kernels: operator()(i, j) over [i0,i1) x [j0,j1) (k0/k1 ignored).
template <class F>
void launch_2d(const sq::Range3& r, const F& f) {
    cpu::for_each_2d(r, f);
}

// Reductions over the points of r (local to this rank; the caller reduces over MPI).
template <class F>
auto launch_max(const sq::Range3& r, const F& f) {
    return cpu::reduce_max(r, f);
}

template <class F>
auto launch_sum(const sq::Range3& r, const F& f) {
    return cpu::reduce_sum(r, f);
}

} // namespace squall
