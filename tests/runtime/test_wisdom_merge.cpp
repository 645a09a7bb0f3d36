// merge_wisdom and merge_wisdom_dirs: one record per (device, size), the fastest,
// written deterministically and atomically.
#include "runtime/wisdom.h"

#include "test_wisdom_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <tuple>
#include <unistd.h>
#include <vector>

using namespace squall::rt;
using namespace squall::rt::wisdom_test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string H200 = "NVIDIA H200", H100 = "NVIDIA H100", A100 = "NVIDIA A100";
const ProblemSize P256(256, 256, 256), P512(512, 512, 512), P1024(1024, 1024, 1024);

WisdomRecord timed(const std::string& device, ProblemSize p, int bx, int by, double t) {
    WisdomRecord r = rec(device, device == A100 ? "8.0" : "9.0", p, bx, by, "");
    r.time = t;
    return r;
}

std::string file_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The record lines of a wisdom file, parsed (the header left out).
std::vector<json> record_lines(const fs::path& p) {
    std::istringstream in(file_text(p));
    std::string line;
    std::vector<json> out;
    std::getline(in, line);
    while (std::getline(in, line)) out.push_back(json::parse(line));
    return out;
}

std::string device_of(const json& r) {
    return r["environment"]["device_name"].get<std::string>();
}
std::vector<int64_t> size_of(const json& r) {
    return r["problem_size"].get<std::vector<int64_t>>();
}

// A record line of space() with the given size, bx and time.
std::string line_at(int64_t n, int bx, double t) {
    json j = json::parse(good_line(bx));
    j["problem_size"] = {n, n, n};
    j["time"] = t;
    return j.dump();
}

void write_text(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

} // namespace

TEST(WisdomMerge, KeepsTheFastestPerDeviceAndSize) {
    fs::path root = temp_dir("merge_best");
    fs::path dir = root / "not" / "there"; // created by the merge
    ConfigSpace s = space();
    MergeSummary m1 =
        merge_wisdom(dir.string(), "k", s,
                     {timed(H200, P512, 32, 1, 2e-3), timed(H200, P512, 64, 2, 1e-3),
                      timed(H200, P512, 128, 4, 1.5e-3), timed(H200, P256, 32, 4, 3e-3),
                      timed(H100, P512, 256, 1, 5e-4)});
    EXPECT_EQ(m1.added, 3);
    EXPECT_EQ(m1.ignored, 2);
    EXPECT_EQ(m1.replaced, 0);
    EXPECT_EQ(m1.kept, 0);
    EXPECT_EQ(m1.files_written, 1);

    MergeSummary m2 = merge_wisdom(dir.string(), "k", s,
                                   {timed(H200, P512, 128, 1, 8e-4),  // faster: replaces
                                    timed(H200, P256, 64, 1, 4e-3),   // slower: ignored
                                    timed(A100, P256, 32, 1, 2e-3)}); // new device
    EXPECT_EQ(m2.added, 1);
    EXPECT_EQ(m2.replaced, 1);
    EXPECT_EQ(m2.kept, 2);
    EXPECT_EQ(m2.ignored, 1);

    auto lines = record_lines(dir / "k.wisdom");
    ASSERT_EQ(lines.size(), 4u);
    struct Want {
        std::string device;
        int64_t n;
        int bx, by;
        double time;
    };
    // Sorted by device name, then size.
    const Want want[] = {{A100, 256, 32, 1, 2e-3},
                         {H100, 512, 256, 1, 5e-4},
                         {H200, 256, 32, 4, 3e-3},
                         {H200, 512, 128, 1, 8e-4}};
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(device_of(lines[i]), want[i].device) << i;
        EXPECT_EQ(size_of(lines[i]), std::vector<int64_t>(3, want[i].n)) << i;
        EXPECT_EQ(lines[i]["config"]["bx"], want[i].bx) << i;
        EXPECT_EQ(lines[i]["config"]["by"], want[i].by) << i;
        EXPECT_EQ(lines[i]["time"], want[i].time) << i;
    }
    // The runtime reads the merged file.
    Wisdom w = Wisdom::load("k", s, {dir.string()});
    EXPECT_EQ(w.records().size(), 4u);
    EXPECT_EQ(w.select(P512, h200(), H200, s).config[0].as_int(), 128);
    fs::remove_all(root);
}

