#include "runtime/term.h"

#include "runtime/device_info.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>

namespace squall::rt {

using Op = Expr::Op;

namespace {

using Kind = Term::Node::Kind;

// Binding strength in the text grammar: 1 ?:, 2 ||, 3 &&, 4 == !=, 5 < <= > >=, 6 + -,
// 7 * / %, 8 unary, 9 primary.
constexpr int unary_level = 8, primary_level = 9;

struct BinaryInfo {
    Op op;
    const char* symbol;
    int level;
};
constexpr BinaryInfo binary_ops[] = {
    {Op::Mul, "*", 7},     {Op::Div, "/", 7}, {Op::Mod, "%", 7}, {Op::Add, "+", 6},
    {Op::Sub, "-", 6},     {Op::Lt, "<", 5},  {Op::Le, "<=", 5}, {Op::Gt, ">", 5},
    {Op::Ge, ">=", 5},     {Op::Eq, "==", 4}, {Op::Ne, "!=", 4}, {Op::AndJump, "&&", 3},
    {Op::OrJump, "||", 2},
};

const BinaryInfo& binary_info(Op op) {
    for (const BinaryInfo& b : binary_ops)
        if (b.op == op) return b;
    throw ExprError("internal: not a binary operator");
}

bool is_negative_literal(const Value& v) {
    return (v.kind() == Value::Kind::Int && v.as_int() < 0) ||
           (v.is_float() && std::signbit(v.as_float()));
}

int level(const Term::Node& n) {
    switch (n.kind) {
    case Kind::Literal:
        // INT64_MIN prints in parentheses (its magnitude is not a valid literal).
        if (n.value.kind() == Value::Kind::Int && n.value.as_int() == LLONG_MIN)
            return primary_level;
        return is_negative_literal(n.value) ? unary_level : primary_level;
    case Kind::Name:
    case Kind::Call:
        return primary_level;
    case Kind::Unary:
        return unary_level;
    case Kind::Binary:
        return binary_info(n.op).level;
    case Kind::Select:
        return 1;
    }
    return primary_level;
}

std::string literal_text(const Value& v) {
    switch (v.kind()) {
    case Value::Kind::Bool:
        return v.truthy() ? "true" : "false";
    case Value::Kind::Int:
        if (v.as_int() == LLONG_MIN) return "(-9223372036854775807 - 1)";
        return fmt::format("{}", v.as_int());
    case Value::Kind::Float: {
        const double x = v.as_float();
        if (std::isinf(x)) return x > 0 ? "1e999" : "-1e999";       // strtod overflows to inf
        std::string s = fmt::format("{}", x);                       // shortest exact form
        if (s.find_first_of(".eE") == std::string::npos) s += ".0"; // else it reads as int
        return s;
    }
    case Value::Kind::Str: {
        const char q = v.as_str().find('\'') == std::string_view::npos ? '\'' : '"';
        return fmt::format("{}{}{}", q, v.as_str(), q);
    }
    }
    return {};
}

void print(const Term::Node& n, std::string& out) {
    auto operand = [&](const Term& t, bool parens) {
        if (parens) out += '(';
        print(t.node(), out);
        if (parens) out += ')';
    };
    switch (n.kind) {
    case Kind::Literal:
        out += literal_text(n.value);
        break;
    case Kind::Name:
        out += n.text;
        break;
    case Kind::Unary:
        // Parenthesise a signed operand too: "-(-x)" rather than "--x".
        out += n.op == Op::Neg ? '-' : '!';
        operand(n.a, level(n.a.node()) <= unary_level);
        break;
    case Kind::Binary: {
        // Left-associative: an equal-level right operand needs parentheses.
        const BinaryInfo& b = binary_info(n.op);
        operand(n.a, level(n.a.node()) < b.level);
        out += fmt::format(" {} ", b.symbol);
        operand(n.b, level(n.b.node()) <= b.level);
        break;
    }
    case Kind::Select:
        operand(n.a, level(n.a.node()) <= 1); // the condition is a logical-or expression
        out += " ? ";
        operand(n.b, false);
        out += " : ";
        operand(n.c, false);
        break;
    case Kind::Call:
        out += n.text + "(";
        operand(n.a, false);
        if (!n.b.empty()) out += ", ", operand(n.b, false);
        out += ')';
        break;
    }
}

bool is_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

} // namespace

// ---- building -------------------------------------------------------------------------

const Term::Node& Term::node() const {
    if (!node_) throw ExprError("empty expression term (a default-constructed Term)");
    return *node_;
}

std::string Term::to_string() const {
    std::string out;
    print(node(), out);
    return out;
}

// Every node is made here; operands are checked to be non-empty as the node is built,
// so an empty term fails where it is used rather than at compile.
struct TermFactory {
    using Node = Term::Node;
    static Term make(Node n) { return Term(std::make_shared<const Node>(std::move(n))); }
    static Term literal(Value v) { return Term::literal(v); }

