// Kernel declarations that sq::Kernel (kernels/kernel.cuh) must refuse at compile time, one
// per CASE_ macro, and a well-formed kernel (CASE_ok) that must build. CMakeLists.txt
// compiles each case and checks the compiler's message, so each test fails when a case
// builds, or fails to build for another reason.
#include "backends/launch.h"

namespace {

// A small stencil kernel as a kernel author writes one: on w levels, with walls.
template <typename T>
struct Lift {
    static constexpr const char* name = "contract_lift";
#if defined(CASE_misspelt_trait)
    static constexpr sq::Traits traits{.on_w_levels = true, .wall_levls = 1};
#else
    static constexpr sq::Traits traits{.on_w_levels = true, .wall_levels = 1};
#endif
#if defined(CASE_trait_outside_traits)
    static constexpr bool summed = true; // where no backend looks
#endif
    T* SQ_RESTRICT wt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v;
    T scale;
    int jj, kk, kstart, kend;
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
#if defined(CASE_missing_member)
        d.field(SQ_ARG(wt), sq::Use::inout).fields(SQ_ARG(u), SQ_ARG(v));
        d.scalars(SQ_ARG(scale), SQ_ARG(jj), SQ_ARG(kk), SQ_ARG(kstart)); // kend left out
#else
        d.field(SQ_ARG(wt), sq::Use::inout).fields(SQ_ARG(u), SQ_ARG(v));
        d.scalars(SQ_ARG(scale), SQ_ARG(jj), SQ_ARG(kk), SQ_ARG(kstart), SQ_ARG(kend));
#endif
    }
    SQ_HD T value(int i, int j, int k) const {
        const int ijk = sq::index3(i, j, k, jj, kk);
        const T near_wall = k == kstart + 1 || k == kend - 1 ? T(0.5) : T(1);
        return near_wall * scale * (u[ijk] - v[ijk]);
    }
#if !defined(CASE_value_without_store)
    SQ_HD void store(int i, int j, int k, T val) const {
        wt[sq::index3(i, j, k, jj, kk)] += val;
    }
#endif
    SQ_HD void operator()(int i, int j, int k) const {
        wt[sq::index3(i, j, k, jj, kk)] += value(i, j, k);
    }
#if defined(CASE_partial_planes)
    static constexpr int plane_inputs = 2; // the planes tables begun, plane_input() missing
#endif
#if defined(CASE_partial_carry)
    struct ZFaces { // the z-carry form begun, z_faces_with() and value_with_z() missing
        T w;
    };
#endif
};

// A summed reduction.
template <typename T>
struct Total {
    static constexpr const char* name = "contract_total";
    static constexpr sq::Traits traits{.summed = true};
    const T* a;
    int jj, kk;
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(a)).scalars(SQ_ARG(jj), SQ_ARG(kk));
    }
    SQ_HD T operator()(int i, int j, int k) const { return a[sq::index3(i, j, k, jj, kk)]; }
};

} // namespace

void build_cases(double* wt, const double* u, const double* v) {
    const sq::Range3 r{0, 1, 0, 1, 1, 2};
#if defined(CASE_swapped_pair)
    // u and v are both const double*: by position the swap would build.
    squall::launch(r, Lift<double>{.wt = wt, .v = v, .u = u, .scale = 2});
#else
    squall::launch(r, Lift<double>{.wt = wt, .u = u, .v = v, .scale = 2});
#endif
#if defined(CASE_sum_as_max)
    (void)squall::launch_max(r, Total<double>{.a = u});
#else
    (void)squall::launch_sum(r, Total<double>{.a = u});
#endif
}
