// load_config(): full case, defaults, resolved-YAML round trip, overrides, and every
// broken case file in tests/model/config/bad/ (their "# expect:" lines give the message).
#include "model/config/config.h"
#include "tests/model/config/temp_case.h"

#include <cmath>
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace squall;
using squall::test::TempCase;

namespace {

const fs::path here = fs::path(SQUALL_SOURCE_DIR) / "tests" / "model" / "config";

std::string good(const std::string& name) {
    return (here / "good" / name).string();
}

// The message of the ConfigError that `f` throws ("" and a test failure if none).
template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const ConfigError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no ConfigError thrown";
    return "";
}

const char* minimal_text = "grid: {itot: 16, ktot: 8, xsize: 1, zsize: 2}\n"
                           "diffusion: {nu: 0.01}\n"
                           "time: {endtime: 10}\n";

// Every field of two configurations, bit for bit (file and resolved_yaml aside).
void expect_same(const Config& a, const Config& b) {
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.precision, b.precision);
    EXPECT_EQ(a.backend, b.backend);
    EXPECT_EQ(a.tendencies, b.tendencies);
    EXPECT_EQ(a.grid.itot, b.grid.itot);
    EXPECT_EQ(a.grid.jtot, b.grid.jtot);
    EXPECT_EQ(a.grid.ktot, b.grid.ktot);
    EXPECT_EQ(a.grid.xsize, b.grid.xsize);
    EXPECT_EQ(a.grid.ysize, b.grid.ysize);
    EXPECT_EQ(a.grid.zsize, b.grid.zsize);
    EXPECT_EQ(a.grid.z, b.grid.z);
    EXPECT_EQ(a.grid.stretch, b.grid.stretch);
    EXPECT_EQ(a.grid.stretch_factor, b.grid.stretch_factor);
    EXPECT_EQ(a.mpi.npx, b.mpi.npx);
    EXPECT_EQ(a.mpi.npy, b.mpi.npy);
    EXPECT_EQ(a.advec, b.advec);
    EXPECT_EQ(a.cflmax, b.cflmax);
    EXPECT_EQ(a.diff, b.diff);
    EXPECT_EQ(a.nu, b.nu);
    EXPECT_EQ(a.kappa, b.kappa);
    EXPECT_EQ(a.cs, b.cs);
    EXPECT_EQ(a.prandtl_t, b.prandtl_t);
    EXPECT_EQ(a.dnmax, b.dnmax);
    EXPECT_EQ(a.thermo, b.thermo);
    EXPECT_EQ(a.thref, b.thref);
    EXPECT_EQ(a.gravity, b.gravity);
    EXPECT_EQ(a.bc.mom_bot, b.bc.mom_bot);
    EXPECT_EQ(a.bc.mom_top, b.bc.mom_top);
    EXPECT_EQ(a.bc.u_bot, b.bc.u_bot);
    EXPECT_EQ(a.bc.u_top, b.bc.u_top);
    EXPECT_EQ(a.bc.v_bot, b.bc.v_bot);
    EXPECT_EQ(a.bc.v_top, b.bc.v_top);
    EXPECT_EQ(a.bc.s_bot, b.bc.s_bot);
    EXPECT_EQ(a.bc.s_top, b.bc.s_top);
    EXPECT_EQ(a.bc.s_bot_value, b.bc.s_bot_value);
    EXPECT_EQ(a.bc.s_top_value, b.bc.s_top_value);
    EXPECT_EQ(a.bc.surface.enabled, b.bc.surface.enabled);
    EXPECT_EQ(a.bc.surface.z0m, b.bc.surface.z0m);
    EXPECT_EQ(a.bc.surface.z0h, b.bc.surface.z0h);
    EXPECT_EQ(a.sponge.enabled, b.sponge.enabled);
    EXPECT_EQ(a.sponge.zstart, b.sponge.zstart);
    EXPECT_EQ(a.sponge.sigma, b.sponge.sigma);
    EXPECT_EQ(a.sponge.beta, b.sponge.beta);
    EXPECT_EQ(a.init.type, b.init.type);
    EXPECT_EQ(a.init.th0, b.init.th0);
    EXPECT_EQ(a.init.lapse_rate, b.init.lapse_rate);
    EXPECT_EQ(a.init.mixed_layer_height, b.init.mixed_layer_height);
    EXPECT_EQ(a.init.perturb_amplitude, b.init.perturb_amplitude);
    EXPECT_EQ(a.init.perturb_height, b.init.perturb_height);
    EXPECT_EQ(a.init.seed, b.init.seed);
    EXPECT_EQ(a.init.u0, b.init.u0);
    EXPECT_EQ(a.init.v0, b.init.v0);
    EXPECT_EQ(a.rk_order, b.rk_order);
    EXPECT_EQ(a.endtime, b.endtime);
    EXPECT_EQ(a.dt, b.dt);
    EXPECT_EQ(a.dtmax, b.dtmax);
    EXPECT_EQ(a.adaptive_dt, b.adaptive_dt);
    EXPECT_EQ(a.max_steps, b.max_steps);
    EXPECT_EQ(a.status_every, b.status_every);
    EXPECT_EQ(a.stats_every, b.stats_every);
    EXPECT_EQ(a.output_dir, b.output_dir);
    EXPECT_EQ(a.stats_file, b.stats_file);
}

} // namespace

