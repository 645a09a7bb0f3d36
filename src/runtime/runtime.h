// Runtime: selects configurations from wisdom, compiles through the cache, loads
// modules and hands out KernelInstances whose launch() is the hot path.
//
//   squall::rt::Runtime rt;                       // opens GPU 0 when there is one
//   auto k = rt.instantiate(def, {nx, ny, nz});   // wisdom -> compile/cache -> load
//   k.launch(stream, out_ptr, in_ptr, n);         // args as in the kernel signature
//
// instantiate_all() compiles many instances in parallel before a time loop.
#pragma once

#include "runtime/capture.h"
#include "runtime/compiler.h"
#include "runtime/driver.h"
#include "runtime/kernel_def.h"
#include "runtime/profile.h"
#include "runtime/wisdom.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace squall::rt {

class Runtime;
struct InstanceState;

// A compiled, loaded kernel for one (definition, configuration, problem size).
// A cheap handle: copies share the state owned by the Runtime, which must outlive it.
class KernelInstance {
public:
    KernelInstance() = default;

    // Launches with the given arguments (each passed by address, as cuLaunchKernel
    // expects). No allocation, lock or string work unless capture or profiling is armed.
    template <typename... Args>
    void launch(StreamHandle stream, const Args&... args) const {
        void* params[sizeof...(Args) > 0 ? sizeof...(Args) : 1] = {
            const_cast<void*>(static_cast<const void*>(&args))...};
        launch_args(stream, params, sizeof...(Args));
    }
    // Same, with a prepared argument array (params[i] points at argument i).
    void launch_args(StreamHandle stream, void** params, size_t count) const {
        if (observe_) [[unlikely]] {
            launch_observed(stream, params, count);
            return;
        }
        if (maps_) [[unlikely]] {
            launch_with_maps(stream, params, count);
            return;
        }
        launch_now(stream, params);
    }

    bool valid() const { return function_ != nullptr; }
    const LaunchGeometry& geometry() const { return geom_; }
    void* function() const { return function_; }
    const Config& config() const;
    const ProblemSize& problem() const;
    const KernelDef& def() const;
    std::string describe() const;

private:
    friend class Runtime;
    [[gnu::noinline, gnu::cold]] void launch_failed(int rc) const;
    // cuLaunchKernel with the instance's geometry and exactly these parameters.
    void launch_now(StreamHandle stream, void** params) const {
        const int rc =
            launch_fn_(function_, geom_.grid[0], geom_.grid[1], geom_.grid[2], geom_.block[0],
                       geom_.block[1], geom_.block[2], geom_.shared_mem, stream, params, nullptr);
        if (rc != 0) [[unlikely]]
            launch_failed(rc);
    }
    [[gnu::noinline]] void launch_observed(StreamHandle stream, void** params, size_t count) const;
    // Appends the tensor maps (KernelDef::tensor_map), encoded for these arguments.
    [[gnu::noinline]] void launch_with_maps(StreamHandle stream, void** params, size_t count) const;

    void* function_ = nullptr;
    LaunchFn launch_fn_ = nullptr;
    LaunchGeometry geom_;
    // Non-null only when SQUALL_CAPTURE matches the key or SQUALL_PROFILE is on.
    InstanceState* observe_ = nullptr;
    // Non-null when the configuration uses tensor maps.
    InstanceState* maps_ = nullptr;
    InstanceState* state_ = nullptr;
};

struct RuntimeOptions {
    int device = 0;
    bool use_device = true;                 // false: compile-only, never touch the driver
    std::string arch;                       // default: the device's sm_XY, or sm_90 without one
    std::vector<std::string> wisdom_dirs;   // user directories, after the project's
    std::optional<std::string> cache_dir;   // default KernelCache::default_dir(); "" = memory only
    unsigned compile_threads = 0;           // 0: hardware concurrency
    std::optional<CaptureSettings> capture; // default CaptureSettings::from_env()
    std::optional<bool> profile;            // time every launch; default profile_from_env()
};

class Runtime {
public:
    explicit Runtime(RuntimeOptions options = {});
    ~Runtime();
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;

