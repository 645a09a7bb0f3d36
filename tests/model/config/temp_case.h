// A scratch case file for the configuration tests.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace squall::test {

// A case file in the temporary directory, unique per process because ctest runs tests in
// parallel; removed with the object.
struct TempCase {
    std::filesystem::path path;
    TempCase(const std::string& stem, const std::string& text) {
        path = std::filesystem::temp_directory_path() /
               (stem + "_" + std::to_string(getpid()) + ".yaml");
        std::ofstream(path) << text;
    }
    ~TempCase() { std::filesystem::remove(path); }
    std::string str() const { return path.string(); }
};

} // namespace squall::test