    static Term name(std::string full_name) {
        const bool ok =
            !full_name.empty() &&
            (std::isalpha(static_cast<unsigned char>(full_name[0])) || full_name[0] == '_') &&
            std::all_of(full_name.begin(), full_name.end(), is_name_char) && full_name != "true" &&
            full_name != "false";
        if (!ok)
            throw ExprError(fmt::format("'{}' is not a name the expression grammar can spell "
                                        "(letters, digits, '_' and '.', not starting with a "
                                        "digit)",
                                        full_name));
        Node n;
        n.kind = Node::Kind::Name;
        n.text = std::move(full_name);
        return make(std::move(n));
    }
    static Term node(Node::Kind kind, Op o, std::string fn, const Term& a, const Term& b = {},
                     const Term& c = {}) {
        Node n;
        n.kind = kind;
        n.op = o;
        n.text = std::move(fn);
        n.a = a, n.b = b, n.c = c;
        (void)a.node();
        if (kind == Node::Kind::Binary || kind == Node::Kind::Select) (void)b.node();
        if (kind == Node::Kind::Select) (void)c.node();
        return make(std::move(n));
    }
    static Term unary(Op o, const Term& a) { return node(Node::Kind::Unary, o, "", a); }
    static Term binary(Op o, const Term& a, const Term& b) {
        return node(Node::Kind::Binary, o, "", a, b);
    }
    static Term call(const char* fn, Op o, const Term& a) {
        return node(Node::Kind::Call, o, fn, a);
    }
    static Term call(const char* fn, Op o, const Term& a, const Term& b) {
        (void)b.node();
        return node(Node::Kind::Call, o, fn, a, b);
    }
    static Term select(const Term& cond, const Term& a, const Term& b) {
        return node(Node::Kind::Select, Op::JumpIfFalse, "", cond, a, b);
    }
};

Term Term::literal(Value v) {
    if (v.is_float() && std::isnan(v.as_float()))
        throw ExprError("NaN cannot be an expression literal");
    if (v.is_str() && v.as_str().find('\'') != std::string_view::npos &&
        v.as_str().find('"') != std::string_view::npos)
        throw ExprError(fmt::format("string literal {} holds both kinds of quote, which the "
                                    "expression grammar cannot spell",
                                    v.as_str()));
    Node n;
    n.value = v;
    return TermFactory::make(std::move(n));
}

Term Term::unsigned_literal(unsigned long long v) {
    if (v > static_cast<unsigned long long>(LLONG_MAX))
        throw ExprError(fmt::format("integer literal {} does not fit in 64 signed bits", v));
    return literal(Value(static_cast<long long>(v)));
}

Term P(std::string_view param) {
    if (param.rfind("problem.", 0) == 0 || param.rfind("device.", 0) == 0)
        throw ExprError(fmt::format("P(\"{}\"): not a tunable parameter; write problem_x() or "
                                    "device(\"...\")",
                                    param));
    return TermFactory::name(std::string(param));
}

Term problem_x() {
    return TermFactory::name("problem.x");
}
Term problem_y() {
    return TermFactory::name("problem.y");
}
Term problem_z() {
    return TermFactory::name("problem.z");
}

Term device(std::string_view attribute) {
    const std::string full = "device." + std::string(attribute);
    std::string known;
    for (const char* a : DeviceInfo::attribute_names()) {
        if (full == a) return TermFactory::name(full);
        known += (known.empty() ? "" : ", ") + std::string(a + 7); // without "device."
    }
    throw ExprError(fmt::format("unknown device attribute '{}' (known: {})", attribute, known));
}

Term lit(Value v) {
    return TermFactory::literal(v);
}
Term str(std::string_view s) {
    return TermFactory::literal(Value(s));
}

Term operator-(const Term& a) {
    return TermFactory::unary(Op::Neg, a);
}
Term operator+(const Term& a) {
    (void)a.node();
    return a;
}
Term operator!(const Term& a) {
    return TermFactory::unary(Op::Not, a);
}

#define SQUALL_TERM_BINARY(sym, op)                                                                \
    Term operator sym(const Term& a, const Term& b) {                                              \
        return TermFactory::binary(Op::op, a, b);                                                  \
    }
SQUALL_TERM_BINARY(+, Add)
SQUALL_TERM_BINARY(-, Sub)
SQUALL_TERM_BINARY(*, Mul)
SQUALL_TERM_BINARY(/, Div)
SQUALL_TERM_BINARY(%, Mod)
SQUALL_TERM_BINARY(<, Lt)
SQUALL_TERM_BINARY(<=, Le)
SQUALL_TERM_BINARY(>, Gt)
SQUALL_TERM_BINARY(>=, Ge)
SQUALL_TERM_BINARY(==, Eq)
SQUALL_TERM_BINARY(!=, Ne)
SQUALL_TERM_BINARY(&&, AndJump)
SQUALL_TERM_BINARY(||, OrJump)
#undef SQUALL_TERM_BINARY

Term select(const Term& cond, const Term& a, const Term& b) {
    return TermFactory::select(cond, a, b);
}
Term min(const Term& a, const Term& b) {
    return TermFactory::call("min", Op::Min, a, b);
}
Term max(const Term& a, const Term& b) {
    return TermFactory::call("max", Op::Max, a, b);
}
Term abs(const Term& a) {
    return TermFactory::call("abs", Op::Abs, a);
}
Term ceil_div(const Term& a, const Term& b) {
    return TermFactory::call("ceil_div", Op::CeilDiv, a, b);
}
Term round_up(const Term& a, const Term& b) {
    return TermFactory::call("round_up", Op::RoundUp, a, b);
}
Term log2(const Term& a) {
    return TermFactory::call("log2", Op::Log2, a);
}
Term is_pow2(const Term& a) {
    return TermFactory::call("is_pow2", Op::IsPow2, a);
}
Term to_float(const Term& a) {
    return TermFactory::call("float", Op::ToFloat, a);
}
Term to_int(const Term& a) {
    return TermFactory::call("int", Op::ToInt, a);
}

namespace {
Term fold(const std::vector<Term>& terms, Op op, Term empty) {
    if (terms.empty()) return empty;
    Term out = terms.front();
    for (size_t i = 1; i < terms.size(); ++i) out = TermFactory::binary(op, out, terms[i]);
    return out;
}
} // namespace

Term all_of(const std::vector<Term>& conditions) {
    return fold(conditions, Op::AndJump, true);
}
Term any_of(const std::vector<Term>& conditions) {
    return fold(conditions, Op::OrJump, false);
}
Term sum(const std::vector<Term>& terms) {
    return fold(terms, Op::Add, 0);
}

} // namespace squall::rt
