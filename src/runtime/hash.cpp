#include "runtime/hash.h"

#include <fmt/format.h>

#include <cstring>

namespace squall::rt {
namespace {

constexpr uint64_t k1 = 0x9e3779b185ebca87ull;
constexpr uint64_t k2 = 0xc2b2ae3d27d4eb4full;
constexpr uint64_t k3 = 0x165667b19e3779f9ull;

inline uint64_t rotl(uint64_t x, int r) {
    return (x << r) | (x >> (64 - r));
}

inline uint64_t load64(const unsigned char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

inline uint64_t lane(uint64_t acc, uint64_t input) {
    acc += input * k2;
    acc = rotl(acc, 31);
    return acc * k1;
}

inline uint64_t avalanche(uint64_t h) {
    h ^= h >> 33;
    h *= k2;
    h ^= h >> 29;
    h *= k3;
    h ^= h >> 32;
    return h;
}

} // namespace

uint64_t hash64(const void* data, size_t size, uint64_t seed) {
    const auto* p = static_cast<const unsigned char*>(data);
    const unsigned char* end = p + size;
    uint64_t h;
    if (size >= 32) {
        uint64_t a = seed + k1 + k2, b = seed + k2, c = seed, d = seed - k1;
        const unsigned char* limit = end - 32;
        do {
            a = lane(a, load64(p));
            b = lane(b, load64(p + 8));
            c = lane(c, load64(p + 16));
            d = lane(d, load64(p + 24));
            p += 32;
        } while (p <= limit);
        h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18);
        for (uint64_t v : {a, b, c, d}) h = (h ^ lane(0, v)) * k1 + k3;
    } else {
        h = seed + k3;
    }
    h += static_cast<uint64_t>(size);
    for (; p + 8 <= end; p += 8) h = rotl(h ^ lane(0, load64(p)), 27) * k1 + k3;
    for (; p < end; ++p) h = rotl(h ^ (*p * k3), 11) * k1;
    return avalanche(h);
}

Hasher& Hasher::add(std::string_view piece) {
    state_ = hash64(piece.data(), piece.size(), state_ ^ piece.size());
    return *this;
}

Hasher& Hasher::add(uint64_t value) {
    state_ = hash64(&value, sizeof value, state_);
    return *this;
}

std::string hex64(uint64_t value) {
    return fmt::format("{:016x}", value);
}

} // namespace squall::rt
