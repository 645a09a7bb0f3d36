// Expressions over tunable parameters, problem size and device attributes, e.g.
//   "block_x * block_y >= 64 && problem.x % (block_x * tile_x) == 0"
// Text is parsed once into a compact stack bytecode whose variables are slot indices,
// so evaluating millions of configurations costs tens of nanoseconds each.
//
// Grammar (C precedence): ?:, ||, &&, == !=, < <= > >=, + -, * / %, unary - ! +.
// Literals: integers, floats, true/false, 'string' or "string". Functions: min, max,
// abs, ceil_div, round_up, log2 (integer floor), is_pow2, float, int.
// Integer / and % truncate like C++; a float operand makes the operation float.
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

// Names visible to an expression, each bound to a slot of the value array that is
// passed to Expr::eval.
class Scope {
public:
    void bind(std::string name, int slot);
    int find(std::string_view name) const; // -1 when unknown
    const std::vector<std::pair<std::string, int>>& names() const { return names_; }

private:
    std::vector<std::pair<std::string, int>> names_;
};

class Expr {
public:
    Expr() = default;
    // Throws ExprError naming the position and the unknown identifier, if any.
    static Expr parse(std::string_view text, const Scope& scope);
    static Expr constant(Value v);

    // Evaluates with slots[i] holding the value of slot i. Throws ExprError on
    // division by zero or a type error (strings only compare with == and !=).
    Value eval(const Value* slots) const;
    bool eval_bool(const Value* slots) const { return eval(slots).truthy(); }

    const std::string& text() const { return text_; }
    const std::vector<int>& slots_used() const { return slots_used_; }
    bool empty() const { return code_.empty(); }
    int max_slot() const; // -1 when the expression uses no variables

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

private:
    friend class ExprParser;
    std::string text_;
    std::vector<Instr> code_;
    std::vector<Value> consts_;
    std::vector<int> slots_used_;
    int max_depth_ = 0;
};

} // namespace squall::rt
