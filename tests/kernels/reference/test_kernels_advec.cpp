// Advection kernels (kernels/advec.cuh) against the independent reference, on a random
// non-cubic 24 x 20 x 16 stretched grid with non-uniform density, near-wall levels included;
// plus kernel conservation checks and mutation checks of the harness itself.
#include "kernels/advec.cuh"

#include "ref_harness.h"

using namespace sqtest;
using sqref::Loc;

namespace {

template <typename T>
class AdvecKernels : public ::testing::Test {};
using Precisions = ::testing::Types<double, float>;
TYPED_TEST_SUITE(AdvecKernels, Precisions);

struct Velocity {
    const Vec &u, &v, &w;
};

// Run advection kernel K (for a variable at loc, advected quantity phi) over its range,
// adding into a copy of tend0. perturb >= 0 changes the kernel's copy of phi at that cell.
template <template <typename> class K, typename T>
std::vector<T> run_advec(const RefGrid& g, Loc loc, const Vec& phi, Velocity vel, const Vec& tend0,
                         int perturb = -1) {
    const Metrics<T> m(g);
    std::vector<T> u = to_t<T>(vel.u), v = to_t<T>(vel.v), w = to_t<T>(vel.w), s = to_t<T>(phi);
    std::vector<T>& p = loc == Loc::U ? u : loc == Loc::V ? v : loc == Loc::W ? w : s;
    if (perturb >= 0) p[perturb] += T(1e-3);
    std::vector<T> out = to_t<T>(tend0);
    K<T> kn{};
    kn.u = u.data();
    kn.v = v.data();
    kn.w = w.data();
    kn.rho = m.rho.data();
    kn.rhoh = m.rhoh.data();
    kn.dxi = m.dxi;
    kn.dyi = m.dyi;
    kn.jj = m.jj;
    kn.kk = m.kk;
    if constexpr (requires { kn.st; }) { // scalar kernels name their output st
        kn.st = out.data();
        kn.s = s.data();
    } else { // a velocity component's: tend
        kn.tend = out.data();
    }
    if constexpr (requires { kn.dzhi; }) kn.dzhi = m.dzhi.data(); // w's levels
    if constexpr (requires { kn.dzi; }) kn.dzi = m.dzi.data();
    if constexpr (requires { kn.kstart; }) { // 2i5 kernels
        kn.kstart = g.kstart;
        kn.kend = g.kend;
    }
    run_kernel(kn, g, loc == Loc::W ? g.kstart + 1 : g.kstart, g.kend);
    return out;
}

const Vec& phi_of(const Inputs& in, Loc loc) {
    return loc == Loc::U ? in.u : loc == Loc::V ? in.v : loc == Loc::W ? in.w : in.s;
}

template <template <typename> class K, typename T>
Comparison check_advec(const Inputs& in, Loc loc, const Vec& ref, int perturb = -1) {
    const RefGrid& g = in.g;
    const auto out =
        run_advec<K, T>(g, loc, phi_of(in, loc), {in.u, in.v, in.w}, in.tend0, perturb);
    const int k0 = loc == Loc::W ? g.kstart + 1 : g.kstart;
    return compare(g, out, expect_added(in.tend0, ref), in.tend0, k0, g.kend);
}

enum class Scheme { two, two_i5 };

// Kernel K advects the variable at L with scheme S: compare it with the reference in T.
template <template <typename> class K, Loc L, Scheme S, typename T>
void expect_advec_match() {
    const Inputs in = make_inputs<T>();
    const Vec& phi = phi_of(in, L);
    const Vec ref = S == Scheme::two ? sqref::ref_advec_2(in.g, L, phi, in.u, in.v, in.w)
                                     : sqref::ref_advec_2i5(in.g, L, phi, in.u, in.v, in.w);
    SQ_EXPECT_MATCH(T, (check_advec<K, T>(in, L, ref)), K<T>::name);
}

// One row of the comparison table: a kernel in one precision.
struct AdvecRow {
    std::string name;
    void (*expect_match)();
};
// Printed by name: the ctest names end with it.
void PrintTo(const AdvecRow& row, std::ostream* os) {
    *os << row.name;
}

template <template <typename> class K, Loc L, Scheme S>
void add_rows(std::vector<AdvecRow>& rows) {
    rows.push_back(
        {std::string(K<double>::name) + "_double", &expect_advec_match<K, L, S, double>});
    rows.push_back({std::string(K<float>::name) + "_float", &expect_advec_match<K, L, S, float>});
}

std::vector<AdvecRow> advec_rows() {
    std::vector<AdvecRow> rows;
    add_rows<sq::AdvecU2, Loc::U, Scheme::two>(rows);
    add_rows<sq::AdvecV2, Loc::V, Scheme::two>(rows);
    add_rows<sq::AdvecW2, Loc::W, Scheme::two>(rows);
    add_rows<sq::AdvecS2, Loc::S, Scheme::two>(rows);
    add_rows<sq::AdvecU2i5, Loc::U, Scheme::two_i5>(rows);
    add_rows<sq::AdvecV2i5, Loc::V, Scheme::two_i5>(rows);
    add_rows<sq::AdvecW2i5, Loc::W, Scheme::two_i5>(rows);
    add_rows<sq::AdvecS2i5, Loc::S, Scheme::two_i5>(rows);
    return rows;
}

class AdvecReference : public ::testing::TestWithParam<AdvecRow> {};

// max over columns/domain of |sum of terms| / sum of |terms|.
struct SumCheck {
    long double sum = 0, mag = 0;
    void add(long double term) {
        sum += term;
        mag += term < 0 ? -term : term;
    }
    double rel(long double expect = 0) const { return double(std::fabs(sum - expect) / mag); }
};

} // namespace

