// The CPU backend's rows (backends/cpu/cpu_launch.h: row()): away from the walls, a kernel
// whose traits say promise_interior runs with its walls out of reach, which lets GCC drop its
// wall branches and vectorise the row. That must leave every result bitwise unchanged:
// each named kernel, in both precisions, on random fields, against the plain rows. So must
// the face traversal (backends/cpu/cpu_faces.h) of the kernels in face form.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "backends/cpu/cpu_launch.h"
#include "kernels/advec.cuh"
#include "kernels/diff.cuh"
#include "kernels/diff_fused.cuh"
#include "kernels/tend_fused.cuh"
#include "kernels/thermo.cuh"
#include "tests/support/all_kernels.h"

namespace {

// A box of 19 x 5 x 14 interior points (19: not a multiple of the vector width) with 3
// ghost columns and rows and 1 ghost level; arrays hold random values everywhere.
template <typename T>
struct RowBox {
    int itot = 19, jtot = 5, ktot = 14;
    int icells = itot + 6, jcells = jtot + 6, kcells = ktot + 2;
    int istart = 3, iend = 3 + itot, jstart = 3, jend = 3 + jtot, kstart = 1, kend = 1 + ktot;
    int jj = icells, kk = icells * jcells, n = kk * kcells;
    std::mt19937 gen{7};
    std::vector<T> random(double lo, double hi) {
        std::uniform_real_distribution<double> dist(lo, hi);
        std::vector<T> a(static_cast<size_t>(n));
        for (T& x : a) x = T(dist(gen));
        return a;
    }
};

// The kernel's interior (w kernels: from kstart + 1).
template <class F, class Box>
sq::Range3 interior(const Box& b) {
    constexpr bool on_w_levels = sq::traits_v<F>.on_w_levels;
    return {b.istart, b.iend, b.jstart, b.jend, on_w_levels ? b.kstart + 1 : b.kstart, b.kend};
}

// The face traversal (the backend's path for kernels in face form) on 1 to 4 threads, whose
// slabs of levels split at different levels, against `plain`, bit for bit.
template <typename T, class Make>
void expect_faces_match(const sq::Range3& r, const Make& make, const std::vector<T>& initial,
                        const std::vector<T>& plain) {
    using F = decltype(make(static_cast<T*>(nullptr)));
    for (int threads = 1; threads <= 4; ++threads) {
        std::vector<T> faces = initial;
        omp_set_num_threads(threads);
        squall::cpu::for_each_faces(r, make(faces.data()));
        EXPECT_EQ(std::memcmp(faces.data(), plain.data(), sizeof(T) * plain.size()), 0)
            << F::name << ": the face traversal changed results on " << threads << " threads";
    }
    omp_set_num_threads(omp_get_num_procs());
}

// Runs make(out) over the kernel's interior through for_each_rows, as the model launches
// kernels, once with the walls out of reach and once without, into copies of the same
// output, and compares them bit for bit; kernels in face form also through the faces.
template <typename T, class Make>
std::string check_kernel(RowBox<T>& b, const Make& make) {
    using F = decltype(make(static_cast<T*>(nullptr)));
    static_assert(squall::cpu::promises_interior<F>());
    const std::vector<T> initial = b.random(-1, 1);
    std::vector<T> promised = initial, plain = initial;
    const size_t bytes = sizeof(T) * initial.size();
    const sq::Range3 r = interior<F>(b);
    squall::cpu::for_each_rows<true>(r, make(promised.data()));
    squall::cpu::for_each_rows<false>(r, make(plain.data()));
    constexpr int walls = sq::traits_v<F>.wall_levels;
    EXPECT_LT(r.k0 + walls, b.kend - walls) << F::name; // interior rows exist
    EXPECT_NE(std::memcmp(promised.data(), initial.data(), bytes), 0) << F::name;
    EXPECT_EQ(std::memcmp(promised.data(), plain.data(), bytes), 0)
        << F::name << ": the walls out of reach changed results";
    if constexpr (squall::cpu::FaceForm<F>) expect_faces_match(r, make, initial, plain);
    return F::name;
}

template <typename T>
std::set<std::string> check_all() {
    RowBox<T> b;
    const std::vector<T> u = b.random(-2, 2), v = b.random(-2, 2), w = b.random(-1, 1);
    const std::vector<T> s = b.random(290, 310), prof = b.random(0.5, 2);
    const T* p = prof.data() + 1; // profiles: dzi, dzhi, rho, rhoh (any positive values)
    std::set<std::string> names;
    names.insert(check_kernel(b, [&](T* out) {
        return sq::AdvecU2i5<T>{.tend = out,
                                .u = u.data(),
                                .v = v.data(),
                                .w = w.data(),
                                .dzi = p,
                                .dzhi = p,
                                .rho = p,
                                .rhoh = p,
                                .dxi = T(3),
                                .dyi = T(4),
                                .jj = b.jj,
                                .kk = b.kk,
                                .kstart = b.kstart,
                                .kend = b.kend};
    }));
    names.insert(check_kernel(b, [&](T* out) {
        return sq::AdvecV2i5<T>{.tend = out,
                                .u = u.data(),
                                .v = v.data(),
                                .w = w.data(),
                                .dzi = p,
                                .dzhi = p,
                                .rho = p,
                                .rhoh = p,
                                .dxi = T(3),
                                .dyi = T(4),
                                .jj = b.jj,
                                .kk = b.kk,
                                .kstart = b.kstart,
                                .kend = b.kend};
    }));
    names.insert(check_kernel(b, [&](T* out) {
        return sq::AdvecW2i5<T>{.tend = out,
                                .u = u.data(),
                                .v = v.data(),
                                .w = w.data(),
                                .dzi = p,
                                .dzhi = p,
                                .rho = p,
                                .rhoh = p,
                                .dxi = T(3),
                                .dyi = T(4),
                                .jj = b.jj,
                                .kk = b.kk,
                                .kstart = b.kstart,
                                .kend = b.kend};
    }));
    names.insert(check_kernel(b, [&](T* out) {
        return sq::AdvecS2i5<T>{.st = out,
                                .s = s.data(),
                                .u = u.data(),
                                .v = v.data(),
                                .w = w.data(),
                                .dzi = p,
                                .rho = p,
                                .rhoh = p,
                                .dxi = T(3),
                                .dyi = T(4),
                                .jj = b.jj,
                                .kk = b.kk,
                                .kstart = b.kstart,
                                .kend = b.kend};
    }));
    names.insert(check_kernel(b, [&](T* out) {
        return sq::AdvecW2i5Buoy<T>{.wt = out,
                                    .u = u.data(),
                                    .v = v.data(),
                                    .w = w.data(),
                                    .th = s.data(),
                                    .dzhi = p,
                                    .rho = p,
                                    .rhoh = p,
                                    .dxi = T(3),
                                    .dyi = T(4),
                                    .g_over_thref = T(0.0327),
                                    .thref = T(300),
                                    .jj = b.jj,
                                    .kk = b.kk,
                                    .kstart = b.kstart,
                                    .kend = b.kend};
    }));
    // The diffusion with Smagorinsky viscosity and surface fluxes at the bottom wall; the
    // fused kernel once per output (the other two go to scratch arrays).
    const std::vector<T> evisc = b.random(0.1, 3), flux = b.random(-0.1, 0.1);
    std::vector<T> scratch1 = b.random(-1, 1), scratch2 = b.random(-1, 1);
    // A kernel of three outputs, checked once per output (the other two go to scratch).
    const auto check_each_output = [&](const auto& make) {
        T *s1 = scratch1.data(), *s2 = scratch2.data();
        names.insert(check_kernel(b, [&](T* out) { return make(out, s1, s2); }));
        names.insert(check_kernel(b, [&](T* out) { return make(s1, out, s2); }));
        names.insert(check_kernel(b, [&](T* out) { return make(s1, s2, out); }));
    };
    const auto uvw = [&](T* ut, T* vt, T* wt) {
        return sq::DiffUVWSmag<T>{.ut = ut,
                                  .vt = vt,
                                  .wt = wt,
                                  .u = u.data(),
                                  .v = v.data(),
                                  .w = w.data(),
                                  .evisc = evisc.data(),
                                  .dzi = p,
                                  .dzhi = p,
                                  .rho = p,
                                  .rhoh = p,
                                  .dxi = T(3),
                                  .dyi = T(4),
                                  .nu = T(1e-3),
                                  .ufluxbot = flux.data(),
                                  .ufluxtop = nullptr,
                                  .vfluxbot = flux.data(),
                                  .vfluxtop = nullptr,
                                  .kstart = b.kstart,
                                  .kend = b.kend,
                                  .jj = b.jj,
                                  .kk = b.kk};
    };
    check_each_output(uvw);
    names.insert(check_kernel(b, [&](T* out) {
        return sq::DiffCSmag<T>{.st = out,
                                .s = s.data(),
                                .evisc = evisc.data(),
                                .dzi = p,
                                .dzhi = p,
                                .rho = p,
                                .rhoh = p,
                                .dxi = T(3),
                                .dyi = T(4),
                                .prandtl_t_inv = T(3),
                                .kappa = T(1e-3),
                                .fluxbot = flux.data(),
                                .fluxtop = nullptr,
                                .kstart = b.kstart,
                                .kend = b.kend,
                                .jj = b.jj,
                                .kk = b.kk};
    }));
    // The fused tendencies: the momentum kernel once per output, like DiffUVWSmag.
    const auto tend = [&](T* ut, T* vt, T* wt) {
        return sq::TendUVW2i5Smag<T>{.ut = ut,
                                     .vt = vt,
                                     .wt = wt,
                                     .u = u.data(),
                                     .v = v.data(),
                                     .w = w.data(),
                                     .evisc = evisc.data(),
                                     .th = s.data(),
                                     .dzi = p,
                                     .dzhi = p,
                                     .rho = p,
                                     .rhoh = p,
                                     .dxi = T(3),
                                     .dyi = T(4),
                                     .nu = T(1e-3),
                                     .g_over_thref = T(0.0327),
                                     .thref = T(300),
                                     .ufluxbot = flux.data(),
                                     .ufluxtop = nullptr,
                                     .vfluxbot = flux.data(),
                                     .vfluxtop = nullptr,
                                     .sponge_coef = p,
                                     .uref = p,
                                     .vref = p,
                                     .sponge_kstart = b.kstart + 2,
                                     .kstart = b.kstart,
                                     .kend = b.kend,
                                     .jj = b.jj,
                                     .kk = b.kk,
                                     .first_stage = 0};
    };
    check_each_output(tend);
    names.insert(check_kernel(b, [&](T* out) {
        return sq::TendS2i5Smag<T>{.st = out,
                                   .s = s.data(),
                                   .u = u.data(),
                                   .v = v.data(),
                                   .w = w.data(),
                                   .evisc = evisc.data(),
                                   .dzi = p,
                                   .dzhi = p,
                                   .rho = p,
                                   .rhoh = p,
                                   .dxi = T(3),
                                   .dyi = T(4),
                                   .prandtl_t_inv = T(3),
                                   .kappa = T(1e-3),
                                   .fluxbot = flux.data(),
                                   .fluxtop = nullptr,
                                   .sponge_coef = p,
                                   .sref = p,
                                   .sponge_kstart = b.kstart + 2,
                                   .kstart = b.kstart,
                                   .kend = b.kend,
                                   .jj = b.jj,
                                   .kk = b.kk,
                                   .s_next = nullptr,
                                   .b_dt = T(0),
                                   .a_next = T(0),
                                   .first_stage = 0,
                                   .drop_tendency = 0};
    }));
    return names;
}

// The 2i5 advection runs through the face traversal (each face's flux once).
static_assert(squall::cpu::FaceForm<sq::AdvecU2i5<double>> &&
              squall::cpu::FaceForm<sq::AdvecV2i5<float>> &&
              squall::cpu::FaceForm<sq::AdvecW2i5<double>> &&
              squall::cpu::FaceForm<sq::AdvecW2i5Buoy<float>> &&
              squall::cpu::FaceForm<sq::AdvecS2i5<double>>);
static_assert(!squall::cpu::FaceForm<sq::DiffUVWSmag<double>>);

template <template <class> class... K>
std::set<std::string> promising_kernels(sq::KernelList<K...>) {
    std::set<std::string> names;
    ((sq::traits_v<K<double>>.promise_interior ? (void)names.insert(K<double>::name) : void()),
     ...);
    return names;
}

TEST(CpuRows, InteriorPromiseLeavesResultsBitwiseUnchanged) {
    const std::set<std::string> d = check_all<double>(), f = check_all<float>();
    EXPECT_EQ(d, f);
    // Every kernel whose traits promise its interior is checked above.
    EXPECT_EQ(d, promising_kernels(squall::testing::AllKernels{}));
}

} // namespace
