#include "runtime/log.h"
#include "runtime/wisdom.h"

#include "test_wisdom_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace squall::rt;
using namespace squall::rt::wisdom_test;
namespace fs = std::filesystem;

struct SelectCase {
    const char* what;
    std::vector<WisdomRecord> records;
    ProblemSize problem;
    std::string match_name; // device name to match (override)
    int level;
    int bx, by;
};

TEST(Wisdom, SelectionTable) {
    const std::string H200 = "NVIDIA H200", H100 = "NVIDIA H100", A100 = "NVIDIA A100";
    const ProblemSize P512(512, 512, 512), P256(256, 256, 256), P1024(1024, 1024, 1024);
    const ProblemSize P512x256(512, 512, 256);
    std::vector<SelectCase> cases = {
        {"no records -> default", {}, P512, H200, 5, 256, 1},
        {"level 1: same device, exact size",
         {rec(H200, "9.0", P256, 32, 1, "a"), rec(H200, "9.0", P512, 64, 2, "b"),
          rec(H100, "9.0", P512, 128, 1, "c")},
         P512,
         H200,
         1,
         64,
         2},
        {"level 2: same device, nearest size beats other device exact size",
         {rec(H100, "9.0", P512, 128, 1, "a"), rec(H200, "9.0", P256, 32, 4, "b"),
          rec(H200, "9.0", ProblemSize(64, 64, 64), 64, 1, "c")},
         P512,
         H200,
         2,
         32,
         4},
        {"level 3: same compute capability",
         {rec(A100, "8.0", P512, 128, 1, "a"), rec(H100, "9.0", P1024, 64, 4, "b")},
         P512,
         H200,
         3,
         64,
         4},
        {"level 4: any device, nearest",
         {rec(A100, "8.0", P1024, 128, 1, "a"),
          rec(A100, "8.0", ProblemSize(128, 128, 128), 64, 1, "b")},
         P512,
         H200,
         4,
         128,
         1},
        {"tie on distance: the later record wins",
         {rec(H200, "9.0", P256, 32, 1, "a"), rec(H200, "9.0", P1024, 128, 2, "b")},
         P512,
         H200,
         2,
         128,
         2},
        {"tie on distance, reversed order",
         {rec(H200, "9.0", P1024, 128, 2, "a"), rec(H200, "9.0", P256, 32, 1, "b")},
         P512,
         H200,
         2,
         32,
         1},
        {"duplicate exact records: the later wins",
         {rec(H200, "9.0", P512, 32, 1, "a"), rec(H200, "9.0", P512, 128, 4, "b")},
         P512,
         H200,
         1,
         128,
         4},
        {"per-axis distance: one axis off by 2x (distance 1) beats two axes (sqrt 2)",
         {rec(H200, "9.0", ProblemSize(256, 1024, 512), 32, 1, "a"),
          rec(H200, "9.0", P512x256, 64, 1, "b")},
         P512,
         H200,
         2,
         64,
         1},
        {"per-axis distance is not the volume",
         // same volume as 512^3 but far per axis, against a nearby smaller box
         {rec(H200, "9.0", ProblemSize(2048, 256, 256), 32, 1, "a"),
          rec(H200, "9.0", P256, 64, 2, "b")},
         P512,
         H200,
         2,
         64,
         2},
        {"device override selects another device's records",
         {rec(H200, "9.0", P512, 32, 1, "a"), rec(H100, "9.0", P512, 128, 4, "b")},
         P512,
         H100,
         1,
         128,
         4},
        {"records invalid for this problem are passed over (bx*by > 512)",
         {rec(A100, "8.0", P512, 64, 1, "a"), rec(H200, "9.0", P512, 256, 4, "b")},
         P512,
         H200,
         4,
         64,
         1},
    };
    ConfigSpace s = space();
    for (const auto& c : cases) {
        Wisdom w;
        for (const auto& r : c.records) w.add(r);
        WisdomSelection sel = w.select(c.problem, h200(), c.match_name, s);
        EXPECT_EQ(sel.level, c.level) << c.what << ": " << sel.reason;
        EXPECT_EQ(sel.config[0].as_int(), c.bx) << c.what << ": " << sel.reason;
        EXPECT_EQ(sel.config[1].as_int(), c.by) << c.what << ": " << sel.reason;
        EXPECT_NE(sel.reason.find("level " + std::to_string(c.level)), std::string::npos)
            << sel.reason;
    }
}

