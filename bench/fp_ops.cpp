// Floating-point operations per point of the fused 2i5 tendency kernels (tend_uvw_2i5_smag,
// tend_s_2i5_smag), counted on the host: the kernel instantiated on a number type that
// counts every add, multiply, divide, square root, compare and |x| it executes. Per point in
// the interior (levels away from the walls), as the per-point function computes it
// (value_with: both z faces of each component) and as the planes march computes it under
// plane_carry (the faces above the level only; the faces below come from the level
// beneath). A fused multiply-add counts as its multiply and its add, and an expression the
// compiler could share between two terms counts twice: the counts are the source's
// operations. Not a timing; no GPU.
//
//   bench/fp_ops            prints, per kernel, one line per form and the saving
#include "kernels/tend_fused.cuh"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace counted {

// Every operation on a Num adds one to its counter.
struct Ops {
    long add = 0, mul = 0, div = 0, sqrt = 0, cmp = 0, abs = 0;
    long total() const { return add + mul + div + sqrt + cmp + abs; }
};
inline Ops ops;

struct Num {
    double v = 0;
    constexpr Num() = default;
    constexpr Num(double x) : v(x) {} // NOLINT: the kernels write T(0.5)
};
inline Num operator+(Num a, Num b) {
    return ++ops.add, Num(a.v + b.v);
}
inline Num operator-(Num a, Num b) {
    return ++ops.add, Num(a.v - b.v);
}
inline Num operator-(Num a) {
    return Num(-a.v);
} // a sign flip is free (operand modifier)
inline Num operator*(Num a, Num b) {
    return ++ops.mul, Num(a.v * b.v);
}
inline Num operator/(Num a, Num b) {
    return ++ops.div, Num(a.v / b.v);
}
inline Num& operator+=(Num& a, Num b) {
    return a = a + b;
}
inline Num& operator-=(Num& a, Num b) {
    return a = a - b;
}
inline bool operator<(Num a, Num b) {
    return ++ops.cmp, a.v < b.v;
}
inline bool operator>(Num a, Num b) {
    return ++ops.cmp, a.v > b.v;
}
inline Num abs_(Num a) {
    return ++ops.abs, Num(std::fabs(a.v));
}
inline Num sqrt_(Num a) {
    return ++ops.sqrt, Num(std::sqrt(a.v));
}

} // namespace counted

namespace {

using counted::Num;
using Momentum = sq::TendUVW2i5Smag<Num>;
using Scalar = sq::TendS2i5Smag<Num>;

// Random fields on a small grid, the sponge off, the surface fluxes given. The velocities,
// evisc and the grid's metrics are shared by both kernels.
struct Case {
    int itot = 16, jtot = 16, ktot = 32, gc = 3;
    int jj = itot + 2 * gc, kk = jj * (jtot + 2 * gc), nlev = ktot + 2 * gc;
    std::mt19937 rng{7};
    std::vector<std::vector<Num>> arrays;
    Num* array(size_t n, double lo, double hi) {
        std::uniform_real_distribution<double> d(lo, hi);
        std::vector<Num> a(n);
        for (Num& x : a) x = Num(d(rng));
        arrays.push_back(std::move(a));
        return arrays.back().data();
    }
    Num* field(double lo, double hi) { return array(size_t(kk) * size_t(nlev), lo, hi); }
    Num* profile(double lo, double hi) { return array(size_t(nlev), lo, hi); }
    Num* plane() { return array(size_t(kk), -0.1, 0.1); }
    const Num *u = field(-2, 2), *v = field(-2, 2), *w = field(-1, 1), *evisc = field(0, 1);
    const Num *dzi = profile(0.5, 1), *dzhi = profile(0.5, 1), *rho = profile(1, 1.2),
              *rhoh = profile(1, 1.2);
    const Num dxi = Num(0.8), dyi = Num(0.8);

