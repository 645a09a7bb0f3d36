// runtime_sampling_bench: CPU cost of the traversal-shaped definition (traverse_defs.h)
// written as text and as typed terms: building it, uniform sampling of its space
// (rejection sampling: every raw draw evaluates restrictions until one fails), and
// enumerating a prefix of it. No GPU needed.
//
//   runtime_sampling_bench [--quick]
#include "traverse_defs.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>

using namespace squall::rt;
using namespace squall::rt::testing;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// "best / median": on a shared machine the best of several rounds is the steadier figure.
std::string stats(std::vector<double> v, const char* unit) {
    std::sort(v.begin(), v.end());
    return fmt::format("{:.1f} / {:.1f} {}", v.front(), v[v.size() / 2], unit);
}

struct Figures {
    std::vector<double> build_us, sample_us, draw_ns, enumerate_ms;
};

// One round for one definition; the same seeds for both, so both do identical work.
void round(KernelDef (*make)(const TraverseShape&), Figures& f, int samples) {
    auto t0 = Clock::now();
    for (int i = 0; i < 20; ++i) (void)make(TraverseShape{});
    f.build_us.push_back(seconds_since(t0) / 20 * 1e6);
    const KernelDef def = make(TraverseShape{});
    const ProblemSize p(256, 256, 128);
    const DeviceInfo dev = DeviceInfo::for_arch("sm_90");
    std::mt19937_64 rng(2026);
    t0 = Clock::now();
    size_t found = 0;
    for (int i = 0; i < samples; ++i) found += def.space().sample(rng, p, dev).has_value();
    f.sample_us.push_back(seconds_since(t0) / samples * 1e6);
    if (found != size_t(samples)) fmt::print(stderr, "only {} of {} samples\n", found, samples);

    // Raw draws with every restriction evaluated (no early exit): the evaluator alone.
    const auto& rs = def.space().restrictions();
    std::vector<Value> slots;
    def.space().fill_slots(slots, def.space().default_config(), p, dev);
    std::uniform_int_distribution<uint64_t> pick(0, def.space().raw_size() - 1);
    const int draws = samples * 20;
    std::vector<Config> configs;
    for (int i = 0; i < draws; ++i) configs.push_back(def.space().raw_config(pick(rng)));
    long valid = 0;
    t0 = Clock::now();
    for (const Config& c : configs) {
        std::copy(c.values.begin(), c.values.end(), slots.begin() + ConfigSpace::param_slot);
        for (const Expr& r : rs) valid += r.eval_bool(slots.data());
    }
    f.draw_ns.push_back(seconds_since(t0) / draws * 1e9);
    if (valid == 0) fmt::print(stderr, "no restriction held\n");

    t0 = Clock::now();
    const size_t n = def.space().enumerate(p, dev, 20000).size();
    f.enumerate_ms.push_back(seconds_since(t0) * 1e3);
    if (n != 20000) fmt::print(stderr, "enumerated {}\n", n);
}

} // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && !std::strcmp(argv[1], "--quick");
    const int rounds = quick ? 3 : 15, samples = quick ? 200 : 500;
    Figures text, typed;
    for (int r = 0; r < rounds; ++r) { // interleaved, so machine load hits both alike
        round(traverse_def_text, text, samples);
        round(traverse_def_typed, typed, samples);
    }
    auto instructions = [](const KernelDef& d) {
        size_t n = 0;
        for (const Expr& e : d.space().restrictions()) n += e.code().size();
        return n;
    };
    const KernelDef d = traverse_def_typed(TraverseShape{});
    fmt::print("traversal-shaped space: {} parameters, {} restrictions ({} instructions as "
               "text, {} as terms), {:.2e} raw points; best / median of {} rounds\n",
               d.space().num_params(), d.space().restrictions().size(),
               instructions(traverse_def_text(TraverseShape{})), instructions(d),
               double(d.space().raw_size()), rounds);
    fmt::print("{:>6} {:>18} {:>18} {:>22} {:>18}\n", "", "build def", "sample()",
               "all restrictions/draw", "enumerate 20000");
    for (auto [name, f] : {std::pair{"text", &text}, std::pair{"typed", &typed}})
        fmt::print("{:>6} {:>18} {:>18} {:>22} {:>18}\n", name, stats(f->build_us, "us"),
                   stats(f->sample_us, "us"), stats(f->draw_ns, "ns"),
                   stats(f->enumerate_ms, "ms"));
    return 0;
}
