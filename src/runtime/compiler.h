// NVRTC compilation to cubin, plus the compile cache (memory and disk).
#pragma once

#include "runtime/kernel_def.h"

#include <atomic>
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace squall::rt {

// The message holds the configuration that failed and NVRTC's log.
class CompileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct CompiledKernel {
    std::string cubin;
    std::string lowered_name; // mangled symbol for cuModuleGetFunction
    std::string log;          // NVRTC log (warnings), may be empty
    double compile_ms = 0;    // NVRTC time, or disk read time on a cache hit
    bool from_disk = false;
};
using CompiledPtr = std::shared_ptr<const CompiledKernel>;

// NVRTC version as major*1000 + minor*10 (13000 for 13.0); 0 without CUDA support.
int nvrtc_version();

// Compiles without consulting any cache. Throws CompileError (or NoDeviceError when
// CUDA support is not built).
CompiledKernel nvrtc_compile(const CompileSpec& spec);

// Thread-safe compile cache. In memory, concurrent requests for the same spec wait
// for one compilation. On disk, files are named by a hash of the spec (source,
// options, arch) and the NVRTC version; writes go to a temporary file and are then
// renamed, so concurrent processes (MPI ranks) can share one directory.
class KernelCache {
public:
    // disk_dir empty: memory only.
    explicit KernelCache(std::string disk_dir);

    // $SQUALL_CACHE_DIR, else $XDG_CACHE_HOME/squall/kernels, else
    // $HOME/.cache/squall/kernels, else /tmp/squall-kernels-<uid>.
    static std::string default_dir();

    CompiledPtr get(const CompileSpec& spec);
    // Compiles in parallel with up to `threads` threads (0: hardware concurrency).
    // Result i belongs to specs[i]. The first error is rethrown after all finished.
    std::vector<CompiledPtr> get_all(const std::vector<CompileSpec>& specs, unsigned threads = 0);

    std::string disk_path(const CompileSpec& spec) const;
    const std::string& disk_dir() const { return dir_; }

    struct Stats {
        std::atomic<uint64_t> memory_hits{0}, disk_hits{0}, compiles{0}, disk_writes{0};
    };
    const Stats& stats() const { return stats_; }

private:
    CompiledPtr load_or_compile(const CompileSpec& spec);
    bool read_disk(const std::string& path, CompiledKernel& out) const;
    void write_disk(const std::string& path, const CompiledKernel& k);

    std::string dir_;
    std::mutex mutex_;
    std::unordered_map<uint64_t, std::shared_future<CompiledPtr>> memory_;
    Stats stats_;
};

} // namespace squall::rt
