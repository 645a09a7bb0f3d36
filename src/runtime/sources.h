// Kernel source files held in memory. Files from kernels/ are embedded into the
// binary at build time (CMake: squall_embed_sources) and handed to NVRTC as in-memory
// headers, so compilation never depends on the working directory or environment.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace squall::rt {

// One entry of a generated table: path relative to the project root, and contents.
struct EmbeddedFile {
    const char* path;
    const char* data;
    size_t size;
};

class SourceSet {
public:
    SourceSet() = default;
    SourceSet(const EmbeddedFile* files, size_t count);

    // Adds or replaces a file. Paths use '/' and are relative ("kernels/advec.cuh").
    void add(std::string path, std::string contents);
    // Exact path first, then a unique path ending in "/<path>" (so "advec.cuh" finds
    // "kernels/advec.cuh"). nullptr when absent or ambiguous.
    const std::string* find(std::string_view path) const;
    const std::vector<std::pair<std::string, std::string>>& files() const { return files_; }
    uint64_t hash() const { return hash_; }

    nlohmann::json to_json() const; // {"path": "contents", ...}
    static SourceSet from_json(const nlohmann::json& j);

private:
    void rehash();
    std::vector<std::pair<std::string, std::string>> files_;
    uint64_t hash_ = 0;
};

using SourcesPtr = std::shared_ptr<const SourceSet>;

} // namespace squall::rt