TEST(Config, FullCaseReadsEveryField) {
    const Config c = load_config(good("full.yaml"));
    EXPECT_EQ(c.file, good("full.yaml"));
    EXPECT_EQ(c.name, "fullcase");
    EXPECT_EQ(c.precision, Precision::single);
    EXPECT_EQ(c.backend, Backend::cpu);
    EXPECT_EQ(c.tendencies, Tendencies::separate);
    EXPECT_EQ(c.grid.itot, 48);
    EXPECT_EQ(c.grid.jtot, 24);
    EXPECT_EQ(c.grid.ktot, 4);
    EXPECT_EQ(c.grid.xsize, 4800.0);
    EXPECT_EQ(c.grid.ysize, 2400.5);
    EXPECT_EQ(c.grid.zsize, 1000.0);
    EXPECT_EQ(c.grid.z, (std::vector<double>{50, 150, 400, 800}));
    EXPECT_EQ(c.grid.stretch, "uniform");
    EXPECT_EQ(c.grid.stretch_factor, 2.5);
    EXPECT_EQ(c.mpi.npx, 2);
    EXPECT_EQ(c.mpi.npy, 3);
    EXPECT_EQ(c.mpi.source, good("full.yaml") + ":14:12"); // the 2 of "mpi: {npx: 2"
    EXPECT_EQ(c.advec, AdvecScheme::second);               // YAML int 2 means scheme "2"
    EXPECT_EQ(c.cflmax, 0.8);
    EXPECT_EQ(c.diff, DiffType::smag2);
    EXPECT_EQ(c.nu, 1.5e-5);
    EXPECT_EQ(c.kappa, 2.0e-5);
    EXPECT_EQ(c.cs, 0.17);
    EXPECT_EQ(c.prandtl_t, 0.5);
    EXPECT_EQ(c.dnmax, 0.3);
    EXPECT_EQ(c.thermo, ThermoType::dry);
    EXPECT_EQ(c.thref, 290.0);
    EXPECT_EQ(c.gravity, 9.8);
    EXPECT_EQ(c.bc.mom_bot, MomBc::freeslip);
    EXPECT_EQ(c.bc.mom_top, MomBc::noslip);
    EXPECT_EQ(c.bc.u_bot, 0.5);
    EXPECT_EQ(c.bc.u_top, 10.0);
    EXPECT_EQ(c.bc.v_bot, -0.5);
    EXPECT_EQ(c.bc.v_top, -2.0);
    EXPECT_EQ(c.bc.s_bot, ScalarBc::flux);
    EXPECT_EQ(c.bc.s_bot_value, 0.1);
    EXPECT_EQ(c.bc.s_top, ScalarBc::dirichlet);
    EXPECT_EQ(c.bc.s_top_value, 310.0);
    EXPECT_TRUE(c.bc.surface.enabled);
    EXPECT_EQ(c.bc.surface.z0m, 0.05);
    EXPECT_EQ(c.bc.surface.z0h, 0.005);
    EXPECT_TRUE(c.sponge.enabled);
    EXPECT_EQ(c.sponge.zstart, 700.0);
    EXPECT_EQ(c.sponge.sigma, 0.02);
    EXPECT_EQ(c.sponge.beta, 3);
    EXPECT_EQ(c.init.type, InitType::profile);
    EXPECT_EQ(c.init.th0, 295.0);
    EXPECT_EQ(c.init.lapse_rate, 0.003);
    EXPECT_EQ(c.init.mixed_layer_height, 500.0);
    EXPECT_EQ(c.init.perturb_amplitude, 0.1);
    EXPECT_EQ(c.init.perturb_height, 200.0);
    EXPECT_EQ(c.init.seed, 12345ul);
    EXPECT_EQ(c.init.u0, 3.0);
    EXPECT_EQ(c.init.v0, -1.0);
    EXPECT_EQ(c.rk_order, 4);
    EXPECT_EQ(c.endtime, 3600.0);
    EXPECT_EQ(c.dt, 0.5);
    EXPECT_EQ(c.dtmax, 5.0);
    EXPECT_FALSE(c.adaptive_dt);
    EXPECT_EQ(c.max_steps, 1000);
    EXPECT_EQ(c.status_every, 5);
    EXPECT_EQ(c.stats_every, 60.0);
    EXPECT_EQ(c.output_dir, "out/full");
    EXPECT_EQ(c.stats_file, "full.h5");
}

