// Value: the scalar type of tunable parameters and expressions (int, float, bool or
// string). It is 16 bytes and trivially copyable, so the expression evaluator and the
// space enumerator can keep arrays of them without heap traffic; strings are interned.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace squall::rt {

class Value {
public:
    enum class Kind : uint8_t { Int, Float, Bool, Str };

    constexpr Value() = default;
    constexpr Value(int v) : kind_(Kind::Int), i_(v) {}
    constexpr Value(long v) : kind_(Kind::Int), i_(v) {}
    constexpr Value(long long v) : kind_(Kind::Int), i_(v) {}
    constexpr Value(unsigned v) : kind_(Kind::Int), i_(v) {}
    constexpr Value(double v) : kind_(Kind::Float), f_(v) {}
    constexpr Value(bool v) : kind_(Kind::Bool), i_(v ? 1 : 0) {}
    Value(std::string_view s);
    Value(const char* s) : Value(std::string_view(s)) {}
    Value(const std::string& s) : Value(std::string_view(s)) {}

    Kind kind() const { return kind_; }
    bool is_int() const { return kind_ == Kind::Int || kind_ == Kind::Bool; }
    bool is_float() const { return kind_ == Kind::Float; }
    bool is_bool() const { return kind_ == Kind::Bool; }
    bool is_str() const { return kind_ == Kind::Str; }
    bool is_number() const { return kind_ != Kind::Str; }

    // Numeric views; strings give 0.
    int64_t as_int() const { return kind_ == Kind::Float ? static_cast<int64_t>(f_) : i_; }
    double as_float() const { return kind_ == Kind::Float ? f_ : static_cast<double>(i_); }
    bool truthy() const { return kind_ == Kind::Float ? f_ != 0.0 : i_ != 0; }
    std::string_view as_str() const;

    // Text form used for template arguments, defines and log messages.
    std::string to_string() const;
    friend bool operator==(const Value& a, const Value& b);
    friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

    // Internal: the interned id of a string value.
    int64_t raw_int() const { return i_; }
    static Value from_interned(int64_t id) {
        Value v;
        v.kind_ = Kind::Str;
        v.i_ = id;
        return v;
    }

private:
    Kind kind_ = Kind::Int;
    union {
        int64_t i_ = 0;
        double f_;
    };
};

void to_json(nlohmann::json& j, const Value& v);
void from_json(const nlohmann::json& j, Value& v);

// Strict conversion: throws std::invalid_argument for arrays, objects and null.
Value value_from_json(const nlohmann::json& j);

} // namespace squall::rt
