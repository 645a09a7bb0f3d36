#include "tuner/tune.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

namespace squall::tuner {

namespace {

using Clock = std::chrono::steady_clock;

// Compile workers: tasks run in submission order on `threads` threads. Dropping the pool
// skips the tasks not started and waits for the running ones.
class CompilePool {
public:
    // The process's pool on every core, shared by the tunes one after another.
    static CompilePool& shared() {
        static CompilePool pool(std::max(1u, std::thread::hardware_concurrency()));
        return pool;
    }
    explicit CompilePool(unsigned threads) {
        for (unsigned n = 0; n < threads; ++n) workers_.emplace_back([this] { work(); });
    }
    ~CompilePool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
            queue_.clear();
        }
        ready_.notify_all();
        for (auto& w : workers_) w.join();
    }
    std::shared_future<std::string> submit(std::function<std::string()> task) {
        auto job = std::make_shared<std::packaged_task<std::string()>>(std::move(task));
        std::shared_future<std::string> f = job->get_future().share();
        {
            std::lock_guard<std::mutex> lock(mutex_);
            queue_.push_back([job] { (*job)(); });
        }
        ready_.notify_one();
        return f;
    }

    // Returns when no task is queued or running.
    void wait_idle() {
        std::unique_lock<std::mutex> lock(mutex_);
        idle_.wait(lock, [this] { return queue_.empty() && running_ == 0; });
    }

private:
    void work() {
        for (;;) {
            std::function<void()> job;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                ready_.wait(lock, [this] { return stop_ || !queue_.empty(); });
                if (stop_) return;
                job = std::move(queue_.front());
                queue_.pop_front();
                ++running_;
            }
            job();
            {
                std::lock_guard<std::mutex> lock(mutex_);
                --running_;
            }
            idle_.notify_all();
        }
    }
    std::mutex mutex_;
    std::condition_variable ready_, idle_;
    int running_ = 0;
    std::deque<std::function<void()>> queue_;
    std::vector<std::thread> workers_;
    bool stop_ = false;
};

unsigned threads_of(const TuneOptions& o) {
    return o.compile_threads ? o.compile_threads
                             : std::max(1u, std::thread::hardware_concurrency());
}

// What a compile task returns when it was not started: it could not have finished
// within the time budget (the mean compile so far says so), and a running NVRTC compile
// cannot be interrupted, so starting it would only make the tune overrun.
const std::string kNotStarted = "\x01not started: past the time budget";

// The mean duration of this tune's compiles (the compile tasks' own threads add to it).
class CompileClock {
public:
    void add(Clock::duration d) {
        std::lock_guard<std::mutex> lock(mutex_);
        total_ += d, ++count_;
    }
    // A compile started now would end after `deadline` (known after a few compiles).
    bool would_miss(Clock::time_point deadline) const {
        std::lock_guard<std::mutex> lock(mutex_);
        return count_ >= 4 && Clock::now() + total_ / count_ > deadline;
    }
    double seconds() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return std::chrono::duration<double>(total_).count();
    }

private:
    mutable std::mutex mutex_;
    Clock::duration total_{};
    long count_ = 0;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

void wait_for_detached_compiles() {
    CompilePool::shared().wait_idle();
}

std::vector<double> Evaluator::remeasure(const std::vector<rt::Config>& cs, int rounds) {
    std::vector<std::vector<double>> t(cs.size());
    for (int r = 0; r < rounds; ++r)
        for (size_t n = 0; n < cs.size(); ++n) {
            const Measurement m = measure(cs[n]);
            if (m.status == Status::ok) t[n].push_back(m.seconds);
        }
    std::vector<double> out;
    for (auto& v : t) out.push_back(v.empty() ? INFINITY : median(v));
    return out;
}

size_t default_batch(const TuneOptions& o) {
    return o.batch ? o.batch : 2 * size_t(threads_of(o));
}

size_t batches_in_flight(const TuneOptions& o) {
    return std::max<size_t>(2, o.batches_in_flight);
}

