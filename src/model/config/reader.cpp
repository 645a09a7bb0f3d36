#include "model/config/reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace squall::cfg {

bool Limit::contains(double v) const {
    const bool above = lo_open ? v > lo : v >= lo;
    const bool below = hi_open ? v < hi : v <= hi;
    return above && below;
}

std::string Limit::condition() const {
    const bool has_lo = std::isfinite(lo), has_hi = std::isfinite(hi);
    if (has_lo && has_hi)
        return fmt::format("in {}{}, {}{}", lo_open ? "(" : "[", format_real(lo), format_real(hi),
                           hi_open ? ")" : "]");
    if (has_lo) return fmt::format("{} {}", lo_open ? ">" : ">=", format_real(lo));
    if (has_hi) return fmt::format("{} {}", hi_open ? "<" : "<=", format_real(hi));
    return "finite";
}

std::string Limit::describe(bool integer) const {
    const char* kind = integer ? "integer" : "number";
    const bool has_hi = std::isfinite(hi);
    if (!has_hi && lo == 0 && lo_open) return fmt::format("a positive {}", kind);
    if (!has_hi && integer && lo == 1 && !lo_open) return "a positive integer";
    if (!has_hi && lo == 0 && !lo_open) return fmt::format("a non-negative {}", kind);
    if (!std::isfinite(lo) && !has_hi) return fmt::format("a{} {}", integer ? "n" : "", kind);
    return fmt::format("a{} {} {}", integer ? "n" : "", kind, condition());
}

int edit_distance(const std::string& a, const std::string& b) {
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1));
    for (std::size_t i = 0; i <= n; ++i) d[i][0] = int(i);
    for (std::size_t j = 0; j <= m; ++j) d[0][j] = int(j);
    for (std::size_t i = 1; i <= n; ++i)
        for (std::size_t j = 1; j <= m; ++j) {
            const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            // Count a swap of neighbours ("itto" for "itot") as one edit.
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[n][m];
}

// ---- CaseReader --------------------------------------------------------------------------

bool CaseReader::from_command_line(const std::string& dotted) const {
    for (const auto& o : overrides_)
        if (dotted == o || (dotted.size() > o.size() && dotted.compare(0, o.size(), o) == 0 &&
                            (dotted[o.size()] == '.' || dotted[o.size()] == '[')))
            return true;
    return false;
}

std::string CaseReader::where(const std::string& dotted, const YAML::Mark& mark) const {
    if (from_command_line(dotted)) return "<command line>";
    if (mark.is_null()) return file_;
    return fmt::format("{}:{}:{}", file_, mark.line + 1, mark.column + 1);
}

std::string CaseReader::loc(const std::string& dotted) const {
    if (from_command_line(dotted)) return "<command line>";
    auto it = locs_.find(dotted);
    if (it != locs_.end()) return it->second;
    // Fall back to the nearest remembered parent.
    const auto dot = dotted.rfind('.');
    if (dot != std::string::npos) return loc(dotted.substr(0, dot));
    return file_;
}

void CaseReader::fail(const std::string& loc, const std::string& dotted,
                      const std::string& msg) const {
    if (dotted.empty()) throw ConfigError(fmt::format("{}: {}", loc, msg));
    throw ConfigError(fmt::format("{}: {}: {}", loc, dotted, msg));
}

// ---- Section -----------------------------------------------------------------------------

namespace {

std::string node_kind(const YAML::Node& n) {
    switch (n.Type()) {
    case YAML::NodeType::Null:
        return "nothing (null)";
    case YAML::NodeType::Sequence:
        return "a list";
    case YAML::NodeType::Map:
        return "a map";
    default:
        return fmt::format("'{}'", n.Scalar());
    }
}

} // namespace

// Suggest the closest valid key: first in this section, then anywhere in the schema.
std::string suggestion(const std::string& section, const std::string& key,
                       const std::vector<std::string>& keys) {
    std::string best;
    int best_d = 3;
    for (const auto& k : keys) {
        const int d = edit_distance(key, k);
        if (d < best_d && d < int(std::max(key.size(), k.size()))) best = k, best_d = d;
    }
    if (!best.empty()) return fmt::format("; did you mean '{}'?", best);
    for (const auto& s : schema_sections()) {
        if (s.name == section) continue;
        for (const auto& k : s.keys)
            if (k == key)
                return fmt::format("; did you mean '{}.{}'? ('{}' belongs in section '{}')", s.name,
                                   k, key, s.name);
    }
    return fmt::format("; valid keys: {}", fmt::join(keys, ", "));
}

