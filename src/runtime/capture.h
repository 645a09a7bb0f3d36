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
//
// Struct arguments (KernelDef::arg_struct) are saved as their bytes plus their declared
// members; replay points the member arrays at fresh buffers. Arrays counted as
// whole_allocation are saved whole, with the pointer's offset into them; two of them
// in the same allocation are saved once (`same_as`), so replay keeps them aliased. A
// null pointer is recorded as null and replayed as null.
#pragma once

#include "runtime/config_space.h"
#include "runtime/device_info.h"
#include "runtime/driver.h"
#include "runtime/kernel_def.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
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
    // Whether a pattern matches the key, or, having no wildcard, is the key up to one of
    // its '_' arguments ("diff_uvw_smag" selects diff_uvw_smag_double and _float).
    bool matches(std::string_view key) const;
};

// Where an array or scalar sits: a launch argument of its own, or a member of a
// captured struct at a byte offset.
struct MemberOf {
    int parent = -1; // index into Capture::structs, -1: a launch argument
    size_t offset = 0;
};

struct CapturedArray {
    std::string name;
    DType dtype = DType::f64;
    Access access = Access::in;
    uint64_t count = 0;  // elements saved
    uint64_t offset = 0; // bytes from the first saved element to the pointer passed
    bool null = false;   // the kernel got a null pointer (nothing saved)
    int same_as = -1;    // index of an earlier array in the same allocation
    MemberOf member;
    std::vector<char> before; // contents before the launch
    std::vector<char> after;  // contents after the launch (out/inout only)
    // An in-process capture (capture_sink) keeps large arrays on the capturing runtime's
    // device instead of in before / after; they are never written to files.
    std::shared_ptr<DeviceBuffer> device_before, device_after;
    // hash64 of before / after; of an array on the device, device_hash's value.
    uint64_t hash_before = 0, hash_after = 0;
    size_t bytes() const { return count * dtype_size(dtype); }
    bool has_data() const { return !null && same_as < 0; }
};

struct CapturedScalar {
    std::string name;
    DType dtype = DType::f64;
    Value value;
    std::vector<char> raw; // exact bytes as passed to the kernel
    MemberOf member;
};

struct CapturedStruct {
    std::string name;
    std::vector<char> raw; // as passed; member pointers are replaced on replay
};

enum class ArgKind : uint8_t { scalar, array, structure };

struct Capture {
    // The squall that wrote it (SQUALL_VERSION, git revision); empty in older captures.
    std::string squall_version, git_revision;
    nlohmann::json kernel; // KernelDef::to_json()
    ProblemSize problem;
    nlohmann::json config;
    std::string device_name;
    std::vector<CapturedScalar> scalars; // launch arguments and struct members
    std::vector<CapturedArray> arrays;   // launch arguments and struct members
    std::vector<CapturedStruct> structs;
    // The launch arguments in order: (kind, index into scalars, arrays or structs).
    std::vector<std::pair<ArgKind, size_t>> order;
    // Wall seconds the launch's capture took here (downloads, hashing); not saved.
    double take_seconds = 0;

    KernelDef kernel_def() const { return KernelDef::from_json(kernel); }
    uint64_t total_bytes() const;
};

// Fills c's scalars, structs, arrays and order from one launch's parameters as `args`
// (a KernelDef's) describe them; `from[n]` is the device address array n is saved from
// (0 for null and same_as arrays). Nothing is downloaded. Throws CaptureError or
// CudaError (an argument count that differs, a count that does not evaluate, a pointer
// in no device allocation).
void describe_launch(Capture& c, const std::vector<ArgDef>& args, void* const* params, size_t count,
                     std::vector<uint64_t>& from);

// Sets every array's hash_before and hash_after from its host bytes, the arrays on threads
// of their own (a 512^3 capture holds about 10 GB); contents kept on the device
// (device_before / device_after) are left to device_hash.
void hash_arrays(Capture& c);

// How a kernel's arguments declare a captured array's contents: per-block partial results
// (summed or maximised by a second pass) or plain values. Struct members: plain.
Partials partials_of(const std::vector<ArgDef>& args, const CapturedArray& a);

// Writes a capture (arrays already filled, hashes computed here). Returns the JSON
// path. Throws CaptureError when the directory is not writable.
std::string write_capture(const std::string& dir, Capture& capture);

// Loads a capture and its data files. With verify, a hash mismatch (a flipped byte)
// or a wrong file size throws CaptureError naming the file.
Capture load_capture(const std::string& json_path, bool verify = true);

// This build's squall version and git revision, as captures and wisdom record them. The
// revision is SQUALL_GIT_REVISION where set (a source copy without its .git), else the
// checkout's at build time.
const char* squall_version();
const char* squall_git_revision();
const char* built_git_revision(); // generated at build time (revision.cmake)

// Where captures go instead of files, process-wide: a tuner running a case in-process
// takes each capture as it is made, its arrays of at least kDeviceCaptureBytes on the
// device (no trip through the host), the others on the host. Empty (the default): files.
constexpr uint64_t kDeviceCaptureBytes = 1 << 20;
class Runtime;
using CaptureSink = std::function<void(Runtime&, Capture&)>;
void set_capture_sink(CaptureSink sink);
const CaptureSink& capture_sink();

// Rebuilds a raw value from its bytes (for scalars).
Value scalar_value(DType t, const void* bytes);

} // namespace squall::rt