TuneResult tune(const rt::ConfigSpace& space, const rt::ProblemSize& problem,
                const rt::DeviceInfo& device, Evaluator& evaluator, Journal& journal,
                const TuneOptions& o) {
    const Clock::time_point t0 = Clock::now();
    const double earlier = journal.resumed_seconds();
    auto elapsed = [&] {
        return earlier + std::chrono::duration<double>(Clock::now() - t0).count();
    };
    double time_budget = o.budget.seconds;
    auto time_up = [&] { return time_budget > 0 && elapsed() >= time_budget; };

    TuneResult r;
    r.baseline = space.default_config();
    if (const auto& f = journal.final_record()) { // finished before: nothing to measure
        r.best = f->config, r.best_seconds = f->seconds, r.baseline_seconds = f->default_seconds;
        r.evaluations = r.from_journal = f->evaluations;
        r.rejected = f->rejected;
        r.complete_from_journal = true;
        return r;
    }

    StrategyOptions so;
    so.seed = o.seed;
    so.start = o.start;
    so.budget = o.budget.evaluations ? o.budget.evaluations : 200;
    const auto strategy = make_strategy(o.strategy, space, problem, device, so);
    // Compiles go to the process's pool unless the options name a thread count. At the end
    // the tune's compiles not yet started are cancelled; detached ones still running finish
    // on their own, the others are waited for.
    std::optional<CompilePool> own_pool;
    if (o.compile_threads || !o.detach_compiles) own_pool.emplace(threads_of(o));
    CompilePool& pool = own_pool ? *own_pool : CompilePool::shared();
    const auto cancelled = std::make_shared<std::atomic<bool>>(false);
    std::vector<std::shared_future<std::string>> attached; // prepare() on this evaluator
    // Run on every way out, an exception's included: no task may use the evaluator after.
    struct CancelCompiles {
        std::atomic<bool>& cancelled;
        std::vector<std::shared_future<std::string>>& attached;
        void operator()() {
            cancelled = true;
            for (const auto& f : attached) f.wait();
            attached.clear();
        }
        ~CancelCompiles() { (*this)(); }
    } cancel_compiles{*cancelled, attached};
    const size_t batch = default_batch(o);

    std::vector<Evaluation> history;
    Progress progress;
    auto report = [&] {
        progress.evaluations = history.size();
        progress.elapsed = elapsed();
        progress.seconds_left =
            time_budget > 0 ? std::max(0.0, time_budget - progress.elapsed) : -1;
        if (strategy->best()) progress.best = strategy->best_seconds();
        if (o.progress) o.progress(progress);
    };
    // One candidate: from the journal, or compiled (by `compiled`, else here) and measured.
    auto evaluate = [&](const rt::Config& c, std::shared_future<std::string>* compiled,
                        bool is_default) {
        if (const Evaluation* e = journal.find(c)) {
            ++r.from_journal, ++progress.from_journal;
            history.push_back(*e);
            return *e;
        }
        Evaluation e;
        e.config = c;
        e.is_default = is_default;
        const Clock::time_point w0 = Clock::now();
        const std::string error = compiled ? compiled->get() : evaluator.prepare(c);
        r.gpu_wait += std::chrono::duration<double>(Clock::now() - w0).count();
        ++r.compiled;
        if (!error.empty()) {
            e.status = Status::compile, e.detail = error;
        } else {
            const Measurement m = evaluator.measure(c);
            e.status = m.status, e.seconds = m.seconds, e.detail = m.detail;
        }
        e.t = elapsed();
        journal.append(e);
        history.push_back(e);
        return e;
    };
    auto count = [&](const Evaluation& e) {
        if (e.status == Status::verify) {
            ++r.rejected, ++progress.rejected;
            if (r.rejection.empty()) r.rejection = e.detail;
        } else if (e.status != Status::ok) {
            ++r.failed;
        }
    };

    // The default first: the baseline, and proof that the measurement works at all.
    const Evaluation base = evaluate(r.baseline, nullptr, true);
    count(base);
    if (base.status == Status::verify) // every candidate would be compared with it
        throw std::runtime_error(fmt::format(
            "the default configuration does not reproduce the capture's outputs: {} (more than "
            "round-off explains; with --exact round-off counts too: the compiler fuses "
            "multiply-adds differently in some configurations, such as the one that made the "
            "capture)",
            base.detail));
    if (base.status != Status::ok)
        throw std::runtime_error(fmt::format("the default configuration fails ({}): {}",
                                             status_name(base.status), base.detail));
    strategy->tell(r.baseline, base.seconds);
    progress.baseline = base.seconds;
    if (o.full_budget_above > 0 && base.seconds < o.full_budget_above)
        time_budget *= std::max(0.1, base.seconds / o.full_budget_above);
    report();

    // One measurement per program: a candidate that generates the same code and launch
    // as an earlier one (parameters that only matter in another mode) takes its result.
    std::map<uint64_t, Evaluation> by_program;
    std::set<uint64_t> asked_programs;
    if (const auto fp = evaluator.fingerprint(r.baseline)) {
        asked_programs.insert(*fp);
        by_program.emplace(*fp, base);
    }
    struct Slot {
        rt::Config config;
        std::shared_future<std::string> compiled;
        std::optional<uint64_t> program;
        bool same_program = false; // takes the result of an earlier slot's program
    };
    // A batch as asked, its slots measured in any order and told in the order asked.
    struct Batch {
        std::vector<Slot> slots;
        std::vector<std::optional<Evaluation>> done;
        std::vector<char> skipped; // compiles not started (kNotStarted): neither measured nor told
        size_t left;
    };
    std::deque<Batch> in_flight;
    size_t asked = 1;
    // When the time budget ends on the clock (time_budget is final from here on).
    const Clock::time_point deadline =
        time_budget > 0 ? t0 + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(time_budget - earlier))
                        : Clock::time_point::max();
    const auto compile_clock = std::make_shared<CompileClock>();
    auto ask_batch = [&] {
        if (time_up() || compile_clock->would_miss(deadline) ||
            (o.budget.evaluations && asked >= o.budget.evaluations))
            return false;
        const size_t n =
            o.budget.evaluations ? std::min(batch, o.budget.evaluations - asked) : batch;
        std::vector<Slot> slots;
        for (rt::Config& c : strategy->ask(n)) {
            Slot s{std::move(c), {}, {}, false};
            // A journaled candidate takes its journal entry, but its program still answers
            // later candidates that share it, as it did in the run that journaled it.
            const bool journaled = journal.find(s.config) != nullptr;
            s.program = evaluator.fingerprint(s.config);
            if (s.program) s.same_program = !asked_programs.insert(*s.program).second && !journaled;
            if (!journaled && !s.same_program) {
                std::function<std::string()> job;
                if (!own_pool) job = evaluator.detached_prepare(s.config);
                const bool detached = bool(job);
                if (!detached) job = [&evaluator, c = s.config] { return evaluator.prepare(c); };
                s.compiled = pool.submit(
                    [job = std::move(job), compile_clock, cancelled, deadline]() -> std::string {
                        if (*cancelled || compile_clock->would_miss(deadline)) return kNotStarted;
                        const Clock::time_point c0 = Clock::now();
                        std::string error = job();
                        compile_clock->add(Clock::now() - c0);
                        return error;
                    });
                if (!detached) attached.push_back(s.compiled);
            }
            slots.push_back(std::move(s));
        }
        if (slots.empty()) return false;
        asked += slots.size();
        const size_t n_slots = slots.size();
        in_flight.push_back({std::move(slots), std::vector<std::optional<Evaluation>>(n_slots),
                             std::vector<char>(n_slots, 0), n_slots});
        return true;
    };
    // Two batches (or more) in flight: the strategy proposes the next while one is
    // measured. Any ready slot of any is measured (the oldest first), so that one slow
    // compile (deep unrolled tiles take up to 14 s) holds up neither the GPU nor the other
    // batches; the strategy is told a batch, in the order asked, once all of it is done, so
    // what it is asked and told does not depend on compile times.
    // A slot can be measured once compiled (or from the journal); one of a program measured
    // before once that measurement is done.
    const auto ready = [&](const Slot& s) {
        if (s.same_program) return by_program.count(*s.program) != 0;
        return !s.compiled.valid() ||
               s.compiled.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    };
    // Asks happen at the start and after each tell, never in between: a strategy asked
    // again while nothing changed may draw random numbers for nothing, so asking on every
    // pass would let compile times change the search.
    const size_t most_in_flight = batches_in_flight(o);
    bool may_ask = true;
    for (;;) {
        while (may_ask && in_flight.size() < most_in_flight) may_ask = ask_batch();
        may_ask = false;
        if (in_flight.empty()) break;
        if (in_flight.front().left == 0) {
            for (const auto& e : in_flight.front().done)
                if (e)
                    strategy->tell(e->config, e->status == Status::ok ? std::optional(e->seconds)
                                                                      : std::nullopt);
            in_flight.pop_front();
            may_ask = true;
            if (time_up()) break;
            continue;
        }
        Batch* from = nullptr;
        size_t next = 0;
        const Clock::time_point w0 = Clock::now();
        for (;;) {
            for (Batch& b : in_flight) {
                for (size_t n = 0; n < b.slots.size() && !from; ++n)
                    if (!b.done[n] && !b.skipped[n] && ready(b.slots[n])) from = &b, next = n;
                if (from) break;
            }
            if (from || time_up()) break;
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        r.gpu_wait += std::chrono::duration<double>(Clock::now() - w0).count();
        if (!from) break; // nothing ready and no time left
        Slot& s = from->slots[next];
        if (s.same_program) {
            Evaluation e = by_program.at(*s.program);
            e.config = s.config, e.is_default = false, e.same_program = true;
            e.t = elapsed();
            journal.append(e);
            history.push_back(e);
            from->done[next] = e;
            ++r.same_program;
            --from->left;
            continue;
        }
        if (time_up() && !journal.find(s.config)) break;
        if (s.compiled.valid() && s.compiled.get() == kNotStarted) {
            from->skipped[next] = 1;
            --from->left;
            continue;
        }
        from->done[next] = evaluate(s.config, s.compiled.valid() ? &s.compiled : nullptr, false);
        if (s.program) by_program.emplace(*s.program, *from->done[next]);
        count(*from->done[next]);
        --from->left;
        report();
    }
    r.evaluations = history.size();

    // The leading candidates and the default, measured again, interleaved.
    std::vector<const Evaluation*> ok;
    for (const Evaluation& e : history)
        if (e.status == Status::ok && !e.is_default && !e.same_program) ok.push_back(&e);
    std::stable_sort(ok.begin(), ok.end(), [](const Evaluation* a, const Evaluation* b) {
        return a->seconds < b->seconds;
    });
    std::vector<rt::Config> finalists{r.baseline};
    for (size_t n = 0; n < ok.size() && finalists.size() <= o.finalists; ++n)
        finalists.push_back(ok[n]->config);
    const std::vector<double> t = evaluator.remeasure(finalists, o.final_rounds);
    size_t win = 0;
    for (size_t n = 1; n < t.size(); ++n)
        if (t[n] < t[win]) win = n;
    r.best = finalists[win], r.best_seconds = t[win], r.baseline_seconds = t[0];
    journal.finish({r.best, r.best_seconds, r.baseline_seconds, r.evaluations, r.rejected});
    r.wall = std::chrono::duration<double>(Clock::now() - t0).count();
    cancel_compiles();
    own_pool.reset();
    r.drain = std::chrono::duration<double>(Clock::now() - t0).count() - r.wall;
    r.compile_busy = compile_clock->seconds(); // detached ones still running: not counted
    r.compile_threads = threads_of(o);
    progress.best = r.best_seconds, progress.baseline = r.baseline_seconds;
    report();
    return r;
}

} // namespace squall::tuner
