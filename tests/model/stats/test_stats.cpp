// Statistics file: means, variances, fluxes and time series of fields with a known
// horizontal structure, read back from the HDF5 file and compared with the analytic
// horizontal averages worked out below; the file layout (dimension scales, attributes);
// error reporting. Appending, restarts, refusals and failures: test_stats_append.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <tuple>

#include "model/stats/stats.h"
#include "stats_test_util.h"

namespace fs = std::filesystem;
using namespace squall;
using stats_test::read_dataset;

namespace {

const double pi = 3.14159265358979323846;

// Amplitudes of the analytic fields; `amp` scales the fluctuations between samples.
struct Fields {
    double au = 1.2, bu = 0.7, A = 0.6;               // u = au + bu z + A sin(2 pi xh/X)
    double cv = -0.4, B = 0.9;                        // v = cv z^2 + B cos(2 pi yh/Y)
    double Wa = 1.3;                                  // w = Wa zh (H - zh) (sin X cos Y + sin X)
    double as = 300, bs = 0.003, c0 = 0.5, c1 = -1.4; // s = as + bs z + (c0 + c1 z) sin X cos Y
    double e0 = 0.02, e1 = 0.05, e2 = 0.01;           // evisc = e0 + e1 z + e2 sin X cos Y
    double e3 = 0.004;                                //   + e3 cos X
    double pa = 5.0, p0 = 0.3, p1 = -0.2;             // p = pa + (p0 + p1 z) sin X cos Y
    double kappa = 1e-3, prt_inv = 3.0, nu = 2e-3;
    double W(double zh) const { return Wa * zh * (1.0 - zh); }
    double C(double z) const { return c0 + c1 * z; }
    double E(double z) const { return e0 + e1 * z; }
    double P(double z) const { return p0 + p1 * z; }
};

template <typename T>
struct State {
    Field3d<T> u, v, w, s, ev, p;
    std::vector<T> fluxbot, ustar, obuk_inv, u_fluxbot, v_fluxbot;
};

template <typename T>
State<T> make_state(const Grid<T>& g, const Fields& f) {
    const GridDims& d = g.d;
    State<T> st{Field3d<T>(d),
                Field3d<T>(d),
                Field3d<T>(d),
                Field3d<T>(d),
                Field3d<T>(d),
                Field3d<T>(d),
                {},
                {},
                {},
                {},
                {}};
    const double X = g.xsize, Y = g.ysize;
    for (int k = 0; k < d.kcells; ++k)
        for (int j = 0; j < d.jcells; ++j)
            for (int i = 0; i < d.icells; ++i) {
                const double x = g.x[i], xh = g.xh[i], y = g.y[j], yh = g.yh[j];
                const double z = g.z[k], zh = g.zh[k];
                const double sx = std::sin(2 * pi * x / X), cy = std::cos(2 * pi * y / Y);
                st.u(i, j, k) = T(f.au + f.bu * z + f.A * std::sin(2 * pi * xh / X));
                st.v(i, j, k) = T(f.cv * z * z + f.B * std::cos(2 * pi * yh / Y));
                st.w(i, j, k) = T(f.W(zh) * (sx * cy + sx));
                st.s(i, j, k) = T(f.as + f.bs * z + f.C(z) * sx * cy);
                st.ev(i, j, k) = T(f.E(z) + f.e2 * sx * cy + f.e3 * std::cos(2 * pi * x / X));
                st.p(i, j, k) = T(f.pa + f.P(z) * sx * cy);
            }
    st.fluxbot.assign(d.nplane(), T(0));
    st.ustar = st.obuk_inv = st.u_fluxbot = st.v_fluxbot = st.fluxbot;
    for (int j = 0; j < d.jcells; ++j)
        for (int i = 0; i < d.icells; ++i) {
            const double sx = std::sin(2 * pi * g.x[i] / X), cy = std::cos(2 * pi * g.y[j] / Y);
            st.fluxbot[i + j * d.jj] = T(0.1 + 0.03 * sx);
            st.ustar[i + j * d.jj] = T(0.3 + 0.05 * sx * cy);
            st.obuk_inv[i + j * d.jj] = T(-0.01 + 0.002 * cy);
            st.u_fluxbot[i + j * d.jj] = T(-0.09 + 0.02 * cy);
            st.v_fluxbot[i + j * d.jj] = T(0.04 + 0.01 * sx);
        }
    return st;
}

template <typename T>
StatsInput<T> input(const State<T>& st, const Fields& f, bool smag, bool surface) {
    StatsInput<T> in;
    in.u = &st.u;
    in.v = &st.v;
    in.w = &st.w;
    in.s = &st.s;
    in.evisc = smag ? &st.ev : nullptr;
    in.p = &st.p;
    in.buoyancy_factor = 9.81 / 300;
    in.kappa = f.kappa;
    in.nu = f.nu;
    in.prandtl_t_inv = f.prt_inv;
    if (surface) {
        in.s_fluxbot = st.fluxbot.data();
        in.u_fluxbot = st.u_fluxbot.data();
        in.v_fluxbot = st.v_fluxbot.data();
        in.ustar = st.ustar.data();
        in.obuk_inv = st.obuk_inv.data();
    }
    in.dt = 0.5;
    in.cfl = 0.8;
    in.dn = 0.1;
    in.div = 1e-14;
    return in;
}

// Analytic horizontal averages of the discrete fields (sums of sin^2 over a full period of
// N >= 3 equally spaced points give N/2; products of different harmonics vanish).
struct Expected {
    std::vector<double> u, v, s, w, u2, v2, s2, w2, s_res, s_sgs, u_res, v_res, u_sgs, v_sgs;
    // The resolved TKE budget: shear production -u'w' dU/dz (dU/dz = bu exactly, v'w' = 0),
    // buoyancy production g/thref w's', pressure transport -d/dz of w'p' at the centres
    // (w interpolated there: Wc P / 4), turbulent transport 0 (every third moment of these
    // harmonics averages out), and the pressure variance P^2 / 4.
    std::vector<double> tke_shear, tke_buoy, tke_pres, tke_turb, p2;
    double ke = 0, s_mean = 0, zi = 0;
};

Expected expected(const Grid<double>& g, const Fields& f, bool smag, bool surface) {
    const GridDims& d = g.d;
    Expected e;
    const double cx = std::cos(pi * g.dx / g.xsize), cyy = std::cos(pi * g.dy / g.ysize);
    double kesum = 0, ssum = 0;
    for (int k = d.kstart; k < d.kend; ++k) {
        const double z = g.z[k];
        e.u.push_back(f.au + f.bu * z);
        e.v.push_back(f.cv * z * z);
        e.s.push_back(f.as + f.bs * z);
        e.u2.push_back(f.A * f.A / 2);
        e.v2.push_back(f.B * f.B / 2);
        e.s2.push_back(f.C(z) * f.C(z) / 4);
        // Centre-interpolated velocities: sin(xh) averaged over a cell is cos(pi dx/X) sin(x).
        const double wc = 0.5 * (f.W(g.zh[k]) + f.W(g.zh[k + 1]));
        const double ke =
            0.5 * (e.u.back() * e.u.back() + f.A * f.A * cx * cx / 2 + e.v.back() * e.v.back() +
                   f.B * f.B * cyy * cyy / 2 + wc * wc * 0.75);
        kesum += g.dz[k] * ke;
        ssum += g.dz[k] * e.s.back();
    }
    e.ke = kesum / g.zsize;
    e.s_mean = ssum / g.zsize;
    std::vector<double> total;
    for (int k = d.kstart; k <= d.kend; ++k) {
        const double W = f.W(g.zh[k]), Cf = 0.5 * (f.C(g.z[k - 1]) + f.C(g.z[k]));
        e.w.push_back(0.0);
        e.w2.push_back(W * W * 0.75);
        e.s_res.push_back(W * Cf / 4);
        e.u_res.push_back(f.A * W * cx / 2); // w interpolated to xh: cos(pi dx/X) sin(xh)
        e.v_res.push_back(0.0);
        // Subgrid momentum fluxes -K (du/dz + dw/dx) on the edges: du/dz = bu and dv/dz =
        // cv (z[k-1] + z[k]) exactly; of evisc's x-structure only e3 cos X correlates with
        // dw/dx (of W sin X): the edge average of cos X is cos(pi dx/X) cos(xh), and dw/dx is
        // 2 W sin(pi dx/X)/dx cos(xh) (the cos Y part averages out).
        if (k == d.kstart && surface) {
            e.u_sgs.push_back(-0.09);
            e.v_sgs.push_back(0.04);
        } else {
            const double ke_bar = (smag ? 0.5 * (f.E(g.z[k - 1]) + f.E(g.z[k])) : 0.0) + f.nu;
            const double sdx = std::sin(pi * g.dx / g.xsize);
            e.u_sgs.push_back(-ke_bar * f.bu -
                              (smag ? f.e3 * cx * f.W(g.zh[k]) * sdx / g.dx : 0.0));
            e.v_sgs.push_back(-ke_bar * f.cv * (g.z[k - 1] + g.z[k]));
        }
        double sgs;
        if (k == d.kstart && surface) {
            sgs = 0.1;
        } else {
            const double dzhi = 1.0 / (g.z[k] - g.z[k - 1]);
            const double kh =
                smag ? 0.5 * (f.E(g.z[k - 1]) + f.E(g.z[k])) * f.prt_inv + f.kappa : f.kappa;
            sgs = -kh * f.bs;
            if (smag) sgs -= f.prt_inv * f.e2 * (f.C(g.z[k]) - f.C(g.z[k - 1])) * dzhi / 4;
        }
        e.s_sgs.push_back(sgs);
        total.push_back(e.s_res.back() + sgs);
    }
    int kmin = 1;
    for (int kf = 1; kf < d.kmax; ++kf)
        if (total[kf] < total[kmin]) kmin = kf;
    e.zi = g.zh[d.kstart + kmin];
    auto wp = [&](int k) { return 0.5 * (f.W(g.zh[k]) + f.W(g.zh[k + 1])) * f.P(g.z[k]) / 4; };
    for (int k = d.kstart; k < d.kend; ++k) e.p2.push_back(f.P(g.z[k]) * f.P(g.z[k]) / 4);
    for (int k = d.kstart; k <= d.kend; ++k) {
        const bool wall = k == d.kstart || k == d.kend;
        const std::size_t n = std::size_t(k - d.kstart);
        e.tke_shear.push_back(wall ? 0.0 : -e.u_res[n] * f.bu);
        e.tke_buoy.push_back(9.81 / 300 * e.s_res[n]);
        e.tke_pres.push_back(wall ? 0.0 : -(wp(k) - wp(k - 1)) / (g.z[k] - g.z[k - 1]));
        e.tke_turb.push_back(0.0);
    }
    return e;
}

void expect_row(const stats_test::Dataset& ds, std::size_t row, const std::vector<double>& ref,
                double tol, const std::string& what) {
    ASSERT_EQ(ds.dims.size(), 2u) << what;
    ASSERT_EQ(ds.dims[1], ref.size()) << what;
    for (std::size_t k = 0; k < ref.size(); ++k)
        EXPECT_NEAR(ds.data[row * ref.size() + k], ref[k], tol * (1 + std::abs(ref[k])))
            << what << " row " << row << " k " << k;
}

std::string tmp_dir() {
    const fs::path p = fs::temp_directory_path() / ("squall_stats_" + std::to_string(getpid()));
    fs::create_directories(p);
    return p.string();
}

// Removes this process's scratch directory after the tests.
struct CleanTmp : ::testing::Environment {
    void TearDown() override { fs::remove_all(tmp_dir()); }
};
const auto* const clean_tmp = ::testing::AddGlobalTestEnvironment(new CleanTmp);

class StatsFile : public ::testing::TestWithParam<std::pair<bool, bool>> {};

TEST_P(StatsFile, AnalyticMeansVariancesAndFluxes) {
    const auto [smag, surface] = GetParam();
    const Config cfg = stats_test::test_config();
    const Grid<double> g = Grid<double>::make(cfg, 1, 1, 0, 0);
    const Decomposition dec = Decomposition::make(MPI_COMM_WORLD, 1, 1);
    // One file per parameter: all four may run in one process.
    const std::string path =
        tmp_dir() + "/analytic_" + std::to_string(smag) + std::to_string(surface) + ".h5";
    const std::string yaml = "grid:\n  itot: 8\n# resolved\n";
    Statistics<double> stats(g, dec, path, yaml, "th", "analytic_case");

    Fields f1, f2;
    f2.A = 0.25, f2.B = 1.5, f2.Wa = 1.1, f2.c0 = -0.6, f2.c1 = 1.4, f2.bs = -0.01;
    f2.e2 = 0.015;
    const State<double> s1 = make_state(g, f1), s2 = make_state(g, f2);
    stats.sample(10.0, 100, input(s1, f1, smag, surface));
    stats.sample(20.5, 250, input(s2, f2, smag, surface));
    stats.write();
    EXPECT_TRUE(fs::exists(path));
    EXPECT_FALSE(fs::exists(path + ".tmp"));

    const double tol = 1e-12;
    const Expected e[2] = {expected(g, f1, smag, surface), expected(g, f2, smag, surface)};
    for (std::size_t r = 0; r < 2; ++r) {
        expect_row(read_dataset(path, "/profiles/u"), r, e[r].u, tol, "u");
        expect_row(read_dataset(path, "/profiles/v"), r, e[r].v, tol, "v");
        expect_row(read_dataset(path, "/profiles/w"), r, e[r].w, tol, "w");
        expect_row(read_dataset(path, "/profiles/th"), r, e[r].s, tol, "th");
        expect_row(read_dataset(path, "/profiles/u2"), r, e[r].u2, tol, "u2");
        expect_row(read_dataset(path, "/profiles/v2"), r, e[r].v2, tol, "v2");
        expect_row(read_dataset(path, "/profiles/w2"), r, e[r].w2, tol, "w2");
        expect_row(read_dataset(path, "/profiles/th2"), r, e[r].s2, tol, "th2");
        expect_row(read_dataset(path, "/profiles/th_flux_res"), r, e[r].s_res, tol, "res");
        expect_row(read_dataset(path, "/profiles/th_flux_sgs"), r, e[r].s_sgs, tol, "sgs");
        std::vector<double> total(e[r].s_res.size());
        for (std::size_t k = 0; k < total.size(); ++k) total[k] = e[r].s_res[k] + e[r].s_sgs[k];
        expect_row(read_dataset(path, "/profiles/th_flux"), r, total, tol, "flux");
        expect_row(read_dataset(path, "/profiles/u_flux_res"), r, e[r].u_res, tol, "u_res");
        expect_row(read_dataset(path, "/profiles/tke_shear"), r, e[r].tke_shear, tol, "shear");
        expect_row(read_dataset(path, "/profiles/tke_buoy"), r, e[r].tke_buoy, tol, "buoy");
        expect_row(read_dataset(path, "/profiles/tke_pres"), r, e[r].tke_pres, tol, "pres");
        expect_row(read_dataset(path, "/profiles/tke_turb"), r, e[r].tke_turb, tol, "turb");
        expect_row(read_dataset(path, "/profiles/p2"), r, e[r].p2, tol, "p2");
        expect_row(read_dataset(path, "/profiles/v_flux_res"), r, e[r].v_res, tol, "v_res");
        expect_row(read_dataset(path, "/profiles/u_flux_sgs"), r, e[r].u_sgs, tol, "u_sgs");
        // Third moment of w: a plain sum over the stored field, level by level, and the
        // skewness from it and the analytic variance (undefined at the walls, where w = 0).
        const State<double>& st = r == 0 ? s1 : s2;
        const GridDims& d = g.d;
        std::vector<double> w3, skew;
        for (int k = d.kstart; k <= d.kend; ++k) {
            double sum = 0, mean = 0;
            for (int j = d.jstart; j < d.jend; ++j)
                for (int i = d.istart; i < d.iend; ++i) mean += st.w(i, j, k);
            mean /= double(d.itot * d.jtot);
            for (int j = d.jstart; j < d.jend; ++j)
                for (int i = d.istart; i < d.iend; ++i) sum += std::pow(st.w(i, j, k) - mean, 3);
            w3.push_back(sum / double(d.itot * d.jtot));
            const double w2 = e[r].w2[std::size_t(k - d.kstart)];
            skew.push_back(w2 > 0 ? w3.back() / std::pow(w2, 1.5) : 0.0);
        }
        expect_row(read_dataset(path, "/profiles/w3"), r, w3, tol, "w3");
        const auto sk = read_dataset(path, "/profiles/w_skew");
        for (std::size_t k = 0; k < skew.size(); ++k) {
            const double got = sk.data[r * skew.size() + k];
            if (e[r].w2[k] > 0)
                EXPECT_NEAR(got, skew[k], 1e-10 * (1 + std::abs(skew[k]))) << "skew " << k;
            else
                EXPECT_TRUE(std::isnan(got)) << "skew at a wall " << k;
        }
        if (smag) {
            std::vector<double> ev;
            for (int k = d.kstart; k < d.kend; ++k) ev.push_back((r == 0 ? f1 : f2).E(g.z[k]));
            expect_row(read_dataset(path, "/profiles/evisc"), r, ev, tol, "evisc");
        } else {
            EXPECT_FALSE(stats.has("evisc"));
        }
        expect_row(read_dataset(path, "/profiles/v_flux_sgs"), r, e[r].v_sgs, tol, "v_sgs");
        std::vector<double> u_total(e[r].u_res.size());
        for (std::size_t k = 0; k < u_total.size(); ++k) u_total[k] = e[r].u_res[k] + e[r].u_sgs[k];
        expect_row(read_dataset(path, "/profiles/u_flux"), r, u_total, tol, "u_flux");
        EXPECT_NEAR(read_dataset(path, "/timeseries/ke").data[r], e[r].ke, tol);
        EXPECT_NEAR(read_dataset(path, "/timeseries/th_mean").data[r], e[r].s_mean, 1e-12 * 300);
        EXPECT_DOUBLE_EQ(read_dataset(path, "/timeseries/zi").data[r], e[r].zi);
        EXPECT_DOUBLE_EQ(read_dataset(path, "/timeseries/cfl").data[r], 0.8);
    }
    // The two samples give different boundary-layer heights (the test can tell them apart).
    EXPECT_NE(e[0].zi, e[1].zi);
    const auto time = read_dataset(path, "/time");
    ASSERT_EQ(time.data.size(), 2u);
    EXPECT_EQ(time.data[0], 10.0);
    EXPECT_EQ(time.data[1], 20.5);
    EXPECT_EQ(read_dataset(path, "/timeseries/step").data[1], 250.0);
    const auto z = read_dataset(path, "/z"), zh = read_dataset(path, "/zh");
    ASSERT_EQ(z.data.size(), 5u);
    ASSERT_EQ(zh.data.size(), 6u);
    EXPECT_DOUBLE_EQ(z.data[2], 0.3);
    EXPECT_DOUBLE_EQ(zh.data[0], 0.0);
    EXPECT_DOUBLE_EQ(zh.data[2], 0.225);
    EXPECT_DOUBLE_EQ(zh.data[5], 1.0);
    if (surface) {
        EXPECT_NEAR(read_dataset(path, "/timeseries/ustar").data[1], 0.3, 1e-14);
        EXPECT_NEAR(read_dataset(path, "/timeseries/obuk_inv").data[0], -0.01, 1e-15);
        EXPECT_NEAR(read_dataset(path, "/timeseries/obuk").data[0], -100.0, 1e-10);
    } else {
        EXPECT_FALSE(stats.has("ustar"));
    }
    EXPECT_EQ(stats_test::read_string_attr(path, "/", "configuration"), yaml);
    EXPECT_EQ(stats_test::read_string_attr(path, "/", "case"), "analytic_case");
}

INSTANTIATE_TEST_SUITE_P(Closures, StatsFile,
                         ::testing::Values(std::pair{false, false}, std::pair{true, false},
                                           std::pair{false, true}, std::pair{true, true}));

TEST(Stats, DimensionScalesAndAttributes) {
    const Config cfg = stats_test::test_config();
    const Grid<double> g = Grid<double>::make(cfg, 1, 1, 0, 0);
    const Decomposition dec = Decomposition::make(MPI_COMM_WORLD, 1, 1);
    const std::string path = tmp_dir() + "/scales.h5";
    Statistics<double> stats(g, dec, path, "a: 1\n", "b");
    Fields f;
    const State<double> st = make_state(g, f);
    stats.sample(1.0, 1, input(st, f, true, true));
    stats.write();
    const std::set<std::string> coords = {
        "/time", "/z", "/zh", "/profiles/time", "/profiles/z", "/profiles/zh", "/timeseries/time"};
    for (const std::string& c : coords) {
        EXPECT_TRUE(stats_test::is_scale(path, c)) << c;
        const std::string name = c.substr(c.rfind('/') + 1);
        EXPECT_EQ(stats_test::read_string_attr(path, c, "axis"), name == "time" ? "T" : "Z") << c;
    }
    EXPECT_EQ(stats_test::read_string_attr(path, "/profiles/zh", "positive"), "up");
    EXPECT_EQ(stats_test::read_string_attr(path, "/", "Conventions"), "CF-1.8");
    EXPECT_FALSE(stats_test::is_scale(path, "/profiles/u"));
    const auto all = stats_test::list_datasets(path);
    int nprof = 0, nseries = 0;
    for (const std::string& p : all) {
        if (coords.count(p)) continue;
        const bool prof = p.rfind("/profiles/", 0) == 0;
        // A group's datasets use that group's coordinates (xarray's group= finds them).
        EXPECT_TRUE(
            stats_test::scale_attached(path, p, prof ? "/profiles/time" : "/timeseries/time", 0))
            << p;
        EXPECT_FALSE(stats_test::read_string_attr(path, p, "units").empty()) << p;
        EXPECT_FALSE(stats_test::read_string_attr(path, p, "long_name").empty()) << p;
        if (prof) {
            ++nprof;
            const auto ds = read_dataset(path, p);
            const bool faces = ds.dims[1] == 6;
            EXPECT_TRUE(
                stats_test::scale_attached(path, p, faces ? "/profiles/zh" : "/profiles/z", 1))
                << p;
            EXPECT_FALSE(
                stats_test::scale_attached(path, p, faces ? "/profiles/z" : "/profiles/zh", 1))
                << p;
            EXPECT_FALSE(stats_test::scale_attached(path, p, "/profiles/time", 1)) << p;
        } else {
            ++nseries;
        }
    }
    // u v w u2 v2 w2 w3 w_skew evisc u/v_flux_res/sgs/total b b2 b_flux_res/sgs/flux
    // tke_shear tke_turb tke_pres tke_buoy p2 tke_diss
    EXPECT_EQ(nprof, 26);
    // step ke h_stress b_mean zi b_fluxbot ustar obuk_inv obuk dt cfl dn div
    EXPECT_GE(nseries, 13);
    EXPECT_TRUE(stats_test::scale_attached(path, "/profiles/w", "/profiles/zh", 1));
    EXPECT_TRUE(stats_test::scale_attached(path, "/profiles/b", "/profiles/z", 1));
    EXPECT_EQ(stats_test::read_string_attr(path, "/profiles/b", "units"), "m s-2");
    // CF standard names where one exists; none for a quantity CF does not name.
    EXPECT_EQ(stats_test::read_string_attr(path, "/profiles/w", "standard_name"),
              "upward_air_velocity");
    EXPECT_EQ(stats_test::read_string_attr(path, "/profiles/u", "standard_name"), "x_wind");
    EXPECT_EQ(stats_test::read_string_attr(path, "/timeseries/h_stress", "standard_name"),
              "atmosphere_boundary_layer_thickness");
    EXPECT_THROW(stats_test::read_string_attr(path, "/profiles/b", "standard_name"),
                 std::runtime_error);
    EXPECT_EQ(stats_test::read_string_attr(path, "/z", "units"), "m");
    EXPECT_EQ(stats_test::read_string_attr(path, "/time", "units"), "s");
    EXPECT_FALSE(stats_test::read_string_attr(path, "/", "squall_version").empty());
}

TEST(Stats, NoScalarAndLateSurfaceArePadded) {
    const Config cfg = stats_test::test_config();
    const Grid<double> g = Grid<double>::make(cfg, 1, 1, 0, 0);
    const Decomposition dec = Decomposition::make(MPI_COMM_WORLD, 1, 1);
    const std::string path = tmp_dir() + "/noscalar.h5";
    Statistics<double> stats(g, dec, path, "", "");
    Fields f;
    const State<double> st = make_state(g, f);
    StatsInput<double> in = input(st, f, false, false);
    in.s = nullptr;
    stats.sample(0.0, 0, in);
    in.ustar = st.ustar.data();
    stats.sample(1.0, 1, in);
    stats.write();
    EXPECT_FALSE(stats.has("zi"));
    const auto us = read_dataset(path, "/timeseries/ustar");
    ASSERT_EQ(us.data.size(), 2u);
    EXPECT_TRUE(std::isnan(us.data[0]));
    EXPECT_NEAR(us.data[1], 0.3, 1e-14);
    EXPECT_EQ(read_dataset(path, "/profiles/u").dims[0], 2u);
}

TEST(Stats, UncreatableFileThrowsNamingThePath) {
    const Config cfg = stats_test::test_config();
    const Grid<double> g = Grid<double>::make(cfg, 1, 1, 0, 0);
    const Decomposition dec = Decomposition::make(MPI_COMM_WORLD, 1, 1);
    Fields f;
    const State<double> st = make_state(g, f);
    const std::string dir = tmp_dir();
    // A path below a regular file cannot be created (also as root).
    std::ofstream(dir + "/plainfile") << "x";
    const std::string bad = dir + "/plainfile/stats.h5";
    Statistics<double> s1(g, dec, bad, "", "th");
    s1.sample(0.0, 0, input(st, f, false, false));
    try {
        s1.write();
        ADD_FAILURE() << "write to " << bad << " did not throw";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
}

// The closure's loss term of the TKE budget, -evisc S2, for a uniform shear u = au + bu z
// (v = w = 0): S2 = 2 S_ij S_ij = bu^2 exactly on the staggered grid (plus the closure's
// 1e-9 floor), so the term is -E(z) (bu^2 + 1e-9) at every level, the walls' too (the
// ghost levels continue the shear).
TEST(Stats, SubgridLossOfUniformShear) {
    const Config cfg = stats_test::test_config();
    const Grid<double> g = Grid<double>::make(cfg, 1, 1, 0, 0);
    const Decomposition dec = Decomposition::make(MPI_COMM_WORLD, 1, 1);
    const std::string path = tmp_dir() + "/shear.h5";
    Statistics<double> stats(g, dec, path, "", "th");
    Fields f;
    f.A = f.B = f.cv = f.Wa = f.e2 = f.e3 = 0;
    const State<double> st = make_state(g, f);
    stats.sample(0.0, 0, input(st, f, true, false));
    stats.write();
    std::vector<double> want;
    for (int k = g.d.kstart; k < g.d.kend; ++k) want.push_back(-f.E(g.z[k]) * (f.bu * f.bu + 1e-9));
    expect_row(read_dataset(path, "/profiles/tke_diss"), 0, want, 1e-12, "tke_diss");
}

TEST(Stats, FloatFieldsMatchAnalyticToFloatAccuracy) {
    const Config cfg = stats_test::test_config();
    const Grid<float> gf = Grid<float>::make(cfg, 1, 1, 0, 0);
    const Grid<double> gd = Grid<double>::make(cfg, 1, 1, 0, 0);
    const Decomposition dec = Decomposition::make(MPI_COMM_WORLD, 1, 1);
    const std::string path = tmp_dir() + "/float.h5";
    Statistics<float> stats(gf, dec, path, "", "th");
    Fields f;
    const State<float> st = make_state(gf, f);
    stats.sample(0.0, 0, input(st, f, true, false));
    stats.write();
    const Expected e = expected(gd, f, true, false);
    expect_row(read_dataset(path, "/profiles/u2"), 0, e.u2, 1e-5, "u2 float");
    expect_row(read_dataset(path, "/profiles/th_flux_res"), 0, e.s_res, 1e-5, "res float");
    EXPECT_NEAR(read_dataset(path, "/timeseries/ke").data[0], e.ke, 1e-5);
}

} // namespace

// GABLS1's depth from the stress: a stress falling linearly to zero at H reaches 5 % of its
// surface value at 0.95 H, between faces, so the definition returns H itself.
TEST(StatsStressHeight, LinearStressGivesItsDepth) {
    std::vector<double> zh, stress;
    const double H = 173.0, tau0 = 0.08;
    for (int k = 0; k <= 64; ++k) {
        zh.push_back(6.25 * k);
        stress.push_back(tau0 * std::max(0.0, 1.0 - zh.back() / H));
    }
    EXPECT_NEAR(stress_height(stress, zh), H, 1e-11);
    // Halve the depth: the result follows (the test can fail).
    for (std::size_t k = 0; k < zh.size(); ++k) stress[k] = tau0 * std::max(0.0, 1 - zh[k] / 90.0);
    EXPECT_NEAR(stress_height(stress, zh), 90.0, 1e-11);
    // A stress that never falls to 5 %: no depth.
    EXPECT_TRUE(std::isnan(stress_height(std::vector<double>(zh.size(), tau0), zh)));
}

// A translated run (grid.utrans, vtrans) writes the ground frame: the mean winds shifted by
// the translation, variances and fluxes unchanged.
TEST(Stats, TranslationShiftsOnlyTheMeanWind) {
    const Config cfg = stats_test::test_config();
    const Grid<double> g = Grid<double>::make(cfg, 1, 1, 0, 0);
    const Decomposition dec = Decomposition::make(MPI_COMM_WORLD, 1, 1);
    Fields f;
    const State<double> st = make_state(g, f);
    const std::string a = tmp_dir() + "/plain.h5", b = tmp_dir() + "/moving.h5";
    for (const auto& [path, ut, vt] : {std::tuple{a, 0.0, 0.0}, std::tuple{b, 1.5, -0.25}}) {
        Statistics<double> stats(g, dec, path, "", "th");
        StatsInput<double> in = input(st, f, true, true);
        in.utrans = ut;
        in.vtrans = vt;
        stats.sample(0.0, 0, in);
        stats.write();
    }
    const auto ua = read_dataset(a, "/profiles/u").data, ub = read_dataset(b, "/profiles/u").data;
    const auto va = read_dataset(a, "/profiles/v").data, vb = read_dataset(b, "/profiles/v").data;
    for (std::size_t k = 0; k < ua.size(); ++k) {
        EXPECT_NEAR(ub[k], ua[k] + 1.5, 1e-14);
        EXPECT_NEAR(vb[k], va[k] - 0.25, 1e-14);
    }
    for (const char* name : {"/profiles/u2", "/profiles/u_flux", "/profiles/v_flux_res",
                             "/profiles/th_flux", "/profiles/w2"})
        EXPECT_EQ(read_dataset(a, name).data, read_dataset(b, name).data) << name;
    EXPECT_NE(read_dataset(a, "/timeseries/ke").data, read_dataset(b, "/timeseries/ke").data);
}
