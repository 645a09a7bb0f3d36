// squall: command-line entry point. `squall run case.yaml` runs a case; `squall check`
// only validates it. One binary serves serial and MPI runs.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "app/threads.h"
#include "app/tune_command.h"
#include "model/config/config.h"
#include "model/core/model.h"
#include "model/io/h5.h"
#include "runtime/capture.h"
#include "runtime/compile_workers.h"

namespace {

int rank_of_world() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

void error(const std::string& what) {
    if (rank_of_world() == 0) fmt::print(stderr, "squall: error: {}\n", what);
}

// The environment variables squall reads, for `squall --help` (docs/runtime.md, scaling.md).
constexpr const char* environment_help = R"(Environment:
  OMP_NUM_THREADS              OpenMP threads per rank (--threads overrides)
  SQUALL_PROFILE=1             time every kernel per step (as --profile)
  SQUALL_CAPTURE='advec*,...'  capture matching GPU kernel launches for squall tune
  SQUALL_CAPTURE_DIR           where captures go (default: captures/)
  SQUALL_CAPTURE_SKIP, _MAX_MB launches to skip before capturing; a capture's size limit
  SQUALL_WISDOM_USER_DIR       the user's wisdom directory (default: XDG data dir)
  SQUALL_WISDOM_PATH=a:b       more wisdom directories to search
  SQUALL_WISDOM_PROJECT_DIR    the project's wisdom directory (default: wisdom/)
  SQUALL_WISDOM_DEVICE         select wisdom as if on this device
  SQUALL_CACHE_DIR             compiled-kernel cache (default: XDG cache dir)
  SQUALL_COMPILE_PROCESSES=N   squall tune compiles in N worker processes
  SQUALL_GPU_TRANSPORT         nccl, ipc, staged or auto (several GPUs)
  SQUALL_GPU_DIRECT=0          under auto: through host memory and MPI
  SQUALL_NCCL_LIB, NCCL_ROOT   where to find libnccl.so.2
  SQUALL_CUDA_DRIVER           the CUDA driver library to load
  SQUALL_LOG_LEVEL             debug, info, warn or error
Exit status: 0 done, 1 an error in the input or the run, 2 a usage error,
128 + signal after a stop by a signal (docs/output.md).)";

// Exit statuses (docs/output.md, "Exit status"): 0 done, 1 an error in the input or the run
// (the message says which), 2 a usage error, 128 + signal after a stop by a signal.
constexpr int exit_error = 1, exit_usage = 2;
// More OpenMP threads per rank than this is a typo, not a machine (GOMP crashed on 100000).
constexpr int max_threads = 1024;

// A command line CLI11 refuses: its message in squall's form, and the usage status; help
// and --version print and exit 0.
int usage_error(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
    if (e.get_exit_code() == 0) return rank_of_world() == 0 ? app.exit(e) : 0;
    std::string what = e.what();
    // `squall frobnicate`: CLI11 says only that a subcommand is required.
    const std::string first = argc > 1 ? argv[1] : "";
    std::vector<std::string> commands;
    for (const CLI::App* c : app.get_subcommands([](const CLI::App*) { return true; }))
        commands.push_back(c->get_name());
    if (!first.empty() && first[0] != '-' &&
        std::find(commands.begin(), commands.end(), first) == commands.end())
        what = fmt::format("unknown command '{}'; the commands are {}", first,
                           fmt::join(commands, ", "));
    // `squall --versio`: likewise, an option before the command that CLI11 does not know.
    else if (first.size() > 1 && first[0] == '-' && first != "--help" && first != "-h" &&
             first != "--version")
        what = fmt::format("unknown option '{}'; before a command only --help and --version are "
                           "options, and the commands are {}",
                           first, fmt::join(commands, ", "));
    error(what + " (squall --help shows the usage)");
    return exit_usage;
}

} // namespace

