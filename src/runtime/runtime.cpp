#include "runtime/runtime.h"

#include "runtime/hash.h"
#include "runtime/log.h"
#include "runtime/replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace squall::rt {

struct InstanceState {
    explicit InstanceState(const KernelDef& d) : def(d) {}
    Runtime* runtime = nullptr;
    KernelDef def;
    Config config;
    ProblemSize problem;
    LaunchGeometry geom;
    CompiledPtr compiled;
    void* module = nullptr;
    void* function = nullptr;
    bool capture = false; // SQUALL_CAPTURE matches the key
    int profile_row = -1; // row in the runtime's LaunchProfiler
    std::atomic<bool> capture_done{false};
    bool candidate = false;          // instantiate_candidate made it and nothing else uses it
    std::vector<TensorMapSpec> maps; // KernelDef::tensor_maps of this configuration
};

const Config& KernelInstance::config() const {
    return state_->config;
}
const ProblemSize& KernelInstance::problem() const {
    return state_->problem;
}
const KernelDef& KernelInstance::def() const {
    return state_->def;
}

std::string KernelInstance::describe() const {
    if (!state_) return "(empty kernel instance)";
    return fmt::format("kernel '{}' [{}] problem {}", state_->def.key(),
                       state_->def.space().format(state_->config), state_->problem.to_string());
}

void KernelInstance::launch_failed(int rc) const {
    throw CudaError(fmt::format("cuLaunchKernel failed for {} (grid {}x{}x{}, block {}x{}x{}): {}",
                                describe(), geom_.grid[0], geom_.grid[1], geom_.grid[2],
                                geom_.block[0], geom_.block[1], geom_.block[2],
                                Driver::get().error_string(rc)),
                    rc);
}

void KernelInstance::launch_observed(StreamHandle stream, void** params, size_t count) const {
    observe_->runtime->observed_launch(*observe_, stream, params, count);
}

void KernelInstance::launch_with_maps(StreamHandle stream, void** params, size_t count) const {
    constexpr size_t max_maps = 8, max_params = 64;
    const std::vector<TensorMapSpec>& maps = maps_->maps;
    if (maps.size() > max_maps || count + 1 > max_params)
        throw std::invalid_argument(fmt::format("{}: {} tensor maps and {} arguments, more than "
                                                "a launch takes ({} and {})",
                                                describe(), maps.size(), count, max_maps,
                                                max_params - 1));
    alignas(64) unsigned char encoded[max_maps * 128];
    void* all[max_params];
    std::copy(params, params + count, all);
    all[count] = encoded;
    const Driver& drv = Driver::get();
    for (size_t m = 0; m < maps.size(); ++m) {
        const TensorMapSpec& t = maps[m];
        if (t.arg >= count)
            throw std::invalid_argument(fmt::format("{}: tensor map of argument {}, but the "
                                                    "launch passes {}",
                                                    describe(), t.arg, count));
        DevicePtr array = 0;
        std::memcpy(&array, params[t.arg], sizeof array);
        const DevicePtr origin = array + DevicePtr(t.offset * (long long)t.elem_bytes);
        drv.encode_tensor_map(encoded + 128 * m, origin, t.elem_bytes, t.dims, t.box);
    }
    launch_now(stream, all);
}

Runtime::Runtime(RuntimeOptions options) : options_(std::move(options)) {
    if (options_.use_device) {
        Driver& drv = Driver::get();
        try {
            device_ = drv.open_device(options_.device);
            has_device_ = true;
        } catch (const std::exception& e) {
            no_device_reason_ = e.what();
        }
    } else {
        no_device_reason_ = "device use disabled (compile-only runtime)";
    }
    arch_ = !options_.arch.empty() ? options_.arch : has_device_ ? device_.arch() : "sm_90";
    if (!has_device_) device_ = DeviceInfo::for_arch(arch_);
    if (has_device_)
        log_info("GPU {}: {} (sm_{}), driver {}", options_.device, device_.name,
                 device_.compute_capability(), device_.driver_version);
    else
        log_info("{}; kernels compile for {} but cannot run", no_device_reason_, arch_);

    cache_ = std::make_shared<KernelCache>(options_.cache_dir ? *options_.cache_dir
                                                              : KernelCache::default_dir());
    wisdom_dirs_ = wisdom_search_path(options_.wisdom_dirs);
    capture_ = options_.capture ? *options_.capture : CaptureSettings::from_env();
    if (has_device_ && (options_.profile ? *options_.profile : profile_from_env())) {
        profiler_ = std::make_unique<LaunchProfiler>();
        log_info("profiling every kernel launch (SQUALL_PROFILE): two events per launch");
    }
}