TEST(WisdomMerge, SizesAreOrderedPerAxis) {
    fs::path dir = temp_dir("merge_order");
    ConfigSpace s = space();
    merge_wisdom(dir.string(), "k", s,
                 {timed(H200, ProblemSize(512, 64, 64), 32, 1, 1e-3),
                  timed(H200, ProblemSize(64, 512, 64), 32, 1, 1e-3),
                  timed(H200, ProblemSize(64, 64, 512), 32, 1, 1e-3),
                  timed(H100, ProblemSize(8, 8, 8), 32, 1, 1e-3)});
    auto lines = record_lines(dir / "k.wisdom");
    ASSERT_EQ(lines.size(), 4u);
    for (size_t i = 1; i < lines.size(); ++i)
        EXPECT_LT(std::make_tuple(device_of(lines[i - 1]), size_of(lines[i - 1])),
                  std::make_tuple(device_of(lines[i]), size_of(lines[i])))
            << i;
    fs::remove_all(dir);
}

TEST(WisdomMerge, MergingTwiceGivesTheSameBytes) {
    fs::path root = temp_dir("merge_idempotent");
    ConfigSpace s = space();
    std::vector<WisdomRecord> records = {
        timed(H200, P512, 64, 2, 1.1e-3),  timed(H200, P256, 32, 1, 4.2e-4),
        timed(H100, P512, 128, 4, 9.7e-4), timed(H100, P1024, 256, 2, 7.5e-3),
        timed(H200, P512, 32, 4, 1.3e-3),  timed(A100, P256, 64, 1, 6.6e-4)};
    records[0].tuning = {"a1b2", "annealing", 200, 3};
    records[0].env.squall_version = "0.1";
    const fs::path a = root / "a";
    MergeSummary first = merge_wisdom(a.string(), "k", s, records);
    const std::string text = file_text(a / "k.wisdom");
    MergeSummary again = merge_wisdom(a.string(), "k", s, records);
    EXPECT_EQ(file_text(a / "k.wisdom"), text);
    EXPECT_EQ(first.added, 5);
    EXPECT_EQ(again.added, 0);
    EXPECT_EQ(again.replaced, 0);
    EXPECT_EQ(again.kept, 5);
    EXPECT_EQ(again.ignored, 6);
    EXPECT_EQ(again.files_written, 0);

    // The order of the records does not matter.
    const fs::path b = root / "b";
    merge_wisdom(b.string(), "k", s, std::vector<WisdomRecord>(records.rbegin(), records.rend()));
    EXPECT_EQ(file_text(b / "k.wisdom"), text);

    // Nor does appending them first: the merge collapses the duplicates.
    const fs::path c = root / "c";
    for (const auto& r : records) append_wisdom(c.string(), "k", s, r);
    MergeSummary collapsed = merge_wisdom(c.string(), "k", s, {});
    EXPECT_EQ(collapsed.duplicates, 1);
    EXPECT_EQ(collapsed.kept, 5);
    EXPECT_EQ(file_text(c / "k.wisdom"), text);
    fs::remove_all(root);
}

TEST(WisdomMerge, SlowerOrEqualRecordLeavesTheFileUnchanged) {
    fs::path dir = temp_dir("merge_slower");
    ConfigSpace s = space();
    merge_wisdom(dir.string(), "k", s, {timed(H200, P512, 64, 2, 1e-3)});
    const std::string text = file_text(dir / "k.wisdom");
    const auto perms = fs::status(dir / "k.wisdom").permissions();

    MergeSummary slower = merge_wisdom(dir.string(), "k", s, {timed(H200, P512, 128, 4, 2e-3)});
    EXPECT_EQ(slower.ignored, 1);
    EXPECT_EQ(slower.kept, 1);
    EXPECT_EQ(slower.files_written, 0);
    EXPECT_EQ(file_text(dir / "k.wisdom"), text);

    // A tie keeps the record already in the file.
    MergeSummary tie = merge_wisdom(dir.string(), "k", s, {timed(H200, P512, 32, 1, 1e-3)});
    EXPECT_EQ(tie.ignored, 1);
    EXPECT_EQ(tie.replaced, 0);
    EXPECT_EQ(file_text(dir / "k.wisdom"), text);
    EXPECT_EQ(fs::status(dir / "k.wisdom").permissions(), perms);
    fs::remove_all(dir);
}