TEST(Config, Defaults) {
    const Config c = load_config(good("minimal.yaml"));
    // The values documented in docs/case-schema.md, written out independently.
    EXPECT_EQ(c.name, "minimal"); // the file stem
    EXPECT_EQ(c.precision, Precision::dbl);
    EXPECT_EQ(c.backend, Backend::automatic);
    EXPECT_EQ(c.tendencies, Tendencies::automatic);
    EXPECT_EQ(c.grid.jtot, 1);
    EXPECT_EQ(c.grid.ysize, 1.0);
    EXPECT_TRUE(c.grid.z.empty());
    EXPECT_EQ(c.grid.stretch, "uniform");
    EXPECT_EQ(c.grid.stretch_factor, 0.0);
    EXPECT_EQ(c.mpi.npx, 0);
    EXPECT_EQ(c.mpi.npy, 0);
    EXPECT_EQ(c.mpi.source, good("minimal.yaml")); // no mpi section: the file
    EXPECT_EQ(c.advec, AdvecScheme::second_i5);
    EXPECT_EQ(c.cflmax, 1.0); // the 2i5 default (docs/numerics.md)
    EXPECT_EQ(c.diff, DiffType::constant);
    EXPECT_EQ(c.nu, 0.01);
    EXPECT_EQ(c.kappa, 0.0);
    EXPECT_EQ(c.cs, 0.23);
    EXPECT_EQ(c.prandtl_t, 1.0 / 3.0);
    EXPECT_EQ(c.dnmax, 0.4);
    EXPECT_EQ(c.thermo, ThermoType::none);
    EXPECT_EQ(c.thref, 300.0);
    EXPECT_EQ(c.gravity, 9.81);
    EXPECT_EQ(c.bc.mom_bot, MomBc::noslip);
    EXPECT_EQ(c.bc.mom_top, MomBc::freeslip);
    EXPECT_EQ(c.bc.u_bot, 0.0);
    EXPECT_EQ(c.bc.u_top, 0.0);
    EXPECT_EQ(c.bc.v_bot, 0.0);
    EXPECT_EQ(c.bc.v_top, 0.0);
    EXPECT_EQ(c.bc.s_bot, ScalarBc::neumann);
    EXPECT_EQ(c.bc.s_top, ScalarBc::neumann);
    EXPECT_EQ(c.bc.s_bot_value, 0.0);
    EXPECT_EQ(c.bc.s_top_value, 0.0);
    EXPECT_FALSE(c.bc.surface.enabled);
    EXPECT_EQ(c.bc.surface.z0m, 0.1);
    EXPECT_EQ(c.bc.surface.z0h, 0.1);
    EXPECT_FALSE(c.sponge.enabled);
    EXPECT_EQ(c.sponge.zstart, 0.0);
    EXPECT_EQ(c.sponge.sigma, 0.01);
    EXPECT_EQ(c.sponge.beta, 2);
    EXPECT_EQ(c.init.type, InitType::zero);
    EXPECT_EQ(c.init.th0, 300.0);
    EXPECT_EQ(c.init.lapse_rate, 0.0);
    EXPECT_EQ(c.init.mixed_layer_height, 0.0);
    EXPECT_EQ(c.init.perturb_amplitude, 0.0);
    EXPECT_EQ(c.init.perturb_height, 0.0);
    EXPECT_EQ(c.init.seed, 1ul);
    EXPECT_EQ(c.init.u0, 0.0);
    EXPECT_EQ(c.init.v0, 0.0);
    EXPECT_EQ(c.rk_order, 3);
    EXPECT_EQ(c.endtime, 10.0);
    EXPECT_EQ(c.dt, 1.0);
    EXPECT_EQ(c.dtmax, 1e9);
    EXPECT_TRUE(c.adaptive_dt);
    EXPECT_EQ(c.max_steps, -1);
    EXPECT_EQ(c.status_every, 10);
    EXPECT_EQ(c.stats_every, 0.0);
    EXPECT_EQ(c.output_dir, ".");
    EXPECT_EQ(c.stats_file, "minimal.stats.h5");
}