Runtime::~Runtime() {
    for (auto& [key, s] : instances_) Driver::get().module_unload(s->module);
}

WisdomSelection Runtime::select(const KernelDef& def, const ProblemSize& p) {
    std::shared_ptr<const Wisdom> w;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = wisdom_.find(def.key());
        if (it == wisdom_.end())
            it = wisdom_
                     .emplace(def.key(), std::make_shared<const Wisdom>(
                                             Wisdom::load(def.key(), def.space(), wisdom_dirs_)))
                     .first;
        w = it->second;
    }
    WisdomSelection s = w->select(p, device_, wisdom_device_name(device_), def.space());
    log_info("wisdom for '{}' at {} on '{}': {} -> [{}]", def.key(), p.to_string(),
             wisdom_device_name(device_), s.reason, def.space().format(s.config));
    return s;
}

CompileSpec Runtime::compile_spec(const KernelDef& def, const Config& c,
                                  const ProblemSize& p) const {
    return def.compile_spec(c, p, device_, arch_);
}

void Runtime::use_fresh_cache(std::string disk_dir) {
    cache_ = std::make_shared<KernelCache>(std::move(disk_dir));
}

size_t Runtime::pending_captures() {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t n = 0;
    for (const auto& [key, s] : instances_) n += s->capture && !s->capture_done;
    return n;
}

CompiledPtr Runtime::compile(const KernelDef& def, const Config& c, const ProblemSize& p) {
    return cache_->get(compile_spec(def, c, p));
}

KernelInstance Runtime::instantiate(const KernelDef& def, const ProblemSize& p) {
    return instantiate(def, p, select(def, p).config);
}

KernelInstance Runtime::instantiate(const KernelDef& def, const ProblemSize& p, const Config& c) {
    if (!has_device_) throw NoDeviceError(no_device_reason_);
    CompileSpec spec = compile_spec(def, c, p);
    return load(def, p, c, spec, cache_->get(spec));
}

KernelInstance Runtime::instantiate_candidate(const KernelDef& def, const ProblemSize& p,
                                              const Config& c) {
    if (!has_device_) throw NoDeviceError(no_device_reason_);
    CompileSpec spec = compile_spec(def, c, p);
    return load(def, p, c, spec, cache_->get(spec), true);
}

std::vector<KernelInstance> Runtime::instantiate_all(const std::vector<Request>& requests) {
    if (!has_device_) throw NoDeviceError(no_device_reason_);
    std::vector<Config> configs;
    std::vector<CompileSpec> specs;
    for (const auto& r : requests) {
        configs.push_back(r.config ? *r.config : select(*r.def, r.problem).config);
        specs.push_back(compile_spec(*r.def, configs.back(), r.problem));
    }
    auto compiled = cache_->get_all(specs, options_.compile_threads);
    std::vector<KernelInstance> out;
    for (size_t i = 0; i < requests.size(); ++i)
        out.push_back(
            load(*requests[i].def, requests[i].problem, configs[i], specs[i], compiled[i]));
    return out;
}

