// Floating-point operations per point of the momentum kernel (tend_uvw_2i5_smag), counted on
// the host: the kernel instantiated on a number type that counts every add, multiply,
// divide, square root, compare and |x| it executes. Per point in the interior (levels away
// from the walls), as the per-point function computes it (value_with: both z faces of each
// component) and as the planes march computes it under plane_carry (the faces above the
// level only; the faces below come from the level beneath). A fused multiply-add counts as
// its multiply and its add: the counts are the source's operations, before the compiler
// contracts any. Not a timing; no GPU.
//
//   bench/fp_ops            prints one line per form, and the saving
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
using K = sq::TendUVW2i5Smag<Num>;

// A small grid with every field random and the sponge off, the surface fluxes given.
struct Case {
    int itot = 16, jtot = 16, ktot = 32, gc = 3;
    int jj = itot + 2 * gc, kk = jj * (jtot + 2 * gc), nlev = ktot + 2 * gc;
    std::vector<std::vector<Num>> arrays;
    const Num* array(size_t n, double lo, double hi, std::mt19937& rng) {
        std::uniform_real_distribution<double> d(lo, hi);
        std::vector<Num> a(n);
        for (Num& x : a) x = Num(d(rng));
        arrays.push_back(std::move(a));
        return arrays.back().data();
    }
    K kernel() {
        std::mt19937 rng(7);
        const size_t n3 = size_t(kk) * size_t(nlev), n2 = size_t(kk), nz = size_t(nlev);
        auto out = [&] { return const_cast<Num*>(array(n3, -1, 1, rng)); };
        auto field = [&](double lo, double hi) { return array(n3, lo, hi, rng); };
        auto profile = [&](double lo, double hi) { return array(nz, lo, hi, rng); };
        return {.ut = out(),
                .vt = out(),
                .wt = out(),
                .u = field(-2, 2),
                .v = field(-2, 2),
                .w = field(-1, 1),
                .evisc = field(0, 1),
                .th = field(299, 301),
                .dzi = profile(0.5, 1),
                .dzhi = profile(0.5, 1),
                .rho = profile(1, 1.2),
                .rhoh = profile(1, 1.2),
                .dxi = Num(0.8),
                .dyi = Num(0.8),
                .nu = Num(1e-5),
                .g_over_thref = Num(9.81 / 300),
                .thref = Num(300),
                .ufluxbot = array(n2, -0.1, 0.1, rng),
                .ufluxtop = nullptr,
                .vfluxbot = array(n2, -0.1, 0.1, rng),
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
};

counted::Ops since(const counted::Ops& a) {
    const counted::Ops& b = counted::ops;
    return {b.add - a.add,   b.mul - a.mul, b.div - a.div,
            b.sqrt - a.sqrt, b.cmp - a.cmp, b.abs - a.abs};
}

void print(const char* what, const counted::Ops& o) {
    std::printf("%-34s %4ld  (add/sub %ld, mul %ld, div %ld, sqrt %ld, compare %ld, abs %ld)\n",
                what, o.total(), o.add, o.mul, o.div, o.sqrt, o.cmp, o.abs);
}

} // namespace

int main() {
    Case c;
    const K f = c.kernel();
    const auto in = [](int, const Num* p) { return p; };
    const int i = c.gc + c.itot / 2, j = c.gc + c.jtot / 2, k = c.gc + c.ktot / 2;

    counted::Ops start = counted::ops;
    const K::Terms both = f.value_with(in, i, j, k);
    const counted::Ops per_point = since(start);

    const K::ZFaces lo = f.z_faces_with(in, i, j, k, 0);
    start = counted::ops;
    const K::ZFaces hi = f.z_faces_with(in, i, j, k, 1);
    const K::Terms carried = f.value_with_z(in, i, j, k, lo, hi);
    const counted::Ops per_level = since(start);

    // The two forms must agree bit for bit, or the counts compare different arithmetic.
    const bool same = both.advec.u.v == carried.advec.u.v && both.advec.v.v == carried.advec.v.v &&
                      both.advec.w.v == carried.advec.w.v && both.diff.u.v == carried.diff.u.v &&
                      both.diff.v.v == carried.diff.v.v && both.diff.w.v == carried.diff.w.v;
    std::printf("tend_uvw_2i5_smag, floating-point operations per interior point\n");
    print("per point (both z faces)", per_point);
    print("planes march, z faces carried", per_level);
    std::printf("saved: %.1f %%%s\n",
                100.0 * double(per_point.total() - per_level.total()) / double(per_point.total()),
                same ? "" : "  (the two forms DIFFER: counts not comparable)");
    return same ? 0 : 1;
}