TEST(Config, SchemeTwoDefaultCfl) {
    TempCase t("cfl", std::string(minimal_text) + "advection: {scheme: \"2\"}\n");
    EXPECT_EQ(load_config(t.str()).cflmax, 1.2);
}

// The resolved YAML names every key and loads back to the same configuration.
TEST(Config, ResolvedYamlRoundTrip) {
    for (const auto& [file, overrides] :
         std::vector<std::pair<std::string, std::vector<std::string>>>{
             {good("full.yaml"), {}},
             {good("minimal.yaml"), {}},
             {good("minimal.yaml"),
              {"grid.stretch=tanh", "grid.stretch_factor=1.7", "init.seed=18446744073",
               "diffusion.nu=0.1", "name=yes", "output.dir='a dir/with: colon'"}}}) {
        SCOPED_TRACE(file);
        const Config a = load_config(file, overrides);
        TempCase t("roundtrip", a.resolved_yaml);
        const Config b = load_config(t.str());
        expect_same(a, b);
        EXPECT_EQ(a.resolved_yaml, b.resolved_yaml);
        // Every schema key appears, defaults included.
        EXPECT_EQ(a.resolved_yaml.rfind("name: ", 0), 0u);
        for (const char* key : {"precision:",
                                "backend:",
                                "tendencies:",
                                "itot:",
                                "jtot:",
                                "ktot:",
                                "xsize:",
                                "ysize:",
                                "zsize:",
                                "z:",
                                "stretch:",
                                "stretch_factor:",
                                "npx:",
                                "npy:",
                                "scheme:",
                                "cflmax:",
                                "nu:",
                                "kappa:",
                                "cs:",
                                "prandtl_t:",
                                "dnmax:",
                                "thref:",
                                "gravity:",
                                "mom_bot:",
                                "mom_top:",
                                "u_bot:",
                                "u_top:",
                                "v_bot:",
                                "v_top:",
                                "scalar_bot:",
                                "scalar_bot_value:",
                                "scalar_bot_rate:",
                                "scalar_top:",
                                "scalar_top_value:",
                                "surface_model:",
                                "z0m:",
                                "z0h:",
                                "enabled:",
                                "zstart:",
                                "sigma:",
                                "beta:",
                                "th0:",
                                "lapse_rate:",
                                "mixed_layer_height:",
                                "perturb_amplitude:",
                                "perturb_velocity:",
                                "perturb_height:",
                                "seed:",
                                "u0:",
                                "v0:",
                                "rk:",
                                "endtime:",
                                "dt:",
                                "dtmax:",
                                "adaptive:",
                                "max_steps:",
                                "status_every:",
                                "stats_every:",
                                "dir:",
                                "stats_file:"})
            EXPECT_NE(a.resolved_yaml.find(std::string("\n  ") + key), std::string::npos)
                << key << " missing from\n"
                << a.resolved_yaml;
    }
}

