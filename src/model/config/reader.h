#pragma once
// Internal to squall_config: a strict, position-aware reader over a yaml-cpp tree.
// Every error goes through CaseReader::fail() so that messages share the
// "file:line:col: dotted.key: what" format.
#include "model/config/config.h"

#include <yaml-cpp/yaml.h>

#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace squall::cfg {

// Allowed interval of a numeric value; infinite ends are open-ended.
struct Limit {
    double lo = -std::numeric_limits<double>::infinity();
    double hi = std::numeric_limits<double>::infinity();
    bool lo_open = false, hi_open = false;
    bool contains(double v) const;
    std::string condition() const;            // ">= 1", "> 0", "in [0, 1)"
    std::string describe(bool integer) const; // "a positive integer", "a number >= -1"
};
inline Limit any() {
    return {};
}
inline Limit at_least(double lo) {
    return {lo, Limit{}.hi, false, false};
}
inline Limit positive() {
    return {0, Limit{}.hi, true, false};
}

// Name <-> enum tables shared by the reader, the emitter and the docs.
template <typename E>
struct Named {
    const char* name;
    E value;
};

// Optimal-string-alignment edit distance, for "did you mean" suggestions.
int edit_distance(const std::string& a, const std::string& b);

// "; did you mean 'itot'?" (or the key's section, or the list of valid keys) for an
// unknown `key` in `section` ("" for the top level) whose valid keys are `keys`.
std::string suggestion(const std::string& section, const std::string& key,
                       const std::vector<std::string>& keys);

class CaseReader {
public:
    CaseReader(std::string file, YAML::Node root) : file_(std::move(file)), root_(root) {}

    const std::string& file() const { return file_; }
    const YAML::Node& root() const { return root_; }

    // A dotted path set by an override: errors at or below it say "<command line>".
    void mark_override(const std::string& dotted) { overrides_.insert(dotted); }
    bool from_command_line(const std::string& dotted) const;

    // "file:line:col" of `mark`, or "<command line>" for overridden paths.
    std::string where(const std::string& dotted, const YAML::Mark& mark) const;

    // Remember/recall the best position of a key (its value, or its parent when absent).
    void remember(const std::string& dotted, std::string loc) { locs_[dotted] = std::move(loc); }
    std::string loc(const std::string& dotted) const;

    [[noreturn]] void fail(const std::string& loc, const std::string& dotted,
                           const std::string& msg) const;
    [[noreturn]] void fail_key(const std::string& dotted, const std::string& msg) const {
        fail(loc(dotted), dotted, msg);
    }

private:
    std::string file_;
    YAML::Node root_;
    std::set<std::string> overrides_;
    std::map<std::string, std::string> locs_;
};

// One YAML map ("grid", "time", or the root ""). The constructor rejects unknown and
// duplicate keys; getters leave the target untouched when the key is absent and return
// whether it was present.
class Section {
public:
    Section(CaseReader& r, std::string name, YAML::Node node, std::string loc,
            std::vector<std::string> keys);

    // A child map; a null value (`sponge:` with nothing below) counts as empty.
    Section child(const std::string& key, std::vector<std::string> keys);

    bool has(const std::string& key) const;
    // A child map whose keys are names the case chooses (scalars), each accepted; and
    // those keys, in the file's order.
    Section child_of_names(const std::string& key);
    std::vector<std::string> keys_given() const;
    // Whether the key is present as a plain value (not a list or map).
    bool is_scalar(const std::string& key) const;
    std::string dotted(const std::string& key) const;
    const std::string& loc() const { return loc_; }

    template <typename Int>
    bool integer(const std::string& key, Int& out, Limit lim = any());
    bool real(const std::string& key, double& out, Limit lim = any());
    bool boolean(const std::string& key, bool& out);
    bool string(const std::string& key, std::string& out);
    bool real_list(const std::string& key, std::vector<double>& out);
    bool string_list(const std::string& key, std::vector<std::string>& out);
    template <typename E, std::size_t N>
    bool choice(const std::string& key, E& out, const Named<E> (&table)[N]);
    void require(const std::string& key) const;

private:
    YAML::Node value(const std::string& key) const;
    bool absent_ = false; // the whole map is missing from the file
    std::string scalar_text(const std::string& key, const YAML::Node& v,
                            const std::string& expected) const;
    bool choice_index(const std::string& key, const std::vector<std::string>& names, int& index);
    bool integer_value(const std::string& key, long long& out, Limit lim, double type_min,
                       double type_max);

    CaseReader& r_;
    std::string name_;
    YAML::Node node_;
    std::string loc_;
    std::vector<std::string> keys_;
};

template <typename Int>
bool Section::integer(const std::string& key, Int& out, Limit lim) {
    long long v = 0;
    if (!integer_value(key, v, lim, double(std::numeric_limits<Int>::min()),
                       double(std::numeric_limits<Int>::max())))
        return false;
    out = static_cast<Int>(v);
    return true;
}

