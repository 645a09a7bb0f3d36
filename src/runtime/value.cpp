#include "runtime/value.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace squall::rt {
namespace {

// Append-only intern table: ids stay valid and their strings never move (deque).
struct InternTable {
    std::mutex mutex;
    std::deque<std::string> strings;
    std::unordered_map<std::string_view, int64_t> ids;
};

InternTable& interns() {
    static InternTable table;
    return table;
}

} // namespace

Value::Value(std::string_view s) : kind_(Kind::Str) {
    InternTable& t = interns();
    std::lock_guard<std::mutex> lock(t.mutex);
    auto it = t.ids.find(s);
    if (it != t.ids.end()) {
        i_ = it->second;
        return;
    }
    t.strings.emplace_back(s);
    i_ = static_cast<int64_t>(t.strings.size() - 1);
    t.ids.emplace(t.strings.back(), i_);
}

std::string_view Value::as_str() const {
    if (kind_ != Kind::Str) return {};
    InternTable& t = interns();
    std::lock_guard<std::mutex> lock(t.mutex);
    return t.strings[static_cast<size_t>(i_)];
}

std::string Value::to_string() const {
    switch (kind_) {
    case Kind::Int:
        return std::to_string(i_);
    case Kind::Bool:
        return i_ ? "true" : "false";
    case Kind::Float:
        return fmt::format("{}", f_);
    case Kind::Str:
        return std::string(as_str());
    }
    return {};
}

bool operator==(const Value& a, const Value& b) {
    if (a.is_str() || b.is_str()) return a.kind_ == b.kind_ && a.i_ == b.i_;
    if (a.is_float() || b.is_float()) return a.as_float() == b.as_float();
    return a.i_ == b.i_;
}

void to_json(nlohmann::json& j, const Value& v) {
    switch (v.kind()) {
    case Value::Kind::Int:
        j = v.as_int();
        break;
    case Value::Kind::Bool:
        j = v.truthy();
        break;
    case Value::Kind::Float:
        j = v.as_float();
        break;
    case Value::Kind::Str:
        j = std::string(v.as_str());
        break;
    }
}

Value value_from_json(const nlohmann::json& j) {
    if (j.is_boolean()) return Value(j.get<bool>());
    if (j.is_number_integer()) return Value(j.get<long long>());
    if (j.is_number_float()) return Value(j.get<double>());
    if (j.is_string()) return Value(j.get<std::string>());
    throw std::invalid_argument("expected a number, boolean or string, got " + j.dump());
}

void from_json(const nlohmann::json& j, Value& v) {
    v = value_from_json(j);
}

} // namespace squall::rt
