#include "runtime/sources.h"

#include "runtime/hash.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace squall::rt {

SourceSet::SourceSet(const EmbeddedFile* files, size_t count) {
    for (size_t i = 0; i < count; ++i)
        files_.emplace_back(files[i].path, std::string(files[i].data, files[i].size));
    rehash();
}

void SourceSet::add(std::string path, std::string contents) {
    for (auto& [p, c] : files_) {
        if (p == path) {
            c = std::move(contents);
            rehash();
            return;
        }
    }
    files_.emplace_back(std::move(path), std::move(contents));
    rehash();
}

const std::string* SourceSet::find(std::string_view path) const {
    for (const auto& [p, c] : files_)
        if (p == path) return &c;
    const std::string* found = nullptr;
    for (const auto& [p, c] : files_) {
        if (p.size() > path.size() && p[p.size() - path.size() - 1] == '/' &&
            std::string_view(p).substr(p.size() - path.size()) == path) {
            if (found) return nullptr; // ambiguous
            found = &c;
        }
    }
    return found;
}

void SourceSet::rehash() {
    // Sorted by path so the hash (a cache key) does not depend on insertion order.
    std::sort(files_.begin(), files_.end());
    Hasher h(0x50c5);
    for (const auto& [p, c] : files_) h.add(p).add(c);
    hash_ = h.digest();
}

nlohmann::json SourceSet::to_json() const {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [p, c] : files_) j[p] = c;
    return j;
}

SourceSet SourceSet::from_json(const nlohmann::json& j) {
    SourceSet s;
    for (auto it = j.begin(); it != j.end(); ++it)
        s.files_.emplace_back(it.key(), it.value().get<std::string>());
    s.rehash();
    return s;
}

} // namespace squall::rt
