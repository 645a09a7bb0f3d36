#include "runtime/compiler.h"

#include "runtime/compile_workers.h"
#include "runtime/driver.h"
#include "runtime/hash.h"
#include "runtime/log.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

#ifdef SQUALL_HAVE_CUDA
#include <nvrtc.h>
#endif

namespace squall::rt {

namespace fs = std::filesystem;

#ifdef SQUALL_HAVE_CUDA

int nvrtc_version() {
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return 0;
    return major * 1000 + minor * 10;
}

CompiledKernel nvrtc_compile(const CompileSpec& spec) {
    auto t0 = std::chrono::steady_clock::now();
    // Every file is offered under its full path and each unique shorter suffix
    // ("kernels/a/b.cuh" also as "a/b.cuh" and "b.cuh"), matching any quoted include.
    std::vector<std::pair<std::string, const std::string*>> headers;
    std::set<std::string> seen, ambiguous;
    for (const auto& [path, text] : spec.sources->files()) {
        for (size_t pos = 0; pos != std::string::npos; pos = path.find('/', pos + 1)) {
            std::string name = path.substr(pos == 0 ? 0 : pos + 1);
            if (!seen.insert(name).second) ambiguous.insert(name);
            headers.emplace_back(std::move(name), &text);
        }
    }
    std::vector<const char*> names, contents;
    for (const auto& [name, text] : headers) {
        if (ambiguous.count(name) && !spec.sources->find(name)) continue;
        names.push_back(name.c_str());
        contents.push_back(text->c_str());
    }

    nvrtcProgram prog;
    auto fail = [&](const std::string& what) {
        return CompileError(
            fmt::format("NVRTC: {} for {} (arch {})", what, spec.description, spec.arch));
    };
    if (nvrtcCreateProgram(&prog, spec.program.c_str(), "squall_program.cu",
                           static_cast<int>(names.size()), contents.data(),
                           names.data()) != NVRTC_SUCCESS)
        throw fail("nvrtcCreateProgram failed");
    struct Guard {
        nvrtcProgram* p;
        ~Guard() { nvrtcDestroyProgram(p); }
    } guard{&prog};

    nvrtcAddNameExpression(prog, spec.name_expression.c_str());
    std::vector<std::string> opts = spec.options;
    opts.push_back("--gpu-architecture=" + spec.arch);
    std::vector<const char*> opt_ptrs;
    for (const auto& o : opts) opt_ptrs.push_back(o.c_str());
    nvrtcResult rc = nvrtcCompileProgram(prog, static_cast<int>(opt_ptrs.size()), opt_ptrs.data());

    CompiledKernel out;
    size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    if (log_size > 1) {
        out.log.resize(log_size);
        nvrtcGetProgramLog(prog, out.log.data());
        out.log.resize(log_size - 1);
    }
    if (rc != NVRTC_SUCCESS)
        throw fail(fmt::format("compilation failed ({})\n--- NVRTC log ---\n{}",
                               nvrtcGetErrorString(rc), out.log));

    const char* lowered = nullptr;
    if (nvrtcGetLoweredName(prog, spec.name_expression.c_str(), &lowered) != NVRTC_SUCCESS ||
        !lowered)
        throw fail("kernel '" + spec.name_expression + "' not found in the program");
    out.lowered_name = lowered;

    // A virtual architecture (compute_XX) yields PTX instead, for inspection tools.
    if (spec.arch.rfind("compute_", 0) == 0) {
        size_t ptx_size = 0;
        if (nvrtcGetPTXSize(prog, &ptx_size) != NVRTC_SUCCESS || ptx_size == 0)
            throw fail("no PTX produced");
        out.cubin.resize(ptx_size);
        nvrtcGetPTX(prog, out.cubin.data());
        out.cubin.resize(ptx_size - 1); // drop the terminating NUL: a plain text file
        return out;
    }
    size_t cubin_size = 0;
    if (nvrtcGetCUBINSize(prog, &cubin_size) != NVRTC_SUCCESS || cubin_size == 0)
        throw fail("no cubin produced (is the architecture a real sm_XX?)");
    out.cubin.resize(cubin_size);
    nvrtcGetCUBIN(prog, out.cubin.data());
    out.compile_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!out.log.empty()) log_debug("NVRTC log for {}:\n{}", spec.description, out.log);
    return out;
}

#else

int nvrtc_version() {
    return 0;
}
CompiledKernel nvrtc_compile(const CompileSpec&) {
    throw NoDeviceError("CUDA support not built: cannot compile kernels with NVRTC");
}

#endif

KernelCache::KernelCache(std::string disk_dir) : dir_(std::move(disk_dir)) {
    if (dir_.empty()) return;
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec || access(dir_.c_str(), W_OK) != 0) {
        log_warn("kernel cache directory '{}' is not writable ({}); using the memory cache only",
                 dir_, ec ? ec.message() : "permission denied");
        dir_.clear();
    }
}

