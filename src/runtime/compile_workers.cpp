#include "runtime/compile_workers.h"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <signal.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <set>

extern char** environ;

namespace squall::rt {

namespace {

// Length-prefixed fields over a socket; send() without SIGPIPE, so that a dead worker is
// an error here rather than the end of the process.
struct Channel {
    int fd;
    bool write(const void* data, size_t n) const {
        const char* p = static_cast<const char*>(data);
        while (n > 0) {
            const ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) return false;
            p += k, n -= size_t(k);
        }
        return true;
    }
    bool read(void* data, size_t n) const {
        char* p = static_cast<char*>(data);
        while (n > 0) {
            const ssize_t k = ::recv(fd, p, n, 0);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) return false;
            p += k, n -= size_t(k);
        }
        return true;
    }
    bool put(uint64_t v) const { return write(&v, sizeof v); }
    bool put(const std::string& s) const {
        return put(uint64_t(s.size())) && write(s.data(), s.size());
    }
    bool get(uint64_t& v) const { return read(&v, sizeof v); }
    bool get(std::string& s) const {
        uint64_t n = 0;
        if (!get(n) || n > (uint64_t(1) << 34)) return false;
        s.resize(size_t(n));
        return read(s.data(), s.size());
    }
};

std::mutex installed_mutex;
std::shared_ptr<CompileWorkers> installed;

} // namespace

struct CompileWorkers::Worker {
    pid_t pid = -1;
    int fd = -1;
    std::set<uint64_t> sources_sent; // SourceSet hashes this worker holds
    void stop() {
        if (fd >= 0) ::close(fd); // the worker's read ends: it exits
        while (pid > 0 && ::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
        fd = -1, pid = -1;
        sources_sent.clear();
    }
};

CompileWorkers::CompileWorkers(std::vector<std::string> command, unsigned count)
    : command_(std::move(command)) {
    if (command_.empty()) throw std::invalid_argument("CompileWorkers: no command");
    for (unsigned n = 0; n < std::max(1u, count); ++n) {
        workers_.push_back(std::make_unique<Worker>());
        idle_.push_back(workers_.back().get());
    }
}

CompileWorkers::~CompileWorkers() {
    for (auto& w : workers_) w->stop();
}

void CompileWorkers::start(Worker& w) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        throw CompileWorkerError(
            fmt::format("compile worker: socketpair failed ({})", std::strerror(errno)));
    // The worker's end on fd 3 (dup2 clears close-on-exec; sv[1] is not 3 while fds 0-2
    // are open), and no signal blocked that the calling thread happens to block.
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    sigset_t none;
    sigemptyset(&none);
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, sv[1], 3);
    if (rc == 0) rc = posix_spawnattr_init(&attr);
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attr, &none);
    if (rc == 0) rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    std::vector<char*> argv;
    for (auto& a : command_) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    if (rc == 0)
        rc = ::posix_spawn(&pid, command_[0].c_str(), &actions, &attr, argv.data(), environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    ::close(sv[1]);
    if (rc != 0) {
        ::close(sv[0]);
        throw CompileWorkerError(
            fmt::format("compile worker: cannot start '{}' ({})", command_[0], std::strerror(rc)));
    }
    w.pid = pid, w.fd = sv[0];
}

// One request and its reply on worker w. nullopt when the worker was gone before it
// answered (a broken socket, EOF); a reply cut off halfway throws.
std::optional<CompiledKernel> CompileWorkers::exchange(Worker& w, const CompileSpec& spec) {
    if (w.fd < 0) start(w);
    const Channel ch{w.fd};
    const uint64_t sources = spec.sources ? spec.sources->hash() : 0;
    const bool send_sources = spec.sources && !w.sources_sent.count(sources);
    bool ok = ch.put(sources) && ch.put(uint64_t(send_sources));
    if (ok && send_sources) {
        ok = ch.put(uint64_t(spec.sources->files().size()));
        for (const auto& [path, text] : spec.sources->files())
            ok = ok && ch.put(path) && ch.put(text);
    }
    ok = ok && ch.put(spec.program) && ch.put(spec.name_expression) && ch.put(spec.arch) &&
         ch.put(spec.description) && ch.put(uint64_t(spec.options.size()));
    for (const auto& o : spec.options) ok = ok && ch.put(o);
    uint64_t status = 0;
    if (!ok || !ch.get(status)) return std::nullopt;
    std::string text[3]; // cubin, lowered name, log; or the error
    uint64_t ms_bits = 0;
    ok = ch.get(text[0]);
    if (ok && status == 0) ok = ch.get(text[1]) && ch.get(text[2]) && ch.get(ms_bits);
    if (!ok)
        throw CompileWorkerError(fmt::format("compile worker (pid {}) stopped in its reply for {}",
                                             w.pid, spec.description));
    if (send_sources) w.sources_sent.insert(sources);
    if (status == 1) throw CompileError(text[0]);
    if (status != 0)
        throw CompileWorkerError(fmt::format("compile worker (pid {}): {}", w.pid, text[0]));
    CompiledKernel k;
    k.cubin = std::move(text[0]), k.lowered_name = std::move(text[1]), k.log = std::move(text[2]);
    std::memcpy(&k.compile_ms, &ms_bits, sizeof ms_bits);
    return k;
}