TEST(Config, Overrides) {
    const Config c = load_config(good("minimal.yaml"),
                                 {"grid.itot=64", "advection.scheme=2",
                                  "grid.z=[0.5, 1, 1.25, 1.5, 1.6, 1.7, "
                                  "1.8, 1.9]",
                                  "sponge.enabled=true", "sponge.zstart=1.5", "name=renamed",
                                  "time.rk=4", "time={endtime: 5, dt: 0.25}", "diffusion.nu=2e-3"});
    EXPECT_EQ(c.grid.itot, 64);
    EXPECT_EQ(c.advec, AdvecScheme::second);
    EXPECT_EQ(c.grid.z.size(), 8u);
    EXPECT_EQ(c.grid.z[1], 1.0);
    EXPECT_TRUE(c.sponge.enabled); // the sponge section is absent from the file
    EXPECT_EQ(c.sponge.zstart, 1.5);
    EXPECT_EQ(c.name, "renamed");
    EXPECT_EQ(c.stats_file, "renamed.stats.h5");
    // A later override of the same map replaces the earlier key (time.rk is gone).
    EXPECT_EQ(c.rk_order, 3);
    EXPECT_EQ(c.endtime, 5.0);
    EXPECT_EQ(c.dt, 0.25);
    EXPECT_EQ(c.nu, 2e-3);
    // Keys the overrides left alone keep the file's values.
    EXPECT_EQ(c.grid.ktot, 8);
    EXPECT_EQ(c.grid.zsize, 2.0);
}

TEST(Config, OverrideErrors) {
    const std::string f = good("minimal.yaml");
    auto err = [&](std::vector<std::string> o) { return error_of([&] { load_config(f, o); }); };
    EXPECT_EQ(err({"grid.itot=abc"}),
              "<command line>: grid.itot: expected a positive integer, got 'abc'");
    EXPECT_EQ(err({"grid.itot"}),
              "<command line>: override 'grid.itot' must have the form dotted.key=value");
    EXPECT_EQ(err({"gird.itot=3"}), "<command line>: gird.itot: unknown key 'gird'; did you "
                                    "mean 'grid'?");
    EXPECT_EQ(err({"grid.itot.x=3"}), "<command line>: grid.itot.x: unknown key (too many levels)");
    EXPECT_NE(err({"grid.z=[1, 2"}).find("<command line>: grid.z: cannot parse value '[1, 2'"),
              std::string::npos);
    EXPECT_EQ(err({"grid.z=[0.5, abc]"}),
              "<command line>: grid.z[1]: expected a number, got 'abc'");
    // An override that breaks a cross-key rule is reported at its source.
    EXPECT_EQ(err({"diffusion.nu=0"}), "<command line>: diffusion.nu: must be given and > 0 for "
                                       "diffusion.type constant, got 0");
    EXPECT_EQ(err({"grid={itot: 4}"}),
              "<command line>: grid.ktot: missing required key 'ktot' in section 'grid'");
}

TEST(Config, CrossKeyRules) {
    auto err = [](const std::string& extra) {
        TempCase t("rules", std::string(minimal_text) + extra);
        return error_of([&] { load_config(t.str()); });
    };
    // Lines 1-3 are minimal_text, so the extra text starts on line 4.
    // kappa is absent, so the position is that of the diffusion map (line 2, column 12).
    EXPECT_NE(err("thermo: {type: dry}\n")
                  .find(":2:12: diffusion.kappa: must be given and > 0 "
                        "for diffusion.type constant with thermo.type dry"),
              std::string::npos);
    EXPECT_NE(err("grid2: 1\n").find(":4:1: grid2: unknown key 'grid2'; did you mean 'grid'?"),
              std::string::npos);
    EXPECT_NE(err("sponge: {zstart: 2}\n").find("sponge.zstart: 2 must be below grid.zsize = 2"),
              std::string::npos);
    EXPECT_NE(err("output: {status_every: 0}\n").find("output.status_every: 0 is out of range"),
              std::string::npos);
    EXPECT_NE(err("output: {stats_every: -1}\n").find("output.stats_every: -1 is out of range"),
              std::string::npos);
    EXPECT_NE(err("diffusion: {nu: 1}\n").find(":4:1: diffusion: duplicate key"),
              std::string::npos);
}