int main(int argc, char** argv) {
    // A compile worker of `squall tune` (runtime/compile_workers.h): no MPI, no CUDA.
    if (argc == 2 && std::string_view(argv[1]) == "compile-worker")
        return squall::rt::compile_worker_main(3);
    squall::h5::take_over_shutdown(); // ended below, safely after a failed write
    MPI_Init(&argc, &argv);
    CLI::App app{"squall: LES/DNS of the atmospheric boundary layer"};
    app.require_subcommand(1);
    app.footer(environment_help);
    // Every option's help shows its default.
    app.option_defaults()->always_capture_default();
    app.set_version_flag("--version", fmt::format("squall {} (git {})", SQUALL_VERSION,
                                                  squall::rt::squall_git_revision()));

    std::string case_file;
    std::vector<std::string> overrides;
    std::string backend;
    int threads = 0;
    auto add_case_options = [&](CLI::App* cmd) {
        cmd->add_option("case", case_file, "case file (YAML)")->required();
        cmd->add_option("--set", overrides, "override a case key, e.g. --set grid.itot=64");
        cmd->add_option("--backend", backend, "auto, cpu or gpu (overrides model.backend)")
            ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
    };
    CLI::App* run = app.add_subcommand("run", "run a case");
    add_case_options(run);
    run->add_option("--threads", threads,
                    "OpenMP threads per rank (default: OMP_NUM_THREADS, else the rank's share "
                    "of the cores, fewer where other processes hold them)")
        ->check(CLI::Range(1, max_threads))
        ->default_str("auto");
    std::string restart;
    run->add_option("--restart", restart,
                    "continue from a checkpoint: a file, or 'latest' (the newest of this case "
                    "in output.dir)")
        ->check(CLI::Validator(
            [](std::string& v) {
                return v.empty() ? std::string("needs a checkpoint file or 'latest'") : "";
            },
            "FILE|latest"));
    bool overwrite = false;
    run->add_flag("--overwrite", overwrite, "replace existing output files in output.dir");
    bool profile = false;
    run->add_flag("--profile", profile,
                  "print the time of every kernel per step at the end (as SQUALL_PROFILE=1)");
    CLI::App* check = app.add_subcommand("check", "validate a case and print its resolved form");
    add_case_options(check);
    squall::app::TuneArgs tune_args;
    CLI::App* tune = squall::app::add_tune_command(app, tune_args);

    int code = 0;
    try {
        app.parse(argc, argv);
        if (tune->parsed()) {
            code = squall::app::run_tune(tune_args);
            squall::h5::shutdown();
            MPI_Finalize();
            return code;
        }
        if (!backend.empty()) overrides.push_back("model.backend=" + backend);
        squall::Config cfg = squall::load_config(case_file, overrides);
        cfg.overwrite = overwrite;
        if (check->parsed()) {
            int nprocs = 1;
            MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
            const auto np = squall::resolve_decomposition(cfg, nprocs);
            if (rank_of_world() == 0)
                fmt::print("{}\n# decomposition on {} rank(s): {} x {}\n", cfg.resolved_yaml,
                           nprocs, np.npx, np.npy);
        } else if (const char* env = std::getenv("OMP_NUM_THREADS");
                   threads == 0 && env && omp_get_max_threads() > max_threads) {
            // The runtime took it at start; a team this large crashes in GOMP.
            error(fmt::format("OMP_NUM_THREADS={}: {} OpenMP threads per rank, more than {}; set "
                              "it lower, or give --threads",
                              env, omp_get_max_threads(), max_threads));
            code = exit_usage;
        } else {
            if (threads > 0) {
                omp_set_num_threads(threads);
            } else if (!env) {
                const squall::app::ThreadChoice c = squall::app::default_threads();
                omp_set_num_threads(c.threads);
                if (rank_of_world() == 0)
                    fmt::print("squall: info: {} OpenMP thread(s) per rank ({}; --threads or "
                               "OMP_NUM_THREADS choose)\n",
                               c.threads, c.why);
            }
            // Read when the backends start, so before run_case.
            if (profile) setenv("SQUALL_PROFILE", "1", 1);
            cfg.restart = restart;
            code = squall::run_case(cfg); // chooses the backend (auto, cpu, gpu)
        }
    } catch (const CLI::ParseError& e) {
        code = usage_error(app, e, argc, argv);
    } catch (const std::exception& e) {
        error(e.what());
        code = exit_error;
    }
    squall::h5::shutdown();
    MPI_Finalize();
    return code;
}
