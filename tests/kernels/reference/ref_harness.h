#pragma once
// Harness that runs a per-point kernel struct from kernels/*.cuh over a range of points and
// compares its output with a reference (ref_numerics.h) on every cell of the array: inside the
// range within a relative tolerance, outside the range exactly (the kernel must not write
// anywhere else). Inputs for T = float are rounded to float first, so both sides see the
// same data and only the arithmetic differs. (The GPU backend's tests compare the device
// with the CPU path instead: tests/backends/cuda/gpu_harness.h.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "ref_numerics.h"

namespace sqtest {

using sqref::RefGrid;
using sqref::Vec;

template <typename T>
constexpr double tolerance() {
    return sizeof(T) == sizeof(double) ? 1e-12 : 1e-5;
}

// A constant as the kernel sees it (rounded to T).
template <typename T>
double as_t(double x) {
    return double(T(x));
}

// Random inputs shared by all comparisons (fixed seeds; ghost cells included).
struct Inputs {
    RefGrid g;
    Vec u, v, w, s, th, evisc, strain2, p, ut, vt, wt, tend0;
    Vec fluxbot, fluxtop; // ij arrays
};

template <typename T>
Inputs make_inputs() {
    using namespace sqref;
    Inputs in;
    in.g = make_ref_grid(GridSpec{});
    const RefGrid& g = in.g;
    in.u = random_field(g, -1, 1, 101);
    in.v = random_field(g, -1, 1, 102);
    in.w = random_field(g, -1, 1, 103);
    zero_w_walls(g, in.w);
    in.s = random_field(g, -2, 2, 104);
    in.th = random_field(g, 290, 310, 105);
    in.evisc = random_field(g, 0.05, 0.5, 106);
    in.strain2 = random_field(g, 0.01, 10, 107);
    in.p = random_field(g, -1, 1, 108);
    in.ut = random_field(g, -1, 1, 109);
    in.vt = random_field(g, -1, 1, 110);
    in.wt = random_field(g, -1, 1, 111);
    in.tend0 = random_field(g, -1, 1, 112);
    in.fluxbot = random_plane(g, -0.5, 0.5, 113);
    in.fluxtop = random_plane(g, -0.5, 0.5, 114);
    if constexpr (sizeof(T) == sizeof(float)) {
        round_to_float(in.g);
        for (Vec* a : {&in.u, &in.v, &in.w, &in.s, &in.th, &in.evisc, &in.strain2, &in.p, &in.ut,
                       &in.vt, &in.wt, &in.tend0, &in.fluxbot, &in.fluxtop})
            round_to_float(*a);
    }
    return in;
}

template <typename T>
std::vector<T> to_t(const Vec& a) {
    std::vector<T> out(a.size());
    std::transform(a.begin(), a.end(), out.begin(), [](double x) { return T(x); });
    return out;
}

// Vertical metrics and horizontal spacings converted once for the kernel structs.
template <typename T>
struct Metrics {
    std::vector<T> z, zh, dz, dzh, dzi, dzhi, rho, rhoh;
    T dx, dy, dxi, dyi;
    int jj, kk;
    explicit Metrics(const RefGrid& g)
        : z(to_t<T>(g.z)), zh(to_t<T>(g.zh)), dz(to_t<T>(g.dz)), dzh(to_t<T>(g.dzh)),
          dzi(to_t<T>(g.dzi)), dzhi(to_t<T>(g.dzhi)), rho(to_t<T>(g.rho)), rhoh(to_t<T>(g.rhoh)),
          dx(T(g.dx)), dy(T(g.dy)), dxi(T(g.dxi)), dyi(T(g.dyi)), jj(g.icells), kk(g.ijcells) {}
};

// Call the kernel for every interior (i, j) and k0 <= k < k1.
template <class K>
void run_kernel(const K& kn, const RefGrid& g, int k0, int k1) {
    for (int k = k0; k < k1; ++k)
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i) kn(i, j, k);
}

