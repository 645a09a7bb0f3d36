// Statistics file as it grows: each write appends and flushes; a second process (xarray,
// as an SWMR reader) sees the samples so far while the writer keeps the file open; a
// restart drops the later samples and continues the time axis; an existing file is refused
// unless overwritten; incompatible files are refused; a write that fails (file size limit,
// as on a full disk) leaves the earlier samples readable and names the file.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "model/stats/stats.h"
#include "stats_test_util.h"

namespace fs = std::filesystem;
using namespace squall;
using stats_test::read_dataset;

namespace {

std::string tmp_dir() {
    const fs::path p = fs::temp_directory_path() / ("squall_stats_app_" + std::to_string(getpid()));
    fs::create_directories(p);
    return p.string();
}

struct CleanTmp : ::testing::Environment {
    void TearDown() override { fs::remove_all(tmp_dir()); }
};
const auto* const clean_tmp = ::testing::AddGlobalTestEnvironment(new CleanTmp);

// Uniform fields: the sample "a" gives mean u = a, mean th = 300 + a and dt = a.
struct Uniform {
    Field3d<double> u, v, w, s;
    std::vector<double> ustar;
    explicit Uniform(const GridDims& d) : u(d), v(d), w(d), s(d), ustar(d.nplane(), 0.3) {}
    void sample(Statistics<double>& st, double time, long step, double a, bool surface = false) {
        u.fill(a);
        v.fill(0);
        w.fill(0);
        s.fill(300 + a);
        StatsInput<double> in;
        in.u = &u, in.v = &v, in.w = &w, in.s = &s;
        in.kappa = 1e-3;
        in.dt = a;
        if (surface) in.ustar = ustar.data();
        st.sample(time, step, in);
    }
};

struct TestGrid {
    Config cfg = stats_test::test_config();
    Grid<double> g = Grid<double>::make(cfg, 1, 1, 0, 0);
    Decomposition dec = Decomposition::make(MPI_COMM_WORLD, 1, 1);
    Uniform f{g.d};
};

// Reads the file in another process with xarray (read_stats.py); profile u, series dt.
nlohmann::json read_with_xarray(const std::string& path) {
    const std::string python = SQUALL_TEST_PYTHON;
    if (python.empty())
        throw std::runtime_error("no python3 with xarray and h5netcdf found at "
                                 "configure time (scripts/setup installs them)");
    const std::string cmd = python + " " + SQUALL_STATS_READER + " '" + path + "' u dt";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) throw std::runtime_error("cannot run " + cmd);
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    if (pclose(p) != 0) throw std::runtime_error("failed: " + cmd);
    return nlohmann::json::parse(out);
}

void expect_samples(const nlohmann::json& j, const std::vector<double>& time,
                    const std::vector<double>& a) {
    ASSERT_EQ(j["time"].get<std::vector<double>>(), time);
    ASSERT_EQ(j["series_dims"], nlohmann::json({"time"}));
    ASSERT_EQ(j["values"].size(), a.size());
    for (std::size_t r = 0; r < a.size(); ++r) {
        for (double x : j["values"][r].get<std::vector<double>>()) EXPECT_EQ(x, a[r]) << r;
        EXPECT_EQ(j["series"][r].get<double>(), a[r]) << r;
    }
}

std::string what(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    ADD_FAILURE() << "no exception";
    return "";
}

} // namespace

TEST(StatsAppend, ReaderSeesEachSampleWhileTheWriterHasTheFileOpen) {
    TestGrid s;
    const std::string path = tmp_dir() + "/live.h5";
    Statistics<double> st(s.g, s.dec, path, "", "th");
    s.f.sample(st, 0.0, 0, 1.0);
    st.write();
    nlohmann::json j = read_with_xarray(path);
    expect_samples(j, {0.0}, {1.0});
    EXPECT_EQ(j["dims"], nlohmann::json({"time", "z"}));
    EXPECT_EQ(j["z"].get<std::vector<double>>(), (std::vector<double>{0.05, 0.15, 0.3, 0.5, 0.8}));
    s.f.sample(st, 10.0, 7, 2.0);
    st.write();
    expect_samples(read_with_xarray(path), {0.0, 10.0}, {1.0, 2.0});
    st.close();

    // Growing datasets: chunked, with an unlimited time dimension.
    for (const char* name : {"/time", "/profiles/u", "/timeseries/dt", "/timeseries/step"}) {
        const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        const hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
        const hid_t sp = H5Dget_space(ds), dcpl = H5Dget_create_plist(ds);
        hsize_t dims[2], maxdims[2];
        H5Sget_simple_extent_dims(sp, dims, maxdims);
        EXPECT_EQ(dims[0], 2u) << name;
        EXPECT_EQ(maxdims[0], H5S_UNLIMITED) << name;
        EXPECT_EQ(H5Pget_layout(dcpl), H5D_CHUNKED) << name;
        H5Pclose(dcpl);
        H5Sclose(sp);
        H5Dclose(ds);
        H5Fclose(f);
    }
    EXPECT_TRUE(stats_test::is_scale(path, "/time"));
    // Each group's datasets use the group's own coordinates, which grow with them.
    EXPECT_TRUE(stats_test::scale_attached(path, "/profiles/u", "/profiles/time", 0));
    EXPECT_TRUE(stats_test::scale_attached(path, "/timeseries/step", "/timeseries/time", 0));
    for (const char* t : {"/time", "/profiles/time", "/timeseries/time"})
        EXPECT_EQ(read_dataset(path, t).data.size(), 2u) << t;
}