TEST(Wisdom, DistanceIsPerAxisLog2) {
    EXPECT_DOUBLE_EQ(problem_distance(ProblemSize(512, 512, 512), ProblemSize(256, 512, 512)), 1.0);
    EXPECT_DOUBLE_EQ(problem_distance(ProblemSize(512, 512, 512), ProblemSize(256, 1024, 512)),
                     std::sqrt(2.0));
    EXPECT_DOUBLE_EQ(problem_distance(ProblemSize(8), ProblemSize(8)), 0.0);
}

TEST(Wisdom, DeviceOverrideFromEnvironment) {
    DeviceInfo d = h200();
    unsetenv("SQUALL_WISDOM_DEVICE");
    EXPECT_EQ(wisdom_device_name(d), "NVIDIA H200");
    setenv("SQUALL_WISDOM_DEVICE", "NVIDIA H100", 1);
    EXPECT_EQ(wisdom_device_name(d), "NVIDIA H100");
    unsetenv("SQUALL_WISDOM_DEVICE");
}

// A record's revision is the checkout's at build time (not at configure time), or
// SQUALL_GIT_REVISION where set (a copy of the sources without their .git).
TEST(Wisdom, ProvenanceNamesTheRevisionBuilt) {
    const char* set = std::getenv("SQUALL_GIT_REVISION");
    const std::string saved = set ? set : "";
    unsetenv("SQUALL_GIT_REVISION");
    std::string head = "unknown";
    if (FILE* p = popen("git -C '" SQUALL_SOURCE_DIR "' rev-parse --short HEAD 2>/dev/null", "r")) {
        char buf[64] = {};
        if (std::fgets(buf, sizeof buf, p) && buf[0])
            head = std::string(buf, std::strcspn(buf, "\n"));
        pclose(p);
    }
    EXPECT_EQ(current_provenance(h200()).git_revision, head)
        << "a build older than the checkout's HEAD: rebuild before testing";
    setenv("SQUALL_GIT_REVISION", "feed123", 1);
    EXPECT_EQ(current_provenance(h200()).git_revision, "feed123");
    if (set)
        setenv("SQUALL_GIT_REVISION", saved.c_str(), 1);
    else
        unsetenv("SQUALL_GIT_REVISION");
}

TEST(Wisdom, WriteThenLoadFromSearchPath) {
    fs::path a = temp_dir("wisdom_a"), b = temp_dir("wisdom_b");
    ConfigSpace s = space();
    WisdomRecord r1 = rec("NVIDIA H200", "9.0", ProblemSize(256, 256, 256), 32, 2, "");
    r1.env = current_provenance(h200());
    append_wisdom(a.string(), "saxpy_float", s, r1);
    WisdomRecord r2 = rec("NVIDIA H200", "9.0", ProblemSize(256, 256, 256), 128, 4, "");
    append_wisdom(b.string(), "saxpy_float", s, r2);

    std::ifstream in(a / "saxpy_float.wisdom");
    std::string header, line;
    std::getline(in, header);
    std::getline(in, line);
    auto h = nlohmann::json::parse(header);
    EXPECT_EQ(h["type"], "squall-wisdom");
    EXPECT_EQ(h["version"], 1);
    EXPECT_EQ(h["param_names"], nlohmann::json({"bx", "by"}));
    auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["environment"]["compute_capability"], "9.0");
    EXPECT_FALSE(j["environment"]["date"].get<std::string>().empty());
    EXPECT_FALSE(j["environment"]["host"].get<std::string>().empty());

    Wisdom w = Wisdom::load("saxpy_float", s, {a.string(), b.string()});
    ASSERT_EQ(w.records().size(), 2u);
    // The later directory wins the tie on the exact same size.
    auto sel = w.select(ProblemSize(256, 256, 256), h200(), "NVIDIA H200", s);
    EXPECT_EQ(sel.level, 1);
    EXPECT_EQ(sel.config[0].as_int(), 128);
    EXPECT_NE(sel.reason.find((b / "saxpy_float.wisdom").string()), std::string::npos)
        << sel.reason;

    setenv("SQUALL_WISDOM_PATH", (a.string() + ":" + b.string()).c_str(), 1);
    auto path = wisdom_search_path({"/user/dir"});
    unsetenv("SQUALL_WISDOM_PATH");
    ASSERT_GE(path.size(), 3u);
    EXPECT_EQ(path[path.size() - 3], "/user/dir");
    EXPECT_EQ(path[path.size() - 2], a.string());
    EXPECT_EQ(path.back(), b.string());
    fs::remove_all(a);
    fs::remove_all(b);
}

