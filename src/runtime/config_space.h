// A configuration space: tunable parameters with their allowed values, and
// restrictions (boolean expressions) that a valid configuration must satisfy.
//
// Expression slots: problem.x/y/z first, then device.* attributes, then parameters in
// declaration order. Fixed context slots come first so that declaring a parameter
// later never renumbers an already-compiled expression.
#pragma once

#include "runtime/device_info.h"
#include "runtime/expr.h"
#include "runtime/term.h"
#include "runtime/value.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace squall::rt {

struct ParamDef {
    std::string name;
    std::vector<Value> values;
    Value default_value;
};

// One value per parameter, in the space's declaration order.
struct Config {
    std::vector<Value> values;
    const Value& operator[](size_t i) const { return values[i]; }
    friend bool operator==(const Config& a, const Config& b) { return a.values == b.values; }
};

class ConfigSpace {
public:
    static constexpr int problem_slot = 0; // problem.x, problem.y, problem.z
    static constexpr int device_slot = 3;
    static constexpr int param_slot = device_slot + DeviceInfo::num_attributes;

    ConfigSpace();

    // Adds a parameter; throws std::invalid_argument on an empty value list, a
    // duplicate name, or a default that is not among the values.
    void add_param(std::string name, std::vector<Value> values, Value default_value);
    // Compiles the restriction now; it may use parameters declared so far, problem.*
    // and device.*. The typed form must be a condition (bool); its text form is what
    // restrictions() and to_json() show.
    void add_restriction(const std::string& text);
    void add_restriction(const Term& condition);
    // A configuration a search also starts from, beside the default: a point where
    // parameters that only pay together are set together (a traversal's own default).
    // Parameters not named keep their default; throws std::invalid_argument for unknown
    // names or values. Whether it is valid is a question for each problem and device.
    void add_start(const std::vector<std::pair<std::string, Value>>& values);
    const std::vector<Config>& starts() const { return starts_; }

    size_t num_params() const { return params_.size(); }
    const std::vector<ParamDef>& params() const { return params_; }
    int param_index(std::string_view name) const; // -1 when absent
    const std::vector<Expr>& restrictions() const { return restrictions_; }
    const Scope& scope() const { return scope_; }

    Config default_config() const;
    uint64_t raw_size() const; // product of the value counts (saturates at UINT64_MAX)
    // Decodes a mixed-radix index in [0, raw_size()) into a configuration.
    Config raw_config(uint64_t index) const;

    // Fills an expression slot array (size num_slots()) for this configuration.
    size_t num_slots() const { return static_cast<size_t>(param_slot) + params_.size(); }
    void fill_slots(std::vector<Value>& slots, const Config& c, const ProblemSize& p,
                    const DeviceInfo& d) const;

    // Values allowed and all restrictions hold. Explains the failure when why != null.
    bool is_valid(const Config& c, const ProblemSize& p, const DeviceInfo& d,
                  std::string* why = nullptr) const;

    // Visits the valid configurations in mixed-radix order; the callback returns false
    // to stop. Restrictions are checked as soon as the parameters they use are set,
    // so invalid subtrees are pruned.
    void for_each_valid(const ProblemSize& p, const DeviceInfo& d,
                        const std::function<bool(const Config&)>& visit) const;
    uint64_t count_valid(const ProblemSize& p, const DeviceInfo& d) const;
    std::vector<Config> enumerate(const ProblemSize& p, const DeviceInfo& d,
                                  size_t limit = SIZE_MAX) const;
    // Uniform over the valid configurations (rejection sampling, with an exact
    // reservoir fallback for sparse spaces of up to 5 x 10^7 raw points). nullopt when no
    // configuration is valid, or when a larger space is so sparse that 2 x 10^6 draws
    // found none (sample again, or narrow the space: an enumeration would not end).
    std::optional<Config> sample(std::mt19937_64& rng, const ProblemSize& p,
                                 const DeviceInfo& d) const;

    // The valid configurations that differ from c in exactly one parameter (any other
    // allowed value of it): the moves of a coordinate search. In declaration order,
    // values in list order; c itself is not included.
    std::vector<Config> neighbours(const Config& c, const ProblemSize& p,
                                   const DeviceInfo& d) const;
    // The moves a restriction couples: for each one-parameter move from c that is invalid,
    // the same move with one other parameter also changed, to its valid value nearest in
    // list position (the lower on a tie), one such move per other parameter. (Under
    // planes, a tile in y is valid only with its rows contiguous: neither move alone is.)
    // Each at most once, none of them a neighbour; in declaration order of the first move.
    std::vector<Config> repaired_moves(const Config& c, const ProblemSize& p,
                                       const DeviceInfo& d) const;

    // Configuration <-> JSON object {"name": value, ...}.
    nlohmann::json config_to_json(const Config& c) const;
    // Throws std::invalid_argument for unknown names or values that are not allowed;
    // missing parameters take their default.
    Config config_from_json(const nlohmann::json& j) const;
    std::string format(const Config& c) const; // "block_x=32, block_y=4"

    // {"parameters": [...], "restrictions": [...], "starts": [{name: value}, ...]}
    nlohmann::json to_json() const;
    static ConfigSpace from_json(const nlohmann::json& j);

private:
    std::vector<ParamDef> params_;
    std::vector<Expr> restrictions_;
    std::vector<Config> starts_;
    Scope scope_;
};

} // namespace squall::rt
