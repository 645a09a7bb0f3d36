#include "runtime/config_space.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>

namespace squall::rt {

ConfigSpace::ConfigSpace() {
    scope_.bind("problem.x", problem_slot, int_kind);
    scope_.bind("problem.y", problem_slot + 1, int_kind);
    scope_.bind("problem.z", problem_slot + 2, int_kind);
    const auto& names = DeviceInfo::attribute_names();
    for (int i = 0; i < DeviceInfo::num_attributes; ++i)
        scope_.bind(names[static_cast<size_t>(i)], device_slot + i, int_kind);
}

void ConfigSpace::add_param(std::string name, std::vector<Value> values, Value default_value) {
    if (values.empty()) throw std::invalid_argument("parameter '" + name + "' has no values");
    if (param_index(name) >= 0 || scope_.find(name) >= 0)
        throw std::invalid_argument("parameter '" + name + "' declared twice or reserved");
    if (std::find(values.begin(), values.end(), default_value) == values.end())
        throw std::invalid_argument(
            fmt::format("default {} of parameter '{}' is not among its values",
                        default_value.to_string(), name));
    Kinds kinds = 0;
    for (const Value& v : values) kinds |= kind_bit(v.kind());
    scope_.bind(name, param_slot + static_cast<int>(params_.size()), kinds);
    params_.push_back({std::move(name), std::move(values), default_value});
    for (Config& c : starts_) c.values.push_back(default_value); // a later parameter
}

void ConfigSpace::add_restriction(const std::string& text) {
    restrictions_.push_back(Expr::parse(text, scope_));
}

void ConfigSpace::add_restriction(const Term& condition) {
    Expr e = Expr::compile(condition, scope_);
    if (!(e.kinds() & bool_kind))
        throw ExprError(fmt::format("restriction '{}' is {}, not a condition (compare it, e.g. "
                                    "'({}) != 0')",
                                    e.text(), kinds_name(e.kinds()), e.text()));
    restrictions_.push_back(std::move(e));
}

int ConfigSpace::param_index(std::string_view name) const {
    for (size_t i = 0; i < params_.size(); ++i)
        if (params_[i].name == name) return static_cast<int>(i);
    return -1;
}

Config ConfigSpace::default_config() const {
    Config c;
    for (const auto& p : params_) c.values.push_back(p.default_value);
    return c;
}

uint64_t ConfigSpace::raw_size() const {
    uint64_t n = 1;
    for (const auto& p : params_) {
        uint64_t k = p.values.size();
        if (n > std::numeric_limits<uint64_t>::max() / k)
            return std::numeric_limits<uint64_t>::max();
        n *= k;
    }
    return n;
}

Config ConfigSpace::raw_config(uint64_t index) const {
    Config c;
    c.values.resize(params_.size());
    // The last parameter varies fastest, matching for_each_valid's order.
    for (size_t i = params_.size(); i-- > 0;) {
        uint64_t k = params_[i].values.size();
        c.values[i] = params_[i].values[index % k];
        index /= k;
    }
    return c;
}

void ConfigSpace::fill_slots(std::vector<Value>& slots, const Config& c, const ProblemSize& p,
                             const DeviceInfo& d) const {
    slots.resize(num_slots());
    for (int i = 0; i < 3; ++i) slots[problem_slot + i] = Value(static_cast<long long>(p[i]));
    auto attrs = d.attribute_values();
    for (int i = 0; i < DeviceInfo::num_attributes; ++i)
        slots[static_cast<size_t>(device_slot + i)] =
            Value(static_cast<long long>(attrs[static_cast<size_t>(i)]));
    for (size_t i = 0; i < params_.size() && i < c.values.size(); ++i)
        slots[param_slot + i] = c.values[i];
}

bool ConfigSpace::is_valid(const Config& c, const ProblemSize& p, const DeviceInfo& d,
                           std::string* why) const {
    if (c.values.size() != params_.size()) {
        if (why)
            *why = fmt::format("expected {} parameters, got {}", params_.size(), c.values.size());
        return false;
    }
    for (size_t i = 0; i < params_.size(); ++i) {
        const auto& vals = params_[i].values;
        if (std::find(vals.begin(), vals.end(), c.values[i]) == vals.end()) {
            if (why)
                *why = fmt::format("{}={} is not an allowed value", params_[i].name,
                                   c.values[i].to_string());
            return false;
        }
    }
    std::vector<Value> slots;
    fill_slots(slots, c, p, d);
    for (const Expr& r : restrictions_) {
        if (!r.eval_bool(slots.data())) {
            if (why) *why = "restriction '" + r.text() + "' is false";
            return false;
        }
    }
    return true;
}

void ConfigSpace::for_each_valid(const ProblemSize& p, const DeviceInfo& d,
                                 const std::function<bool(const Config&)>& visit) const {
    const size_t n = params_.size();
    std::vector<Value> slots;
    fill_slots(slots, default_config(), p, d);

    // Attach each restriction to the last parameter it depends on.
    std::vector<std::vector<const Expr*>> at_level(n + 1);
    for (const Expr& r : restrictions_) {
        int level = r.max_slot() < param_slot ? 0 : r.max_slot() - param_slot + 1;
        at_level[static_cast<size_t>(level)].push_back(&r);
    }
    for (const Expr* r : at_level[0])
        if (!r->eval_bool(slots.data())) return;

    Config c = default_config();
    if (n == 0) {
        visit(c);
        return;
    }
    std::vector<size_t> idx(n, 0);
    size_t level = 0; // parameter being assigned
    for (;;) {
        if (idx[level] < params_[level].values.size()) {
            const Value v = params_[level].values[idx[level]];
            slots[param_slot + level] = v;
            c.values[level] = v;
            bool ok = true;
            for (const Expr* r : at_level[level + 1]) {
                if (!r->eval_bool(slots.data())) {
                    ok = false;
                    break;
                }
            }
            if (ok && level + 1 == n) {
                if (!visit(c)) return;
                ++idx[level];
            } else if (ok) {
                ++level;
                idx[level] = 0;
            } else {
                ++idx[level];
            }
        } else {
            if (level == 0) return;
            --level;
            ++idx[level];
        }
    }
}

uint64_t ConfigSpace::count_valid(const ProblemSize& p, const DeviceInfo& d) const {
    uint64_t n = 0;
    for_each_valid(p, d, [&](const Config&) {
        ++n;
        return true;
    });
    return n;
}

std::vector<Config> ConfigSpace::enumerate(const ProblemSize& p, const DeviceInfo& d,
                                           size_t limit) const {
    std::vector<Config> out;
    if (limit == 0) return out;
    for_each_valid(p, d, [&](const Config& c) {
        out.push_back(c);
        return out.size() < limit;
    });
    return out;
}

std::vector<Config> ConfigSpace::neighbours(const Config& c, const ProblemSize& p,
                                            const DeviceInfo& d) const {
    std::vector<Config> out;
    for (size_t i = 0; i < params_.size(); ++i) {
        for (const Value& v : params_[i].values) {
            if (v == c.values[i]) continue;
            Config n = c;
            n.values[i] = v;
            if (is_valid(n, p, d)) out.push_back(std::move(n));
        }
    }
    return out;
}

std::vector<Config> ConfigSpace::repaired_moves(const Config& c, const ProblemSize& p,
                                                const DeviceInfo& d) const {
    // `broken` with parameter j at the valid value nearest its position in c (the lower
    // position on a tie), if any.
    const auto nearest_fix = [&](const Config& broken, size_t j) -> std::optional<Config> {
        const std::vector<Value>& vals = params_[j].values;
        const long n = long(vals.size());
        const long here = long(std::find(vals.begin(), vals.end(), c.values[j]) - vals.begin());
        if (here == n) return std::nullopt; // not a value of the space
        Config fixed = broken;
        for (long step = 1; step < n; ++step)
            for (const long at : {here - step, here + step}) {
                if (at < 0 || at >= n) continue;
                fixed.values[j] = vals[size_t(at)];
                if (is_valid(fixed, p, d)) return fixed;
            }
        return std::nullopt;
    };
    std::vector<Config> out;
    for (size_t i = 0; i < params_.size(); ++i)
        for (const Value& v : params_[i].values) {
            if (v == c.values[i]) continue;
            Config broken = c;
            broken.values[i] = v;
            if (is_valid(broken, p, d)) continue;
            for (size_t j = 0; j < params_.size(); ++j) {
                if (j == i) continue;
                std::optional<Config> fixed = nearest_fix(broken, j);
                if (fixed && std::find(out.begin(), out.end(), *fixed) == out.end())
                    out.push_back(std::move(*fixed));
            }
        }
    return out;
}

std::optional<Config> ConfigSpace::sample(std::mt19937_64& rng, const ProblemSize& p,
                                          const DeviceInfo& d) const {
    // The exact fallback visits every raw point: fine up to this many (seconds); past it a
    // sparse space gets many more rejection draws instead (the 3-D traversal's raw space
    // has ~10^12 points, an enumeration would take days).
    constexpr uint64_t enumerable = 50'000'000;
    const uint64_t raw = raw_size();
    if (raw != std::numeric_limits<uint64_t>::max()) {
        std::uniform_int_distribution<uint64_t> pick(0, raw - 1);
        std::vector<Value> slots;
        fill_slots(slots, default_config(), p, d);
        const int attempts = raw <= enumerable ? 20'000 : 2'000'000;
        for (int attempt = 0; attempt < attempts; ++attempt) {
            Config c = raw_config(pick(rng));
            for (size_t i = 0; i < c.values.size(); ++i) slots[param_slot + i] = c.values[i];
            bool ok = true;
            for (const Expr& r : restrictions_) {
                if (!r.eval_bool(slots.data())) {
                    ok = false;
                    break;
                }
            }
            if (ok) return c;
        }
    }
    if (raw > enumerable) return std::nullopt; // too sparse to hit, too large to enumerate
    // Sparse space: reservoir sampling over the exact enumeration is still uniform.
    std::optional<Config> chosen;
    uint64_t seen = 0;
    for_each_valid(p, d, [&](const Config& c) {
        ++seen;
        if (std::uniform_int_distribution<uint64_t>(0, seen - 1)(rng) == 0) chosen = c;
        return true;
    });
    return chosen;
}

nlohmann::json ConfigSpace::config_to_json(const Config& c) const {
    nlohmann::json j = nlohmann::json::object();
    for (size_t i = 0; i < params_.size() && i < c.values.size(); ++i)
        j[params_[i].name] = c.values[i];
    return j;
}

Config ConfigSpace::config_from_json(const nlohmann::json& j) const {
    if (j.is_null()) return default_config();
    if (!j.is_object()) throw std::invalid_argument("configuration must be a JSON object");
    Config c = default_config();
    for (auto it = j.begin(); it != j.end(); ++it) {
        int i = param_index(it.key());
        if (i < 0) throw std::invalid_argument("unknown parameter '" + it.key() + "'");
        Value v = value_from_json(it.value());
        const auto& vals = params_[static_cast<size_t>(i)].values;
        auto match = std::find(vals.begin(), vals.end(), v);
        if (match == vals.end())
            throw std::invalid_argument(fmt::format("value {} is not allowed for parameter '{}'",
                                                    it.value().dump(), it.key()));
        c.values[static_cast<size_t>(i)] = *match; // canonical kind (e.g. 1.0 -> 1)
    }
    return c;
}

std::string ConfigSpace::format(const Config& c) const {
    std::string s;
    for (size_t i = 0; i < params_.size() && i < c.values.size(); ++i)
        s += fmt::format("{}{}={}", i ? ", " : "", params_[i].name, c.values[i].to_string());
    return s;
}

nlohmann::json ConfigSpace::to_json() const {
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : params_)
        params.push_back({{"name", p.name}, {"values", p.values}, {"default", p.default_value}});
    nlohmann::json restr = nlohmann::json::array();
    for (const auto& r : restrictions_) restr.push_back(r.text());
    nlohmann::json j = {{"parameters", params}, {"restrictions", restr}};
    if (!starts_.empty()) {
        nlohmann::json starts = nlohmann::json::array();
        for (const Config& c : starts_) starts.push_back(config_to_json(c));
        j["starts"] = starts;
    }
    return j;
}

ConfigSpace ConfigSpace::from_json(const nlohmann::json& j) {
    ConfigSpace s;
    for (const auto& p : j.at("parameters")) {
        std::vector<Value> values;
        for (const auto& v : p.at("values")) values.push_back(value_from_json(v));
        s.add_param(p.at("name").get<std::string>(), values, value_from_json(p.at("default")));
    }
    for (const auto& r : j.at("restrictions")) s.add_restriction(r.get<std::string>());
    if (j.contains("starts"))
        for (const auto& c : j.at("starts")) s.starts_.push_back(s.config_from_json(c));
    return s;
}

void ConfigSpace::add_start(const std::vector<std::pair<std::string, Value>>& values) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [name, v] : values) j[name] = v;
    Config c = config_from_json(j);
    if (std::find(starts_.begin(), starts_.end(), c) == starts_.end()) starts_.push_back(c);
}

} // namespace squall::rt