TEST(StatsAppend, RestartDropsLaterSamplesAndContinuesTheTimeAxis) {
    TestGrid s;
    const std::string path = tmp_dir() + "/restart.h5";
    {
        Statistics<double> st(s.g, s.dec, path, "", "th");
        for (int n = 0; n < 5; ++n) {
            s.f.sample(st, 10.0 * n, n, 1.0 + n);
            st.write();
        }
    }
    Statistics<double> st(s.g, s.dec, path, "", "th");
    st.resume(20.0); // the run continues from its state at t = 20
    EXPECT_EQ(st.nsamples(), 3u);
    for (int n = 3; n < 6; ++n) {
        s.f.sample(st, 10.0 * n, n, 10.0 + n);
        st.write();
    }
    st.close();
    const std::vector<double> time{0, 10, 20, 30, 40, 50};
    expect_samples(read_with_xarray(path), time, {1, 2, 3, 13, 14, 15});
    EXPECT_EQ(read_dataset(path, "/time").data, time);
    EXPECT_EQ(read_dataset(path, "/timeseries/step").data, (std::vector<double>{0, 1, 2, 3, 4, 5}));
    for (const std::string& p : stats_test::list_datasets(path))
        if (p.size() < 2 || (p.substr(p.size() - 2) != "/z" && p.substr(p.size() - 3) != "/zh")) {
            EXPECT_EQ(read_dataset(path, p).dims[0], 6u) << p;
        }

    // Sampling the restart time again would duplicate it: refused, naming the file.
    Statistics<double> again(s.g, s.dec, path, "", "th");
    again.resume(30.0);
    s.f.sample(again, 30.0, 3, 1.0);
    const std::string msg = what([&] { again.write(); });
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("not after"), std::string::npos) << msg;
}

TEST(StatsAppend, ResumeRefusesAnIncompatibleFile) {
    TestGrid s;
    const std::string path = tmp_dir() + "/compat.h5";
    {
        Statistics<double> st(s.g, s.dec, path, "", "th");
        s.f.sample(st, 0.0, 0, 1.0, true);
        st.write();
    }
    Config other = s.cfg;
    other.grid.z = {0.05, 0.15, 0.3, 0.5, 0.9};
    const Grid<double> g2 = Grid<double>::make(other, 1, 1, 0, 0);
    Statistics<double> levels(g2, s.dec, path, "", "th");
    std::string msg = what([&] { levels.resume(0.0); });
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("levels"), std::string::npos) << msg;

    Statistics<double> scalar(s.g, s.dec, path, "", "b");
    msg = what([&] { scalar.resume(0.0); });
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("scalar"), std::string::npos) << msg;

    Statistics<double> vars(s.g, s.dec, path, "", "th");
    vars.resume(0.0);
    s.f.sample(vars, 1.0, 1, 2.0, false); // no surface model now: ustar is missing
    msg = what([&] { vars.write(); });
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("-ustar"), std::string::npos) << msg;

    Statistics<double> missing(s.g, s.dec, path + ".none", "", "th");
    msg = what([&] { missing.resume(0.0); });
    EXPECT_NE(msg.find(path + ".none"), std::string::npos) << msg;
    EXPECT_EQ(read_dataset(path, "/time").data.size(), 1u);
}