TEST(WisdomMerge, CorruptLinesAreWarnedAndGoodRecordsSurvive) {
    fs::path dir = temp_dir("merge_corrupt");
    const fs::path file = dir / "k.wisdom";
    std::string unknown_param = line_at(128, 64, 1e-3);
    unknown_param.replace(unknown_param.find("\"by\":1"), 6, "\"by\":1,\"bz\":2");
    write_text(file, std::string(header_line) + "\n" + line_at(512, 64, 1e-3) + "\n" +
                         line_at(256, 32, 2e-3).substr(0, 50) + "\n" + // truncated
                         unknown_param + "\n" + line_at(256, 32, 2e-3) + "\n");
    WarningCatcher warnings;
    MergeSummary m = merge_wisdom(dir.string(), "k", space(), {timed(H200, P1024, 128, 2, 5e-3)});
    EXPECT_EQ(m.bad_lines, 2);
    EXPECT_EQ(m.kept, 2);
    EXPECT_EQ(m.added, 1);
    EXPECT_TRUE(warnings.any(file.string() + ":3")) << "truncated line";
    EXPECT_TRUE(warnings.any(file.string() + ":4")) << "unknown parameter";
    EXPECT_TRUE(warnings.any("unknown parameter 'bz'"));

    auto lines = record_lines(file);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(size_of(lines[0]), std::vector<int64_t>(3, 256));
    EXPECT_EQ(lines[0]["config"]["bx"], 32);
    EXPECT_EQ(size_of(lines[1]), std::vector<int64_t>(3, 512));
    EXPECT_EQ(lines[1]["config"]["bx"], 64);
    EXPECT_EQ(size_of(lines[2]), std::vector<int64_t>(3, 1024));
    fs::remove_all(dir);
}

TEST(WisdomMerge, UnusableFileIsLeftAlone) {
    fs::path dir = temp_dir("merge_refused");
    const fs::path file = dir / "k.wisdom";
    std::string v2 = header_line;
    v2.replace(v2.find("\"version\":1"), 11, "\"version\":2");
    std::string other_key = header_line;
    other_key.replace(other_key.find("\"key\":\"k\""), 9, "\"key\":\"other\"");
    for (const std::string& text :
         {good_line(64) + "\n", v2 + "\n" + good_line(64) + "\n",
          other_key + "\n" + good_line(64) + "\n", std::string("{{{not json\n")}) {
        write_text(file, text);
        EXPECT_THROW(merge_wisdom(dir.string(), "k", space(), {timed(H200, P256, 64, 1, 1e-3)}),
                     std::runtime_error)
            << text;
        EXPECT_EQ(file_text(file), text);
    }
    // A negative time is the caller's error.
    fs::remove(file);
    EXPECT_THROW(merge_wisdom(dir.string(), "k", space(), {timed(H200, P256, 64, 1, -1.0)}),
                 std::invalid_argument);
    EXPECT_FALSE(fs::exists(file));
    fs::remove_all(dir);
}

TEST(WisdomMerge, ConcurrentMergesLoseNoRecord) {
    fs::path dir = temp_dir("merge_concurrent");
    const ConfigSpace s = space();
    constexpr int procs = 4, per_proc = 12;
    std::vector<pid_t> children;
    for (int p = 0; p < procs; ++p) {
        pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            int rc = 0;
            try {
                for (int i = 0; i < per_proc; ++i)
                    merge_wisdom(
                        dir.string(), "k", s,
                        {timed("device " + std::to_string(p), ProblemSize(8 + i), 64, 1, 1e-3)});
            } catch (...) {
                rc = 1;
            }
            _exit(rc);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    EXPECT_EQ(record_lines(dir / "k.wisdom").size(), size_t(procs * per_proc));
    // Nothing but the file and its lock file is left behind.
    size_t entries = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        ++entries;
        EXPECT_TRUE(e.path().filename() == "k.wisdom" || e.path().filename() == ".k.wisdom.lock")
            << e.path();
    }
    EXPECT_EQ(entries, 2u);
    fs::remove_all(dir);
}

