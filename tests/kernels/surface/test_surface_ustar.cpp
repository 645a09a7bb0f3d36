// The prescribed friction velocity (kernels/surface.cuh): SurfaceMomentumFlux with
// ustar_given, SurfaceUstar and SurfaceVirtualFlux against formulas written out here.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/surface.cuh"
#include "tests/kernels/surface/surface_refs.h"

using squall::test::kap;
using squall::test::phi_m_ref;
using squall::test::SmallGrid;

namespace {

// A prescribed u* (boundary.ustar; SurfaceMomentumFlux with ustar_given): the stress at
// every face has magnitude u*^2 and points
// against the face's wind (u at the face, v averaged from its four neighbours, written out
// here), 1/L = -kappa B0/u*^3, and the ghost gradient carries the stress as K_m du/dz with
// K_m = kappa z1 u*/phi_m. The thv flux from those of thl and qt, with Rv/Rd - 1 = 0.6078.
TEST(SurfaceUstar, StressIsUstarSquaredAgainstTheFaceWind) {
    SmallGrid<double> g;
    const double ustar0 = 0.28, z1 = 20.0, ubot = 0.3, vbot = -0.2, got = 9.81 / 300;
    std::vector<double> ustar(g.kk, 0.0), linv(g.kk, 0.0), uf(g.kk, 0.0), vf(g.kk, 0.0),
        dudz(g.kk, 0.0), dvdz(g.kk, 0.0);
    sq::SurfaceUstar<double> us{.ustar = ustar.data(),
                                .obuk_inv = linv.data(),
                                .sfluxbot = g.sflux.data(),
                                .ustar0 = ustar0,
                                .g_over_thref = got,
                                .jj = g.jj};
    for (int j = 1; j < g.jcells - 2; ++j)
        for (int i = 1; i < g.icells - 2; ++i) us(i, j);
    sq::SurfaceMomentumFlux<double> mom{.ufluxbot = uf.data(),
                                        .vfluxbot = vf.data(),
                                        .dudz_bot = dudz.data(),
                                        .dvdz_bot = dvdz.data(),
                                        .u = g.u.data(),
                                        .v = g.v.data(),
                                        .ustar = ustar.data(),
                                        .obuk_inv = linv.data(),
                                        .ubot = ubot,
                                        .vbot = vbot,
                                        .z1 = z1,
                                        .z0m = 0.01,
                                        .umin = 0.1,
                                        .ustar_given = 1,
                                        .kstart = g.kstart,
                                        .jj = g.jj,
                                        .kk = g.kk};
    for (int j = 2; j < g.jcells - 2; ++j)
        for (int i = 2; i < g.icells - 2; ++i) mom(i, j);
    int faces = 0;
    for (int j = 2; j < g.jcells - 2; ++j)
        for (int i = 2; i < g.icells - 2; ++i) {
            const int ij = i + j * g.jj, ijk = ij + g.kstart * g.kk;
            EXPECT_EQ(ustar[ij], ustar0);
            EXPECT_NEAR(linv[ij], -kap * got * g.sflux[ij] / std::pow(ustar0, 3), 1e-15);
            // u-face: the wind there, its stress and the ghost gradient.
            const double du = g.u[ijk] - ubot;
            const double dv =
                0.25 * (g.v[ijk - 1] + g.v[ijk] + g.v[ijk - 1 + g.jj] + g.v[ijk + g.jj]) - vbot;
            const double speed = std::max(std::hypot(du, dv), 0.1);
            EXPECT_NEAR(uf[ij], -ustar0 * ustar0 * du / speed, 1e-14);
            const double li = 0.5 * (linv[ij - 1] + linv[ij]);
            EXPECT_NEAR(kap * z1 * ustar0 / phi_m_ref(z1 * li) * dudz[ij], -uf[ij], 1e-13);
            // v-face.
            const double du2 =
                0.25 * (g.u[ijk - g.jj] + g.u[ijk] + g.u[ijk - g.jj + 1] + g.u[ijk + 1]) - ubot;
            const double dv2 = g.v[ijk] - vbot;
            const double speed2 = std::max(std::hypot(du2, dv2), 0.1);
            EXPECT_NEAR(vf[ij], -ustar0 * ustar0 * dv2 / speed2, 1e-14);
            // Where the wind is the face's own (no calm), the stress is u*^2 in magnitude.
            if (std::hypot(du, dv) > 0.1) {
                EXPECT_NEAR(std::hypot(uf[ij], -ustar0 * ustar0 * dv / speed), ustar0 * ustar0,
                            1e-14);
                ++faces;
            }
        }
    EXPECT_GT(faces, 10);
}

TEST(SurfaceUstar, VirtualFluxFromThlAndQtFluxes) {
    SmallGrid<double> g;
    std::vector<double> thl(g.u.size()), qt(g.u.size()), thlf(g.kk), qtf(g.kk), out(g.kk, 0.0);
    for (std::size_t n = 0; n < thl.size(); ++n) {
        thl[n] = 298.0 + 0.01 * double(n % 17);
        qt[n] = 0.015 + 1e-4 * double(n % 13);
    }
    for (int ij = 0; ij < g.kk; ++ij) {
        thlf[ij] = 8e-3 * (1 + 0.1 * std::sin(ij));
        qtf[ij] = 5.2e-5 * (1 + 0.1 * std::cos(ij));
    }
    sq::SurfaceVirtualFlux<double> vf{.thv_fluxbot = out.data(),
                                      .thl_fluxbot = thlf.data(),
                                      .qt_fluxbot = qtf.data(),
                                      .thl = thl.data(),
                                      .qt = qt.data(),
                                      .kstart = g.kstart,
                                      .jj = g.jj,
                                      .kk = g.kk};
    const double c = 461.5 / 287.04 - 1;
    for (int j = 0; j < g.jcells; ++j)
        for (int i = 0; i < g.icells; ++i) {
            vf(i, j);
            const int ij = i + j * g.jj, ijk = ij + g.kstart * g.kk;
            // d(thl (1 + c qt)) = (1 + c qt) d thl + c thl d qt
            EXPECT_NEAR(out[ij], thlf[ij] * (1 + c * qt[ijk]) + c * thl[ijk] * qtf[ij], 1e-16);
        }
}

} // namespace
