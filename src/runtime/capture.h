// Capture of kernel launches for offline tuning.
//
// SQUALL_CAPTURE       comma-separated key patterns with '*' wildcards ("advec*,diff_uvw_*")
// SQUALL_CAPTURE_SKIP  launches of each kernel to let pass before capturing (default 0)
// SQUALL_CAPTURE_DIR   output directory (default "captures")
// SQUALL_CAPTURE_MAX_MB  refuse captures larger than this (default 4096)
//
// A capture is <stem>.json plus one binary file per array with its contents before
// the launch (<stem>.<arg>.before.bin) and, for out/inout arrays, after it
// (<stem>.<arg>.after.bin: the reference). The JSON holds the kernel definition
// (sources, space, restrictions, geometry), problem size, configuration, scalar
// arguments, and type, count, access and hash of every array. Capturing only reads
// data, so the launch and its results are unchanged.
#pragma once

#include "runtime/config_space.h"
#include "runtime/device_info.h"
#include "runtime/kernel_def.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace squall::rt {

class CaptureError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

bool glob_match(std::string_view pattern, std::string_view text);

struct CaptureSettings {
    std::vector<std::string> patterns;
    uint64_t skip = 0;
    std::string dir = "captures";
    uint64_t max_bytes = 4096ull << 20;

    static CaptureSettings from_env();
    bool enabled() const { return !patterns.empty(); }
    bool matches(std::string_view key) const;
};

struct CapturedArray {
    std::string name;
    DType dtype = DType::f64;
    Access access = Access::in;
    uint64_t count = 0;
    std::vector<char> before; // contents before the launch
    std::vector<char> after;  // contents after the launch (out/inout only)
    uint64_t hash_before = 0, hash_after = 0;
    size_t bytes() const { return count * dtype_size(dtype); }
};

struct CapturedScalar {
    std::string name;
    DType dtype = DType::f64;
    Value value;
    std::vector<char> raw; // exact bytes as passed to the kernel
};

struct Capture {
    nlohmann::json kernel; // KernelDef::to_json()
    ProblemSize problem;
    nlohmann::json config;
    std::string device_name;
    std::vector<CapturedScalar> scalars;
    std::vector<CapturedArray> arrays;
    // Argument order for the launch: (is_array, index into scalars or arrays).
    std::vector<std::pair<bool, size_t>> order;

    KernelDef kernel_def() const { return KernelDef::from_json(kernel); }
    uint64_t total_bytes() const;
};

// Writes a capture (arrays already filled, hashes computed here). Returns the JSON
// path. Throws CaptureError when the directory is not writable.
std::string write_capture(const std::string& dir, Capture& capture);

// Loads a capture and its data files. With verify, a hash mismatch (a flipped byte)
// or a wrong file size throws CaptureError naming the file.
Capture load_capture(const std::string& json_path, bool verify = true);

// Rebuilds a raw value from its bytes (for scalars).
Value scalar_value(DType t, const void* bytes);

} // namespace squall::rt