TEST(StatsAppend, ExistingFileIsRefusedUnlessOverwritten) {
    TestGrid s;
    const std::string path = tmp_dir() + "/exists.h5";
    {
        Statistics<double> st(s.g, s.dec, path, "", "th");
        for (int n = 0; n < 3; ++n) s.f.sample(st, n, n, 1.0);
        st.write();
    }
    Statistics<double> refused(s.g, s.dec, path, "", "th");
    const std::string msg = what([&] { refused.create(); });
    for (const std::string& word : {path, std::string("--overwrite"), std::string("--restart")})
        EXPECT_NE(msg.find(word), std::string::npos) << msg;
    Statistics<double> lazy(s.g, s.dec, path, "", "th");
    s.f.sample(lazy, 0, 0, 5.0);
    EXPECT_THROW(lazy.write(), std::runtime_error);
    EXPECT_EQ(read_dataset(path, "/time").data.size(), 3u);

    Statistics<double> replace(s.g, s.dec, path, "", "th", "", true);
    s.f.sample(replace, 0, 0, 5.0);
    replace.write();
    replace.close();
    EXPECT_EQ(read_dataset(path, "/time").data.size(), 1u);
    EXPECT_EQ(read_dataset(path, "/timeseries/dt").data[0], 5.0);
}

// A statistics file deleted (or replaced) while the run writes it: the next write stops the
// run, naming the file, instead of writing into the unlinked file where every later sample
// would be lost; the restart with --overwrite then starts a new file, without it is refused.
TEST(StatsAppend, FileDeletedDuringTheRunStopsItAndOverwriteStartsAnew) {
    TestGrid s;
    const std::string path = tmp_dir() + "/deleted.h5";
    {
        Statistics<double> st(s.g, s.dec, path, "", "th");
        s.f.sample(st, 0.0, 0, 1.0);
        st.write();
        std::filesystem::remove(path);
        s.f.sample(st, 1.0, 1, 1.0);
        const std::string msg = what([&] { st.write(); });
        EXPECT_NE(msg.find(path), std::string::npos) << msg;
        EXPECT_NE(msg.find("deleted or replaced"), std::string::npos) << msg;
    }
    Statistics<double> refused(s.g, s.dec, path, "", "th");
    const std::string msg = what([&] { refused.resume(1.0); });
    EXPECT_NE(msg.find("--overwrite"), std::string::npos) << msg;
    Statistics<double> fresh(s.g, s.dec, path, "", "th", "", true);
    fresh.resume(1.0);
    s.f.sample(fresh, 2.0, 2, 1.0);
    fresh.write();
    fresh.close();
    EXPECT_EQ(read_dataset(path, "/time").data, std::vector<double>{2.0});
}

TEST(StatsAppend, RestartTakesOverTheFileOfAKilledRun) {
    TestGrid s;
    const std::string path = tmp_dir() + "/killed.h5";
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        // The killed run: writes two samples, then ends without closing the file.
        Statistics<double> st(s.g, s.dec, path, "", "th");
        for (int n = 0; n < 2; ++n) {
            s.f.sample(st, n, n, 1.0 + n);
            st.write();
        }
        _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    Statistics<double> st(s.g, s.dec, path, "", "th");
    st.resume(1.0);
    s.f.sample(st, 2.0, 2, 3.0);
    st.write();
    st.close();
    expect_samples(read_with_xarray(path), {0, 1, 2}, {1, 2, 3});
}

TEST(StatsAppend, FailedWriteKeepsEarlierSamplesAndNamesTheFile) {
    TestGrid s;
    const std::string path = tmp_dir() + "/full.h5";
    Statistics<double> st(s.g, s.dec, path, "", "th");
    s.f.sample(st, 0.0, 0, 1.0);
    st.write();
    // The file may not grow any more, as on a full disk (the process's file size limit:
    // writes that would extend the file fail with EFBIG; the signal that goes with them is
    // ignored).
    rlimit old{};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lim = old;
    lim.rlim_cur = rlim_t(fs::file_size(path));
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
    std::vector<double> time{0.0}, a{1.0};
    std::string msg;
    for (int n = 1; n < 2000 && msg.empty(); ++n) {
        s.f.sample(st, n, n, 1.0 + n);
        try {
            st.write();
            time.push_back(n);
            a.push_back(1.0 + n);
        } catch (const std::runtime_error& e) {
            msg = e.what();
        }
    }
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
    std::signal(SIGXFSZ, old_handler);
    ASSERT_FALSE(msg.empty()) << "the file never had to grow";
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    // Another process reads every sample written before the failure, and only those.
    expect_samples(read_with_xarray(path), time, a);
    // Later writes are refused rather than silently lost.
    s.f.sample(st, 5000.0, 5000, 1.0);
    EXPECT_THROW(st.write(), std::runtime_error);
}
