#pragma once
// The kernel structs the model launches, as type lists for the GPU-backend tests and the
// benchmark, plus the range each is launched over.
#include "kernels/advec.cuh"
#include "kernels/boundary.cuh"
#include "kernels/diagnostics.cuh"
#include "kernels/diff.cuh"
#include "kernels/diff_fused.cuh"
#include "kernels/halo.cuh"
#include "kernels/pressure.cuh"
#include "kernels/surface.cuh"
#include "kernels/thermo.cuh"
#include "kernels/timeint.cuh"
#include "model/grid.h"

#include <string_view>

namespace squall::gpu::testing {

template <template <class> class... K>
struct KernelList {};

// Tunable 3-D kernels (operator()(i, j, k), void).
using Kernels3d =
    KernelList<sq::AdvecU2, sq::AdvecV2, sq::AdvecW2, sq::AdvecS2, sq::AdvecU2i5, sq::AdvecV2i5,
               sq::AdvecW2i5, sq::AdvecS2i5, sq::Strain2, sq::EviscSmag, sq::DiffUSmag,
               sq::DiffVSmag, sq::DiffWSmag, sq::DiffCSmag, sq::DiffUVWSmag, sq::DiffU2, sq::DiffV2,
               sq::DiffW2, sq::DiffC2, sq::BuoyancyTh, sq::AdvecW2i5Buoy, sq::AdvecW2Buoy,
               sq::PresIn, sq::PresOut, sq::PresOutRk, sq::RkUpdate, sq::Sponge>;
// Per-column kernels (operator()(i, j)).
using Kernels2d = KernelList<sq::GhostBottom, sq::GhostTop, sq::GhostW, sq::GhostMirror,
                             sq::SurfaceMost, sq::SurfaceMomentumFlux, sq::SurfaceScalar>;
// Max-reductions.
using Reductions =
    KernelList<sq::Cfl, sq::Divergence, sq::DnSmag, sq::DnConst, sq::SurfaceStableLimit>;

// Sum-reductions (statistics).
using SumReductions = KernelList<sq::KineticEnergyDz, sq::ValueDz>;
// Max-reductions of the statistics.
using DiagReductions = KernelList<sq::AbsDivergence>;
// Halo copies (3-D traversals of a kernel struct passed whole).
using HaloKernels = KernelList<sq::HaloWrapX, sq::HaloWrapY, sq::HaloPackX, sq::HaloUnpackX,
                               sq::HaloPackY, sq::HaloUnpackY>;

// w kernels run over kstart+1 <= k < kend, all others over kstart <= k < kend.
inline bool on_w_levels(std::string_view name) {
    return name == "advec_w_2" || name == "advec_w_2i5" || name == "diff_w_smag" ||
           name == "diff_w_2" || name == "buoyancy_th" || name == "advec_w_2i5_buoy" ||
           name == "advec_w_2_buoy";
}

// A grid with the model's ghost cells (igc = jgc = 3, kgc = 1).
struct TestGrid {
    int itot, jtot, ktot;
    int igc = 3, kgc = 1;
    int align = squall::row_align; // the model's layout (grid.h); 1: unpadded rows
    constexpr int icells() const { return itot + 2 * igc; }
    constexpr int jcells() const { return jtot + 2 * igc; }
    constexpr int kcells() const { return ktot + 2 * kgc; }
    constexpr int jj() const { return squall::padded_row(icells(), align); }
    constexpr int kk() const { return jj() * jcells(); }
    constexpr long ncells() const { return long(kk()) * kcells(); }
    // Elements allocated before ijk = 0 so that i = igc is aligned, as in Field3d.
    constexpr int pad() const { return squall::leading_pad(igc, align); }
    // An array of a parameter-table kind (kernel_defs.h: 3o/3w/3i fields, zi profiles, 2i
    // planes): elements allocated, and how many of them lie before index 0.
    size_t lead(std::string_view kind) const { return kind[0] == '3' ? size_t(pad()) : 0; }
    size_t elements(std::string_view kind) const {
        return kind[0] == '3' ? lead(kind) + size_t(ncells())
               : kind == "zi" ? size_t(kcells())
                              : size_t(kk());
    }
    constexpr int kstart() const { return kgc; }
    constexpr int kend() const { return kgc + ktot; }
    sq::Range3 range(std::string_view name) const {
        return {igc, igc + itot, igc, igc + jtot, kstart() + (on_w_levels(name) ? 1 : 0), kend()};
    }
    sq::Range3 range_2d() const { return {igc, igc + itot, igc, igc + jtot, 0, 1}; }
};

// A value-initialised kernel with the grid's strides and wall levels set.
template <class F>
F blank_kernel(const TestGrid& g) {
    F f{};
    if constexpr (requires { f.jj; }) f.jj = g.jj();
    if constexpr (requires { f.kk; }) f.kk = g.kk();
    if constexpr (requires { f.kstart; }) f.kstart = g.kstart();
    if constexpr (requires { f.kend; }) f.kend = g.kend();
    return f;
}

} // namespace squall::gpu::testing