TEST(Wisdom, ProjectDirectoryIsFound) {
    EnvGuard no_override("SQUALL_WISDOM_PROJECT_DIR", nullptr);
    // The tests run from a build tree inside the checkout, so the project's wisdom/ is
    // found when the checkout has one (git does not keep an empty directory).
    std::string dir = project_wisdom_dir();
    fs::path expected = fs::path(SQUALL_SOURCE_DIR) / "wisdom";
    if (!fs::is_directory(expected)) {
        EXPECT_TRUE(dir.empty() || fs::is_directory(dir)) << dir;
        return;
    }
    ASSERT_FALSE(dir.empty());
    EXPECT_TRUE(fs::equivalent(dir, expected)) << dir;
}

TEST(Wisdom, CorruptFilesAreSkippedWithWarnings) {
    {
        WarningCatcher w;
        std::string text = std::string(header_line) + "\n" + good_line(64) + "\n" +
                           good_line(128).substr(0, 40) + "\n"; // truncated last line
        EXPECT_EQ(parse_records(text, w), 1u);
        EXPECT_TRUE(w.any("test.wisdom:3")) << "truncated line";
    }
    {
        WarningCatcher w;
        std::string bad = good_line(64);
        bad.replace(bad.find("\"time\":0.001"), 12, "\"time\":\"fast\"");
        EXPECT_EQ(parse_records(std::string(header_line) + "\n" + bad + "\n" + good_line(32), w),
                  1u);
        EXPECT_TRUE(w.any("test.wisdom:2")) << "wrong type";
    }
    {
        WarningCatcher w;
        std::string text =
            std::string(header_line) + "\n" +
            R"({"problem_size":[512,"x",512],"config":{"bx":64},"time":1,"environment":{"device_name":"a","compute_capability":"9.0"}})";
        EXPECT_EQ(parse_records(text, w), 0u);
        EXPECT_TRUE(w.any("problem_size"));
    }
    {
        WarningCatcher w;
        std::string unknown = good_line(64);
        unknown.replace(unknown.find("\"by\":1"), 6, "\"by\":1,\"bz\":2");
        EXPECT_EQ(
            parse_records(std::string(header_line) + "\n" + unknown + "\n" + good_line(32), w), 1u);
        EXPECT_TRUE(w.any("unknown parameter 'bz'"));
    }
    {
        WarningCatcher w;
        EXPECT_EQ(parse_records(std::string(header_line) + "\n" + good_line(48), w), 0u);
        EXPECT_TRUE(w.any("not allowed")) << "value no longer in the space";
    }
    {
        WarningCatcher w;
        std::string v2 = header_line;
        v2.replace(v2.find("\"version\":1"), 11, "\"version\":2");
        EXPECT_EQ(parse_records(v2 + "\n" + good_line(64), w), 0u);
        EXPECT_TRUE(w.any("version 2"));
    }
    {
        WarningCatcher w;
        EXPECT_EQ(parse_records(good_line(64) + "\n" + good_line(64), w), 0u);
        EXPECT_TRUE(w.any("header"));
    }
    {
        WarningCatcher w;
        std::string other = header_line;
        other.replace(other.find("\"key\":\"k\""), 9, "\"key\":\"other\"");
        EXPECT_EQ(parse_records(other + "\n" + good_line(64), w), 0u);
        EXPECT_TRUE(w.any("does not match"));
    }
    {
        WarningCatcher w;
        EXPECT_EQ(parse_records(std::string("\x01\x02garbage{{{\n"), w), 0u);
        EXPECT_EQ(parse_records("", w), 0u);
    }
}