// The derived cross-section fields: accepted, each in its place in the list.
TEST(Config, DerivedCrossFields) {
    TempCase t("derived", std::string(minimal_text) +
                              "output: {cross: {every: 1, xy: [0.5], "
                              "fields: [vort_x, u, vort_y, w2, vort_z]}}\n");
    const Config c = load_config(t.str());
    EXPECT_EQ(c.cross.fields, (std::vector<std::string>{"vort_x", "u", "vort_y", "w2", "vort_z"}));
}

TEST(Config, GridRules) {
    auto err = [](const std::string& grid, const std::string& more = "") {
        TempCase t("grid", "grid: {itot: 16, ktot: 8, xsize: 1, zsize: 2, " + grid + "}\n" +
                               "diffusion: {nu: 0.01}\ntime: {endtime: 1, dt: 0.1}\n" + more);
        return error_of([&] { load_config(t.str()); });
    };
    EXPECT_NE(err("stretch: tanh")
                  .find("grid.stretch: grid.stretch tanh needs "
                        "grid.stretch_factor > 0"),
              std::string::npos);
    EXPECT_NE(err("stretch: tanh, stretch_factor: 0").find("grid.stretch_factor:"),
              std::string::npos);
    EXPECT_NE(err("stretch: cosh")
                  .find("grid.stretch: 'cosh' is not allowed; expected one of: "
                        "uniform, tanh"),
              std::string::npos);
    EXPECT_NE(err("stretch: tanh, stretch_factor: 2, z: [.1, .2, .3, .4, .5, .6, .7, .8]")
                  .find("tanh conflicts with the explicit levels"),
              std::string::npos);
    EXPECT_NE(err("z: {a: 1}").find("grid.z: expected a list of numbers, got a map"),
              std::string::npos);
    EXPECT_NE(err("ysize: 0").find("grid.ysize: 0 is out of range: must be > 0"),
              std::string::npos);
    EXPECT_NE(err("jtot: -4").find("grid.jtot: -4 is out of range: must be >= 1"),
              std::string::npos);
    EXPECT_NE(err("jtot: 99999999999")
                  .find("grid.jtot: 99999999999 is out of range: must be "
                        "in [1, 2147483647]"),
              std::string::npos);
    EXPECT_NE(err("", "thermo: {type: buoy}\n").find("diffusion.kappa: must be given"),
              std::string::npos);
    TempCase dt("dt", std::string(minimal_text) + "sponge: {}\n");
    EXPECT_NE(error_of([&] {
                  load_config(dt.str(), {"time.dt=0.1", "time.dtmax=0.01"});
              }).find("<command line>: time.dt: 0.1 exceeds time.dtmax = 0.01"),
              std::string::npos);
    // Uniform grid of 8 levels over 2 m: the lowest centre is at 0.125 m.
    const std::string most = "diffusion: {type: smag2}\nthermo: {type: dry}\n"
                             "boundary: {surface_model: most, scalar_bot: flux, z0m: 0.2}\n";
    TempCase t("most",
               "grid: {itot: 16, ktot: 8, xsize: 1, zsize: 2}\ntime: {endtime: 1}\n" + most);
    EXPECT_NE(error_of([&] {
                  load_config(t.str());
              }).find("boundary.z0m: 0.2 must be below the lowest grid level z = 0.125"),
              std::string::npos);
}

TEST(Config, FileErrors) {
    const std::string missing = (here / "bad" / "does_not_exist.yaml").string();
    EXPECT_EQ(error_of([&] { load_config(missing); }),
              "cannot open case file '" + missing + "': No such file or directory");
    EXPECT_EQ(error_of([&] { load_config(here.string()); }),
              "cannot open case file '" + here.string() + "': Is a directory");
    TempCase t("notmap", "- 1\n- 2\n");
    EXPECT_EQ(error_of([&] { load_config(t.str()); }),
              t.str() + ":1:1: expected a map of keys, got a list");
}

// ---- The broken case files -------------------------------------------------------------

struct BadCase {
    fs::path path;
    std::vector<std::string> expects, overrides;
};