KernelInstance Runtime::load(const KernelDef& def, const ProblemSize& p, const Config& c,
                             const CompileSpec& spec, const CompiledPtr& compiled, bool candidate) {
    LaunchGeometry g = def.geometry(c, p, device_);
    const uint64_t key = Hasher(7)
                             .add(spec.hash())
                             .add(hash64(&g, sizeof g))
                             .add(Hasher().add(def.key()).digest())
                             .digest();
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = instances_.find(key);
    if (it == instances_.end()) {
        auto s = std::make_unique<InstanceState>(def);
        s->runtime = this;
        s->config = c;
        s->problem = p;
        s->geom = g;
        s->compiled = compiled;
        Driver& drv = Driver::get();
        s->module = drv.module_load(compiled->cubin);
        s->function = drv.module_function(s->module, compiled->lowered_name);
        if (g.shared_mem > 48 * 1024) drv.set_max_dynamic_shared(s->function, g.shared_mem);
        if (g.carveout >= 0) drv.set_preferred_carveout(s->function, g.carveout);
        // A tuner's candidates are never captured (nor slowed down by the capture path).
        s->capture = capture_.enabled() && capture_.matches(def.key()) && !candidate;
        s->maps = def.tensor_maps(c, p, device_);
        if (profiler_)
            s->profile_row = profiler_->add_row(def.key(), p.to_string(), def.space().format(c));
        s->candidate = candidate;
        it = instances_.emplace(key, std::move(s)).first;
    }
    InstanceState& s = *it->second;
    if (!candidate) s.candidate = false;
    KernelInstance k;
    k.state_ = &s;
    k.function_ = s.function;
    k.launch_fn_ = Driver::get().launch_fn();
    k.geom_ = g;
    if (s.capture || s.profile_row >= 0) k.observe_ = &s;
    if (!s.maps.empty()) k.maps_ = &s;
    return k;
}

void Runtime::unload(const KernelInstance& k) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = instances_.begin(); it != instances_.end(); ++it)
        if (it->second.get() == k.state_) {
            if (!it->second->candidate) return;
            Driver::get().module_unload(it->second->module);
            instances_.erase(it);
            return;
        }
}

std::vector<Runtime::Loaded> Runtime::loaded_instances() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Loaded> out;
    for (const auto& [hash, s] : instances_) out.push_back({s->def.key(), s->problem});
    std::sort(out.begin(), out.end(),
              [](const Loaded& a, const Loaded& b) { return a.name() < b.name(); });
    return out;
}

std::vector<ProfileRow> Runtime::profile() {
    return profiler_ ? profiler_->report() : std::vector<ProfileRow>{};
}

void Runtime::profile_reset() {
    if (profiler_) profiler_->reset();
}

void Runtime::profile_library(const std::string& name, const ProblemSize& p, StreamHandle stream,
                              const std::function<void()>& work) {
    if (!profiler_) return work();
    int row;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        const std::string key = name + " " + p.to_string();
        auto it = library_rows_.find(key);
        if (it == library_rows_.end())
            it = library_rows_.emplace(key, profiler_->add_row(name, p.to_string(), "library"))
                     .first;
        row = it->second;
    }
    profiler_->time(row, stream, work);
}

// Slow path of instances that are captured or profiled: the plain launch, timed when
// profiling, inside the capture when one is due.
void Runtime::observed_launch(InstanceState& s, StreamHandle stream, void** params, size_t count) {
    KernelInstance plain;
    plain.function_ = s.function;
    plain.launch_fn_ = Driver::get().launch_fn();
    plain.geom_ = s.geom;
    plain.state_ = &s;
    if (!s.maps.empty()) plain.maps_ = &s;
    const std::function<void()> launch = [&] { plain.launch_args(stream, params, count); };
    const std::function<void()> timed = [&] {
        if (profiler_ && s.profile_row >= 0)
            profiler_->time(s.profile_row, stream, launch);
        else
            launch();
    };
    if (s.capture)
        capture_launch(s, stream, params, count, timed);
    else
        timed();
}

