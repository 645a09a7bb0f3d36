#pragma once
// Fused Smagorinsky kernels of diff.cuh. DiffUVWSmag: the diffusion of u, v and w in one
// pass over the grid, so the velocities and the eddy viscosity are read once for all
// three tendencies (10 arrays instead of 3 x 6). StrainEviscSmag: the strain rate and the
// eddy viscosity in one pass.
#include "diff.cuh"

namespace sq {

// Called for kstart <= k < kend; w is updated for k > kstart only (its wall face is fixed).
template <typename T>
struct DiffUVWSmag {
    static constexpr const char* name = "diff_uvw_smag";
    // As DiffUSmag, DiffVSmag; w skips kstart.
    static constexpr Traits traits{.wall_levels = 1, .promise_interior = true};
    T *SQ_RESTRICT ut, *SQ_RESTRICT vt, *SQ_RESTRICT wt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w, *SQ_RESTRICT evisc;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, nu;
    const T *SQ_RESTRICT ufluxbot, *SQ_RESTRICT ufluxtop; // 2-D (ij), nullptr: resolved wall
    const T *SQ_RESTRICT vfluxbot, *SQ_RESTRICT vfluxtop;
    int kstart, kend;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(ut), sq::Use::inout).field(SQ_ARG(vt), sq::Use::inout);
        d.field(SQ_ARG(wt), sq::Use::inout);
        d.fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w), SQ_ARG(evisc));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(nu));
        d.planes(SQ_ARG(ufluxbot), SQ_ARG(ufluxtop), SQ_ARG(vfluxbot), SQ_ARG(vfluxtop));
        d.scalars(SQ_ARG(kstart), SQ_ARG(kend), SQ_ARG(jj), SQ_ARG(kk));
    }

    // The 3-D inputs for the planes traversal (each at x, y -1..1; off the point's own
    // column u and v at levels -1..0, w at 0..1, evisc at -1..1; on it all at -1..1), and
    // the three outputs.
    static constexpr int plane_inputs = 4;
    SQ_HD static constexpr PlaneInput plane_input(int n) {
        return n == 2   ? PlaneInput{-1, 1, -1, 1, 0, 1, -1, 1}
               : n == 3 ? PlaneInput{-1, 1, -1, 1, -1, 1, -1, 1}
                        : PlaneInput{-1, 1, -1, 1, -1, 0, -1, 1};
    }
    SQ_HD void plane_arrays(const T* (&a)[plane_inputs]) const {
        a[0] = u, a[1] = v, a[2] = w, a[3] = evisc;
    }
    static constexpr int plane_outputs = 3;
    SQ_HD const T* plane_output(int n, int i, int j, int k) const {
        return (n == 0 ? ut : n == 1 ? vt : wt) + i + j * jj + k * kk;
    }

    struct Tendencies {
        T u, v, w;
    };
    SQ_HD DiffUSmag<T> diff_u() const {
        return {.tend = ut,
                .u = u,
                .v = v,
                .w = w,
                .evisc = evisc,
                .dzi = dzi,
                .dzhi = dzhi,
                .rho = rho,
                .rhoh = rhoh,
                .dxi = dxi,
                .dyi = dyi,
                .nu = nu,
                .fluxbot = ufluxbot,
                .fluxtop = ufluxtop,
                .kstart = kstart,
                .kend = kend,
                .jj = jj,
                .kk = kk};
    }
    SQ_HD DiffVSmag<T> diff_v() const {
        return {.tend = vt,
                .u = u,
                .v = v,
                .w = w,
                .evisc = evisc,
                .dzi = dzi,
                .dzhi = dzhi,
                .rho = rho,
                .rhoh = rhoh,
                .dxi = dxi,
                .dyi = dyi,
                .nu = nu,
                .fluxbot = vfluxbot,
                .fluxtop = vfluxtop,
                .kstart = kstart,
                .kend = kend,
                .jj = jj,
                .kk = kk};
    }
    SQ_HD DiffWSmag<T> diff_w() const {
        return {.wt = wt,
                .u = u,
                .v = v,
                .w = w,
                .evisc = evisc,
                .dzi = dzi,
                .dzhi = dzhi,
                .rho = rho,
                .rhoh = rhoh,
                .dxi = dxi,
                .dyi = dyi,
                .nu = nu,
                .kstart = kstart,
                .kend = kend,
                .jj = jj,
                .kk = kk};
    }

    SQ_HD Tendencies value(int i, int j, int k) const {
        return {diff_u().value(i, j, k), diff_v().value(i, j, k),
                k > kstart ? diff_w().value(i, j, k) : T(0)};
    }
    template <class In>
    SQ_HD Tendencies value_with(const In& in, int i, int j, int k) const {
        const auto pu = in(0, u), pv = in(1, v), pw = in(2, w), pe = in(3, evisc);
        return {diff_u().value_at(pu, pv, pw, pe, i, j, k),
                diff_v().value_at(pu, pv, pw, pe, i, j, k),
                k > kstart ? diff_w().value_at(pu, pv, pw, pe, i, j, k) : T(0)};
    }
    // The z-carry form's parts (TendUVW2i5Smag): each component's value at the low z face of
    // the point at ijk, level k (diff_*::z_face_at; w's only above kstart, where its face,
    // the centre k - 1, lies in the fluid), and the tendencies from the faces at k and k + 1.
    template <class P>
    SQ_HD Tendencies z_faces_at(const P& pu, const P& pv, const P& pw, const P& pe, int ijk,
                                int k) const {
        return {diff_u().z_face_at(pu, pv, pw, pe, ijk, k),
                diff_v().z_face_at(pu, pv, pw, pe, ijk, k),
                k > kstart ? diff_w().z_face_at(pu, pv, pw, pe, ijk, k) : T(0)};
    }
    template <class P>
    SQ_HD Tendencies value_at_z(const P& pu, const P& pv, const P& pw, const P& pe, int i, int j,
                                int k, const Tendencies& lo, const Tendencies& hi) const {
        return {diff_u().value_at_z(pu, pv, pw, pe, i, j, k, lo.u, hi.u),
                diff_v().value_at_z(pu, pv, pw, pe, i, j, k, lo.v, hi.v),
                k > kstart ? diff_w().value_at_z(pu, pv, pw, pe, i, j, k, lo.w, hi.w) : T(0)};
    }
    // store's sums with the outputs read ahead (old).
    SQ_HD void plane_store(int i, int j, int k, const T (&old)[3], const Tendencies& val) const {
        const int ijk = i + j * jj + k * kk;
        ut[ijk] = old[0] + val.u;
        vt[ijk] = old[1] + val.v;
        if (k > kstart) wt[ijk] = old[2] + val.w;
    }
    SQ_HD void store(int i, int j, int k, const Tendencies& val) const {
        diff_u().store(i, j, k, val.u);
        diff_v().store(i, j, k, val.v);
        if (k > kstart) diff_w().store(i, j, k, val.w);
    }
    // All three tendencies before any store, also point by point: the tuned tiles run
    // faster so (4.30 against 4.77 ms at 512^3 in double), the plain default 5 % slower.
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// The Smagorinsky closure in one pass: Strain2's strain rate at the point goes straight
// into EviscSmag's viscosity, so the strain2 array is neither written nor read back (5
// arrays move instead of 7). The same operations on the same value: bitwise EviscSmag's
// result after Strain2.
template <typename T>
struct StrainEviscSmag {
    static constexpr const char* name = "strain_evisc_smag";
    T* SQ_RESTRICT evisc;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T* SQ_RESTRICT th; // nullptr: neutral (N2 = 0)
    T g_over_thref;
    const T *SQ_RESTRICT z, *SQ_RESTRICT mlen2, *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi;
    T dxi, dyi;
    T prandtl_t;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(evisc), sq::Use::out).fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w), SQ_ARG(th));
        d.scalar(SQ_ARG(g_over_thref));
        d.profiles(SQ_ARG(z), SQ_ARG(mlen2), SQ_ARG(dzi), SQ_ARG(dzhi));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(prandtl_t), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD Strain2<T> strain() const {
        return {.strain2 = nullptr,
                .u = u,
                .v = v,
                .w = w,
                .dzi = dzi,
                .dzhi = dzhi,
                .dxi = dxi,
                .dyi = dyi,
                .jj = jj,
                .kk = kk};
    }
    SQ_HD EviscSmag<T> viscosity() const {
        return {.evisc = evisc,
                .strain2 = nullptr,
                .th = th,
                .g_over_thref = g_over_thref,
                .z = z,
                .mlen2 = mlen2,
                .prandtl_t = prandtl_t,
                .jj = jj,
                .kk = kk};
    }
    SQ_HD T value(int i, int j, int k) const {
        return viscosity().value_of(strain().value(i, j, k), i, j, k);
    }
    SQ_HD void store(int i, int j, int k, T val) const { viscosity().store(i, j, k, val); }

    // The planes traversal's inputs: the strain's u, v, w (Strain2::value_at: u at x 0..1,
    // y -1..1, levels -1..1; v mirrored; w at x, y -1..1, levels 0..1). th stays a plain
    // pointer, read on the point's column (two values per point), since it may be null.
    static constexpr int plane_inputs = 3;
    SQ_HD static constexpr PlaneInput plane_input(int n) {
        return n == 0   ? PlaneInput{0, 1, -1, 1, -1, 1, -1, 1}
               : n == 1 ? PlaneInput{-1, 1, 0, 1, -1, 1, -1, 1}
                        : PlaneInput{-1, 1, -1, 1, 0, 1, 0, 1};
    }
    SQ_HD void plane_arrays(const T* (&a)[plane_inputs]) const { a[0] = u, a[1] = v, a[2] = w; }
    // evisc is written, not added to: the march need not read it.
    static constexpr int plane_outputs = 1;
    SQ_HD const T* plane_output(int, int i, int j, int k) const {
        return evisc + i + j * jj + k * kk;
    }
    SQ_HD bool reads_outputs() const { return false; }
    SQ_HD void plane_store(int i, int j, int k, const T (&)[1], T val) const {
        evisc[i + j * jj + k * kk] = val;
    }
    template <class In>
    SQ_HD T value_with(const In& in, int i, int j, int k) const {
        return viscosity().value_of(strain().value_at(in(0, u), in(1, v), in(2, w), i, j, k), i, j,
                                    k);
    }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// Every kernel of this header (tests and benchmarks iterate over them).
using DiffFusedKernels = KernelList<DiffUVWSmag, StrainEviscSmag>;

} // namespace sq
