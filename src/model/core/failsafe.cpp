// Start-of-run guards (output directory, host memory) and the time-step helpers of the
// run loop: spreading the last steps before an output time, and the ETA.
#include "model/core/failsafe.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/io/checkpoint.h"

namespace squall {

namespace {

// Rank 0's error text (empty: none) on every rank.
std::string broadcast_text(std::string text, MPI_Comm comm) {
    int n = int(text.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, comm);
    text.resize(std::size_t(n));
    MPI_Bcast(text.data(), n, MPI_CHAR, 0, comm);
    return text;
}

std::string output_dir_problem(const std::string& dir_name) {
    namespace fs = std::filesystem;
    const fs::path dir(dir_name);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return fmt::format("cannot create output.dir '{}': {}", dir_name, ec.message());
    if (!fs::is_directory(dir, ec))
        return fmt::format("output.dir '{}' is not a directory", dir_name);
    // Permissions alone do not tell (root, read-only mounts, full disks): create a file.
    const fs::path probe = dir / fmt::format(".squall-write-test.{}", ::getpid());
    std::FILE* fp = std::fopen(probe.c_str(), "wx");
    if (!fp)
        return fmt::format("output.dir '{}' is not writable: {}", dir_name, std::strerror(errno));
    std::fclose(fp);
    fs::remove(probe, ec);
    return "";
}

// One run at a time writes a case's output in a directory: an exclusive lock on
// <dir>/.<case>.lock, held until the process ends (the system drops it then, after a
// SIGKILL too). Two runs interleaved their samples in one statistics file before.
std::string lock_problem(const std::string& dir_name, const std::string& case_name) {
    const std::filesystem::path path =
        std::filesystem::path(dir_name) / ("." + case_name + ".lock");
    // A second flock from this process would conflict with its own first one.
    static std::string held;
    if (held == path.string()) return "";
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return fmt::format("cannot create the lock file {}: {}", path.string(),
                           std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = {};
        const ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
        ::close(fd);
        return fmt::format("output.dir '{}' is in use by another run of case '{}'{} (lock {}): "
                           "give this run another output.dir or case name, or wait for it",
                           dir_name, case_name, n > 0 ? fmt::format(" (pid {})", pid) : "",
                           path.string());
    }
    // The pid only serves the message above; a failure to write it changes nothing.
    const std::string me = std::to_string(::getpid());
    if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, me.data(), me.size(), 0);
    held = path.string();
    return ""; // fd stays open: the lock lasts as long as the process
}

// A fresh run's checkpoints must be its own: an earlier run's, later in model time, were
// kept by checkpoint_keep over the new run's and then taken by --restart latest. With
// --overwrite they go (the case's output is replaced); without, the run is refused.
std::string stale_checkpoints_problem(const Config& cfg, bool remove) {
    if (!cfg.restart.empty()) return "";
    const auto old = io::list_checkpoints(cfg.output_dir, cfg.name);
    if (old.empty()) return "";
    if (!cfg.overwrite)
        return fmt::format("{}: exists (a checkpoint of an earlier run of case '{}', {} in all); "
                           "continue that run with --restart latest, or replace this case's "
                           "output with --overwrite",
                           old.back(), cfg.name, old.size());
    if (!remove) return "";
    for (const auto& f : old) {
        std::error_code ec;
        if (!std::filesystem::remove(f, ec) && ec)
            return fmt::format("--overwrite: cannot remove the earlier checkpoint {}: {}", f,
                               ec.message());
    }
    fmt::print("squall: --overwrite: removed {} checkpoint(s) of an earlier run of '{}' from {}\n",
               old.size(), cfg.name, cfg.output_dir);
    return "";
}

// A "Key:  N kB" line of /proc/meminfo in bytes (0 when absent).
std::size_t meminfo_bytes(const std::string& key) {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(key + ":", 0) != 0) continue;
        std::istringstream s(line.substr(key.size() + 1));
        std::size_t kb = 0;
        s >> kb;
        return kb * 1024;
    }
    return 0;
}

// A number in a cgroup file; 0 for "max", a missing file or anything else.
std::size_t cgroup_bytes(const char* path) {
    std::ifstream in(path);
    std::size_t v = 0;
    return in >> v ? v : 0;
}

} // namespace

namespace {

// Rank 0 checks output.dir: writable, the case's lock, an earlier run's checkpoints; every
// rank throws the first problem. Early, only an existing directory is checked and nothing is
// removed; late, a missing one is created and --overwrite removes.
void output_dir_checks(const Config& cfg, MPI_Comm comm, bool late) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::string problem;
    if (rank == 0 && (late || std::filesystem::is_directory(cfg.output_dir))) {
        problem = output_dir_problem(cfg.output_dir);
        if (problem.empty()) problem = lock_problem(cfg.output_dir, cfg.name);
        if (problem.empty()) problem = stale_checkpoints_problem(cfg, late);
    }
    problem = broadcast_text(problem, comm);
    if (!problem.empty()) throw std::runtime_error(problem);
}

} // namespace

