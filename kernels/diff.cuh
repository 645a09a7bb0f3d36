#pragma once
// Diffusion (docs/numerics.md "Diffusion"), one grid point per call.
// smag2: Strain2 -> EviscSmag -> DiffUSmag/DiffVSmag/DiffWSmag/DiffCSmag (stress divergence
// with K = evisc + nu, scalars with evisc/Pr_t + kappa).
// constant (DNS): DiffU2/DiffV2/DiffC2 (centred in z) and DiffW2 (half levels in z): plain
// Laplacian with a constant K.
// Reductions for the diffusion number: DnSmag and DnConst (multiply by dt outside).
#include "common.cuh"

namespace sq {

// ---- diff_common ----

// Average of the four centres around the edge at the (-s1/2, -s2/2) corner of centre e[0].
template <typename T, class P>
SQ_HD T edge_avg(const P& e, int s1, int s2) {
    return T(0.25) * (e[0] + e[-s1] + e[-s2] + e[-s1 - s2]);
}

// Density-weighted vertical term of a centred variable: bottom/top values are the
// (diffusivity * gradient) products at faces k and k+1.
template <typename T>
SQ_HD T diff_zdiv_c(T g_bot, T g_top, int k, const T* dzi, const T* rho, const T* rhoh) {
    return dzi[k] / rho[k] * (rhoh[k + 1] * g_top - rhoh[k] * g_bot);
}
// Same for w: its bottom/top faces are the centres k-1 and k.
template <typename T>
SQ_HD T diff_zdiv_w(T g_bot, T g_top, int k, const T* dzhi, const T* rho, const T* rhoh) {
    return dzhi[k] / rhoh[k] * (rho[k] * g_top - rho[k - 1] * g_bot);
}

// Vertical term of a centred variable, with the wall terms replaced by prescribed turbulent
// fluxes (positive upward) when fluxbot/fluxtop are given. g_* are K * dadz at the faces.
template <typename T>
SQ_HD T diff_zdiv_c_flux(T g_bot, T g_top, int k, int ij, int kstart, int kend, const T* fluxbot,
                         const T* fluxtop, const T* dzi, const T* rho, const T* rhoh) {
    const T fb = (fluxbot && k == kstart) ? rhoh[kstart] * fluxbot[ij] : -rhoh[k] * g_bot;
    const T ft = (fluxtop && k == kend - 1) ? -rhoh[kend] * fluxtop[ij] : rhoh[k + 1] * g_top;
    return dzi[k] / rho[k] * (ft + fb);
}

// A kernel's value at (i, j, k) from its z-face form: value_at_z with the values at the
// faces below and above the point (z_face_at of level k and k + 1), both computed here; the
// z-carry march (backends/cuda/planes.cuh) computes each once and hands it up instead.
// in: the kernel's inputs, as pointers or accessors, in its own order.
template <class K, class... P>
SQ_HD auto value_from_z_faces(const K& f, int i, int j, int k, const P&... in) {
    const int ijk = i + j * f.jj + k * f.kk;
    return f.value_at_z(in..., i, j, k, f.z_face_at(in..., ijk, k),
                        f.z_face_at(in..., ijk + f.kk, k + 1));
}

// ---- smag2 ----

// S2 = 2 S_ij S_ij at the centre; the edge terms average the squared shears of the 4 edges
// around the centre. The tiny constant 1e-9 keeps S2 > 0 (EviscSmag divides by it).
template <typename T>
struct Strain2 {
    static constexpr const char* name = "strain2";
    T* SQ_RESTRICT strain2;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi;
    T dxi, dyi;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(strain2), sq::Use::out).fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(jj), SQ_ARG(kk));
    }

    // du/dy + dv/dx at the xy-edge at the south-west corner of centre n (u, v, w: pointers,
    // or accessors under the planes traversal, StrainEviscSmag).
    template <class P>
    SQ_HD T shear_xy(const P& u, const P& v, int n) const {
        return (u[n] - u[n - jj]) * dyi + (v[n] - v[n - 1]) * dxi;
    }
    // du/dz + dw/dx at the xz-edge at the west-bottom corner of centre n (z-spacing dzhi_e).
    template <class P>
    SQ_HD T shear_xz(const P& u, const P& w, int n, T dzhi_e) const {
        return (u[n] - u[n - kk]) * dzhi_e + (w[n] - w[n - 1]) * dxi;
    }
    template <class P>
    SQ_HD T shear_yz(const P& v, const P& w, int n, T dzhi_e) const {
        return (v[n] - v[n - kk]) * dzhi_e + (w[n] - w[n - jj]) * dyi;
    }

    SQ_HD T value(int i, int j, int k) const { return value_at(u, v, w, i, j, k); }
    template <class P>
    SQ_HD T value_at(const P& u, const P& v, const P& w, int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        const T dzhb = dzhi[k], dzht = dzhi[k + 1];
        const T diag = sqr_((u[ijk + 1] - u[ijk]) * dxi) + sqr_((v[ijk + jj] - v[ijk]) * dyi) +
                       sqr_((w[ijk + kk] - w[ijk]) * dzi[k]);
        const T xy = sqr_(shear_xy(u, v, ijk)) + sqr_(shear_xy(u, v, ijk + 1)) +
                     sqr_(shear_xy(u, v, ijk + jj)) + sqr_(shear_xy(u, v, ijk + 1 + jj));
        const T xz = sqr_(shear_xz(u, w, ijk, dzhb)) + sqr_(shear_xz(u, w, ijk + 1, dzhb)) +
                     sqr_(shear_xz(u, w, ijk + kk, dzht)) +
                     sqr_(shear_xz(u, w, ijk + 1 + kk, dzht));
        const T yz = sqr_(shear_yz(v, w, ijk, dzhb)) + sqr_(shear_yz(v, w, ijk + jj, dzhb)) +
                     sqr_(shear_yz(v, w, ijk + kk, dzht)) +
                     sqr_(shear_yz(v, w, ijk + jj + kk, dzht));
        return T(2) * (diag + T(0.125) * (xy + xz + yz)) + T(1e-9);
    }
    SQ_HD void store(int i, int j, int k, T val) const { strain2[index3(i, j, k, jj, kk)] = val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// The Smagorinsky mixing length squared at a level, (cs (dx dy dz)^(1/3))^2, with Mason's
// wall damping 1/L^2 = 1/L0^2 + 1/(0.4 (z + z0m))^2 when a surface model is on. The model
// keeps it as a profile (EviscSmag::mlen2): one cube root per level, not per point.
template <typename T>
SQ_HD T smag_mixing_length2(T cs, T dx, T dy, T dz, T z, T z0m, bool mason) {
    const T l0 = cs * cbrt_(dx * dy * dz);
    const T l2 = l0 * l0;
    return mason ? T(1) / (T(1) / l2 + T(1) / sqr_(T(0.4) * (z + z0m))) : l2;
}

// Smagorinsky-Lilly eddy viscosity with the stability correction; the mixing length
// squared by level (smag_mixing_length2). Ri/Pr_t is capped at 1 - 1e-6 (representable in
// float), so the sqrt argument stays > 0 and stable points keep a tiny residual viscosity.
template <typename T>
struct EviscSmag {
    static constexpr const char* name = "evisc_smag";
    T* SQ_RESTRICT evisc;
    const T* SQ_RESTRICT strain2;
    const T* SQ_RESTRICT th; // nullptr: neutral (N2 = 0)
    T g_over_thref;
    const T *SQ_RESTRICT z, *SQ_RESTRICT mlen2; // mlen2: smag_mixing_length2 by k
    T prandtl_t;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(evisc), sq::Use::out).fields(SQ_ARG(strain2), SQ_ARG(th));
        d.scalar(SQ_ARG(g_over_thref)).profiles(SQ_ARG(z), SQ_ARG(mlen2));
        d.scalars(SQ_ARG(prandtl_t), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD T value(int i, int j, int k) const {
        return value_of(strain2[index3(i, j, k, jj, kk)], i, j, k);
    }
    // The viscosity for the strain rate s2 at the point (StrainEviscSmag passes its own).
    SQ_HD T value_of(T s2, int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        const T n2 =
            th ? g_over_thref * (th[ijk + kk] - th[ijk - kk]) / (z[k + 1] - z[k - 1]) : T(0);
        const T ri_pr = min_(n2 / (prandtl_t * s2), T(1) - T(1e-6));
        return mlen2[k] * sqrt_(s2) * sqrt_(T(1) - ri_pr);
    }
    SQ_HD void store(int i, int j, int k, T val) const { evisc[index3(i, j, k, jj, kk)] = val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// u at the west face (Stag x) or v at the south face (Stag y), one the other's mirror with x
// and y exchanged: the normal term along the component's own axis with K at the two
// centres beside its face, the cross terms with K on the edges (each edge's four centres
// summed in x, y, z order, as edge_avg takes them).
template <typename T, Axis Stag>
struct DiffHorSmag {
    static_assert(Stag == Axis::x || Stag == Axis::y);
    static constexpr const char* name = Stag == Axis::x ? "diff_u_smag" : "diff_v_smag";
    // The wall fluxes replace the stencil at kstart, kend-1.
    static constexpr Traits traits{.wall_levels = 1};
    T* SQ_RESTRICT tend; // ut or vt, added to
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w, *SQ_RESTRICT evisc;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, nu;
    const T *SQ_RESTRICT fluxbot, *SQ_RESTRICT fluxtop; // 2-D (ij), nullptr: resolved wall
    int kstart, kend;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(tend), sq::Use::inout);
        d.fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w), SQ_ARG(evisc));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(nu)).planes(SQ_ARG(fluxbot), SQ_ARG(fluxtop));
        d.scalars(SQ_ARG(kstart), SQ_ARG(kend), SQ_ARG(jj), SQ_ARG(kk));
    }

    // value_at with the top face first: the same operations, but NVVM allocates registers by
    // this order (diff_v_smag double, default configuration: 80 registers instead of 88, so 3
    // blocks of 256 threads per SM instead of 2: 25 % faster on the H100). In the fused
    // kernels the other order gives fewer registers (diff_uvw_smag planes: 123 against 132).
    SQ_HD T value(int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        const T g_top = z_face_at(u, v, w, evisc, ijk + kk, k + 1);
        return value_at_z(u, v, w, evisc, i, j, k, z_face_at(u, v, w, evisc, ijk, k), g_top);
    }
    // u, v, w, evisc: the inputs, as pointers or accessors (DiffUVWSmag::value_with).
    template <class P>
    SQ_HD T value_at(const P& u, const P& v, const P& w, const P& evisc, int i, int j,
                     int k) const {
        return value_from_z_faces(*this, i, j, k, u, v, w, evisc);
    }
    // In both functions below a is the diffused component, b the other horizontal one; s and
    // o their axes' strides, dsi and doi their inverse spacings.
    static constexpr bool on_x = Stag == Axis::x;
    // K (da/dz + dw/ds) at the low z face of the point at ijk (level k): the xz (u) or yz (v)
    // edge, K averaged over its four centres. Also the z-carry form's face.
    template <class P>
    SQ_HD T z_face_at(const P& u, const P& v, const P& w, const P& evisc, int ijk, int k) const {
        const P& a = on_x ? u : v;
        const int s = on_x ? 1 : jj;
        const T kb = edge_avg<T>(evisc + ijk, s, kk) + nu;
        return kb * ((a[ijk] - a[ijk - kk]) * dzhi[k] + (w[ijk] - w[ijk - s]) * (on_x ? dxi : dyi));
    }
    // The point's value from its two z faces' values (value_from_z_faces).
    template <class P>
    SQ_HD T value_at_z(const P& u, const P& v, const P&, const P& evisc, int i, int j, int k,
                       T g_bot, T g_top) const {
        const int s = on_x ? 1 : jj, o = on_x ? jj : 1;
        const T dsi = on_x ? dxi : dyi, doi = on_x ? dyi : dxi;
        const P& a = on_x ? u : v;
        const P& b = on_x ? v : u;
        const int ij = i + j * jj, ijk = ij + k * kk;
        const P e = evisc + ijk;
        const T k_hi = e[0] + nu, k_lo = e[-s] + nu;
        const T ko_hi = edge_avg<T>(e + o, 1, jj) + nu, ko_lo = edge_avg<T>(e, 1, jj) + nu;
        // Written as the terms along x then y, as each component's own code was: the
        // compiler then contracts the same products into fused multiply-adds.
        auto normal = [&] {
            return T(2) * dsi * (k_hi * (a[ijk + s] - a[ijk]) - k_lo * (a[ijk] - a[ijk - s])) * dsi;
        };
        auto cross = [&] {
            return doi *
                   (ko_hi * ((a[ijk + o] - a[ijk]) * doi + (b[ijk + o] - b[ijk + o - s]) * dsi) -
                    ko_lo * ((a[ijk] - a[ijk - o]) * doi + (b[ijk] - b[ijk - s]) * dsi));
        };
        const T x = on_x ? normal() : cross();
        const T y = on_x ? cross() : normal();
        return x + y +
               diff_zdiv_c_flux(g_bot, g_top, k, ij, kstart, kend, fluxbot, fluxtop, dzi, rho,
                                rhoh);
    }
    SQ_HD void store(int i, int j, int k, T val) const { tend[i + j * jj + k * kk] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};