std::vector<BadCase> bad_cases() {
    std::vector<BadCase> cases;
    for (const auto& entry : fs::directory_iterator(here / "bad")) {
        if (entry.path().extension() != ".yaml") continue;
        BadCase bc{entry.path(), {}, {}};
        std::ifstream in(entry.path());
        for (std::string line; std::getline(in, line);) {
            if (line.rfind("# expect: ", 0) == 0) bc.expects.push_back(line.substr(10));
            if (line.rfind("# args: ", 0) == 0) {
                std::istringstream words(line.substr(8));
                for (std::string w; words >> w;)
                    if (w != "--set") bc.overrides.push_back(w);
            }
        }
        cases.push_back(bc);
    }
    std::sort(cases.begin(), cases.end(), [](auto& a, auto& b) { return a.path < b.path; });
    return cases;
}

class BadCaseFile : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadCaseFile, FailsWithExpectedMessage) {
    const BadCase& bc = GetParam();
    ASSERT_FALSE(bc.expects.empty()) << bc.path << " has no '# expect:' line";
    const std::string file = bc.path.string();
    // The same sequence as `squall run` on one rank: load, then decompose.
    const std::string msg = error_of([&] {
        const Config c = load_config(file, bc.overrides);
        resolve_decomposition(c, 1);
    });
    for (std::string e : bc.expects) {
        if (const auto at = e.find("@FILE@"); at != std::string::npos) e.replace(at, 6, file);
        EXPECT_NE(msg.find(e), std::string::npos) << "expected: " << e << "\nin: " << msg;
    }
}

INSTANTIATE_TEST_SUITE_P(Config, BadCaseFile, ::testing::ValuesIn(bad_cases()),
                         [](const auto& info) { return info.param.path.stem().string(); });

TEST(Config, EnoughBadCases) {
    EXPECT_GE(bad_cases().size(), 12u);
}

// Every shipped case must pass the schema, and its resolved form must load back.
TEST(Config, ShippedCasesLoad) {
    int n = 0;
    const fs::path dir = fs::path(SQUALL_SOURCE_DIR) / "cases";
    if (fs::is_directory(dir))
        for (const auto& entry : fs::recursive_directory_iterator(dir))
            if (entry.path().extension() == ".yaml") {
                SCOPED_TRACE(entry.path().string());
                Config a;
                ASSERT_NO_THROW(a = load_config(entry.path().string()));
                TempCase t("shipped", a.resolved_yaml);
                expect_same(a, load_config(t.str()));
                ++n;
            }
    if (n == 0) GTEST_SKIP() << "no cases/*.yaml yet";
}

// model.tendencies: auto is fused for 2i5 with smag2 on the GPU backend and separate on the
// CPU (or an unresolved backend); neither runs the fused kernels where they do not apply.
TEST(Config, TendenciesAutoPicksPerBackend) {
    Config c = load_config((fs::path(SQUALL_SOURCE_DIR) / "cases" / "drycbl.yaml").string());
    ASSERT_TRUE(fused_tendencies_available(c));
    auto runs = [&](Tendencies t, Backend b) {
        c.tendencies = t, c.backend = b;
        return runs_fused_tendencies(c);
    };
    EXPECT_TRUE(runs(Tendencies::automatic, Backend::gpu));
    EXPECT_FALSE(runs(Tendencies::automatic, Backend::cpu));
    EXPECT_FALSE(runs(Tendencies::automatic, Backend::automatic));
    EXPECT_TRUE(runs(Tendencies::fused, Backend::cpu));
    EXPECT_FALSE(runs(Tendencies::separate, Backend::gpu));
    c.advec = AdvecScheme::second; // 2 with smag2: no fused kernel
    EXPECT_FALSE(runs(Tendencies::automatic, Backend::gpu));
    EXPECT_FALSE(runs(Tendencies::fused, Backend::gpu));
    c.diff = DiffType::constant; // the DNS pair: fused on the GPU too (measured faster)
    ASSERT_TRUE(fused_tendencies_available(c));
    EXPECT_TRUE(runs(Tendencies::automatic, Backend::gpu));
    EXPECT_FALSE(runs(Tendencies::automatic, Backend::cpu));
    EXPECT_TRUE(runs(Tendencies::fused, Backend::gpu));
}