TEST(Wisdom, UnreadableFileIsAWarning) {
    fs::path d = temp_dir("wisdom_dir_as_file");
    fs::create_directories(d / "k.wisdom"); // a directory where the file should be
    WarningCatcher w;
    Wisdom wis = Wisdom::load("k", space(), {d.string(), "/nonexistent/dir"});
    EXPECT_TRUE(wis.records().empty());
    fs::remove_all(d);
}

TEST(Wisdom, ProvenanceRoundTrip) {
    fs::path d = temp_dir("wisdom_provenance");
    ConfigSpace s = space();
    WisdomRecord r = rec("NVIDIA H200", "9.0", ProblemSize(384, 192, 96), 64, 4, "");
    r.time = 1.25e-4;
    r.default_time = 3.5e-4;
    r.env.driver_version = 12080;
    r.env.nvrtc_version = 12090;
    r.env.date = "2026-12-01T08:30:00Z";
    r.env.host = "gpu07";
    r.env.git_revision = "0123abc";
    r.env.squall_version = "7.3.1";
    r.tuning.capture_hash = "00ff9a7c3e5d1b2f";
    r.tuning.strategy = "annealing";
    r.tuning.evaluations = 417;
    r.tuning.rejected = 12;
    append_wisdom(d.string(), "k", s, r);

    Wisdom w = Wisdom::load("k", s, {d.string()});
    ASSERT_EQ(w.records().size(), 1u);
    const WisdomRecord& got = w.records()[0];
    EXPECT_EQ(got.problem, r.problem);
    EXPECT_EQ(got.config, r.config);
    EXPECT_EQ(got.time, r.time);
    EXPECT_EQ(got.default_time, r.default_time);
    EXPECT_EQ(got.env.device_name, "NVIDIA H200");
    EXPECT_EQ(got.env.compute_capability, "9.0");
    EXPECT_EQ(got.env.driver_version, 12080);
    EXPECT_EQ(got.env.nvrtc_version, 12090);
    EXPECT_EQ(got.env.date, "2026-12-01T08:30:00Z");
    EXPECT_EQ(got.env.host, "gpu07");
    EXPECT_EQ(got.env.git_revision, "0123abc");
    EXPECT_EQ(got.env.squall_version, "7.3.1");
    EXPECT_EQ(got.tuning.capture_hash, "00ff9a7c3e5d1b2f");
    EXPECT_EQ(got.tuning.strategy, "annealing");
    EXPECT_EQ(got.tuning.evaluations, 417);
    EXPECT_EQ(got.tuning.rejected, 12);
    EXPECT_EQ(got.origin, (d / "k.wisdom").string() + ":2");

    // The JSON layout other tools read.
    std::ifstream in(d / "k.wisdom");
    std::string header, line;
    std::getline(in, header);
    std::getline(in, line);
    auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["environment"]["squall_version"], "7.3.1");
    EXPECT_EQ(j["tuning"], nlohmann::json({{"capture_hash", "00ff9a7c3e5d1b2f"},
                                           {"strategy", "annealing"},
                                           {"evaluations", 417},
                                           {"rejected", 12}}));
    fs::remove_all(d);
}

TEST(Wisdom, CurrentProvenanceHasTheVersion) {
    Provenance p = current_provenance(h200());
    EXPECT_EQ(p.squall_version, SQUALL_VERSION);
    EXPECT_FALSE(p.squall_version.empty());
}