// Launches of kernels selected by SQUALL_CAPTURE. Any problem is a warning; the launch
// itself always happens exactly once.
void Runtime::capture_launch(InstanceState& s, StreamHandle stream, void** params, size_t count,
                             const std::function<void()>& launch) {
    // A capture sink (a tuner) launches kernels of its own: those are never captured.
    static thread_local bool in_sink = false;
    if (s.capture_done || in_sink) return launch();

    bool take = false;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!s.capture_done) take = capture_counts_[s.def.key()]++ >= capture_.skip;
    }
    if (!take) return launch();
    s.capture_done = true; // one capture per instance, whatever happens below

    Capture c;
    c.kernel = s.def.to_json();
    c.problem = s.problem;
    c.config = s.def.space().config_to_json(s.config);
    c.device_name = device_.name;
    std::vector<DevicePtr> from;
    uint64_t total = 0;
    try {
        describe_launch(c, s.def.args(), params, count, from);
        for (const auto& a : c.arrays)
            if (a.has_data()) total += a.bytes() * (a.access == Access::in ? 1 : 2);
    } catch (const std::exception& e) {
        log_warn("capture of '{}' refused: {}", s.def.key(), e.what());
        return launch();
    }
    if (total > capture_.max_bytes) {
        log_warn("capture of '{}' refused: it needs {:.1f} MiB, over the limit of {} MiB "
                 "(SQUALL_CAPTURE_MAX_MB)",
                 s.def.key(), total / 1048576.0, capture_.max_bytes >> 20);
        return launch();
    }
    Driver& drv = Driver::get();
    const auto t0 = std::chrono::steady_clock::now();
    const bool in_process = bool(capture_sink());
    // Which arrays an in-process capture keeps on the device: the large ones, except
    // reductions' partial results (replay folds those on the host).
    std::vector<char> on_device(c.arrays.size(), 0);
    for (size_t i = 0; i < c.arrays.size(); ++i) {
        const CapturedArray& a = c.arrays[i];
        on_device[i] = in_process && a.has_data() && a.bytes() >= kDeviceCaptureBytes &&
                       partials_of(s.def.args(), a) == Partials::none;
    }
    // The arrays' contents now: to the host, or to a new buffer on the device. Without room
    // on the device, the arrays not yet saved go through the host.
    auto save_all = [&](bool after) {
        for (size_t i = 0; i < c.arrays.size(); ++i) {
            CapturedArray& a = c.arrays[i];
            if (!a.has_data() || (after && a.access == Access::in)) continue;
            if ((after ? a.device_after : a.device_before) != nullptr) continue; // saved
            if (on_device[i]) {
                auto b = std::make_shared<DeviceBuffer>(a.bytes());
                drv.copy_device(b->get(), from[i], a.bytes());
                (after ? a.device_after : a.device_before) = std::move(b);
            } else {
                std::vector<char>& h = after ? a.after : a.before;
                h.resize(a.bytes());
                drv.download(h.data(), from[i], a.bytes());
            }
        }
        drv.synchronize();
    };
    auto save = [&](bool after) {
        try {
            save_all(after);
        } catch (const CudaError& e) {
            if (std::none_of(on_device.begin(), on_device.end(), [](char d) { return d; })) throw;
            log_warn("capture of '{}': {}; its arrays go through the host", s.def.key(), e.what());
            std::fill(on_device.begin(), on_device.end(), 0);
            save_all(after);
        }
    };
    try {
        drv.stream_synchronize(stream);
        save(false);
    } catch (const std::exception& e) {
        log_warn("capture of '{}' refused: {}", s.def.key(), e.what());
        return launch();
    }
    launch();
    try {
        drv.stream_synchronize(stream);
        save(true);
        c.squall_version = squall_version();
        c.git_revision = squall_git_revision();
        if (const CaptureSink& sink = capture_sink()) {
            hash_arrays(c);
            for (CapturedArray& a : c.arrays) {
                if (a.device_before)
                    a.hash_before = device_hash(*this, a.device_before->get(), a.bytes());
                if (a.device_after)
                    a.hash_after = device_hash(*this, a.device_after->get(), a.bytes());
            }
            c.take_seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            in_sink = true;
            try {
                sink(*this, c);
            } catch (...) {
                in_sink = false;
                throw;
            }
            in_sink = false;
            return;
        }
        std::string path = write_capture(capture_.dir, c);
        log_info("captured '{}' at {} ({:.1f} MiB) to {}", s.def.key(), s.problem.to_string(),
                 c.total_bytes() / 1048576.0, path);
    } catch (const std::exception& e) {
        log_warn("capture of '{}' failed: {}", s.def.key(), e.what());
    }
}

} // namespace squall::rt
