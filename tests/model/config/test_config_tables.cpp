// load_config() with tables: initial profiles from CSV, YAML lists and HDF5 files, overrides
// of third-level keys inside them, and a surface value that changes at a rate.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "model/config/config.h"
#include "tests/model/config/temp_case.h"

namespace fs = std::filesystem;
using namespace squall;
using squall::test::TempCase;

// init.profiles from a CSV file beside the case and from lists in it give the same table;
// the resolved YAML carries the table inline, so it reloads without the file.
TEST(Config, ProfileTablesFromCsvAndYaml) {
    const fs::path dir = fs::temp_directory_path() / ("squall_tables_" + std::to_string(getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "init.csv") << "# GABLS1-like\nz, th, u\n0, 265, 8\n100, 265, 8\n\n"
                                       "400, 268, 8.5\n";
    const std::string head = "grid: {itot: 16, ktot: 8, xsize: 400, zsize: 400}\n"
                             "diffusion: {nu: 0.01, kappa: 0.01}\n"
                             "thermo: {type: dry}\n"
                             "time: {endtime: 10}\n";
    std::ofstream(dir / "from_csv.yaml")
        << head << "init: {type: profile, profiles: init.csv, perturb_amplitude: 0.1}\n";
    const Config a = load_config((dir / "from_csv.yaml").string());
    const Config b = load_config(TempCase("tables", head + "init:\n  type: profile\n"
                                                           "  profiles: {z: [0, 100, 400], th: "
                                                           "[265, 265, 268], u: [8, 8, 8.5]}\n")
                                     .str());
    for (const Config* c : {&a, &b}) {
        const ProfileTable& t = c->init.profiles;
        EXPECT_EQ(t.z, (std::vector<double>{0, 100, 400}));
        ASSERT_NE(t.column("th"), nullptr);
        EXPECT_EQ(*t.column("th"), (std::vector<double>{265, 265, 268}));
        ASSERT_NE(t.column("u"), nullptr);
        EXPECT_EQ(*t.column("u"), (std::vector<double>{8, 8, 8.5}));
        EXPECT_EQ(t.column("v"), nullptr);
    }
    EXPECT_EQ(a.init.profiles.source, (dir / "init.csv").string());
    // A forcing table from a file beside the case: its columns become forcing's lists.
    std::ofstream(dir / "forcing.csv") << "z, w_ls, th_tendency\n0, 0, -2e-5\n1500, -0.0065, "
                                          "-2e-5\n2100, 0, 0\n";
    std::ofstream(dir / "forced.yaml") << head << "forcing: {file: forcing.csv}\n";
    const Config fcfg = load_config((dir / "forced.yaml").string());
    EXPECT_EQ(fcfg.forcing.z, (std::vector<double>{0, 1500, 2100}));
    EXPECT_EQ(fcfg.forcing.w_ls, (std::vector<double>{0, -0.0065, 0}));
    EXPECT_EQ(fcfg.forcing.th_tendency, (std::vector<double>{-2e-5, -2e-5, 0}));
    EXPECT_TRUE(fcfg.forcing.nudge_th.empty());
    EXPECT_EQ(a.init.velocity_amplitude(), 0.1); // perturb_velocity defaults to the amplitude
    fs::remove_all(dir);                         // the resolved YAML no longer needs the file
    const Config r = load_config(TempCase("tables_resolved", a.resolved_yaml).str());
    EXPECT_EQ(r.init.profiles.z, a.init.profiles.z);
    EXPECT_EQ(*r.init.profiles.column("u"), *a.init.profiles.column("u"));
    EXPECT_EQ(r.resolved_yaml, a.resolved_yaml);
}

// A profile table from an HDF5 (or netCDF-4) file beside the case: its one-dimensional
// root datasets z and the allowed columns, other datasets left alone; a bad file is named.
TEST(Config, ProfileTablesFromHdf5) {
    const fs::path dir = fs::temp_directory_path() / ("squall_h5_" + std::to_string(getpid()));
    fs::create_directories(dir);
    auto write = [&](const fs::path& path, bool two_d) {
        const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        auto put = [&](const char* name, const std::vector<double>& v, int rank) {
            const hsize_t dims[2] = {rank == 1 ? v.size() : 1, v.size()};
            const hid_t sp = H5Screate_simple(rank, rank == 1 ? dims : dims, nullptr);
            const hid_t ds =
                H5Dcreate2(f, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
            H5Dclose(ds);
            H5Sclose(sp);
        };
        put("z", {0, 520, 1480}, 1);
        put("thl", {298.7, 298.7, 302.4}, two_d ? 2 : 1);
        put("qt", {17e-3, 16.3e-3, 10.7e-3}, 1);
        put("time", {0, 1, 2, 3}, 1); // not a column: left alone
        H5Fclose(f);
    };
    write(dir / "bomex.nc", false);
    write(dir / "flat.h5", true);
    {
        // A NaN among the values (a netCDF fill value, say).
        const hid_t f =
            H5Fcreate((dir / "nan.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        const double z[2] = {0, 100}, thl[2] = {300, std::nan("")};
        const hsize_t n = 2;
        for (auto [name, v] : {std::pair{"z", z}, std::pair{"thl", thl}}) {
            const hid_t sp = H5Screate_simple(1, &n, nullptr);
            const hid_t ds =
                H5Dcreate2(f, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
            H5Dclose(ds);
            H5Sclose(sp);
        }
        H5Fclose(f);
    }
    std::ofstream(dir / "not_hdf5.h5") << "z,thl\n0,300\n";
    const std::string head = "grid: {itot: 16, ktot: 8, xsize: 400, zsize: 3000}\n"
                             "diffusion: {nu: 0.01, kappa: 0.01}\n"
                             "thermo: {type: moist}\n"
                             "scalars: {qt: {}}\n"
                             "time: {endtime: 10}\n";
    auto load = [&](const std::string& file) {
        std::ofstream(dir / "case.yaml")
            << head << "init: {type: profile, profiles: " << file << "}\n";
        return load_config((dir / "case.yaml").string());
    };
    const Config c = load("bomex.nc");
    const ProfileTable& t = c.init.profiles;
    EXPECT_EQ(t.z, (std::vector<double>{0, 520, 1480}));
    ASSERT_NE(t.column("thl"), nullptr);
    EXPECT_EQ(*t.column("thl"), (std::vector<double>{298.7, 298.7, 302.4}));
    ASSERT_NE(t.column("qt"), nullptr);
    EXPECT_EQ(*t.column("qt"), (std::vector<double>{17e-3, 16.3e-3, 10.7e-3}));
    EXPECT_EQ(t.column("u"), nullptr);
    EXPECT_EQ(t.source, (dir / "bomex.nc").string());
    auto message = [&](const std::string& file) {
        try {
            load(file);
        } catch (const ConfigError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message("flat.h5"), (dir / "flat.h5").string() +
                                      ": init.profiles: cannot take the profile table from it: "
                                      "'thl' is not a one-dimensional dataset");
    EXPECT_EQ(message("not_hdf5.h5"), (dir / "not_hdf5.h5").string() +
                                          ": init.profiles: cannot take the profile table from "
                                          "it: not an HDF5 or netCDF-4 file");
    EXPECT_EQ(message("nan.h5"), (dir / "nan.h5").string() +
                                     ": init.profiles: cannot take the profile table from it: "
                                     "'thl'[1] is not a finite number");
    EXPECT_EQ(message("missing.nc"), (dir / "missing.nc").string() +
                                         ": init.profiles: cannot take the profile table from it: "
                                         "no such file");
    fs::remove_all(dir);
}

// Overrides reach a third level inside the maps of maps: a passive scalar's keys,
// output.cross, output.fields, init.profiles; elsewhere a third level is refused.
TEST(Config, OverridesOfThirdLevelKeys) {
    const std::string bomex = std::string(SQUALL_SOURCE_DIR) + "/cases/bomex.yaml";
    const Config c =
        load_config(bomex, {"scalars.qt.bot_value=1.0e-4", "output.fields.float32=true",
                            "output.fields.checksum=false", "output.cross.every=60.0",
                            "output.cross.surface=[lwp]",
                            "init.profiles.u=[-5.0, -5.0, -5.0, -5.0, -5.0, -5.0]"});
    ASSERT_EQ(c.scalars.size(), 1u);
    EXPECT_EQ(c.scalars[0].bot_value, 1.0e-4);
    EXPECT_EQ(c.scalars[0].perturb_amplitude, 2.5e-5); // the file's other keys stay
    EXPECT_TRUE(c.fields_out.float32);
    EXPECT_FALSE(c.fields_out.checksum);
    EXPECT_EQ(c.cross.every, 60.0);
    EXPECT_EQ(c.cross.surface, std::vector<std::string>{"lwp"});
    EXPECT_EQ(*c.init.profiles.column("u"), std::vector<double>(6, -5.0));
    EXPECT_EQ(c.init.profiles.column("thl")->front(), 298.7);
    // A scalar the case does not have gets made, and its keys are checked as in the file.
    const Config d = load_config(bomex, {"scalars.co2.init_value=400.0"});
    ASSERT_EQ(d.scalars.size(), 2u);
    EXPECT_TRUE(d.fields_out.checksum); // the default
    EXPECT_EQ(d.scalars[1].name, "co2");
    auto err = [&](const std::string& o) {
        try {
            load_config(bomex, {o});
        } catch (const ConfigError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(err("scalars.qt.botom=1")
                  .find("<command line>: scalars.qt.botom: unknown key "
                        "'botom' in section 'scalars.qt'; did you mean 'bot'?"),
              std::string::npos)
        << err("scalars.qt.botom=1");
    EXPECT_EQ(err("grid.itot.x=3"), "<command line>: grid.itot.x: unknown key (too many levels)");
    // A deeper key into a value (init.profiles as a file name) is refused, not dropped.
    try {
        load_config(bomex, {"init.profiles=prof.csv", "init.profiles.qt=[5, 5]"});
        ADD_FAILURE() << "an override into a file name was accepted";
    } catch (const ConfigError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "<command line>: init.profiles.qt: init.profiles is not a map in the case (a "
                  "file name or a value): set the whole init.profiles instead");
    }
    EXPECT_EQ(err("scalars.qt.bot.x=3"),
              "<command line>: scalars.qt.bot.x: unknown key (too many levels)");
}

TEST(Config, SurfaceValueWithRate) {
    const Config c = load_config(TempCase("sfc_rate", "grid: {itot: 16, ktot: 8, xsize: 400, "
                                                      "zsize: 400}\n"
                                                      "diffusion: {type: smag2}\n"
                                                      "thermo: {type: dry}\n"
                                                      "time: {endtime: 10}\n"
                                                      "boundary: {scalar_bot: dirichlet, "
                                                      "scalar_bot_value: 265, scalar_bot_rate: "
                                                      "-2.5e-4, surface_model: most}\n")
                                     .str());
    EXPECT_EQ(c.bc.s_bot, ScalarBc::dirichlet);
    EXPECT_TRUE(c.bc.surface.enabled);
    EXPECT_DOUBLE_EQ(c.bc.s_bot_at(3600.0), 265 - 0.9);
}