TEST(Wisdom, RecordWithoutTuningFieldsLoads) {
    // A record as written before squall_version and tuning existed.
    const std::string old_record =
        R"({"config":{"bx":64,"by":2},"default_time":6.4e-06,"environment":{"compute_capability":"9.0","date":"2026-11-30T05:24:54Z","device_name":"NVIDIA H200","driver_version":13000,"git_revision":"c84a85d","host":"vm","nvrtc_version":13000},"problem_size":[4,4,16],"time":5.1e-06})";
    WarningCatcher warnings;
    Wisdom w;
    std::istringstream in(std::string(header_line) + "\n" + old_record + "\n");
    w.parse(in, "old.wisdom", "k", space());
    ASSERT_EQ(w.records().size(), 1u);
    EXPECT_TRUE(warnings.messages.empty());
    const WisdomRecord& r = w.records()[0];
    EXPECT_EQ(r.problem, ProblemSize(4, 4, 16));
    EXPECT_EQ(r.config[0].as_int(), 64);
    EXPECT_EQ(r.time, 5.1e-06);
    EXPECT_EQ(r.env.git_revision, "c84a85d");
    EXPECT_EQ(r.env.squall_version, "");
    EXPECT_TRUE(r.tuning.empty());
    // Written back, it gains no "tuning" object.
    EXPECT_FALSE(wisdom_record_json(r, space()).contains("tuning"));
}

TEST(Wisdom, ParametersARecordDoesNotNameAreListed) {
    // Written before the space's last parameters existed: they take their defaults, and
    // the record says which (squall tune --untuned tunes such a kernel again).
    const std::string partial =
        R"({"config":{"bx":64},"default_time":6.4e-06,"environment":{"compute_capability":"9.0","date":"2026-11-30T05:24:54Z","device_name":"NVIDIA H200","driver_version":13000,"git_revision":"c84a85d","host":"vm","nvrtc_version":13000},"problem_size":[4,4,16],"time":5.1e-06})";
    WarningCatcher warnings;
    Wisdom w;
    std::istringstream in(std::string(header_line) + "\n" + partial + "\n" + good_line(32) + "\n");
    w.parse(in, "partial.wisdom", "k", space());
    ASSERT_EQ(w.records().size(), 2u);
    EXPECT_TRUE(warnings.messages.empty());
    const ConfigSpace s = space();
    std::vector<std::string> unnamed;
    for (const auto& p : s.params())
        if (p.name != "bx") unnamed.push_back(p.name);
    ASSERT_FALSE(unnamed.empty());
    EXPECT_EQ(w.records()[0].unnamed_params, unnamed);
    EXPECT_EQ(w.records()[0].config[1], s.default_config()[1]);
    EXPECT_TRUE(w.records()[1].unnamed_params.empty()) << good_line(32);
}

TEST(Wisdom, BadTuningFieldsSkipTheRecord) {
    auto with_tuning = [](const std::string& tuning) {
        std::string line = good_line(64);
        line.insert(line.size() - 1, R"(,"tuning":)" + tuning);
        return line;
    };
    struct Case {
        std::string tuning, warning;
    };
    for (const Case& c : std::vector<Case>{
             {R"({"capture_hash":"12xz"})", "hexadecimal"},
             {R"({"evaluations":-3})", "evaluations"},
             {R"({"rejected":2.5})", "rejected"},
             {R"("annealing")", "tuning must be an object"},
         }) {
        WarningCatcher w;
        EXPECT_EQ(parse_records(std::string(header_line) + "\n" + with_tuning(c.tuning), w), 0u)
            << c.tuning;
        EXPECT_TRUE(w.any(c.warning)) << c.tuning;
    }
    WarningCatcher w;
    EXPECT_EQ(parse_records(std::string(header_line) + "\n" +
                                with_tuning(R"({"capture_hash":"ABCdef09","strategy":"random"})"),
                            w),
              1u);
}