// Every advection kernel against the reference, near-wall levels included.
TEST_P(AdvecReference, MatchesReference) {
    GetParam().expect_match();
}
INSTANTIATE_TEST_SUITE_P(Kernels, AdvecReference, ::testing::ValuesIn(advec_rows()));

// Mutation check of the harness: a 1e-3 change of one kernel input next to the wall must be
// caught, and located near that point.
TYPED_TEST(AdvecKernels, HarnessDetectsPerturbedNearWallInput) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Vec ref = sqref::ref_advec_2i5(g, Loc::U, in.u, in.u, in.v, in.w);
    const int kp = g.kstart + 1, ip = 7, jp = 11;
    const Comparison c = check_advec<sq::AdvecU2i5, T>(in, Loc::U, ref, g.idx(ip, jp, kp));
    EXPECT_GT(c.rel, 10 * tolerance<T>()) << c.report("perturbed AdvecU2i5");
    EXPECT_LE(std::abs(c.wk - kp), 2);
    EXPECT_LE(std::abs(c.wi - ip), 3);
    EXPECT_LE(std::abs(c.wj - jp), 3);
}

// Mutation check of the near-wall order: a reference that gives one near-wall face another
// flux order must disagree with the kernel, and only in the two cells sharing that face (so the
// comparison really pins the table down, at both walls and for centred and half-level cells).
TYPED_TEST(AdvecKernels, WrongNearWallOrderIsDetected) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    struct Mutation {
        Loc loc;
        int face, order;
    };
    const Mutation mutations[] = {{Loc::S, g.kstart + 2, 2}, {Loc::S, g.kstart + 2, 5},
                                  {Loc::S, g.kend - 2, 2},   {Loc::S, g.kend - 1, 3},
                                  {Loc::W, g.kstart + 2, 5}, {Loc::W, g.kstart + 1, 3},
                                  {Loc::W, g.kend - 1, 2}};
    for (const Mutation& mu : mutations) {
        auto zorder = [&](int m) {
            return m == mu.face ? mu.order : sqref::order_2i5_z(mu.loc, m, g.kstart, g.kend);
        };
        const Vec& phi = mu.loc == Loc::W ? in.w : in.s;
        const Vec bad = sqref::ref_advec_2i5(g, mu.loc, phi, in.u, in.v, in.w, zorder);
        const Comparison c = mu.loc == Loc::W ? check_advec<sq::AdvecW2i5, T>(in, mu.loc, bad)
                                              : check_advec<sq::AdvecS2i5, T>(in, mu.loc, bad);
        const std::string what = "face " + std::to_string(mu.face) + " order " +
                                 std::to_string(mu.order) + (mu.loc == Loc::W ? " (w)" : " (s)");
        EXPECT_GT(c.rel, 10 * tolerance<T>()) << what << ": " << c.report("mutated reference");
        for (int k = 0; k < g.kcells; ++k)
            if (k != mu.face - 1 && k != mu.face) {
                EXPECT_LT(c.err_by_k[k], tolerance<T>() * c.scale) << what << " level " << k;
            }
    }
}

