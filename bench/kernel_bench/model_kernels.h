#pragma once
// The model's kernels outside Kernels3d (ghost levels, surface layer, reductions, halos):
// their members (wall values, flags, halo buffers) and launch forms do not follow from the
// declarations, so each is written out here, on the pool's arrays, with its byte count.
#include "bench/kernel_bench/array_pool.h"
#include "bench/kernel_bench/bench_kernels.h"
#include "bench/kernel_bench/options.h"
#include "kernels/diagnostics.cuh"
#include "kernels/halo.cuh"

#include <utility>
#include <vector>

namespace squall::kernel_bench {

// The model's 2-D kernels (boundary ghost levels, surface layer), reductions (time step
// limits, diagnostics) and halo kernels, on the pool's arrays. arrays: the planes (2-D) or
// fields (3-D) each reads or writes once, or the values each halo point moves.
template <typename T>
void add_model_searches(const Options& o, Pool<T>& pool, std::vector<rt::KernelDef>& defs,
                        std::vector<Search<T>>& searches) {
    using gpu::Form;
    const TestGrid& g = pool.g;
    const int jj = g.jj(), kk = g.kk(), ks = g.kstart(), ke = g.kend();
    auto f3 = [&](int a) { return reinterpret_cast<T*>(pool.f3[a] + g.pad() * sizeof(T)); };
    auto s2 = [&](int a) { return reinterpret_cast<T*>(pool.s2[a]); };
    auto z = [&](int a) { return reinterpret_cast<const T*>(pool.z[a]); };
    const Output field0{pool.f3[0], pool.n3()};
    auto plane = [&](int a) { return Output{pool.s2[a], g.kk()}; };
    const sq::Range3 r2 = g.range_2d(), rc = g.range<sq::Cfl<T>>();
    const sq::Range3 r2_ext{r2.i0 - 1, r2.i1, r2.j0 - 1, r2.j1, 0, 1}; // as surface_layer()
    const T dxi = T(0.9), dyi = T(1.1), z1 = T(0.6), z0m = T(0.1);
    auto add = [&](const auto& f, Form form, sq::Range3 r, std::vector<Output> out, int n) {
        add_other(o, pool, defs, searches, f, form, r, std::move(out), n);
    };
    add(sq::GhostBottom<T>{.a = f3(0),
                           .values = s2(0),
                           .value = T(0),
                           .dzh_wall = T(0.5),
                           .dirichlet = 0,
                           .kstart = ks,
                           .jj = jj,
                           .kk = kk},
        Form::traverse2d, r2, {field0}, 3);
    add(sq::GhostTop<T>{.a = f3(0),
                        .value = T(0.3),
                        .dzh_wall = T(0.5),
                        .dirichlet = 1,
                        .kend = ke,
                        .jj = jj,
                        .kk = kk},
        Form::traverse2d, r2, {field0}, 2);
    add(sq::GhostW<T>{.w = f3(0), .kstart = ks, .kend = ke, .jj = jj, .kk = kk}, Form::traverse2d,
        r2, {field0}, 4);
    add(sq::GhostMirror<T>{.a = f3(0), .kstart = ks, .kend = ke, .jj = jj, .kk = kk},
        Form::traverse2d, r2, {field0}, 4);
    add(sq::SurfaceMost<T>{.ustar = s2(0),
                           .obuk_inv = s2(1),
                           .u = f3(1),
                           .v = f3(2),
                           .sfluxbot = s2(2),
                           .g_over_thref = T(0.03),
                           .ubot = T(0),
                           .vbot = T(0),
                           .z1 = z1,
                           .z0m = z0m,
                           .umin = sq::most::umin_default<T>(),
                           .kstart = ks,
                           .jj = jj,
                           .kk = kk},
        Form::traverse2d, r2_ext, {plane(0), plane(1)}, 5);
    add(sq::SurfaceMomentumFlux<T>{.ufluxbot = s2(0),
                                   .vfluxbot = s2(1),
                                   .dudz_bot = s2(2),
                                   .dvdz_bot = s2(3),
                                   .u = f3(1),
                                   .v = f3(2),
                                   .ustar = s2(4),
                                   .obuk_inv = s2(5),
                                   .ubot = T(0),
                                   .vbot = T(0),
                                   .z1 = z1,
                                   .z0m = z0m,
                                   .umin = sq::most::umin_default<T>(),
                                   .ustar_given = 0,
                                   .kstart = ks,
                                   .jj = jj,
                                   .kk = kk},
        Form::traverse2d, r2, {plane(0), plane(1), plane(2), plane(3)}, 8);
    add(sq::SurfaceScalar<T>{.dsdz_bot = s2(0),
                             .fluxbot = s2(1),
                             .ustar = s2(4),
                             .obuk_inv = s2(5),
                             .z1 = z1,
                             .jj = jj},
        Form::traverse2d, r2, {plane(0)}, 4);
    add(sq::Cfl<T>{.u = f3(1),
                   .v = f3(2),
                   .w = f3(3),
                   .dzi = z(0),
                   .dxi = dxi,
                   .dyi = dyi,
                   .jj = jj,
                   .kk = kk},
        Form::reduce_max, rc, {}, 3);
    add(sq::DnSmag<T>{.evisc = f3(4),
                      .dzi = z(0),
                      .dxi = dxi,
                      .dyi = dyi,
                      .prandtl_t = T(1.0 / 3),
                      .jj = jj,
                      .kk = kk},
        Form::reduce_max, rc, {}, 1);
    add(sq::DnConst<T>{.K = T(0.7), .dzi = z(0), .dxi = dxi, .dyi = dyi}, Form::reduce_max, rc, {},
        0);
    add(sq::AbsDivergence<T>{.u = f3(1),
                             .v = f3(2),
                             .w = f3(3),
                             .dzi = z(0),
                             .rho = z(1),
                             .rhoh = z(2),
                             .dxi = dxi,
                             .dyi = dyi,
                             .jj = jj,
                             .kk = kk},
        Form::reduce_max, rc, {}, 3);
    add(sq::KineticEnergyDz<T>{.u = f3(1), .v = f3(2), .w = f3(3), .dz = z(3), .jj = jj, .kk = kk},
        Form::reduce_sum, rc, {}, 3);
    add(sq::ValueDz<T>{.a = f3(1), .dz = z(3), .jj = jj, .kk = kk}, Form::reduce_sum, rc, {}, 1);
    add(sq::SurfaceStableLimit<T>{.obuk_inv = s2(5), .z1 = z1, .z0m = z0m, .jj = jj},
        Form::reduce_sum, r2, {}, 1);
    // Halos of a 3-D field (Halo::exchange_x, exchange_y: one rank wraps, several pack,
    // exchange and unpack). Each halo point moves 4 values (2 sides, read and write); the
    // x kernels' points are single ghost cells, 2 values each (one side's read and write).
    const int gc = g.igc, nk = g.kcells(), i0 = g.igc, i1 = g.igc + g.itot, j0 = g.igc,
              j1 = g.igc + g.jtot;
    const sq::Range3 rx = sq::halo_x_range(j0, j1, nk, gc), ry{0, g.icells(), 0, gc, 0, nk};
    const long nx = long(gc) * g.jtot * nk, ny = long(gc) * g.icells() * nk;
    T* const buf = f3(5);
    const T* const recv = f3(6);
    const Output sent_x{pool.f3[5], g.pad() + 2 * nx}, sent_y{pool.f3[5], g.pad() + 2 * ny};
    add(
        sq::HaloWrapX<T>{
            .a = f3(0), .istart = i0, .iend = i1, .imax = g.itot, .igc = gc, .jj = jj, .kk = kk},
        Form::traverse3d, rx, {field0}, 2);
    add(sq::HaloWrapY<T>{.a = f3(0), .jstart = j0, .jend = j1, .jmax = g.jtot, .jj = jj, .kk = kk},
        Form::traverse3d, ry, {field0}, 4);
    add(sq::HaloPackX<T>{.send_w = buf,
                         .send_e = buf + nx,
                         .a = f3(0),
                         .istart = i0,
                         .iend = i1,
                         .jstart = j0,
                         .jmax = g.jtot,
                         .igc = gc,
                         .jj = jj,
                         .kk = kk},
        Form::traverse3d, rx, {sent_x}, 2);
    add(sq::HaloUnpackX<T>{.a = f3(0),
                           .recv_w = recv,
                           .recv_e = recv + nx,
                           .istart = i0,
                           .iend = i1,
                           .jstart = j0,
                           .jmax = g.jtot,
                           .igc = gc,
                           .jj = jj,
                           .kk = kk},
        Form::traverse3d, rx, {field0}, 2);
    add(sq::HaloPackY<T>{.send_s = buf,
                         .send_n = buf + ny,
                         .a = f3(0),
                         .jstart = j0,
                         .jend = j1,
                         .jgc = gc,
                         .icells = g.icells(),
                         .jj = jj,
                         .kk = kk},
        Form::traverse3d, ry, {sent_y}, 4);
    add(sq::HaloUnpackY<T>{.a = f3(0),
                           .recv_s = recv,
                           .recv_n = recv + ny,
                           .jstart = j0,
                           .jend = j1,
                           .jgc = gc,
                           .icells = g.icells(),
                           .jj = jj,
                           .kk = kk},
        Form::traverse3d, ry, {field0}, 4);
}

} // namespace squall::kernel_bench