Section::Section(CaseReader& r, std::string name, YAML::Node node, std::string loc,
                 std::vector<std::string> keys)
    : r_(r), name_(std::move(name)), node_(node), loc_(std::move(loc)), keys_(std::move(keys)) {
    if (node_.IsNull()) node_ = YAML::Node(YAML::NodeType::Map);
    if (!node_.IsMap())
        r_.fail(loc_, name_.empty() ? "" : name_,
                fmt::format("expected a map of keys, got {}", node_kind(node_)));
    std::map<std::string, YAML::Mark> seen;
    for (auto it = node_.begin(); it != node_.end(); ++it) {
        const YAML::Node k = it->first;
        if (!k.IsScalar()) r_.fail(r_.where(name_, k.Mark()), name_, "keys must be plain names");
        const std::string key = k.Scalar();
        const std::string path = dotted(key);
        const std::string key_loc = r_.where(path, k.Mark());
        if (std::find(keys_.begin(), keys_.end(), key) == keys_.end())
            r_.fail(key_loc, path,
                    fmt::format("unknown key '{}'{}{}", key,
                                name_.empty() ? "" : fmt::format(" in section '{}'", name_),
                                suggestion(name_, key, keys_)));
        auto [prev, fresh] = seen.emplace(key, k.Mark());
        if (!fresh)
            r_.fail(key_loc, path,
                    fmt::format("duplicate key (first given at line {}, column {})",
                                prev->second.line + 1, prev->second.column + 1));
        // Values are positioned at the value; an absent value falls back to the key.
        const YAML::Node v = it->second;
        const YAML::Mark vm = v.Mark();
        r_.remember(path, vm.is_null() || v.IsNull() ? key_loc : r_.where(path, vm));
    }
}

std::string Section::dotted(const std::string& key) const {
    return name_.empty() ? key : name_ + "." + key;
}

bool Section::has(const std::string& key) const {
    return bool(value(key));
}

Section Section::child_of_names(const std::string& key) {
    const YAML::Node v = value(key);
    std::vector<std::string> names;
    if (v && v.IsMap())
        for (auto it = v.begin(); it != v.end(); ++it)
            if (it->first.IsScalar()) names.push_back(it->first.Scalar());
    return child(key, names);
}

std::vector<std::string> Section::keys_given() const {
    std::vector<std::string> keys;
    for (auto it = node_.begin(); it != node_.end(); ++it) keys.push_back(it->first.Scalar());
    return keys;
}

bool Section::is_scalar(const std::string& key) const {
    const YAML::Node v = value(key);
    return v && v.IsScalar();
}

YAML::Node Section::value(const std::string& key) const {
    if (std::find(keys_.begin(), keys_.end(), key) == keys_.end())
        throw std::logic_error("squall config: key '" + key + "' missing from its schema list");
    const YAML::Node& n = node_; // const lookup never inserts
    return n[key];
}

Section Section::child(const std::string& key, std::vector<std::string> keys) {
    const YAML::Node v = value(key);
    const std::string path = dotted(key);
    if (!v) {
        r_.remember(path, loc_);
        Section s(r_, path, YAML::Node(YAML::NodeType::Map), loc_, std::move(keys));
        s.absent_ = true;
        return s;
    }
    return Section(r_, path, v, r_.loc(path), std::move(keys));
}

void Section::require(const std::string& key) const {
    if (has(key)) return;
    const std::string path = dotted(key);
    r_.fail(loc_, path,
            fmt::format("missing required key '{}' in {}{}", key,
                        name_.empty() ? "the case file" : "section '" + name_ + "'",
                        absent_ ? " (the section is absent)" : ""));
}

std::string Section::scalar_text(const std::string& key, const YAML::Node& v,
                                 const std::string& expected) const {
    const std::string path = dotted(key);
    if (!v.IsScalar())
        r_.fail_key(path, fmt::format("expected {}, got {}", expected, node_kind(v)));
    return v.Scalar();
}

bool Section::integer_value(const std::string& key, long long& out, Limit lim, double type_min,
                            double type_max) {
    const YAML::Node v = value(key);
    if (!v) return false;
    const std::string path = dotted(key);
    const std::string expected = lim.describe(true);
    const std::string text = scalar_text(key, v, expected);
    const char* first = text.data() + (text.size() > 1 && text[0] == '+' ? 1 : 0);
    const char* last = text.data() + text.size();
    long long parsed = 0;
    auto [end, ec] = std::from_chars(first, last, parsed);
    if (v.Tag() != "!" && ec == std::errc::result_out_of_range && end == last)
        r_.fail_key(path, fmt::format("{} is out of range: must be {}", text, lim.condition()));
    if (v.Tag() == "!" || ec != std::errc() || end != last || first == last)
        r_.fail_key(path, fmt::format("expected {}, got {}{}", expected,
                                      v.Tag() == "!" ? "the quoted string " : "", node_kind(v)));
    if (!lim.contains(double(parsed)))
        r_.fail_key(path, fmt::format("{} is out of range: must be {}", parsed, lim.condition()));
    if (double(parsed) < type_min || double(parsed) > type_max)
        r_.fail_key(path,
                    fmt::format("{} is out of range: must be in [{}, {}]", parsed,
                                format_real(std::max(lim.lo, type_min)), format_real(type_max)));
    out = parsed;
    return true;
}

