// The NCCL loader: this machine's library (skipped where there is none), the search order,
// and the report of a search that finds nothing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "model/comm/nccl_library.h"

namespace fs = std::filesystem;
using squall::nccl::Library;
using squall::nccl::library_candidates;
using squall::nccl::SearchEnv;

namespace {

// A search that looks nowhere but where the test says.
SearchEnv isolated() {
    SearchEnv e;
    e.system_dirs = false;
    e.plain_soname = false;
    return e;
}

// A fresh empty folder below the system's temporary one.
fs::path temp_dir(const std::string& name) {
    const fs::path p =
        fs::temp_directory_path() / ("squall_nccl_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
}

void touch(const fs::path& p) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "not a shared library\n";
}

} // namespace

TEST(NcclLibrary, LoadsThisMachinesLibraryAndReportsItsVersion) {
    const Library& lib = Library::get();
    if (!lib.available()) GTEST_SKIP() << "no libnccl on this machine: " << lib.error();
    std::cout << "NCCL " << lib.version_string() << " from " << lib.path() << "\n";
    EXPECT_TRUE(lib.error().empty());
    EXPECT_GE(lib.version(), squall::nccl::min_version);
    EXPECT_TRUE(std::regex_match(lib.version_string(), std::regex(R"(2\.\d+\.\d+)")))
        << lib.version_string();
    EXPECT_NE(lib.path().find("libnccl.so.2"), std::string::npos) << lib.path();
    EXPECT_TRUE(lib.send && lib.recv && lib.group_start && lib.group_end && lib.comm_init_rank);
    int v = 0;
    ASSERT_EQ(lib.get_version(&v), squall::nccl::success);
    if (v >= 10000) { // NCCL >= 2.9 reports the code as stored
        EXPECT_EQ(lib.version(), v);
    }
    const std::string err = lib.describe(3, "ncclSend");
    EXPECT_NE(err.find("ncclSend failed"), std::string::npos) << err;
    EXPECT_NE(err.find("(3)"), std::string::npos) << err;
}

TEST(NcclLibrary, ReportsEveryPathTriedWhenAbsent) {
    SearchEnv e = isolated();
    e.nccl_lib = "/nonexistent/squall/libnccl.so.2";
    e.nccl_root = temp_dir("empty_root").string();
    const std::vector<std::string> c = library_candidates(e);
    ASSERT_EQ(c, std::vector<std::string>{e.nccl_lib}); // the empty root adds nothing
    const Library lib(c);
    EXPECT_FALSE(lib.available());
    EXPECT_EQ(lib.version(), 0);
    EXPECT_EQ(lib.send, nullptr);
    const std::string& err = lib.error();
    EXPECT_EQ(err.rfind("NCCL not found: tried ", 0), 0u) << err;
    EXPECT_NE(err.find(e.nccl_lib), std::string::npos) << err;
    EXPECT_NE(err.find("No such file"), std::string::npos) << err; // dlerror's text
}

TEST(NcclLibrary, NothingToTryIsReported) {
    const Library lib(library_candidates(isolated()));
    EXPECT_FALSE(lib.available());
    EXPECT_NE(lib.error().find("no place to look"), std::string::npos) << lib.error();
}

TEST(NcclLibrary, SearchOrderIsOverrideRootWheelsThenSoname) {
    const fs::path root = temp_dir("order");
    const fs::path in_root = root / "nccl/lib/libnccl.so.2";
    const fs::path in_venv =
        root / "venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2";
    const fs::path in_conda =
        root / "conda/lib/python3.11/dist-packages/nvidia/nccl/lib/libnccl.so.2";
    const fs::path in_home =
        root / "home/.local/lib/python3.10/site-packages/nvidia/nccl/lib/libnccl.so.2";
    const fs::path in_pyenv =
        root /
        "home/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2";
    for (const fs::path& p : {in_root, in_venv, in_conda, in_home, in_pyenv}) touch(p);
    SearchEnv e = isolated();
    e.nccl_lib = (root / "explicit.so").string();
    e.nccl_root = (root / "nccl").string();
    e.virtual_env = (root / "venv").string();
    e.conda_prefix = (root / "conda").string();
    e.home = (root / "home").string();
    e.plain_soname = true;
    const std::vector<std::string> want{e.nccl_lib,        in_root.string(), in_venv.string(),
                                        in_conda.string(), in_home.string(), in_pyenv.string(),
                                        "libnccl.so.2"};
    EXPECT_EQ(library_candidates(e), want);
}

TEST(NcclLibrary, NamesFilesThatAreNotNccl) {
    const fs::path root = temp_dir("bad_files");
    touch(root / "lib/libnccl.so.2");
    SearchEnv e = isolated();
    e.nccl_root = root.string();
    // Not a shared library; and a real one without NCCL's entry points.
    std::vector<std::string> c = library_candidates(e);
    ASSERT_EQ(c.size(), 1u);
    c.emplace_back("libm.so.6");
    const Library lib(c);
    EXPECT_FALSE(lib.available());
    EXPECT_NE(lib.error().find((root / "lib/libnccl.so.2").string()), std::string::npos)
        << lib.error();
    EXPECT_NE(lib.error().find("libm.so.6 (lacks ncclGetVersion"), std::string::npos)
        << lib.error();
}

TEST(NcclLibrary, FallsBackToALaterCandidate) {
    const Library& found = Library::get();
    if (!found.available()) GTEST_SKIP() << "no libnccl on this machine: " << found.error();
    const Library lib({"/nonexistent/squall/libnccl.so.2", found.path()});
    ASSERT_TRUE(lib.available()) << lib.error();
    EXPECT_EQ(lib.path(), found.path());
    EXPECT_EQ(lib.version(), found.version());
}

TEST(NcclLibrary, SearchReadsTheEnvironment) {
    setenv("SQUALL_NCCL_LIB", "/nonexistent/squall/explicit.so", 1);
    setenv("NCCL_ROOT", "/nonexistent/squall/root", 1);
    const SearchEnv e = SearchEnv::from_environment();
    unsetenv("SQUALL_NCCL_LIB");
    unsetenv("NCCL_ROOT");
    EXPECT_EQ(e.nccl_lib, "/nonexistent/squall/explicit.so");
    EXPECT_EQ(e.nccl_root, "/nonexistent/squall/root");
    EXPECT_TRUE(e.system_dirs);
    const std::vector<std::string> c = library_candidates(e);
    ASSERT_GE(c.size(), 2u);
    EXPECT_EQ(c.front(), e.nccl_lib);    // the explicit file first
    EXPECT_EQ(c.back(), "libnccl.so.2"); // the soname last
}