// Vertical advection only (u = v = 0): the column sum of st rho dz must vanish when w = 0 at
// both walls, since every interior face flux enters once with each sign (wall consistency).
TYPED_TEST(AdvecKernels, ColumnConservationScalar) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Vec zero(g.ncells, 0.0);
    for (int scheme = 0; scheme < 2; ++scheme) {
        const auto st = scheme
                            ? run_advec<sq::AdvecS2i5, T>(g, Loc::S, in.s, {zero, zero, in.w}, zero)
                            : run_advec<sq::AdvecS2, T>(g, Loc::S, in.s, {zero, zero, in.w}, zero);
        double worst = 0;
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i) {
                SumCheck c;
                for (int k = g.kstart; k < g.kend; ++k)
                    c.add((long double)st[g.idx(i, j, k)] * g.rho[k] * g.dz[k]);
                ASSERT_GT(c.mag, 0);
                worst = std::max(worst, c.rel());
            }
        EXPECT_LT(worst, 20 * tolerance<T>()) << (scheme ? "AdvecS2i5" : "AdvecS2");
    }
}

// w is not conserved in a closed column (the walls push), but its column sum must telescope
// to the two outermost fluxes, which sit on the centres kstart and kend-1 and are F2 there:
// sum_k wt rhoh dzh = rho[kstart] F2(kstart) - rho[kend-1] F2(kend-1), F2 = interp2(w)^2.
TYPED_TEST(AdvecKernels, ColumnTelescopingW2i5) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Vec zero(g.ncells, 0.0);
    const auto wt = run_advec<sq::AdvecW2i5, T>(g, Loc::W, in.w, {zero, zero, in.w}, zero);
    double worst = 0;
    for (int j = g.jstart; j < g.jend; ++j)
        for (int i = g.istart; i < g.iend; ++i) {
            SumCheck c;
            for (int k = g.kstart + 1; k < g.kend; ++k)
                c.add((long double)wt[g.idx(i, j, k)] * g.rhoh[k] * g.dzh[k]);
            auto f2 = [&](int kc) {
                const long double wc =
                    ((long double)in.w[g.idx(i, j, kc)] + in.w[g.idx(i, j, kc + 1)]) / 2;
                return wc * wc;
            };
            worst = std::max(
                worst, c.rel(g.rho[g.kstart] * f2(g.kstart) - g.rho[g.kend - 1] * f2(g.kend - 1)));
        }
    EXPECT_LT(worst, 20 * tolerance<T>());
}

// Whole-domain conservation of u, v and s with periodic ghost cells, all directions at once.
TYPED_TEST(AdvecKernels, PeriodicDomainConservation) {
    using T = TypeParam;
    Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    for (Vec* a : {&in.u, &in.v, &in.w, &in.s}) sqref::fill_periodic_xy(g, *a);
    const Vec zero(g.ncells, 0.0);
    const Velocity vel{in.u, in.v, in.w};
    auto domain_rel = [&](const std::vector<T>& t) {
        SumCheck c;
        for (int k = g.kstart; k < g.kend; ++k)
            for (int j = g.jstart; j < g.jend; ++j)
                for (int i = g.istart; i < g.iend; ++i)
                    c.add((long double)t[g.idx(i, j, k)] * g.rho[k] * g.dz[k]);
        return c.rel();
    };
    const double tol = 20 * tolerance<T>();
    EXPECT_LT(domain_rel(run_advec<sq::AdvecU2, T>(g, Loc::U, in.u, vel, zero)), tol);
    EXPECT_LT(domain_rel(run_advec<sq::AdvecV2, T>(g, Loc::V, in.v, vel, zero)), tol);
    EXPECT_LT(domain_rel(run_advec<sq::AdvecS2, T>(g, Loc::S, in.s, vel, zero)), tol);
    EXPECT_LT(domain_rel(run_advec<sq::AdvecU2i5, T>(g, Loc::U, in.u, vel, zero)), tol);
    EXPECT_LT(domain_rel(run_advec<sq::AdvecV2i5, T>(g, Loc::V, in.v, vel, zero)), tol);
    EXPECT_LT(domain_rel(run_advec<sq::AdvecS2i5, T>(g, Loc::S, in.s, vel, zero)), tol);
}
