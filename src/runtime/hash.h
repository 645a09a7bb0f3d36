// A fast 64-bit non-cryptographic hash for capture data and cache keys. It reads
// 32 bytes per step in four independent lanes so large arrays hash at memory speed;
// FNV-1a, byte at a time, would take seconds per GiB.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace squall::rt {

uint64_t hash64(const void* data, size_t size, uint64_t seed = 0);
inline uint64_t hash64(std::string_view s, uint64_t seed = 0) {
    return hash64(s.data(), s.size(), seed);
}

// Incremental form: hashes a sequence of pieces; each piece's length is mixed in so
// ("ab","c") and ("a","bc") differ.
class Hasher {
public:
    explicit Hasher(uint64_t seed = 0) : state_(seed ^ 0x9e3779b97f4a7c15ull) {}
    Hasher& add(std::string_view piece);
    Hasher& add(uint64_t value);
    uint64_t digest() const { return state_; }

private:
    uint64_t state_;
};

// 16 lowercase hex digits.
std::string hex64(uint64_t value);

} // namespace squall::rt