// Values returned by a reduction functor at every interior point with k0 <= k < k1.
template <class K>
Vec run_reduction(const K& kn, const RefGrid& g, int k0, int k1) {
    Vec out(g.ncells, 0.0);
    for (int k = k0; k < k1; ++k)
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i) out[g.idx(i, j, k)] = double(kn(i, j, k));
    return out;
}

// Expected array for a kernel that adds (base = initial tendency) or writes (base = initial
// array, contribution replaces it inside [k0, k1)).
inline Vec expect_added(const Vec& base, const Vec& contribution) {
    Vec e(base.size());
    for (size_t n = 0; n < e.size(); ++n) e[n] = double((long double)base[n] + contribution[n]);
    return e;
}
inline Vec expect_written(const RefGrid& g, const Vec& base, const Vec& values, int k0, int k1) {
    Vec e = base;
    for (int k = k0; k < k1; ++k)
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i) e[g.idx(i, j, k)] = values[g.idx(i, j, k)];
    return e;
}

struct Comparison {
    double rel = 0;        // max |got - expect| in range / max |expect - base| in range
    double scale = 0;      // max |expect - base| in range
    long outside_diff = 0; // cells outside the range that differ from the expectation
    long nonfinite = 0;
    int wi = -1, wj = -1, wk = -1; // worst point
    double got_w = 0, exp_w = 0;
    std::vector<double> err_by_k; // max abs error per level (for near-wall diagnostics)
    std::string report(const char* name) const {
        std::ostringstream o;
        o.precision(17);
        o << name << ": rel " << rel << " (scale " << scale << "), worst at (i,j,k)=(" << wi << ","
          << wj << "," << wk << ") got " << got_w << " expect " << exp_w << "; outside-range diffs "
          << outside_diff << ", non-finite " << nonfinite << "; max abs error by k:";
        for (size_t k = 0; k < err_by_k.size(); ++k) o << " [" << k << "] " << err_by_k[k];
        return o.str();
    }
};

template <typename T>
Comparison compare(const RefGrid& g, const std::vector<T>& got, const Vec& expect, const Vec& base,
                   int k0, int k1) {
    Comparison c;
    c.err_by_k.assign(g.kcells, 0.0);
    double max_err = 0;
    for (int k = 0; k < g.kcells; ++k)
        for (int j = 0; j < g.jcells; ++j)
            for (int i = 0; i < g.icells; ++i) {
                const int n = g.idx(i, j, k);
                const double gv = double(got[n]), ev = expect[n];
                if (!std::isfinite(gv)) ++c.nonfinite;
                const bool inside =
                    k >= k0 && k < k1 && i >= g.istart && i < g.iend && j >= g.jstart && j < g.jend;
                if (!inside) {
                    if (gv != double(T(ev))) ++c.outside_diff;
                    continue;
                }
                const double err = std::fabs(gv - ev);
                c.scale = std::max(c.scale, std::fabs(ev - base[n]));
                c.err_by_k[k] = std::max(c.err_by_k[k], err);
                if (err > max_err || c.wi < 0) {
                    max_err = err;
                    c.wi = i, c.wj = j, c.wk = k, c.got_w = gv, c.exp_w = ev;
                }
            }
    c.rel = c.scale > 0 ? max_err / c.scale : max_err;
    return c;
}

// The standard assertion: everything in range within tolerance, nothing else touched.
#define SQ_EXPECT_MATCH(T, cmp, name)                                                              \
    do {                                                                                           \
        const ::sqtest::Comparison& c_ = (cmp);                                                    \
        std::printf("  %-28s %-6s max rel error %.3e\n", (name),                                   \
                    sizeof(T) == 8 ? "double" : "float", c_.rel);                                  \
        EXPECT_GT(c_.scale, 0.0) << (name) << ": reference is identically zero";                   \
        EXPECT_LT(c_.rel, ::sqtest::tolerance<T>()) << c_.report(name);                            \
        EXPECT_EQ(c_.outside_diff, 0) << c_.report(name);                                          \
        EXPECT_EQ(c_.nonfinite, 0) << c_.report(name);                                             \
    } while (0)

} // namespace sqtest