std::string KernelCache::default_dir() {
    if (const char* d = std::getenv("SQUALL_CACHE_DIR"); d && *d) return d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return std::string(x) + "/squall/kernels";
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::string(h) + "/.cache/squall/kernels";
    return fmt::format("/tmp/squall-kernels-{}", getuid());
}

std::string KernelCache::disk_path(const CompileSpec& spec) const {
    // Two differently seeded hashes: 128 bits make a collision implausible.
    uint64_t base = spec.hash();
    Hasher a(1), b(2);
    a.add(base).add(static_cast<uint64_t>(nvrtc_version())).add("squall-cubin-v1");
    b.add(base).add(static_cast<uint64_t>(nvrtc_version())).add("squall-cubin-v1");
    return fmt::format("{}/{}-{}{}.cubin", dir_, spec.arch, hex64(a.digest()), hex64(b.digest()));
}

CompiledPtr KernelCache::get(const CompileSpec& spec) {
    const uint64_t key = Hasher(3).add(spec.hash()).digest();
    std::promise<CompiledPtr> promise;
    std::shared_future<CompiledPtr> existing;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = memory_.find(key);
        if (it != memory_.end())
            existing = it->second;
        else
            memory_.emplace(key, promise.get_future().share());
    }
    if (existing.valid()) {
        stats_.memory_hits++;
        return existing.get(); // may wait for another thread's compilation
    }
    try {
        CompiledPtr result = load_or_compile(spec);
        promise.set_value(result);
        return result;
    } catch (...) {
        promise.set_exception(std::current_exception());
        std::lock_guard<std::mutex> lock(mutex_);
        memory_.erase(key); // a later call may retry
        throw;
    }
}

CompiledPtr KernelCache::load_or_compile(const CompileSpec& spec) {
    std::string path = dir_.empty() ? std::string() : disk_path(spec);
    if (!path.empty()) {
        auto t0 = std::chrono::steady_clock::now();
        CompiledKernel k;
        if (read_disk(path, k)) {
            k.compile_ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
            k.from_disk = true;
            stats_.disk_hits++;
            log_debug("kernel cache hit {} for {}", path, spec.description);
            return std::make_shared<const CompiledKernel>(std::move(k));
        }
    }
    CompiledKernel k = compile_now(spec); // NVRTC here or in a worker process
    stats_.compiles++;
    log_debug("compiled {} in {:.1f} ms", spec.description, k.compile_ms);
    if (!path.empty()) write_disk(path, k);
    return std::make_shared<const CompiledKernel>(std::move(k));
}

// File layout: one header line "squall-cubin 1 <lowered name> <size> <hash>", then
// the cubin bytes. A truncated or corrupted file fails the size/hash check and is
// recompiled (and overwritten).
bool KernelCache::read_disk(const std::string& path, CompiledKernel& out) const {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::string header;
    if (!std::getline(in, header)) return false;
    std::istringstream hs(header);
    std::string magic, name, hash;
    int version = 0;
    size_t size = 0;
    if (!(hs >> magic >> version >> name >> size >> hash) || magic != "squall-cubin" ||
        version != 1)
        return false;
    std::string data(size, '\0');
    if (!in.read(data.data(), static_cast<std::streamsize>(size))) return false;
    if (hex64(hash64(data)) != hash) {
        log_warn("kernel cache file {} is corrupt; recompiling", path);
        return false;
    }
    out.cubin = std::move(data);
    out.lowered_name = std::move(name);
    return true;
}

void KernelCache::write_disk(const std::string& path, const CompiledKernel& k) {
    static std::atomic<uint64_t> counter{0};
    std::string tmp =
        fmt::format("{}.tmp.{}.{}.{:x}", path, getpid(), counter++, std::random_device{}());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << "squall-cubin 1 " << k.lowered_name << ' ' << k.cubin.size() << ' '
            << hex64(hash64(k.cubin)) << '\n';
        out.write(k.cubin.data(), static_cast<std::streamsize>(k.cubin.size()));
        out.flush();
        if (!out) {
            log_warn("cannot write kernel cache file {}", tmp);
            std::remove(tmp.c_str());
            return;
        }
    }
    // rename() is atomic: readers see the old file, no file, or the complete new one.
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        log_warn("cannot rename {} to {}", tmp, path);
        std::remove(tmp.c_str());
        return;
    }
    stats_.disk_writes++;
}

std::vector<CompiledPtr> KernelCache::get_all(const std::vector<CompileSpec>& specs,
                                              unsigned threads) {
    std::vector<CompiledPtr> out(specs.size());
    std::vector<std::exception_ptr> errors(specs.size());
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    threads = std::min<unsigned>(threads, static_cast<unsigned>(std::max<size_t>(1, specs.size())));
    std::atomic<size_t> next{0};
    auto worker = [&] {
        for (size_t i; (i = next++) < specs.size();) {
            try {
                out[i] = get(specs[i]);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
    return out;
}

} // namespace squall::rt
