#pragma once
// The host side of the 3-D traversal strategies (internal to the backend): the tunables,
// restrictions, defines and launch geometry each adds to a kernel definition, for
// make_def (kernel_defs.cpp), and what the planes traversal learns of a kernel struct.
#include "backends/cuda/kernel_defs.h"
#include "backends/cuda/planes.cuh"

#include <cstdint>
#include <cstring>
#include <string>

namespace squall::gpu {

// tiles_def.cpp: the generic tiled traversal (tiles.cuh) with every 3-D tunable, and the
// planes traversal on top for the flat kernels that declare plane inputs.
void add_traverse3d(rt::KernelDef& d, const KernelType& t);

// planes_def.cpp: the planes traversal's tunables, restrictions, defines and shared memory
// (after every other tunable), and the tensor maps of its inputs (after the arguments).
void add_planes(rt::KernelDef& d, const KernelType& t);
void add_plane_maps(rt::KernelDef& d, const KernelType& t, const Variant& v);

// The boxes of F's plane inputs (KernelType::plane_boxes): which member each input is,
// found by giving every field a distinct address and asking F::plane_arrays.
template <class F, class T>
void plane_boxes(KernelType& t) {
    F f{};
    for (size_t n = 0; n < t.members.size(); ++n)
        if (t.members[n].shape == Shape::field) {
            const T* fake = reinterpret_cast<const T*>(uintptr_t(4096) * (n + 1));
            std::memcpy(reinterpret_cast<char*>(&f) + t.members[n].offset, &fake, sizeof fake);
        }
    const T* in[F::plane_inputs];
    f.plane_arrays(in);
    using L = sq::PlaneLayout<F, 0, 0, int(sizeof(T))>;
    for (int q = 0; q < F::plane_inputs; ++q) {
        const int member = int(reinterpret_cast<uintptr_t>(in[q]) / 4096) - 1;
        t.plane_boxes.push_back({member, L::width(q), L::height(q)}); // a 0 x 0 tile's box
    }
    t.plane_lookahead = L::lookahead(), t.plane_shift = L::shift();
    t.plane_carry = sq::PlaneCarryForm<F>;
}

} // namespace squall::gpu