// YAML floats: plain decimal/scientific text; ".5" and "+1" are accepted too.
bool parse_real(const std::string& text, double& out) {
    std::string t = text;
    if (!t.empty() && t[0] == '+') t.erase(0, 1);
    if (t.empty()) return false;
    const char* last = t.data() + t.size();
    auto [end, ec] = std::from_chars(t.data(), last, out);
    return ec == std::errc() && end == last && std::isfinite(out);
}

bool Section::real(const std::string& key, double& out, Limit lim) {
    const YAML::Node v = value(key);
    if (!v) return false;
    const std::string path = dotted(key);
    const std::string expected = lim.describe(false);
    const std::string text = scalar_text(key, v, expected);
    double parsed = 0;
    if (v.Tag() == "!" || !parse_real(text, parsed))
        r_.fail_key(path, fmt::format("expected {}, got {}{}", expected,
                                      v.Tag() == "!" ? "the quoted string " : "", node_kind(v)));
    if (!lim.contains(parsed))
        r_.fail_key(path, fmt::format("{} is out of range: must be {}", format_real(parsed),
                                      lim.condition()));
    out = parsed;
    return true;
}

bool Section::boolean(const std::string& key, bool& out) {
    const YAML::Node v = value(key);
    if (!v) return false;
    const std::string expected = "a boolean (true or false)";
    const std::string text = scalar_text(key, v, expected);
    // YAML 1.2 core schema booleans only: "yes"/"1" are not accepted.
    static const char* yes[] = {"true", "True", "TRUE"};
    static const char* no[] = {"false", "False", "FALSE"};
    if (v.Tag() != "!") {
        for (const char* t : yes)
            if (text == t) return out = true, true;
        for (const char* t : no)
            if (text == t) return out = false, true;
    }
    r_.fail_key(dotted(key), fmt::format("expected {}, got {}", expected, node_kind(v)));
}

bool Section::string(const std::string& key, std::string& out) {
    const YAML::Node v = value(key);
    if (!v) return false;
    std::string text = scalar_text(key, v, "a string");
    if (text.empty()) r_.fail_key(dotted(key), "expected a non-empty string");
    out = std::move(text);
    return true;
}

bool Section::real_list(const std::string& key, std::vector<double>& out) {
    const YAML::Node v = value(key);
    if (!v) return false;
    const std::string path = dotted(key);
    if (!v.IsSequence())
        r_.fail_key(path, fmt::format("expected a list of numbers, got {}", node_kind(v)));
    std::vector<double> values;
    for (std::size_t n = 0; n < v.size(); ++n) {
        const YAML::Node e = v[n];
        const std::string epath = fmt::format("{}[{}]", path, n);
        double x = 0;
        if (!e.IsScalar() || e.Tag() == "!" || !parse_real(e.Scalar(), x))
            r_.fail(r_.where(epath, e.Mark()), epath,
                    fmt::format("expected a number, got {}", node_kind(e)));
        r_.remember(epath, r_.where(epath, e.Mark()));
        values.push_back(x);
    }
    out = std::move(values);
    return true;
}

bool Section::string_list(const std::string& key, std::vector<std::string>& out) {
    const YAML::Node v = value(key);
    if (!v) return false;
    const std::string path = dotted(key);
    if (!v.IsSequence())
        r_.fail_key(path, fmt::format("expected a list of names, got {}", node_kind(v)));
    std::vector<std::string> values;
    for (std::size_t n = 0; n < v.size(); ++n) {
        const YAML::Node e = v[n];
        const std::string epath = fmt::format("{}[{}]", path, n);
        if (!e.IsScalar() || e.Scalar().empty())
            r_.fail(r_.where(epath, e.Mark()), epath,
                    fmt::format("expected a name, got {}", node_kind(e)));
        r_.remember(epath, r_.where(epath, e.Mark()));
        values.push_back(e.Scalar());
    }
    out = std::move(values);
    return true;
}

bool Section::choice_index(const std::string& key, const std::vector<std::string>& names,
                           int& index) {
    const YAML::Node v = value(key);
    if (!v) return false;
    const std::string allowed = fmt::format("one of: {}", fmt::join(names, ", "));
    const std::string text = scalar_text(key, v, allowed);
    for (std::size_t n = 0; n < names.size(); ++n)
        if (text == names[n]) return index = int(n), true;
    r_.fail_key(dotted(key), fmt::format("'{}' is not allowed; expected {}", text, allowed));
}

} // namespace squall::cfg