void check_output_dir(const Config& cfg, MPI_Comm comm) {
    output_dir_checks(cfg, comm, false);
}

void prepare_output_dir(const Config& cfg, MPI_Comm comm) {
    output_dir_checks(cfg, comm, true);
}

int model_fields_3d(const Config& cfg) {
    int n3d = 7; // u, v, w, their tendencies, p
    if (cfg.thermo != ThermoType::none) n3d += 2;
    if (cfg.diff == DiffType::smag2) n3d += runs_fused_tendencies(cfg) ? 1 : 2; // evisc, strain2
    if (runs_scalar_stage_in_tendencies(cfg)) n3d += 1;                         // s_next
    n3d += 2 * int(cfg.scalars.size());                                         // c, ct
    if (cfg.thermo == ThermoType::moist) n3d += cfg.stats_every > 0 ? 2 : 1;    // thv, ql
    return n3d;
}

std::size_t model_host_bytes(const Config& cfg, const GridDims& d) {
    const std::size_t t = cfg.precision == Precision::single ? 4 : 8;
    const std::size_t n3d = std::size_t(model_fields_3d(cfg));
    std::size_t bytes = n3d * std::size_t(d.pad + d.ncells) * t; // as Field3d allocates
    if (cfg.bc.surface.enabled) bytes += 8 * std::size_t(d.nplane()) * t;
    bytes += 4 * std::size_t(d.kcells) * d.jj * 3 * t; // halo buffers (upper bound)
    if (cfg.backend != Backend::gpu) // the CPU pressure solver's two pencil buffers
        bytes += 2 * std::size_t(d.imax) * d.jmax * d.kmax * t;
    return bytes;
}

std::size_t host_memory_available() {
    std::size_t avail = meminfo_bytes("MemAvailable");
    const std::size_t limit = cgroup_bytes("/sys/fs/cgroup/memory.max");
    if (limit > 0) {
        const std::size_t used = cgroup_bytes("/sys/fs/cgroup/memory.current");
        const std::size_t left = limit > used ? limit - used : 0;
        avail = avail == 0 ? left : std::min(avail, left);
    }
    return avail;
}

void check_host_memory(const Config& cfg, const GridDims& d, MPI_Comm comm) {
    // Ranks on one node share its memory: sum their needs.
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int node_ranks = 1, node_rank = 0;
    MPI_Comm_size(node, &node_ranks);
    MPI_Comm_rank(node, &node_rank);
    const double mine = double(model_host_bytes(cfg, d));
    double need = 0, avail = node_rank == 0 ? double(host_memory_available()) : 0;
    MPI_Allreduce(&mine, &need, 1, MPI_DOUBLE, MPI_SUM, node);
    MPI_Bcast(&avail, 1, MPI_DOUBLE, 0, node);
    MPI_Comm_free(&node);
    int ok = (avail == 0 || need <= avail) ? 1 : 0, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (all_ok) return;
    constexpr double gib = 1024.0 * 1024.0 * 1024.0;
    throw std::runtime_error(
        ok ? std::string("another node has too little host memory for the case")
           : fmt::format("case needs {:.2f} GiB of host memory ({:.0f} bytes) on this node "
                         "({} rank(s) of a {} x {} x {} grid), but only {:.2f} GiB is available "
                         "(MemAvailable in /proc/meminfo, or the cgroup limit); use more nodes "
                         "or a smaller grid",
                         need / gib, need, node_ranks, d.itot, d.jtot, d.ktot, avail / gib));
}

std::int64_t spread_step(std::int64_t idt, std::int64_t remaining) {
    if (remaining <= idt) return remaining;
    if (remaining - idt >= idt) return idt;             // two or more full steps left
    const std::int64_t n = (remaining + idt - 1) / idt; // 2 here
    return (remaining + n - 1) / n;                     // <= idt, as remaining <= n idt
}

double run_eta(double elapsed, std::int64_t itime0, std::int64_t itime, std::int64_t iendtime,
               long nstep0, long nstep, long max_steps) {
    double frac = 0;
    if (iendtime > itime0) frac = double(itime - itime0) / double(iendtime - itime0);
    if (max_steps >= 0 && max_steps > nstep0)
        frac = std::max(frac, double(nstep - nstep0) / double(max_steps - nstep0));
    frac = std::min(frac, 1.0);
    return frac > 0 ? elapsed * (1 - frac) / frac : 0;
}

} // namespace squall
