// Typed expressions, built in C++ where a kernel is defined instead of as text:
//
//   using namespace squall::rt;
//   def.restriction(P("block_x") * P("block_y") <= 1024)
//       .restriction(P("stage") == 0 || device("compute_capability") >= 90)
//       .grid_size(ceil_div(problem_x(), P("block_x") * P("tile_x")))
//       .define("SQ_RING", select(P("planes"), P("plane_ring"), 0));
//
// A Term is an immutable tree; C++ operators build it with C++ precedence, which is the
// precedence of the text grammar (expr.h). Integer, floating-point and bool values
// convert to literal terms implicitly; strings do not (a string is far more likely a
// misspelt P("name") than a literal), write str("zyx").
//
// Expr::compile lowers a term straight to bytecode against a scope: that is when names
// are resolved and kinds checked, so KernelDef reports a typo or a type error at the
// definition. to_string() gives the text form that captures store and replay parses
// back; parsing it yields an expression that evaluates identically.
#pragma once

#include "runtime/expr.h"
#include "runtime/value.h"

#include <concepts>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace squall::rt {

class Term {
public:
    Term() = default; // empty: compiling it, or building on it, throws ExprError

    template <typename T>
    requires std::same_as<T, bool> Term(T v) : Term(literal(Value(v))) {}
    // Any integer type but bool and char; unsigned values above INT64_MAX throw.
    template <std::integral T>
    requires(!std::same_as<T, bool> && !std::same_as<T, char>) Term(T v)
        : Term(std::is_signed_v<T> ? literal(Value(static_cast<long long>(v)))
                                   : unsigned_literal(static_cast<unsigned long long>(v))) {}
    // NaN throws (the grammar cannot spell it); infinities print as 1e999.
    template <std::floating_point T>
    Term(T v) : Term(literal(Value(static_cast<double>(v)))) {}

    bool empty() const { return !node_; }
    // Text in the grammar of expr.h, parenthesised only where precedence requires it.
    std::string to_string() const;

    struct Node;
    const Node& node() const; // throws ExprError when empty

private:
    friend struct TermFactory; // term.cpp: what the free functions below build through
    explicit Term(std::shared_ptr<const Node> n) : node_(std::move(n)) {}
    static Term literal(Value v); // throws ExprError for NaN or an unprintable string
    static Term unsigned_literal(unsigned long long v);
    std::shared_ptr<const Node> node_;
};

struct Term::Node {
    enum class Kind : uint8_t { Literal, Name, Unary, Binary, Select, Call };
    Kind kind = Kind::Literal;
    Expr::Op op = Expr::Op::Const; // Unary, Binary (AndJump / OrJump: && / ||), Call
    Value value;                   // Literal
    std::string text;              // Name: the full name; Call: the function
    Term a, b, c;                  // operands (b of a one-argument Call is empty)
};

// Names. P: a tunable parameter (declared with KernelDef::tune before the term is used);
// throws ExprError for a name the grammar cannot spell.
Term P(std::string_view param);
Term problem_x();
Term problem_y();
Term problem_z();
// A device attribute without its "device." prefix, e.g. device("compute_capability");
// throws ExprError for an attribute DeviceInfo does not have.
Term device(std::string_view attribute);

// Literals that do not convert implicitly.
Term lit(Value v);
Term str(std::string_view s);

Term operator-(const Term& a);
Term operator+(const Term& a);
Term operator!(const Term& a);
Term operator+(const Term& a, const Term& b);
Term operator-(const Term& a, const Term& b);
Term operator*(const Term& a, const Term& b);
Term operator/(const Term& a, const Term& b); // integer operands truncate like C++
Term operator%(const Term& a, const Term& b);
Term operator<(const Term& a, const Term& b);
Term operator<=(const Term& a, const Term& b);
Term operator>(const Term& a, const Term& b);
Term operator>=(const Term& a, const Term& b);
Term operator==(const Term& a, const Term& b);
Term operator!=(const Term& a, const Term& b);
// Short-circuit at evaluation, like the text grammar (building evaluates both sides).
Term operator&&(const Term& a, const Term& b);
Term operator||(const Term& a, const Term& b);

// cond ? a : b
Term select(const Term& cond, const Term& a, const Term& b);
Term min(const Term& a, const Term& b);
Term max(const Term& a, const Term& b);
Term abs(const Term& a);
Term ceil_div(const Term& a, const Term& b);
Term round_up(const Term& a, const Term& b);
Term log2(const Term& a); // integer floor; the operand must be an integer
Term is_pow2(const Term& a);
Term to_float(const Term& a); // float(a) in text
Term to_int(const Term& a);   // int(a) in text

// Folds for terms assembled in loops: a && b && ..., a || b || ..., a + b + ...; an
// empty list gives true, false and 0.
Term all_of(const std::vector<Term>& conditions);
Term any_of(const std::vector<Term>& conditions);
Term sum(const std::vector<Term>& terms);

} // namespace squall::rt