template <typename E, std::size_t N>
bool Section::choice(const std::string& key, E& out, const Named<E> (&table)[N]) {
    std::vector<std::string> names;
    for (const auto& t : table) names.push_back(t.name);
    int index = 0;
    if (!choice_index(key, names, index)) return false;
    out = table[index].value;
    return true;
}

template <typename E, std::size_t N>
const char* name_of(const Named<E> (&table)[N], E v) {
    for (const auto& t : table)
        if (t.value == v) return t.name;
    return "?";
}

// ---- The schema's enumerations ----------------------------------------------------------
inline constexpr Named<Precision> precision_names[] = {{"float", Precision::single},
                                                       {"double", Precision::dbl}};
inline constexpr Named<Backend> backend_names[] = {
    {"auto", Backend::automatic}, {"cpu", Backend::cpu}, {"gpu", Backend::gpu}};
inline constexpr Named<Tendencies> tendencies_names[] = {{"auto", Tendencies::automatic},
                                                         {"fused", Tendencies::fused},
                                                         {"separate", Tendencies::separate}};
inline constexpr Named<AdvecScheme> advec_names[] = {{"2", AdvecScheme::second},
                                                     {"2i5", AdvecScheme::second_i5}};
inline constexpr Named<DiffType> diff_names[] = {
    {"none", DiffType::none}, {"constant", DiffType::constant}, {"smag2", DiffType::smag2}};
inline constexpr Named<ThermoType> thermo_names[] = {{"none", ThermoType::none},
                                                     {"dry", ThermoType::dry},
                                                     {"buoy", ThermoType::buoy},
                                                     {"moist", ThermoType::moist}};
inline constexpr Named<MomBc> mom_bc_names[] = {{"noslip", MomBc::noslip},
                                                {"freeslip", MomBc::freeslip}};
inline constexpr Named<ScalarBc> scalar_bc_names[] = {
    {"dirichlet", ScalarBc::dirichlet}, {"neumann", ScalarBc::neumann}, {"flux", ScalarBc::flux}};
inline constexpr Named<bool> surface_names[] = {{"none", false}, {"most", true}};
inline constexpr Named<InitType> init_names[] = {{"zero", InitType::zero},
                                                 {"taylorgreen", InitType::taylorgreen},
                                                 {"random", InitType::random},
                                                 {"couette", InitType::couette},
                                                 {"profile", InitType::profile}};
inline constexpr Named<int> stretch_names[] = {{"uniform", 0}, {"tanh", 1}};

// Every section and its keys, in the order of docs/case-schema.md and the emitted YAML.
struct SectionKeys {
    const char* name;
    std::vector<std::string> keys;
};
const std::vector<SectionKeys>& schema_sections();

// The forcing section's columns by height, as (key, column): the thermo scalar's tendency
// and nudging target (th_tendency, nudge_th; thl_ with thermo.type moist), w_ls, nudge_u,
// nudge_v, ug, vg, then <name>_tendency and nudge_<name> of each passive scalar, which it
// creates in fc's maps (F: ForcingConfig, or const with the maps already filled).
template <class F>
auto forcing_columns(F& fc, ThermoType thermo, const std::vector<ScalarConfig>& scalars) {
    using Column = decltype(&fc.w_ls);
    const std::string th = thermo == ThermoType::moist ? "thl" : "th";
    std::vector<std::pair<std::string, Column>> r = {{th + "_tendency", &fc.th_tendency},
                                                     {"w_ls", &fc.w_ls},
                                                     {"nudge_" + th, &fc.nudge_th},
                                                     {"nudge_u", &fc.nudge_u},
                                                     {"nudge_v", &fc.nudge_v},
                                                     {"ug", &fc.ug},
                                                     {"vg", &fc.vg}};
    for (const ScalarConfig& s : scalars) {
        r.emplace_back(s.name + "_tendency", &fc.scalar_tendency.at(s.name));
        r.emplace_back("nudge_" + s.name, &fc.nudge_scalar.at(s.name));
    }
    return r;
}

// physics_keys.cpp: the passive scalars (scalars.<name>), the forcing tables' lengths, order
// and prerequisites, and <prefix>_times with <prefix>_values as a table in time.
void read_scalars(CaseReader& r, Section& top, Config& c);
void check_forcing(CaseReader& r, const Config& c);
void read_time_table(CaseReader& r, Section& sec, const std::string& prefix, TimeTable& t);

// output_keys.cpp: names and positions of output.cross and output.fields.
void check_output_fields(CaseReader& r, const Config& c);

// The resolved configuration as YAML (defined in emit.cpp).
std::string emit_resolved(const Config& c);

// Reads `key` of `sec` as a profile table (profile_table.cpp): a map of lists, z and some of
// `allowed`, or the name of a CSV file with those columns. Returns whether it was given.
bool read_profile_table(CaseReader& r, Section& sec, const std::string& key,
                        const std::vector<std::string>& allowed, ProfileTable& out);

// YAML floats: plain decimal/scientific text; ".5" and "+1" are accepted too.
bool parse_real(const std::string& text, double& out);

// Shortest text that reads back as exactly `v`.
std::string format_real(double v);

} // namespace squall::cfg