    bool has_device() const { return has_device_; }
    // Why there is no device ("no CUDA driver/GPU found: ..."); empty when there is one.
    const std::string& no_device_reason() const { return no_device_reason_; }
    const DeviceInfo& device() const { return device_; }
    const std::string& arch() const { return arch_; }
    KernelCache& cache() { return *cache_; }
    // The cache for work that may outlive this runtime (a compile still running when a
    // tune moves on).
    std::shared_ptr<KernelCache> shared_cache() const { return cache_; }
    // Replaces the compile cache by an empty one (disk_dir empty: memory only), so that
    // what comes next compiles from nothing. Loaded instances are kept.
    void use_fresh_cache(std::string disk_dir = {});
    // Instances armed for capture (SQUALL_CAPTURE) whose capture has not happened yet.
    size_t pending_captures();
    const std::vector<std::string>& wisdom_dirs() const { return wisdom_dirs_; }

    // Wisdom selection for one problem size; logged at info level with its reason.
    WisdomSelection select(const KernelDef& def, const ProblemSize& p);

    CompileSpec compile_spec(const KernelDef& def, const Config& c, const ProblemSize& p) const;
    CompiledPtr compile(const KernelDef& def, const Config& c, const ProblemSize& p);

    // Compile (or fetch from cache) and load. Needs a device (NoDeviceError otherwise).
    KernelInstance instantiate(const KernelDef& def, const ProblemSize& p);
    KernelInstance instantiate(const KernelDef& def, const ProblemSize& p, const Config& c);

    // A tuner's candidate or a tool's kernel (replay's comparison): as instantiate(), but
    // never captured, and unload() may drop it again unless the same instance was (or is
    // later) instantiated for use.
    KernelInstance instantiate_candidate(const KernelDef& def, const ProblemSize& p,
                                         const Config& c);
    // Unloads a candidate's module and forgets it (every handle to it becomes invalid);
    // instances in use are left alone. The compiled code stays in the cache.
    void unload(const KernelInstance& k);

    struct Request {
        const KernelDef* def;
        ProblemSize problem;
        std::optional<Config> config; // empty: from wisdom
    };
    // Compiles all requests in parallel threads, then loads them in order.
    std::vector<KernelInstance> instantiate_all(const std::vector<Request>& requests);

    // Every instance loaded so far, sorted by name() as text (what a run launched or
    // precompiled; tests compare it with what SQUALL_CAPTURE saved, tuners with what to tune).
    struct Loaded {
        std::string key;
        ProblemSize problem;
        std::string name() const { return key + " " + problem.to_string(); }
    };
    std::vector<Loaded> loaded_instances();

    // GPU time per instance since the start or the last profile_reset(), when profiling
    // (RuntimeOptions::profile / SQUALL_PROFILE); empty otherwise.
    bool profiling() const { return profiler_ != nullptr; }
    std::vector<ProfileRow> profile();
    void profile_reset();
    // Runs `work` (library calls on `stream`, e.g. cuFFT) timed as the profile row `name`
    // when profiling; otherwise just runs it.
    void profile_library(const std::string& name, const ProblemSize& p, StreamHandle stream,
                         const std::function<void()>& work);

private:
    friend class KernelInstance;
    KernelInstance load(const KernelDef& def, const ProblemSize& p, const Config& c,
                        const CompileSpec& spec, const CompiledPtr& compiled,
                        bool candidate = false);
    void observed_launch(InstanceState& s, StreamHandle stream, void** params, size_t count);
    void capture_launch(InstanceState& s, StreamHandle stream, void** params, size_t count,
                        const std::function<void()>& launch);

    RuntimeOptions options_;
    bool has_device_ = false;
    std::string no_device_reason_;
    DeviceInfo device_;
    std::string arch_;
    std::vector<std::string> wisdom_dirs_;
    std::shared_ptr<KernelCache> cache_;
    CaptureSettings capture_;
    std::unique_ptr<LaunchProfiler> profiler_; // SQUALL_PROFILE

    std::mutex mutex_;
    std::map<std::string, std::shared_ptr<const Wisdom>> wisdom_;
    std::unordered_map<uint64_t, std::unique_ptr<InstanceState>> instances_;
    std::map<std::string, uint64_t> capture_counts_;
    std::map<std::string, int> library_rows_; // profile rows of profile_library, by name
};

} // namespace squall::rt
