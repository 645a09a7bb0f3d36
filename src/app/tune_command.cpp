#include "app/tune_command.h"

#include "model/config/config.h"
#include "model/core/model.h"
#include "runtime/compile_workers.h"
#include "runtime/log.h"
#include "runtime/wisdom.h"
#include "tuner/session.h"

#include <fmt/format.h>
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>

namespace squall::app {

namespace fs = std::filesystem;

namespace {

struct Ranks {
    int rank = 0, size = 1;
    Ranks() {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
};

// scripts/plot-tune next to the project's wisdom/, else in the source tree.
std::string plot_script() {
    const std::string w = rt::project_wisdom_dir();
    for (fs::path root : {fs::path(w).parent_path(), fs::path(SQUALL_SOURCE_DIR)}) {
        std::error_code ec;
        if (!root.empty() && fs::exists(root / "scripts" / "plot-tune", ec))
            return (root / "scripts" / "plot-tune").string();
    }
    return {};
}

tuner::SessionOptions session_options(const TuneArgs& a) {
    tuner::SessionOptions o;
    o.tune.strategy = a.strategies.front();
    o.tune.seed = a.seeds.front();
    o.tune.budget = {a.evals, a.seconds};
    o.tune.batches_in_flight = a.in_flight;
    o.total = {a.total_evals, a.total_seconds};
    o.out_dir = a.out_dir;
    o.journal_dir = a.journal_dir;
    o.from_default = a.from_default;
    o.untuned_only = a.untuned;
    o.manifest = a.manifest;
    o.verify.exact = a.exact && !a.tolerant;
    return o;
}

void finish(const tuner::Session& s, const TuneArgs& a, const Ranks& r) {
    const std::string who = r.size > 1 ? fmt::format("rank {}: ", r.rank) : "";
    if (s.rows().empty()) {
        if (s.kept()) fmt::print("{}{} kernel(s) kept (--untuned), none tuned\n", who, s.kept());
        return;
    }
    fmt::print("\n{}{}", who, tuner::format_table(s.rows()));
    fmt::print("{}{}\n{}wisdom merged into {}\n", who, s.summary(), who, a.out_dir);
    if (a.plot.empty()) return;
    const std::string script = plot_script();
    if (script.empty() || s.journals().empty()) {
        rt::log_warn("--plot: {}",
                     script.empty() ? "scripts/plot-tune not found" : "no journals (--no-journal)");
        return;
    }
    std::string cmd = "python3 '" + script + "'";
    for (const auto& j : s.journals()) cmd += " '" + j + "'";
    const std::string out = r.size > 1 ? fmt::format("{}.rank{}.png", a.plot, r.rank) : a.plot;
    cmd += " -o '" + out + "'";
    if (std::system(cmd.c_str()) != 0) rt::log_warn("--plot: {} failed", cmd);
}

// Every tunable kernel the case launches in its first steps, tuned where it is captured
// (in this process, so that no capture goes to disk). Ranks share the kernels out. The
// second launch of each kernel is the one tuned: the first is often a special case (the
// initial projection's; the RK's first stage, where the fused tendency kernels do not read
// their old tendencies), so a kernel launched only once is not tuned.
int tune_case(const TuneArgs& a, const Ranks& ranks) {
    const auto started = std::chrono::steady_clock::now(); // --total-time counts the run too
    std::vector<std::string> overrides = a.overrides;
    overrides.push_back("model.backend=gpu");
    overrides.push_back(fmt::format("time.max_steps={}", a.steps));
    const fs::path run_dir = fs::path(a.out_dir) / "case-run";
    overrides.push_back("output.dir=" + run_dir.string());
    const Config cfg = load_config(a.case_file, overrides);
    setenv("SQUALL_CAPTURE", a.only.empty() ? "*" : a.only.c_str(), 1);
    setenv("SQUALL_CAPTURE_SKIP", "1", 1);
    setenv("SQUALL_CAPTURE_MAX_MB", "1048576", 1);

    std::unique_ptr<tuner::Session> session;
    size_t seen = 0, errors = 0;
    rt::set_capture_sink([&](rt::Runtime& rt, rt::Capture& c) {
        if (seen++ % size_t(ranks.size) != size_t(ranks.rank)) return;
        const std::string source =
            fmt::format("{} (launch of {})", a.case_file, c.kernel.value("key", std::string("?")));
        if (!session || !session->budget_left()) {
            if (session) {
                try {
                    session->skip(c, source);
                } catch (const std::exception& e) {
                    ++errors;
                    rt::log_error("{}: {}", source, e.what());
                }
                return;
            }
            tuner::SessionOptions o = session_options(a);
            o.started = started;
            session = std::make_unique<tuner::Session>(rt, o);
        }
        // The kernels armed for capture and not launched yet are still to come (those
        // created later are not counted); this rank takes its share of them.
        const size_t to_come = rt.pending_captures() / size_t(ranks.size);
        try {
            session->tune(c, source, to_come);
        } catch (const std::exception& e) {
            ++errors;
            rt::log_error("tuning {} failed: {}", source, e.what());
        }
    });
    int code = 0;
    try {
        code = run_case(cfg);
    } catch (...) {
        rt::set_capture_sink({});
        throw;
    }
    rt::set_capture_sink({});
    std::error_code ec;
    fs::remove_all(run_dir, ec);
    if (session) {
        try {
            session->note_loaded(fmt::format("{} (loaded, not captured)", a.case_file));
        } catch (const std::exception& e) {
            ++errors;
            rt::log_error("{}", e.what());
        }
    }
    if (!session) {
        if (a.only.empty())
            rt::log_error("the case launched no tunable kernel on this rank");
        else // a likely cause: the kernels a case launches depend on model.tendencies
            rt::log_error("the case launched no tunable kernel matching --only '{}' on this rank "
                          "(its tendencies run {}; model.tendencies chooses)",
                          a.only,
                          runs_fused_tendencies(cfg)
                              ? "fused: tend_*, strain_evisc_*"
                              : "separate: advec_*, diff_*, strain2, evisc_smag");
        return 1;
    }
    finish(*session, a, ranks);
    return code != 0 || errors ? 1 : 0;
}

int tune_captures(const TuneArgs& a, const Ranks& ranks) {
    rt::RuntimeOptions ro;
    ro.capture = rt::CaptureSettings{}; // never capture the tuner's own launches
    int devices = 1;
    try {
        devices = std::max(1, rt::Driver::get().device_count());
    } catch (const std::exception&) {
    }
    ro.device = ranks.rank % devices;
    rt::Runtime rt(ro);
    if (!rt.has_device())
        throw std::runtime_error("squall tune needs a GPU: " + rt.no_device_reason());
    tuner::Session session(rt, session_options(a));
    int failures = 0;
    for (size_t n = 0; n < a.captures.size(); ++n) {
        if (n % size_t(ranks.size) != size_t(ranks.rank)) continue;
        if (!session.budget_left()) {
            rt::log_warn("total budget spent; {} and later captures not tuned", a.captures[n]);
            break;
        }
        try {
            const rt::Capture c = rt::load_capture(a.captures[n]);
            // Every strategy and seed on the capture loaded once.
            for (const std::string& strategy : a.strategies)
                for (const uint64_t seed : a.seeds) {
                    if (!session.budget_left()) break;
                    session.search().strategy = strategy, session.search().seed = seed;
                    if (a.cold_cache) rt.use_fresh_cache();
                    session.tune(c, a.captures[n]);
                }
        } catch (const std::exception& e) {
            ++failures;
            rt::log_error("{}", e.what());
        }
    }
    finish(session, a, ranks);
    return failures ? 1 : 0;
}

} // namespace

CLI::App* add_tune_command(CLI::App& app, TuneArgs& a) {
    CLI::App* t = app.add_subcommand(
        "tune", "tune kernels for this GPU: captured launches, or every kernel of a case");
    t->add_option("captures", a.captures, "capture files (CAPTURE.json, from SQUALL_CAPTURE)");
    t->add_option("--case", a.case_file,
                  "run this case a few steps and tune every kernel it launches");
    t->add_option("--set", a.overrides, "override a case key (with --case)");
    t->add_option("--steps", a.steps, "time steps of the case to run (with --case)")
        ->check(CLI::Range(1, 1000));
    t->add_option("--only", a.only,
                  "kernel key patterns to tune, e.g. 'advec*,diff_uvw_*' (with --case)");
    t->add_option(
         "--strategy", a.strategies,
         "random, local (default), annealing or forest; a comma list tunes each capture with each")
        ->delimiter(',')
        ->check(CLI::IsMember({"random", "local", "annealing", "forest"}));
    t->add_option("--seed", a.seeds,
                  "seed of the search; a comma list tunes each capture with each")
        ->delimiter(',');
    t->add_flag("--cold-cache", a.cold_cache,
                "compile every candidate anew, in memory (no compile cache): to compare "
                "strategies' wall time");
    t->add_option("--in-flight", a.in_flight,
                  "batches of candidates compiled ahead of the strategy (default 2): more keep "
                  "the compile threads busy while a batch waits for its slowest compile")
        ->check(CLI::Range(2, 16));
    t->add_option("--time", a.seconds, "wall seconds per kernel (0: no limit)")
        ->check(CLI::NonNegativeNumber);
    t->add_option("--evals", a.evals, "evaluations per kernel (0: no limit)");
    t->add_option("--total-time", a.total_seconds, "wall seconds for all kernels (0: no limit)")
        ->check(CLI::NonNegativeNumber);
    t->add_option("--total-evals", a.total_evals, "evaluations for all kernels (0: no limit)");
    t->add_option(
        "--out", a.out_dir,
        "wisdom directory to merge into (default: the user's, which squall run searches)");
    t->add_option("--journal", a.journal_dir,
                  "journal directory (default: OUT/journal); a rerun resumes from it");
    t->add_flag("--no-journal", a.no_journal, "keep no journal");
    t->add_flag("--from-default", a.from_default, "start from the default, not the current wisdom");
    t->add_flag("--untuned", a.untuned,
                "keep kernels that already have a squall tune record for this GPU at their size "
                "naming every tunable that matters to its configuration (tune only the rest)");
    t->add_option("--manifest", a.manifest,
                  "append every kernel the case loaded to this file (JSON lines: key, size, "
                  "device, source, tuned, captured), tuned or not");
    t->add_flag("--exact", a.exact,
                "accept only outputs bitwise equal to the reference (default: within round-off)");
    t->add_flag("--tolerant", a.tolerant, "within round-off (the default; overrides --exact)");
    t->add_option("--plot", a.plot, "write a PNG of the best time against wall time");
    return t;
}

// SQUALL_COMPILE_PROCESSES=N: NVRTC in N worker processes of this binary (`squall
// compile-worker`) instead of on the compile threads (bench/compile_throughput compares).
static void use_compile_processes() {
    const char* v = std::getenv("SQUALL_COMPILE_PROCESSES");
    if (!v || !*v) return;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end != '\0' || n < 0 || n > 1024)
        throw std::runtime_error(fmt::format(
            "SQUALL_COMPILE_PROCESSES='{}': give a number of processes (0: compile threads)", v));
    if (n == 0) return;
    rt::use_compile_workers(std::make_shared<rt::CompileWorkers>(
        std::vector<std::string>{"/proc/self/exe", "compile-worker"}, unsigned(n)));
    rt::log_info("compiling in {} worker processes (SQUALL_COMPILE_PROCESSES)", n);
}

int run_tune(TuneArgs a) {
    const Ranks ranks;
    if (a.captures.empty() == a.case_file.empty())
        throw std::runtime_error(
            "squall tune: give capture files or --case CASE.yaml (one of them)");
    if (!a.case_file.empty() && (a.strategies.size() > 1 || a.seeds.size() > 1 || a.cold_cache))
        throw std::runtime_error("squall tune: several strategies or seeds, and --cold-cache, "
                                 "are for captures, not --case");
    for (const std::string& c : a.captures) // before the GPU check: the likelier mistake
        if (std::error_code ec; !fs::is_regular_file(c, ec))
            throw std::runtime_error("squall tune: no such capture file: " + c);
    if (a.out_dir.empty()) a.out_dir = rt::user_wisdom_dir();
    if (a.out_dir.empty())
        throw std::runtime_error("squall tune: no wisdom directory; give --out DIR");
    use_compile_processes();
    if (a.no_journal)
        a.journal_dir.clear();
    else if (a.journal_dir.empty())
        a.journal_dir = (fs::path(a.out_dir) / "journal").string();
    if (!a.case_file.empty()) {
        rt::RuntimeOptions po;
        po.capture = rt::CaptureSettings{};
        rt::Runtime probe(po);
        if (!probe.has_device())
            throw std::runtime_error("squall tune needs a GPU: " + probe.no_device_reason());
        return tune_case(a, ranks);
    }
    return tune_captures(a, ranks);
}

} // namespace squall::app