CompiledKernel CompileWorkers::compile(const CompileSpec& spec) {
    Worker* w = nullptr;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        freed_.wait(lock, [this] { return !idle_.empty(); });
        w = idle_.back();
        idle_.pop_back();
    }
    struct GiveBack {
        CompileWorkers& pool;
        Worker* w;
        ~GiveBack() {
            {
                std::lock_guard<std::mutex> lock(pool.mutex_);
                pool.idle_.push_back(w);
            }
            pool.freed_.notify_one();
        }
    } give_back{*this, w};
    // A worker found gone (it may have died while idle) is started again and asked once
    // more; a failure halfway leaves no worker whose socket is out of step.
    try {
        for (int attempt = 0; attempt < 2; ++attempt) {
            if (auto k = exchange(*w, spec)) return std::move(*k);
            w->stop();
        }
    } catch (const CompileError&) {
        throw; // NVRTC's verdict on the program; the worker is fine
    } catch (...) {
        w->stop();
        throw;
    }
    throw CompileWorkerError(
        fmt::format("compile worker '{}' exited twice without answering, during {} (arch {})",
                    command_[0], spec.description, spec.arch));
}

int compile_worker_main(int fd, long max_requests) {
    const Channel ch{fd};
    std::map<uint64_t, SourcesPtr> sources;
    for (long served = 0; max_requests < 0 || served < max_requests; ++served) {
        uint64_t hash = 0, with_sources = 0, n = 0;
        if (!ch.get(hash)) return 0; // the parent closed the socket
        if (!ch.get(with_sources)) return 1;
        if (with_sources) {
            auto set = std::make_shared<SourceSet>();
            if (!ch.get(n)) return 1;
            for (uint64_t f = 0; f < n; ++f) {
                std::string path, text;
                if (!ch.get(path) || !ch.get(text)) return 1;
                set->add(std::move(path), std::move(text));
            }
            sources[hash] = std::move(set);
        }
        CompileSpec spec;
        if (hash) {
            const auto it = sources.find(hash);
            if (it == sources.end()) return 1; // the parent's bookkeeping is wrong
            spec.sources = it->second;
        }
        if (!ch.get(spec.program) || !ch.get(spec.name_expression) || !ch.get(spec.arch) ||
            !ch.get(spec.description) || !ch.get(n))
            return 1;
        spec.options.resize(size_t(n));
        for (auto& o : spec.options)
            if (!ch.get(o)) return 1;
        bool sent = false;
        try {
            const CompiledKernel k = nvrtc_compile(spec);
            uint64_t ms_bits = 0;
            std::memcpy(&ms_bits, &k.compile_ms, sizeof ms_bits);
            sent = ch.put(uint64_t(0)) && ch.put(k.cubin) && ch.put(k.lowered_name) &&
                   ch.put(k.log) && ch.put(ms_bits);
        } catch (const CompileError& e) {
            sent = ch.put(uint64_t(1)) && ch.put(std::string(e.what()));
        } catch (const std::exception& e) { // not the program's fault (memory, ...)
            sent = ch.put(uint64_t(2)) && ch.put(std::string(e.what()));
        }
        if (!sent) return 1;
    }
    return 0;
}

void use_compile_workers(std::shared_ptr<CompileWorkers> workers) {
    std::lock_guard<std::mutex> lock(installed_mutex);
    installed = std::move(workers);
}

CompiledKernel compile_now(const CompileSpec& spec) {
    std::shared_ptr<CompileWorkers> workers;
    {
        std::lock_guard<std::mutex> lock(installed_mutex);
        workers = installed;
    }
    return workers ? workers->compile(spec) : nvrtc_compile(spec);
}

} // namespace squall::rt
