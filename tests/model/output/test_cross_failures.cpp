// Cross-section writes that fail: a full disk (the process's file size limit) and an HDF5
// call failing at every point of a sample in turn. Each failure stops with an error that
// names the file (from the next cross() or wait_for_writes(): rank 0 writes in the
// background); the samples written before keep their values and the file stays readable;
// a restart continues it.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <memory>

#include "cross_test_util.h"
#include "model/core/output.h"
#include "model/io/h5.h"

namespace {

using namespace squall;
using namespace squall::cross_test;

// A small grid with an xy and a yz section of u, w and vort_z.
struct Sections {
    Config cfg;
    Grid<double> g;
    Decomposition dc = Decomposition::make(MPI_COMM_WORLD, 1, 1);
    Fields<double> f;
    Sections(const std::string& name)
        : cfg(make_config(name)), g(Grid<double>::make(cfg, 1, 1, 0, 0)),
          f(g.d, false, false, false, false, false) {}
    static Config make_config(const std::string& name) {
        Config c;
        c.name = name;
        c.grid.itot = 8;
        c.grid.jtot = 6;
        c.grid.ktot = 5;
        c.grid.xsize = 2.0;
        c.grid.ysize = 1.5;
        c.grid.zsize = 1.0;
        c.grid.z = {0.05, 0.15, 0.3, 0.5, 0.8};
        c.output_dir = scratch_dir();
        c.cross.every = 1;
        c.cross.fields = {"u", "w", "vort_z"};
        c.cross.xy = {0.3};
        c.cross.yz = {1.0};
        return c;
    }
    // Sample a: the same pattern times 2^a, so that every value of sample a is exactly 2^a
    // times that of sample 0 (a power of two changes no rounding).
    void set_sample(int a) {
        const auto& d = g.d;
        const double s = std::ldexp(1.0, a);
        for (int k = 0; k < d.kcells; ++k)
            for (int j = 0; j < d.jcells; ++j)
                for (int i = 0; i < d.icells; ++i) {
                    f.u(i, j, k) = s * (0.1 * i - 0.03 * j * j + 0.5 * k);
                    f.v(i, j, k) = s * (0.2 * i * i + 0.07 * j - 0.1 * k);
                    f.w(i, j, k) = s * (1.0 + 0.01 * i * j * k);
                }
    }
    std::string path(const char* o) const {
        return scratch_dir() + "/" + cfg.name + ".cross_" + o + ".h5";
    }
};

// The file holds exactly `n` samples, sample a being 2^a times sample 0 (`first`, filled
// from the file on the first call) for every variable.
void expect_samples(const std::string& path, int n, std::map<std::string, Dataset>& first) {
    const Dataset t = read(path, "time");
    ASSERT_EQ(t.data.size(), std::size_t(n)) << path;
    for (int a = 0; a < n; ++a) EXPECT_EQ(t.data[a], double(a)) << path;
    for (const char* name : {"u", "w", "vort_z"}) {
        const Dataset ds = read(path, name);
        ASSERT_EQ(ds.dims.at(0), std::size_t(n)) << path << " " << name;
        const std::size_t per = ds.data.size() / std::size_t(n);
        if (!first.count(name)) first[name] = ds;
        const std::vector<double>& zero = first[name].data;
        for (int a = 0; a < n; ++a)
            for (std::size_t m = 0; m < per; ++m)
                ASSERT_EQ(ds.data[a * per + m], std::ldexp(zero[m], a))
                    << path << " " << name << " sample " << a << " value " << m;
    }
}

TEST(CrossFailures, FullDiskRefusesTheSampleAndKeepsTheFile) {
    Sections s("full");
    s.cfg.cross.yz.clear(); // one file, so that the size limit is its own
    auto out = std::make_unique<Output<double>>(s.cfg, s.g, s.f, s.dc);
    out->create();
    s.set_sample(0);
    out->cross(0.0);
    out->wait_for_writes(); // the file's size is now that of one sample
    // The files may not grow any more, as on a full disk (writes past the process's file
    // size limit fail with EFBIG; the signal that comes with them is ignored).
    rlimit old{};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lim = old;
    lim.rlim_cur = rlim_t(std::filesystem::file_size(s.path("xy")));
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
    std::string msg;
    int written = 1;
    for (; written < 200; ++written) {
        s.set_sample(written);
        try {
            out->cross(double(written));
            out->wait_for_writes();
        } catch (const std::runtime_error& e) {
            msg = e.what();
            break;
        }
    }
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
    std::signal(SIGXFSZ, old_handler);
    ASSERT_FALSE(msg.empty()) << "the file never had to grow";
    EXPECT_NE(msg.find(s.path("xy")), std::string::npos) << msg;
    EXPECT_NE(msg.find("no room"), std::string::npos) << msg;
    // Later samples are refused rather than lost without a word.
    EXPECT_THROW(
        {
            out->cross(1000.0);
            out->wait_for_writes();
        },
        std::runtime_error);
    out.reset();
    std::map<std::string, Dataset> first;
    expect_samples(s.path("xy"), written, first);
}

TEST(CrossFailures, AFailingHdf5CallAnywhereInASampleLeavesTheEarlierSamples) {
    Sections s("inject");
    auto out = std::make_unique<Output<double>>(s.cfg, s.g, s.f, s.dc);
    out->create();
    for (int a = 0; a < 2; ++a) {
        s.set_sample(a);
        out->cross(double(a));
    }
    out.reset();
    std::map<std::string, Dataset> first_xy, first_yz;
    expect_samples(s.path("xy"), 2, first_xy);
    expect_samples(s.path("yz"), 2, first_yz);

    // The third sample, its n-th checked HDF5 call failing, for n = 1, 2, ... until the
    // calls run out and the sample is written.
    h5::FailInjection& inject = h5::fail_injection();
    int failures = 0;
    bool written = false;
    for (long n = 1; n < 500 && !written; ++n) {
        out = std::make_unique<Output<double>>(s.cfg, s.g, s.f, s.dc);
        out->resume(1.0);
        s.set_sample(2);
        inject = {.at = n, .count = 0, .on = true};
        std::string msg;
        try {
            out->cross(2.0);
            out->wait_for_writes();
            written = true;
        } catch (const std::runtime_error& e) {
            msg = e.what();
        }
        inject = {};
        if (written) break;
        ++failures;
        // The xy file is written first: a failure there names it and leaves the yz file
        // alone; a failure in the yz file names it, after the xy sample went in whole.
        const bool in_xy = msg.find(s.path("xy")) != std::string::npos;
        EXPECT_TRUE(in_xy || msg.find(s.path("yz")) != std::string::npos) << msg;
        EXPECT_NE(msg.find("injected failure"), std::string::npos) << msg;
        out.reset();
        expect_samples(s.path("xy"), in_xy ? 2 : 3, first_xy);
        expect_samples(s.path("yz"), 2, first_yz);
    }
    EXPECT_TRUE(written);
    EXPECT_GT(failures, 10); // every variable's calls and the time axis's, in each file
    out.reset();
    expect_samples(s.path("xy"), 3, first_xy);
    expect_samples(s.path("yz"), 3, first_yz);
}

} // namespace
