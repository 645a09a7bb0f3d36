// The non-template part of search.h: which configurations are timed before any search.
#include "bench/kernel_bench/search.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

namespace squall::kernel_bench {

using nlohmann::json;

std::vector<Candidate> direct_candidates(rt::Runtime& rt, const Options& o,
                                         const rt::KernelDef& def, const rt::ProblemSize& p,
                                         bool small, std::optional<rt::Config>& start) {
    const rt::ConfigSpace& space = def.space();
    std::vector<Candidate> out{{space.default_config(), "default"}};
    auto add = [&](rt::Config c, const char* origin) {
        const auto same =
            std::find_if(out.begin(), out.end(), [&](const Candidate& e) { return e.config == c; });
        if (same == out.end())
            out.push_back({std::move(c), origin});
        else if (std::string(origin) != "enumerated")
            same->origin += std::string("+") + origin;
    };
    if (small)
        for (rt::Config& c : space.enumerate(p, rt.device())) add(std::move(c), "enumerated");
    if (!o.seed_wisdom.empty()) {
        const auto w = rt::Wisdom::load(def.key(), space, {o.seed_wisdom});
        for (const auto& r : w.records())
            if (r.problem == p && r.env.device_name == rt.device().name &&
                space.is_valid(r.config, p, rt.device()))
                start = r.config;
        if (start) add(*start, "record");
    }
    if (!o.config.empty()) {
        std::string why;
        try {
            rt::Config c = space.config_from_json(json::parse(o.config));
            if (space.is_valid(c, p, rt.device(), &why)) add(std::move(c), "config");
        } catch (const std::exception& e) {
            why = e.what();
        }
        if (!why.empty())
            std::fprintf(stderr, "  %s: --config not valid here: %s\n", def.key().c_str(),
                         why.c_str());
    }
    return out;
}

} // namespace squall::kernel_bench
