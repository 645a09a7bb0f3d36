#include "model/comm/nccl_library.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

// Where nccl.h is at hand (it needs the CUDA headers), the declarations above must match it.
#if defined(SQUALL_HAVE_CUDA) && __has_include(<nccl.h>)
#include <nccl.h>
static_assert(sizeof(ncclUniqueId) == sizeof(squall::nccl::UniqueId));
static_assert(ncclSuccess == squall::nccl::success && ncclInProgress == squall::nccl::in_progress);
static_assert(ncclInt8 == squall::nccl::int8);
static_assert(sizeof(ncclResult_t) == sizeof(squall::nccl::Result));
static_assert(sizeof(ncclDataType_t) == sizeof(squall::nccl::DataType));
#endif

namespace squall::nccl {

namespace {

std::string env_or_empty(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

bool is_file(const std::string& p) {
    struct stat st {};
    return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Existing paths matching a shell pattern, sorted (newest Python versions last).
std::vector<std::string> glob_paths(const std::string& pattern) {
    std::vector<std::string> out;
    glob_t g{};
    if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
        for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
    globfree(&g);
    return out;
}

constexpr const char* soname = "libnccl.so.2";

// The wheel's library below one Python prefix (a venv, conda, pyenv version, /usr/local).
void add_wheel_dirs(const std::string& prefix, std::vector<std::string>& out) {
    if (prefix.empty()) return;
    for (const char* kind : {"site-packages", "dist-packages"})
        for (std::string& p :
             glob_paths(fmt::format("{}/lib/python3*/{}/nvidia/nccl/lib/{}", prefix, kind, soname)))
            out.push_back(std::move(p));
}

} // namespace

SearchEnv SearchEnv::from_environment() {
    SearchEnv e;
    e.nccl_lib = env_or_empty("SQUALL_NCCL_LIB");
    e.nccl_root = env_or_empty("NCCL_ROOT");
    e.virtual_env = env_or_empty("VIRTUAL_ENV");
    e.conda_prefix = env_or_empty("CONDA_PREFIX");
    e.home = env_or_empty("HOME");
    e.pyenv_root = env_or_empty("PYENV_ROOT");
    return e;
}

std::vector<std::string> library_candidates(const SearchEnv& env) {
    std::vector<std::string> found;
    if (!env.nccl_root.empty()) {
        const std::string p = env.nccl_root + "/lib/" + soname;
        if (is_file(p)) found.push_back(p);
    }
    add_wheel_dirs(env.virtual_env, found);
    add_wheel_dirs(env.conda_prefix, found);
    if (!env.home.empty()) add_wheel_dirs(env.home + "/.local", found);
    const std::string pyenv = !env.pyenv_root.empty() ? env.pyenv_root
                              : !env.home.empty()     ? env.home + "/.pyenv"
                                                      : "";
    if (!pyenv.empty())
        for (const std::string& version : glob_paths(pyenv + "/versions/*"))
            add_wheel_dirs(version, found);
    if (env.system_dirs) {
        add_wheel_dirs("/usr/local", found);
        add_wheel_dirs("/usr", found);
        for (const char* dir : {"/usr/lib/python3/dist-packages/nvidia/nccl/lib",
                                "/usr/local/cuda/lib", "/usr/local/cuda/lib64"}) {
            const std::string p = fmt::format("{}/{}", dir, soname);
            if (is_file(p)) found.push_back(p);
        }
    }
    std::vector<std::string> out;
    // An explicit file is tried even when it does not exist, so that its absence is reported.
    if (!env.nccl_lib.empty()) out.push_back(env.nccl_lib);
    for (std::string& p : found)
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(std::move(p));
    if (env.plain_soname) out.emplace_back(soname);
    return out;
}

const Library& Library::get() {
    static const Library lib(library_candidates(SearchEnv::from_environment()),
                             "no libnccl.so.2 in $NCCL_ROOT/lib, in the nvidia/nccl/lib folder "
                             "of a Python prefix or in /usr/local/cuda/lib{,64}; "
                             "SQUALL_NCCL_LIB names the file");
    return lib;
}

Library::Library(const std::vector<std::string>& candidates, const std::string& searched) {
    std::vector<std::string> tried;
    for (const std::string& path : candidates) {
        void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char* why = dlerror();
            tried.push_back(fmt::format("{} ({})", path, why ? why : "unknown reason"));
            continue;
        }
        std::string missing;
        auto resolve = [&](auto& fn, const char* name, bool required = true) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
            if (!fn && required) missing += std::string(missing.empty() ? "" : ", ") + name;
        };
        resolve(get_version, "ncclGetVersion");
        resolve(get_unique_id, "ncclGetUniqueId");
        resolve(comm_init_rank, "ncclCommInitRank");
        resolve(comm_destroy, "ncclCommDestroy");
        resolve(comm_abort, "ncclCommAbort");
        resolve(get_error_string, "ncclGetErrorString");
        resolve(get_last_error, "ncclGetLastError", false);
        resolve(group_start, "ncclGroupStart");
        resolve(group_end, "ncclGroupEnd");
        resolve(send, "ncclSend");
        resolve(recv, "ncclRecv");
        int v = 0;
        if (missing.empty() && get_version(&v) != success) missing = "a working ncclGetVersion";
        // Before 2.9 the code was major * 1000 + minor * 100 + patch.
        if (v > 0 && v < 10000) v = v / 1000 * 10000 + v / 100 % 10 * 100 + v % 100;
        if (missing.empty() && v < min_version)
            missing = fmt::format("version >= 2.7 (it is {})", v);
        if (!missing.empty()) {
            tried.push_back(fmt::format("{} (lacks {})", path, missing));
            dlclose(h);
            continue;
        }
        handle_ = h;
        version_ = v;
        path_ = path;
        available_ = true;
        return;
    }
    get_version = nullptr, get_unique_id = nullptr, comm_init_rank = nullptr;
    comm_destroy = nullptr, comm_abort = nullptr, get_error_string = nullptr;
    get_last_error = nullptr, group_start = nullptr, group_end = nullptr;
    send = nullptr, recv = nullptr;
    error_ = tried.empty() ? "NCCL not found: no place to look for libnccl.so.2"
                           : "NCCL not found: tried " + fmt::format("{}", fmt::join(tried, "; "));
    if (!searched.empty()) error_ += " (" + searched + ")";
}

// Not unloaded: NCCL's threads may outlive a communicator, and the process-wide library
// lives to the end anyway.
Library::~Library() = default;

std::string Library::version_string() const {
    return fmt::format("{}.{}.{}", version_ / 10000, version_ / 100 % 100, version_ % 100);
}

std::string Library::describe(Result r, const char* call, Comm comm) const {
    const char* name = get_error_string ? get_error_string(r) : nullptr;
    std::string s = fmt::format("{} failed: {} ({})", call, name ? name : "NCCL error", r);
    const char* last = get_last_error ? get_last_error(comm) : nullptr;
    if (last && *last) s += fmt::format(": {}", last);
    return s;
}

void Library::check(Result r, const char* call, Comm comm) const {
    if (r != success) throw std::runtime_error(describe(r, call, comm));
}

} // namespace squall::nccl