TEST(WisdomMerge, Directories) {
    fs::path root = temp_dir("merge_dirs");
    const fs::path src = root / "src", dst = root / "dst";
    fs::create_directories(src);
    ConfigSpace s = space();
    merge_wisdom(src.string(), "k", s,
                 {timed(H200, P512, 64, 2, 1e-3), timed(H200, P256, 32, 1, 5e-4)});
    merge_wisdom(dst.string(), "k", s,
                 {timed(H200, P512, 128, 1, 3e-3), timed(H100, P512, 32, 1, 2e-3)});
    // "j": the source's space gained a parameter at the end.
    std::string j_header = header_line;
    j_header.replace(j_header.find("\"key\":\"k\""), 9, "\"key\":\"j\"");
    std::string j_wider = j_header;
    j_wider.replace(j_wider.find("\"by\"]"), 5, "\"by\",\"bz\"]");
    std::string bz_line = line_at(64, 64, 1e-3);
    bz_line.replace(bz_line.find("\"by\":1"), 6, "\"by\":1,\"bz\":8");
    write_text(src / "j.wisdom", j_wider + "\n" + bz_line + "\n");
    write_text(dst / "j.wisdom", j_header + "\n" + line_at(32, 32, 1e-3) + "\n");
    // "m": parameters that do not extend each other; "bad": no header.
    std::string m_header = header_line;
    m_header.replace(m_header.find("\"key\":\"k\""), 9, "\"key\":\"m\"");
    std::string m_other = m_header;
    m_other.replace(m_other.find("[\"bx\",\"by\"]"), 11, "[\"tile\"]");
    write_text(src / "m.wisdom", m_other + "\n");
    write_text(dst / "m.wisdom", m_header + "\n" + line_at(32, 32, 1e-3) + "\n");
    write_text(src / "bad.wisdom", good_line(64) + "\n");
    write_text(src / "notes.txt", "not wisdom\n");
    const std::string m_before = file_text(dst / "m.wisdom");

    WarningCatcher warnings;
    MergeSummary m = merge_wisdom_dirs(src.string(), dst.string());
    EXPECT_EQ(m.files, 2);
    EXPECT_EQ(m.files_skipped, 2);
    EXPECT_TRUE(warnings.any((src / "bad.wisdom").string()));
    EXPECT_TRUE(warnings.any((src / "m.wisdom").string()));
    EXPECT_EQ(file_text(dst / "m.wisdom"), m_before);
    EXPECT_FALSE(fs::exists(dst / "notes.txt"));

    // k: H200 512 replaced (faster), H200 256 added, H100 512 kept.
    EXPECT_EQ(m.replaced, 1);
    auto k = record_lines(dst / "k.wisdom");
    ASSERT_EQ(k.size(), 3u);
    EXPECT_EQ(device_of(k[0]), H100);
    EXPECT_EQ(k[2]["config"]["bx"], 64);
    EXPECT_EQ(k[2]["time"], 1e-3);
    // j: the wider header, both records, still readable with the wider space.
    std::istringstream j_in(file_text(dst / "j.wisdom"));
    std::string first;
    std::getline(j_in, first);
    EXPECT_EQ(json::parse(first)["param_names"], json({"bx", "by", "bz"}));
    ConfigSpace wider = space();
    wider.add_param("bz", {1, 8}, 1);
    EXPECT_EQ(Wisdom::load("j", wider, {dst.string()}).records().size(), 2u);

    // Merging again changes nothing.
    const std::string k_text = file_text(dst / "k.wisdom");
    MergeSummary again = merge_wisdom_dirs(src.string(), dst.string());
    EXPECT_EQ(again.files_written, 0);
    EXPECT_EQ(file_text(dst / "k.wisdom"), k_text);
    EXPECT_THROW(merge_wisdom_dirs((root / "missing").string(), dst.string()), std::runtime_error);
    fs::remove_all(root);
}
