// Dry CBL LES physics (docs/validation.md): the mixed layer deepens like the
// encroachment estimate h = sqrt(2 (1 + 2A) Q t / gamma) with entrainment ratio A near 0.2,
// and the heat-flux profile is linear in the mixed layer with a negative minimum at the top.
// The run writes a real statistics file, which the test reads back with the HDF5 C API.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <numeric>
#include <unistd.h>

#include "tests/support/model_run.h"

namespace squall::test {
namespace {

std::vector<double> read_dataset(hid_t file, const char* name) {
    const hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    EXPECT_GE(ds, 0) << name;
    const hid_t space = H5Dget_space(ds);
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    std::vector<double> v(std::size_t(std::max<hssize_t>(n, 0)));
    H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    H5Sclose(space);
    H5Dclose(ds);
    return v;
}

TEST(DryCbl, EncroachmentGrowthAndLinearHeatFlux) {
    const std::string dir =
        (std::filesystem::temp_directory_path() / ("squall_drycbl_" + std::to_string(::getpid())))
            .string();
    const double endtime = 3600, Q = 0.1, gamma = 0.003;
    {
        const Config cfg = load_case("drycbl", {"time.endtime=3600", "output.stats_every=300",
                                                "output.status_every=100000", "output.dir=" + dir});
        ASSERT_DOUBLE_EQ(cfg.bc.s_bot_value, Q);
        ASSERT_DOUBLE_EQ(cfg.init.lapse_rate, gamma);
        ModelRun<double> run(cfg, MPI_COMM_WORLD);
        run.model->run();
    }
    const hid_t file = H5Fopen((dir + "/drycbl.stats.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    const std::vector<double> time = read_dataset(file, "/time");
    const std::vector<double> zh = read_dataset(file, "/zh");
    const std::vector<double> zi = read_dataset(file, "/timeseries/zi");
    const std::vector<double> flux = read_dataset(file, "/profiles/th_flux");
    H5Fclose(file);
    std::filesystem::remove_all(dir);
    ASSERT_EQ(time.size(), 13u);
    ASSERT_DOUBLE_EQ(time.back(), endtime);
    const std::size_t nzh = zh.size();
    ASSERT_EQ(flux.size(), time.size() * nzh);

    // Heat flux averaged over the last hour's second half (t = 2100 .. 3600 s).
    std::vector<double> mean_flux(nzh, 0.0);
    const std::size_t first = 7;
    for (std::size_t t = first; t < time.size(); ++t)
        for (std::size_t k = 0; k < nzh; ++k)
            mean_flux[k] += flux[t * nzh + k] / double(time.size() - first);
    // Boundary-layer height and entrainment ratio from each sample's own flux minimum (the
    // minimum moves up during the window, so the time-averaged profile would smear it).
    double h = 0, ratio = 0;
    for (std::size_t t = first; t < time.size(); ++t) {
        const double* f = &flux[t * nzh];
        const std::size_t k = std::size_t(std::min_element(f, f + nzh) - f);
        EXPECT_DOUBLE_EQ(zh[k], zi[t]); // zi in the file is that same height
        h += zh[k] / double(time.size() - first);
        ratio += -f[k] / Q / double(time.size() - first);
    }
    EXPECT_NEAR(mean_flux[0], Q, 1e-12); // the prescribed surface flux

    // Encroachment with A = 0.2 at the middle of the averaging window (t = 2850 s), and the
    // entrainment ratio from the flux minimum.
    const double t_mid = 0.5 * (time[first] + time.back());
    const double h_enc = std::sqrt(2 * (1 + 2 * 0.2) * Q * t_mid / gamma);
    std::printf("h = %.0f m (encroachment with A = 0.2: %.0f m), entrainment ratio %.3f\n", h,
                h_enc, ratio);
    EXPECT_NEAR(h / h_enc, 1.0, 0.2);
    EXPECT_GT(ratio, 0.07);
    EXPECT_LT(ratio, 0.3);
    // The boundary layer must grow: zi at the end above zi at 900 s.
    EXPECT_GT(zi.back(), zi[3] + 150);

    // Linear flux in the mixed layer (0.1 h .. 0.7 h): least-squares fit, R^2 > 0.95, and its
    // zero crossing close to the top of the mixed layer.
    double sz = 0, sf = 0, szz = 0, szf = 0, n = 0;
    for (std::size_t k = 0; k < nzh; ++k)
        if (zh[k] >= 0.1 * h && zh[k] <= 0.7 * h) {
            sz += zh[k], sf += mean_flux[k], szz += zh[k] * zh[k], szf += zh[k] * mean_flux[k],
                n += 1;
        }
    ASSERT_GE(n, 4);
    const double slope = (n * szf - sz * sf) / (n * szz - sz * sz), icpt = (sf - slope * sz) / n;
    double ss_res = 0, ss_tot = 0;
    for (std::size_t k = 0; k < nzh; ++k)
        if (zh[k] >= 0.1 * h && zh[k] <= 0.7 * h) {
            const double fit = icpt + slope * zh[k];
            ss_res += (mean_flux[k] - fit) * (mean_flux[k] - fit);
            ss_tot += (mean_flux[k] - sf / n) * (mean_flux[k] - sf / n);
        }
    const double r2 = 1 - ss_res / ss_tot, z_zero = -icpt / slope;
    std::printf("mixed-layer flux fit: R^2 = %.4f, zero crossing at %.0f m (%.2f h)\n", r2, z_zero,
                z_zero / h);
    EXPECT_GT(r2, 0.95);
    EXPECT_LT(slope, 0.0);
    EXPECT_NEAR(z_zero / h, 0.85, 0.15);
}

} // namespace
} // namespace squall::test