    Momentum momentum() {
        return {.ut = field(-1, 1),
                .vt = field(-1, 1),
                .wt = field(-1, 1),
                .u = u,
                .v = v,
                .w = w,
                .evisc = evisc,
                .th = field(299, 301),
                .dzi = dzi,
                .dzhi = dzhi,
                .rho = rho,
                .rhoh = rhoh,
                .dxi = dxi,
                .dyi = dyi,
                .nu = Num(1e-5),
                .g_over_thref = Num(9.81 / 300),
                .thref = Num(300),
                .ufluxbot = plane(),
                .ufluxtop = nullptr,
                .vfluxbot = plane(),
                .vfluxtop = nullptr,
                .sponge_coef = nullptr,
                .uref = nullptr,
                .vref = nullptr,
                .sponge_kstart = 0,
                .kstart = gc,
                .kend = gc + ktot,
                .jj = jj,
                .kk = kk,
                .first_stage = 0};
    }
    // With the RK stage at once (scalar_stage), as the model runs it.
    Scalar scalar() {
        return {.st = field(-1, 1),
                .s = field(299, 301),
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
                .prandtl_t_inv = Num(3),
                .kappa = Num(1e-5),
                .fluxbot = plane(),
                .fluxtop = nullptr,
                .sponge_coef = nullptr,
                .sref = nullptr,
                .sponge_kstart = 0,
                .kstart = gc,
                .kend = gc + ktot,
                .jj = jj,
                .kk = kk,
                .s_next = field(0, 1),
                .b_dt = Num(0.5),
                .a_next = Num(-0.5),
                .first_stage = 0,
                .drop_tendency = 0};
    }
};

counted::Ops since(const counted::Ops& a) {
    const counted::Ops& b = counted::ops;
    return {b.add - a.add,   b.mul - a.mul, b.div - a.div,
            b.sqrt - a.sqrt, b.cmp - a.cmp, b.abs - a.abs};
}

void print(const char* what, const counted::Ops& o) {
    std::printf("  %-32s %4ld  (add/sub %ld, mul %ld, div %ld, sqrt %ld, compare %ld, abs %ld)\n",
                what, o.total(), o.add, o.mul, o.div, o.sqrt, o.cmp, o.abs);
}

// The operations at an interior point of f: per point (value_with), and per level of a
// march that carries the z faces (the faces above, then value_with_z). False when the two
// forms' results differ, as the counts then compare different arithmetic.
template <class K, class Same>
bool count(const char* name, const K& f, const Case& c, const Same& same) {
    const auto in = [](int, const Num* p) { return p; };
    const int i = c.gc + c.itot / 2, j = c.gc + c.jtot / 2, k = c.gc + c.ktot / 2;
    counted::Ops start = counted::ops;
    const typename K::Terms both = f.value_with(in, i, j, k);
    const counted::Ops per_point = since(start);
    const typename K::ZFaces lo = f.z_faces_with(in, i, j, k, 0);
    start = counted::ops;
    const typename K::ZFaces hi = f.z_faces_with(in, i, j, k, 1);
    const typename K::Terms carried = f.value_with_z(in, i, j, k, lo, hi);
    const counted::Ops per_level = since(start);
    const bool ok = same(both, carried);
    std::printf("%s, floating-point operations per interior point\n", name);
    print("per point (both z faces)", per_point);
    print("planes march, z faces carried", per_level);
    std::printf("  saved: %.1f %%%s\n",
                100.0 * double(per_point.total() - per_level.total()) / double(per_point.total()),
                ok ? "" : "  (the two forms DIFFER: counts not comparable)");
    return ok;
}

} // namespace

int main() {
    Case c;
    const Momentum m = c.momentum();
    const Scalar s = c.scalar();
    const bool momentum_ok = count("tend_uvw_2i5_smag", m, c, [](const auto& a, const auto& b) {
        return a.advec.u.v == b.advec.u.v && a.advec.v.v == b.advec.v.v &&
               a.advec.w.v == b.advec.w.v && a.diff.u.v == b.diff.u.v && a.diff.v.v == b.diff.v.v &&
               a.diff.w.v == b.diff.w.v;
    });
    const bool scalar_ok = count("tend_s_2i5_smag", s, c, [](const auto& a, const auto& b) {
        return a.advec.v == b.advec.v && a.diff.v == b.diff.v;
    });
    return momentum_ok && scalar_ok ? 0 : 1;
}
