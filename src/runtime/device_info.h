// What the runtime knows about a GPU: identity for wisdom matching and the attributes
// that restrictions and launch geometry may refer to as device.<name>.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace squall::rt {

struct DeviceInfo {
    std::string name = "none";
    int cc_major = 9;
    int cc_minor = 0;
    int driver_version = 0; // e.g. 13000; 0 when there is no driver
    int64_t max_threads_per_block = 1024;
    int64_t max_shared_memory_per_block = 48 * 1024;
    int64_t max_shared_memory_per_block_optin = 227 * 1024;
    int64_t multiprocessor_count = 132;
    int64_t max_threads_per_multiprocessor = 2048;
    int64_t max_blocks_per_multiprocessor = 32;
    int64_t max_registers_per_block = 65536;
    int64_t warp_size = 32;
    int64_t l2_cache_size = 50 * 1024 * 1024;

    int compute_capability() const { return cc_major * 10 + cc_minor; }
    std::string arch() const { return "sm_" + std::to_string(compute_capability()); }

    // Typical attributes for an architecture when no device is present ("sm_90").
    static DeviceInfo for_arch(const std::string& arch);

    // Names exposed to expressions, in slot order, and their values.
    static constexpr int num_attributes = 11;
    static const std::array<const char*, num_attributes>& attribute_names();
    std::array<int64_t, num_attributes> attribute_values() const;
};

// Problem size: up to three extents; unused axes are 1.
struct ProblemSize {
    std::array<int64_t, 3> extent{1, 1, 1};
    ProblemSize() = default;
    ProblemSize(int64_t x, int64_t y = 1, int64_t z = 1) : extent{x, y, z} {}
    int64_t operator[](int i) const { return extent[static_cast<size_t>(i)]; }
    friend bool operator==(const ProblemSize& a, const ProblemSize& b) {
        return a.extent == b.extent;
    }
    std::string to_string() const; // "512x512x256"
};

} // namespace squall::rt
