// Expressions over tunable parameters, problem size and device attributes, e.g.
//   "block_x * block_y >= 64 && problem.x % (block_x * tile_x) == 0"
// Text is parsed once into a compact stack bytecode whose variables are slot indices,
// so evaluating millions of configurations costs tens of nanoseconds each.
//
// Grammar (C precedence): ?:, ||, &&, == !=, < <= > >=, + -, * / %, unary - ! +.
// Literals: integers, floats, true/false, 'string' or "string". Functions: min, max,
// abs, ceil_div, round_up, log2 (integer floor), is_pow2, float, int.
// Integer / and % truncate like C++; a float operand makes the operation float.
// Expressions may also be built as typed C++ terms (term.h) and compiled with
// Expr::compile, which emits the same bytecode without going through text.
#pragma once

#include "runtime/value.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace squall::rt {

class ExprError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Term;

// A set of Value kinds, one bit per Value::Kind: what a name or an expression may hold.
using Kinds = uint8_t;
constexpr Kinds kind_bit(Value::Kind k) {
    return static_cast<Kinds>(1u << static_cast<unsigned>(k));
}
inline constexpr Kinds int_kind = kind_bit(Value::Kind::Int);
inline constexpr Kinds float_kind = kind_bit(Value::Kind::Float);
inline constexpr Kinds bool_kind = kind_bit(Value::Kind::Bool);
inline constexpr Kinds str_kind = kind_bit(Value::Kind::Str);
inline constexpr Kinds any_kind = int_kind | float_kind | bool_kind | str_kind;
std::string kinds_name(Kinds k); // "an int", "an int or a float", "a number", ...

// Names visible to an expression, each bound to a slot of the value array that is
// passed to Expr::eval, and the kinds of value the slot may hold (checked by
// Expr::compile; the text parser does not check kinds).
class Scope {
public:
    void bind(std::string name, int slot, Kinds kinds = any_kind);
    int find(std::string_view name) const; // -1 when unknown
    Kinds kinds(int slot) const;           // any_kind for a slot bound without kinds
    const std::vector<std::pair<std::string, int>>& names() const { return names_; }

private:
    std::vector<std::pair<std::string, int>> names_;
    std::vector<Kinds> kinds_; // by position in names_
};

class Expr {
public:
    Expr() = default;
    // Throws ExprError naming the position and the unknown identifier, if any.
    static Expr parse(std::string_view text, const Scope& scope);
    // Lowers a typed term straight to bytecode; text() is the term's text form, which
    // parses back to an expression that evaluates identically. Throws ExprError for an
    // unknown name or an operation that no kind of its operands allows (arithmetic on
    // a string, log2 of a float, a string compared with a number).
    static Expr compile(const Term& term, const Scope& scope);
    static Expr constant(Value v);

    // Evaluates with slots[i] holding the value of slot i. Throws ExprError on
    // division by zero or a type error (strings only compare with == and !=).
    Value eval(const Value* slots) const;
    bool eval_bool(const Value* slots) const { return eval(slots).truthy(); }

    const std::string& text() const { return text_; }
    const std::vector<int>& slots_used() const { return slots_used_; }
    bool empty() const { return code_.empty(); }
    int max_slot() const; // -1 when the expression uses no variables
    // Kinds the result may have: inferred by compile, any_kind from parse.
    Kinds kinds() const { return kinds_; }

    enum class Op : uint8_t {
        Const,
        Load,
        Neg,
        Not,
        Add,
        Sub,
        Mul,
        Div,
        Mod,
        Lt,
        Le,
        Gt,
        Ge,
        Eq,
        Ne,
        AndJump,
        OrJump,
        JumpIfFalse,
        Jump,
        ToBool,
        Min,
        Max,
        Abs,
        CeilDiv,
        RoundUp,
        Log2,
        IsPow2,
        ToFloat,
        ToInt,
    };
    struct Instr {
        Op op;
        int32_t arg;
    };
    // The bytecode, for tests that compare the two ways of building an expression.
    const std::vector<Instr>& code() const { return code_; }

private:
    friend class ExprParser;
    friend class TermLowering;
    std::string text_;
    std::vector<Instr> code_;
    std::vector<Value> consts_;
    std::vector<int> slots_used_;
    int max_depth_ = 0;
    Kinds kinds_ = any_kind;
};

} // namespace squall::rt
