// The wisdom directories: the search path, the user directory and the project
// directory override.
#include "runtime/wisdom.h"

#include "test_wisdom_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

using namespace squall::rt;
using namespace squall::rt::wisdom_test;
namespace fs = std::filesystem;

TEST(Wisdom, UserDirectoryComesAfterTheProjectDirectory) {
    EnvGuard no_path("SQUALL_WISDOM_PATH", nullptr);
    {
        WarningCatcher warnings; // "/shipped/wisdom is not a directory"
        EnvGuard project("SQUALL_WISDOM_PROJECT_DIR", "/shipped/wisdom");
        EnvGuard user("SQUALL_WISDOM_USER_DIR", "/home/me/wisdom");
        EXPECT_EQ(user_wisdom_dir(), "/home/me/wisdom");
        EXPECT_EQ(
            wisdom_search_path({"/cli/a", "/cli/b"}),
            (std::vector<std::string>{"/shipped/wisdom", "/home/me/wisdom", "/cli/a", "/cli/b"}));
    }
    {
        // With the real project directory (when the checkout has one).
        EnvGuard no_project("SQUALL_WISDOM_PROJECT_DIR", nullptr);
        EnvGuard user("SQUALL_WISDOM_USER_DIR", "/home/me/wisdom");
        auto path = wisdom_search_path();
        std::string project = project_wisdom_dir();
        std::vector<std::string> expected;
        if (!project.empty()) expected.push_back(project);
        expected.push_back("/home/me/wisdom");
        EXPECT_EQ(path, expected);
    }
    EnvGuard no_user("SQUALL_WISDOM_USER_DIR", nullptr);
    {
        EnvGuard xdg("XDG_DATA_HOME", "/xdg/data");
        EXPECT_EQ(user_wisdom_dir(), "/xdg/data/squall/wisdom");
    }
    {
        EnvGuard xdg("XDG_DATA_HOME", "relative/data"); // not absolute: ignored
        EnvGuard home("HOME", "/home/someone");
        EXPECT_EQ(user_wisdom_dir(), "/home/someone/.local/share/squall/wisdom");
    }
    {
        EnvGuard xdg("XDG_DATA_HOME", nullptr);
        EnvGuard home("HOME", nullptr);
        EXPECT_EQ(user_wisdom_dir(), "");
    }
    {
        EnvGuard project("SQUALL_WISDOM_PROJECT_DIR", "");
        EnvGuard user("SQUALL_WISDOM_USER_DIR", "");
        EXPECT_EQ(user_wisdom_dir(), "");
        EXPECT_EQ(wisdom_search_path({"/cli"}), std::vector<std::string>{"/cli"});
    }
}

TEST(Wisdom, ProjectDirectoryOverride) {
    EnvGuard no_path("SQUALL_WISDOM_PATH", nullptr);
    EnvGuard no_user("SQUALL_WISDOM_USER_DIR", "");
    fs::path copy = temp_dir("wisdom_project_copy");
    ConfigSpace s = space();
    append_wisdom(copy.string(), "k", s, rec("NVIDIA H200", "9.0", ProblemSize(64), 32, 4, ""));
    {
        EnvGuard project("SQUALL_WISDOM_PROJECT_DIR", copy.c_str());
        EXPECT_EQ(project_wisdom_dir(), copy.string());
        auto path = wisdom_search_path();
        EXPECT_EQ(path, std::vector<std::string>{copy.string()});
        Wisdom w = Wisdom::load("k", s, path);
        auto sel = w.select(ProblemSize(64), h200(), "NVIDIA H200", s);
        EXPECT_EQ(sel.level, 1);
        EXPECT_EQ(sel.config[1].as_int(), 4);
    }
    {
        EnvGuard project("SQUALL_WISDOM_PROJECT_DIR", "");
        EXPECT_EQ(project_wisdom_dir(), "");
        EXPECT_TRUE(wisdom_search_path().empty());
    }
    {
        // A path that does not exist is still used (nothing loads), with a warning.
        WarningCatcher warnings;
        EnvGuard project("SQUALL_WISDOM_PROJECT_DIR", "/nonexistent/wisdom");
        EXPECT_EQ(project_wisdom_dir(), "/nonexistent/wisdom");
        EXPECT_TRUE(warnings.any("SQUALL_WISDOM_PROJECT_DIR"));
    }
    {
        EnvGuard project("SQUALL_WISDOM_PROJECT_DIR", nullptr);
        EXPECT_NE(project_wisdom_dir(), copy.string());
    }
    fs::remove_all(copy);
}
