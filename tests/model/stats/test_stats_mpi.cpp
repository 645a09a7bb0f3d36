// Decomposition independence: the same global fields on 2 ranks (2 x 1) and on 1 rank
// (rank 0 alone, MPI_COMM_SELF) give the same statistics file content.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>

#include "model/stats/stats.h"
#include "stats_test_util.h"

using namespace squall;

namespace {

// A periodic pseudo-random function of the global index (varies everywhere, no symmetry).
double noise(int gi, int gj, int k, int var) {
    std::uint64_t h = std::uint64_t(gi) * 73856093u ^ std::uint64_t(gj) * 19349663u ^
                      std::uint64_t(k) * 83492791u ^ std::uint64_t(var) * 2654435761u;
    h ^= h >> 13;
    h *= 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return double(h % 1000003) / 1000003.0 - 0.5;
}

struct State {
    Field3d<double> u, v, w, s, ev;
    std::vector<double> fluxbot, ustar, obuk_inv;
};

State make_state(const Grid<double>& g, double t) {
    const GridDims& d = g.d;
    State st{Field3d<double>(d),
             Field3d<double>(d),
             Field3d<double>(d),
             Field3d<double>(d),
             Field3d<double>(d),
             {},
             {},
             {}};
    st.fluxbot.assign(d.nplane(), 0.0);
    st.ustar = st.obuk_inv = st.fluxbot;
    for (int j = 0; j < d.jcells; ++j)
        for (int i = 0; i < d.icells; ++i) {
            const int gi = ((d.ioffset + i - d.istart) % d.itot + d.itot) % d.itot;
            const int gj = ((d.joffset + j - d.jstart) % d.jtot + d.jtot) % d.jtot;
            for (int k = 0; k < d.kcells; ++k) {
                st.u(i, j, k) = 2.0 + noise(gi, gj, k, 0) + t;
                st.v(i, j, k) = -1.0 + noise(gi, gj, k, 1);
                st.w(i, j, k) = (k == d.kstart || k == d.kend) ? 0.0 : noise(gi, gj, k, 2) * t;
                st.s(i, j, k) = 300.0 + 0.01 * k + 0.2 * noise(gi, gj, k, 3);
                st.ev(i, j, k) = 0.05 + 0.01 * noise(gi, gj, k, 4);
            }
            st.fluxbot[i + j * d.jj] = 0.1 + 0.01 * noise(gi, gj, 0, 5);
            st.ustar[i + j * d.jj] = 0.3 + 0.01 * noise(gi, gj, 0, 6);
            st.obuk_inv[i + j * d.jj] = -0.02 + 0.001 * noise(gi, gj, 0, 7);
        }
    return st;
}

void run(const Decomposition& dec, int npx, const std::string& path) {
    const Config cfg = stats_test::test_config();
    const Grid<double> g = Grid<double>::make(cfg, npx, 1, dec.px, dec.py);
    Statistics<double> stats(g, dec, path, "yaml: here\n", "th", "mpi");
    for (int n = 0; n < 2; ++n) {
        const State st = make_state(g, 1.0 + n);
        StatsInput<double> in;
        in.u = &st.u, in.v = &st.v, in.w = &st.w, in.s = &st.s, in.evisc = &st.ev;
        in.kappa = 1e-4, in.prandtl_t_inv = 3.0;
        in.s_fluxbot = st.fluxbot.data(), in.ustar = st.ustar.data();
        in.obuk_inv = st.obuk_inv.data();
        in.dt = 0.3, in.cfl = 0.9;
        stats.sample(5.0 * n, 10 * n, in);
    }
    stats.write();
}

TEST(StatsMpi, TwoRanksEqualOneRank) {
    int rank = 0, nprocs = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    ASSERT_EQ(nprocs, 2) << "run with 2 ranks";
    const std::string dir =
        (std::filesystem::temp_directory_path() / ("squall_stats_mpi_" + std::to_string(getpid())))
            .string();
    // Rank 0's pid names the directory for everyone.
    std::string d = dir;
    int len = int(d.size());
    MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
    d.resize(len);
    MPI_Bcast(d.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) std::filesystem::create_directories(d);
    MPI_Barrier(MPI_COMM_WORLD);

    Decomposition two = Decomposition::make(MPI_COMM_WORLD, 2, 1);
    run(two, 2, d + "/two.h5");
    two.free();
    if (rank == 0) {
        Decomposition one = Decomposition::make(MPI_COMM_SELF, 1, 1);
        run(one, 1, d + "/one.h5");
        one.free();
        const auto names1 = stats_test::list_datasets(d + "/one.h5");
        const auto names2 = stats_test::list_datasets(d + "/two.h5");
        EXPECT_EQ(names1, names2);
        EXPECT_GT(names1.size(), 20u);
        for (const std::string& p : names1) {
            const auto a = stats_test::read_dataset(d + "/one.h5", p);
            const auto b = stats_test::read_dataset(d + "/two.h5", p);
            ASSERT_EQ(a.dims, b.dims) << p;
            for (std::size_t n = 0; n < a.data.size(); ++n) {
                // Sums over a different split differ only by round-off; a quantity that is
                // undefined for the state (NaN: h_stress without a 5 % level) is on both.
                if (std::isnan(a.data[n]) || std::isnan(b.data[n])) {
                    EXPECT_EQ(std::isnan(a.data[n]), std::isnan(b.data[n])) << p << "[" << n << "]";
                    continue;
                }
                EXPECT_NEAR(a.data[n], b.data[n], 1e-13 * (std::abs(a.data[n]) + 1e-3))
                    << p << "[" << n << "]";
            }
        }
        EXPECT_EQ(stats_test::read_string_attr(d + "/two.h5", "/", "configuration"),
                  "yaml: here\n");
        std::filesystem::remove_all(d);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

} // namespace