template <typename T>
using DiffUSmag = DiffHorSmag<T, Axis::x>;
template <typename T>
using DiffVSmag = DiffHorSmag<T, Axis::y>;

// w at the bottom face, called for kstart+1 <= k < kend (the walls are impermeable, so no
// surface-flux variant). Normal term uses K at the centres k-1/k.
template <typename T>
struct DiffWSmag {
    static constexpr const char* name = "diff_w_smag";
    static constexpr Traits traits{.on_w_levels = true};
    T* SQ_RESTRICT wt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w, *SQ_RESTRICT evisc;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, nu;
    int kstart, kend; // not needed by the stencil; kept so all DiffXSmag share one layout
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(wt), sq::Use::inout);
        d.fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w), SQ_ARG(evisc));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(nu), SQ_ARG(kstart), SQ_ARG(kend), SQ_ARG(jj),
                  SQ_ARG(kk));
    }

    SQ_HD T value(int i, int j, int k) const { return value_at(u, v, w, evisc, i, j, k); }
    template <class P>
    SQ_HD T value_at(const P& u, const P& v, const P& w, const P& evisc, int i, int j,
                     int k) const {
        return value_from_z_faces(*this, i, j, k, u, v, w, evisc);
    }
    template <class P>
    SQ_HD T value_at_z(const P& u, const P& v, const P& w, const P& evisc, int i, int j, int k,
                       T g_bot, T g_top) const {
        const int ijk = i + j * jj + k * kk;
        const P e = evisc + ijk;
        const T ke = edge_avg<T>(e + 1, 1, kk) + nu, kw = edge_avg<T>(e, 1, kk) + nu;
        const T kn = edge_avg<T>(e + jj, jj, kk) + nu, ks = edge_avg<T>(e, jj, kk) + nu;
        const T x =
            dxi * (ke * ((w[ijk + 1] - w[ijk]) * dxi + (u[ijk + 1] - u[ijk + 1 - kk]) * dzhi[k]) -
                   kw * ((w[ijk] - w[ijk - 1]) * dxi + (u[ijk] - u[ijk - kk]) * dzhi[k]));
        const T y =
            dyi *
            (kn * ((w[ijk + jj] - w[ijk]) * dyi + (v[ijk + jj] - v[ijk + jj - kk]) * dzhi[k]) -
             ks * ((w[ijk] - w[ijk - jj]) * dyi + (v[ijk] - v[ijk - kk]) * dzhi[k]));
        return x + y + diff_zdiv_w(g_bot, g_top, k, dzhi, rho, rhoh);
    }
    // 2 K dw/dz at the low z face of the point at ijk (level k), the centre k - 1 (the z-carry
    // form's face, as DiffHorSmag::z_face_at).
    template <class P>
    SQ_HD T z_face_at(const P&, const P&, const P& w, const P& evisc, int ijk, int k) const {
        return T(2) * (evisc[ijk - kk] + nu) * (w[ijk] - w[ijk - kk]) * dzi[k - 1];
    }
    SQ_HD void store(int i, int j, int k, T val) const { wt[i + j * jj + k * kk] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// Scalar at the centre: face diffusivity interp2(evisc) / Pr_t + kappa.
template <typename T>
struct DiffCSmag {
    static constexpr const char* name = "diff_c_smag";
    // The wall fluxes replace the stencil at kstart, kend-1.
    static constexpr Traits traits{.wall_levels = 1, .promise_interior = true};
    T* SQ_RESTRICT st;
    const T *SQ_RESTRICT s, *SQ_RESTRICT evisc;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, prandtl_t_inv, kappa;
    const T *SQ_RESTRICT fluxbot, *SQ_RESTRICT fluxtop;
    int kstart, kend;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(st), sq::Use::inout).fields(SQ_ARG(s), SQ_ARG(evisc));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(prandtl_t_inv), SQ_ARG(kappa));
        d.planes(SQ_ARG(fluxbot), SQ_ARG(fluxtop));
        d.scalars(SQ_ARG(kstart), SQ_ARG(kend), SQ_ARG(jj), SQ_ARG(kk));
    }

    // The diffusivity at the face between the centre of e[0] and its neighbour e[s_nb].
    template <class P>
    SQ_HD T kh(const P& e, int s_nb) const {
        return interp2<T>(e[0], e[s_nb]) * prandtl_t_inv + kappa;
    }

    SQ_HD T value(int i, int j, int k) const { return value_at(s, evisc, i, j, k); }
    // s, evisc: the inputs, as pointers or accessors (TendS2i5Smag's planes traversal).
    template <class P>
    SQ_HD T value_at(const P& s, const P& evisc, int i, int j, int k) const {
        return value_from_z_faces(*this, i, j, k, s, evisc);
    }
    // K ds/dz at the low z face of the point at ijk (level k); also the z-carry form's face
    // (DiffHorSmag::z_face_at). The face's K is the mean of the centres below and above it.
    template <class P>
    SQ_HD T z_face_at(const P& s, const P& evisc, int ijk, int k) const {
        const P a = s + ijk;
        return kh(evisc + ijk, -kk) * (a[0] - a[-kk]) * dzhi[k];
    }
    // The point's value from its two z faces' values (value_from_z_faces).
    template <class P>
    SQ_HD T value_at_z(const P& s, const P& evisc, int i, int j, int k, T g_bot, T g_top) const {
        const int ij = i + j * jj, ijk = ij + k * kk;
        const P a = s + ijk, e = evisc + ijk;
        const T x = dxi * dxi * (kh(e, 1) * (a[1] - a[0]) - kh(e, -1) * (a[0] - a[-1]));
        const T y = dyi * dyi * (kh(e, jj) * (a[jj] - a[0]) - kh(e, -jj) * (a[0] - a[-jj]));
        return x + y +
               diff_zdiv_c_flux(g_bot, g_top, k, ij, kstart, kend, fluxbot, fluxtop, dzi, rho,
                                rhoh);
    }
    SQ_HD void store(int i, int j, int k, T val) const { st[index3(i, j, k, jj, kk)] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// ---- constant (DNS) ----

// Laplacian of a centred-in-z variable (u, v or a scalar) at point n and level k.
template <typename T>
SQ_HD T laplace_zc(const T* a, int jj, int kk, int k, T dxi, T dyi, const T* dzi, const T* dzhi,
                   const T* rho, const T* rhoh) {
    return (a[1] - T(2) * a[0] + a[-1]) * dxi * dxi + (a[jj] - T(2) * a[0] + a[-jj]) * dyi * dyi +
           diff_zdiv_c((a[0] - a[-kk]) * dzhi[k], (a[kk] - a[0]) * dzhi[k + 1], k, dzi, rho, rhoh);
}
// Laplacian of w (half levels in z).
template <typename T>
SQ_HD T laplace_zh(const T* a, int jj, int kk, int k, T dxi, T dyi, const T* dzi, const T* dzhi,
                   const T* rho, const T* rhoh) {
    return (a[1] - T(2) * a[0] + a[-1]) * dxi * dxi + (a[jj] - T(2) * a[0] + a[-jj]) * dyi * dyi +
           diff_zdiv_w((a[0] - a[-kk]) * dzi[k - 1], (a[kk] - a[0]) * dzi[k], k, dzhi, rho, rhoh);
}

// DiffU2, DiffV2 and DiffC2 are the same Laplacian (u, v and scalars are all centred in z);
// they are separate structs so that each has its own kernel name.
// Constant-viscosity diffusion of a variable whose vertical position is the cell centre
// (u, v and scalars share the stencil). Tag only names the kernel, so that each variable
// keeps its own wisdom and capture key.
template <typename T, class Tag>
struct DiffZc2 {
    static constexpr const char* name = Tag::name;
    T* SQ_RESTRICT at;
    const T* SQ_RESTRICT a;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, K;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(at), sq::Use::inout).field(SQ_ARG(a));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(K), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD T value(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        return K * laplace_zc(a + ijk, jj, kk, k, dxi, dyi, dzi, dzhi, rho, rhoh);
    }
    SQ_HD void store(int i, int j, int k, T val) const { at[index3(i, j, k, jj, kk)] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};
struct DiffU2Name {
    static constexpr const char* name = "diff_u_2";
};
struct DiffV2Name {
    static constexpr const char* name = "diff_v_2";
};
struct DiffC2Name {
    static constexpr const char* name = "diff_c_2";
};
template <typename T>
using DiffU2 = DiffZc2<T, DiffU2Name>;
template <typename T>
using DiffV2 = DiffZc2<T, DiffV2Name>;
template <typename T>
using DiffC2 = DiffZc2<T, DiffC2Name>;

template <typename T>
struct DiffW2 {
    static constexpr const char* name = "diff_w_2";
    static constexpr Traits traits{.on_w_levels = true};
    T* SQ_RESTRICT at;
    const T* SQ_RESTRICT a;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, K;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(at), sq::Use::inout).field(SQ_ARG(a));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(K), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD T value(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        return K * laplace_zh(a + ijk, jj, kk, k, dxi, dyi, dzi, dzhi, rho, rhoh);
    }
    SQ_HD void store(int i, int j, int k, T val) const { at[index3(i, j, k, jj, kk)] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// ---- diffusion number (reductions: return the point value, max-reduce, times dt) ----

template <typename T>
struct DnSmag {
    static constexpr const char* name = "dn_smag";
    const T* SQ_RESTRICT evisc;
    const T* SQ_RESTRICT dzi;
    T dxi, dyi, prandtl_t;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(evisc)).profile(SQ_ARG(dzi));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(prandtl_t), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD T operator()(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        return evisc[ijk] / min_(T(1), prandtl_t) * (dxi * dxi + dyi * dyi + dzi[k] * dzi[k]);
    }
};

template <typename T>
struct DnConst {
    static constexpr const char* name = "dn_const";
    T K;
    const T* SQ_RESTRICT dzi;
    T dxi, dyi;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.scalar(SQ_ARG(K)).profile(SQ_ARG(dzi)).scalars(SQ_ARG(dxi), SQ_ARG(dyi));
    }

    SQ_HD T operator()(int, int, int k) const {
        return K * (dxi * dxi + dyi * dyi + dzi[k] * dzi[k]);
    }
};

// Every kernel of this header (tests and benchmarks iterate over them).
using DiffKernels = KernelList<Strain2, EviscSmag, DiffUSmag, DiffVSmag, DiffWSmag, DiffCSmag,
                               DiffU2, DiffV2, DiffC2, DiffW2, DnSmag, DnConst>;

} // namespace sq
