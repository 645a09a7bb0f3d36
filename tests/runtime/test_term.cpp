// Typed expression terms (term.h): their text form, its round trip through the text
// parser, and the errors they report.
#include "runtime/config_space.h"
#include "runtime/term.h"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace squall::rt;

namespace {

// Kind and bits alike (Value's == compares 1 with 1.0 and true equal).
bool same(const Value& a, const Value& b) {
    if (a.kind() != b.kind()) return false;
    if (!a.is_float()) return a.raw_int() == b.raw_int();
    const double x = a.as_float(), y = b.as_float();
    return (std::isnan(x) && std::isnan(y)) || std::memcmp(&x, &y, sizeof x) == 0;
}

// The value of an expression, or the message of the ExprError it throws.
struct Outcome {
    bool threw = false;
    Value value;
    std::string error;
};
Outcome run(const Expr& e, const std::vector<Value>& slots) {
    Outcome o;
    try {
        o.value = e.eval(slots.data());
    } catch (const ExprError& err) {
        o.threw = true;
        o.error = err.what();
    }
    return o;
}

// Names of every kind, each with a few values to draw from.
struct Env {
    Scope scope;
    std::vector<std::vector<Value>> choices; // by slot
    void add(const std::string& name, std::vector<Value> values) {
        Kinds k = 0;
        for (const Value& v : values) k |= kind_bit(v.kind());
        scope.bind(name, static_cast<int>(choices.size()), k);
        choices.push_back(std::move(values));
    }
    std::vector<Value> draw(std::mt19937_64& rng) const {
        std::vector<Value> s;
        for (const auto& c : choices) s.push_back(c[rng() % c.size()]);
        return s;
    }
};

Env make_env() {
    Env e;
    e.add("a", {-3, 0, 1, 2, 5, 8});
    e.add("b", {1, 2, 3, 4, 7});
    e.add("c", {0, 1});
    e.add("x", {-2.5, 0.0, 0.5, 3.0, 1e10});
    e.add("flag", {false, true});
    e.add("order", {"xyz", "zyx"});
    e.add("problem.x", {1, 96, 512});
    return e;
}

// Random terms of depth <= 4 with literals of magnitude <= 9 (no integer overflow).
struct Generator {
    std::mt19937_64 rng;
    bool negative_literals = true;
    int pick(int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }

    Term leaf() {
        const int lo = negative_literals ? -9 : 0;
        switch (pick(9)) {
        case 0:
            return lo + pick(10 - lo);
        case 1: {
            static const double f[] = {0.5, 2.5, 1e300, 0.1, 3.0, -0.0, -1.25, 7.0};
            double v = f[pick(8)];
            return negative_literals ? v : std::fabs(v);
        }
        case 2:
            return pick(2) == 1;
        case 3:
            return problem_x();
        default: {
            static const char* names[] = {"a", "b", "c", "x", "flag"};
            return P(names[pick(5)]);
        }
        }
    }
    Term term(int depth) {
        if (depth == 0 || pick(5) == 0) return leaf();
        const int d = depth - 1;
        switch (pick(12)) {
        case 0:
            return pick(2) ? -term(d) : !term(d);
        case 1:
            return select(term(d), term(d), term(d));
        case 2:
            return P("order") == (pick(2) ? str("zyx") : str("xyz"));
        case 3: {
            Term a = term(d), b = term(d);
            switch (pick(5)) {
            case 0:
                return min(a, b);
            case 1:
                return max(a, b);
            case 2:
                return ceil_div(a, b);
            case 3:
                return round_up(a, b);
            default:
                return abs(a);
            }
        }
        case 4:
            switch (pick(4)) {
            case 0:
                return log2(term(d));
            case 1:
                return is_pow2(term(d));
            case 2:
                return to_float(term(d));
            default:
                return to_int(term(d));
            }
        default: {
            Term a = term(d), b = term(d);
            switch (pick(13)) {
            case 0:
                return a + b;
            case 1:
                return a - b;
            case 2:
                return a * b;
            case 3:
                return a / b;
            case 4:
                return a % b;
            case 5:
                return a < b;
            case 6:
                return a <= b;
            case 7:
                return a > b;
            case 8:
                return a >= b;
            case 9:
                return a == b;
            case 10:
                return a != b;
            case 11:
                return a && b;
            default:
                return a || b;
            }
        }
        }
    }
};

} // namespace

TEST(Term, PrintsWithTheFewestParentheses) {
    const Term a = P("a"), b = P("b"), c = P("c");
    EXPECT_EQ((a + b * 2).to_string(), "a + b * 2");
    EXPECT_EQ(((a + b) * 2).to_string(), "(a + b) * 2");
    EXPECT_EQ((a - b - c).to_string(), "a - b - c");
    EXPECT_EQ((a - (b - c)).to_string(), "a - (b - c)");
    EXPECT_EQ((a / (b * c)).to_string(), "a / (b * c)");
    EXPECT_EQ((a % b * c).to_string(), "a % b * c");
    EXPECT_EQ((-(a + 1)).to_string(), "-(a + 1)");
    EXPECT_EQ((-(-a)).to_string(), "-(-a)");
    EXPECT_EQ((a - -3).to_string(), "a - -3");
    EXPECT_EQ((+a).to_string(), "a");
    EXPECT_EQ((!(a == 1)).to_string(), "!(a == 1)");
    // C++ parentheses that group as precedence would anyway print no parentheses.
    EXPECT_EQ((a == 1 || (b == 2 && c == 3)).to_string(), "a == 1 || b == 2 && c == 3");
    EXPECT_EQ(((a == 1 || b == 2) && c == 3).to_string(), "(a == 1 || b == 2) && c == 3");
    EXPECT_EQ(((a < b) == (c < 1)).to_string(), "a < b == c < 1");
    EXPECT_EQ(((a == b) == (c == 1)).to_string(), "a == b == (c == 1)");
    EXPECT_EQ((select(a > 1, 2, 3) + 1).to_string(), "(a > 1 ? 2 : 3) + 1");
    EXPECT_EQ(select(a, b, select(c, 1, 2)).to_string(), "a ? b : c ? 1 : 2");
    EXPECT_EQ(select(select(a, b, c), 1, 2).to_string(), "(a ? b : c) ? 1 : 2");
    EXPECT_EQ(select(a || b, 1, 2).to_string(), "a || b ? 1 : 2");
    EXPECT_EQ(ceil_div(problem_x(), a * P("tile_x")).to_string(),
              "ceil_div(problem.x, a * tile_x)");
    EXPECT_EQ((device("compute_capability") >= 90).to_string(), "device.compute_capability >= 90");
    EXPECT_EQ(min(max(a, 1), abs(b - 4)).to_string(), "min(max(a, 1), abs(b - 4))");
    EXPECT_EQ((to_float(a) / to_int(P("x"))).to_string(), "float(a) / int(x)");
    EXPECT_EQ((log2(a) + is_pow2(b)).to_string(), "log2(a) + is_pow2(b)");
}

TEST(Term, LiteralsConvertImplicitlyAndPrintExactly) {
    EXPECT_EQ((2 * P("a")).to_string(), "2 * a");
    EXPECT_EQ((P("a") + 1.5).to_string(), "a + 1.5");
    EXPECT_EQ((true && P("a") > 0).to_string(), "true && a > 0");
    EXPECT_EQ(Term(size_t{4096}).to_string(), "4096");
    EXPECT_EQ(Term(3.0).to_string(), "3.0"); // not "3", which reads as an int
    EXPECT_EQ(Term(1e20).to_string(), "1e+20");
    EXPECT_EQ(Term(-0.0).to_string(), "-0.0");
    EXPECT_EQ(Term(std::numeric_limits<double>::infinity()).to_string(), "1e999");
    EXPECT_EQ(Term(LLONG_MIN).to_string(), "(-9223372036854775807 - 1)");
    EXPECT_EQ(str("zyx").to_string(), "'zyx'");
    EXPECT_EQ(str("it's").to_string(), "\"it's\"");
    EXPECT_EQ(lit(Value(false)).to_string(), "false");

    // Each literal parses back to the same value and kind.
    Scope none;
    for (const Term& t :
         {Term(LLONG_MIN), Term(LLONG_MAX), Term(-7), Term(0.1), Term(-0.0), Term(1e-300),
          Term(5e-324), Term(-1.0 / 3.0), Term(std::numeric_limits<double>::infinity()),
          Term(-std::numeric_limits<double>::infinity()), Term(true), str("it's"), Term(4.0f)}) {
        const Value direct = Expr::compile(t, none).eval(nullptr);
        const Value parsed = Expr::parse(t.to_string(), none).eval(nullptr);
        EXPECT_TRUE(same(direct, parsed)) << t.to_string();
        EXPECT_EQ(Expr::compile(t, none).kinds(), kind_bit(direct.kind())) << t.to_string();
    }
}

// The property captures rely on: the text form parses to an expression that evaluates
// to the same value (or the same error) as the term, for every assignment of the names.
TEST(Term, TextRoundTripEvaluatesIdentically) {
    const Env env = make_env();
    Generator gen{std::mt19937_64(20260101)};
    std::mt19937_64 draws(7);
    int compiled = 0, rejected = 0, values = 0, errors = 0;
    for (int i = 0; i < 4000; ++i) {
        const Term t = gen.term(4);
        Expr direct;
        try {
            direct = Expr::compile(t, env.scope);
        } catch (const ExprError&) {
            ++rejected; // a kind error, e.g. log2 of a float; the text path does not check
            continue;
        }
        ++compiled;
        const Expr parsed = Expr::parse(t.to_string(), env.scope);
        ASSERT_EQ(direct.text(), parsed.text());
        EXPECT_EQ(direct.slots_used(), parsed.slots_used()) << t.to_string();
        for (int k = 0; k < 25; ++k) {
            const std::vector<Value> slots = env.draw(draws);
            const Outcome d = run(direct, slots), p = run(parsed, slots);
            ASSERT_EQ(d.threw, p.threw) << t.to_string() << ": " << d.error << p.error;
            if (d.threw) {
                EXPECT_EQ(d.error, p.error);
                ++errors;
            } else {
                ASSERT_TRUE(same(d.value, p.value)) << t.to_string() << ": " << d.value.to_string()
                                                    << " vs " << p.value.to_string();
                // The inferred kinds cover every value the expression produced.
                EXPECT_TRUE(direct.kinds() & kind_bit(d.value.kind())) << t.to_string();
                ++values;
            }
        }
    }
    // The generator must exercise both outcomes, not only one.
    EXPECT_GT(compiled, 2000);
    EXPECT_GT(rejected, 0);
    EXPECT_GT(values, 20000);
    EXPECT_GT(errors, 100);
}

// Without negative literals (which the text spells as a negation) the lowering emits
// the parser's bytecode instruction for instruction: evaluation costs the same.
TEST(Term, LoweringEmitsTheParsersBytecode) {
    const Env env = make_env();
    Generator gen{std::mt19937_64(99)};
    gen.negative_literals = false;
    int checked = 0;
    for (int i = 0; i < 2000; ++i) {
        const Term t = gen.term(4);
        Expr direct;
        try {
            direct = Expr::compile(t, env.scope);
        } catch (const ExprError&) {
            continue;
        }
        const Expr parsed = Expr::parse(t.to_string(), env.scope);
        ASSERT_EQ(direct.code().size(), parsed.code().size()) << t.to_string();
        for (size_t k = 0; k < direct.code().size(); ++k) {
            EXPECT_EQ(direct.code()[k].op, parsed.code()[k].op) << t.to_string();
            EXPECT_EQ(direct.code()[k].arg, parsed.code()[k].arg) << t.to_string();
        }
        ++checked;
    }
    EXPECT_GT(checked, 1000);
}

namespace {
// The message of the ExprError f throws ("" when it throws none).
template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const ExprError& e) {
        return e.what();
    }
    return "";
}
#define EXPECT_ERROR_HAS(stmt, text)                                                               \
    do {                                                                                           \
        const std::string msg_ = error_of([&] { stmt; });                                          \
        EXPECT_NE(msg_.find(text), std::string::npos) << "message: '" << msg_ << "'";              \
    } while (0)
} // namespace

TEST(Term, ErrorsNameTheProblem) {
    const Env env = make_env();
    const Scope& s = env.scope;
    EXPECT_ERROR_HAS(Expr::compile(P("a") + P("blok_x"), s),
                     "expression 'a + blok_x', in 'blok_x': unknown name 'blok_x' (parameters "
                     "declared so far: a, b, c, x, flag, order)");
    EXPECT_ERROR_HAS(Expr::compile(P("order") + 1 > 2, s),
                     "in 'order + 1': '+' needs a number, but 'order' is a string");
    EXPECT_ERROR_HAS(Expr::compile(P("order") == 1, s),
                     "'==' compares 'order' (a string) with '1' (an int), which are never equal");
    EXPECT_ERROR_HAS(Expr::compile(log2(P("x")), s), "log2() needs an integer, but 'x' is a float");
    EXPECT_ERROR_HAS(Expr::compile(select(P("a"), str("s"), 2), s),
                     "the branches of '?:' are a string and an int");
    EXPECT_ERROR_HAS(Expr::compile(!P("order"), s), "'!' needs");
    EXPECT_ERROR_HAS(Expr::compile(Term(), s), "empty expression term");
    EXPECT_ERROR_HAS(P("a") + Term(), "empty expression term");
    EXPECT_ERROR_HAS(P("1x"), "'1x' is not a name the expression grammar can spell");
    EXPECT_ERROR_HAS(P("block x"), "not a name");
    EXPECT_ERROR_HAS(P("true"), "not a name");
    EXPECT_ERROR_HAS(P("problem.x"), "not a tunable parameter; write problem_x()");
    EXPECT_ERROR_HAS(device("compute_capabilty"),
                     "unknown device attribute 'compute_capabilty' (known: compute_capability,");
    EXPECT_ERROR_HAS(Term(std::nan("")), "NaN");
    EXPECT_ERROR_HAS(Term(~0ull), "does not fit in 64 signed bits");
    EXPECT_ERROR_HAS(str("'\""), "both kinds of quote");
    // An expression too deep for the evaluator's stack is refused at the definition.
    Term deep = P("a");
    for (int i = 0; i < 70; ++i) deep = P("b") + deep;
    EXPECT_ERROR_HAS(Expr::compile(deep, s), "too deeply nested");
    // Operands whose kinds may be valid are accepted (a name bound without kinds).
    Scope untyped;
    untyped.bind("v", 0);
    EXPECT_EQ(Expr::compile(log2(P("v")) + 1, untyped).kinds(), int_kind);
}

TEST(Term, InfersResultKinds) {
    const Env env = make_env();
    auto kinds = [&](const Term& t) { return Expr::compile(t, env.scope).kinds(); };
    EXPECT_EQ(kinds(P("a") * 2), int_kind);
    EXPECT_EQ(kinds(P("a") * P("x")), float_kind);
    EXPECT_EQ(kinds(P("flag") + 1), int_kind); // bools compute as integers
    EXPECT_EQ(kinds(P("a") < 2 || P("flag")), bool_kind);
    EXPECT_EQ(kinds(select(P("flag"), 1, 2.0)), int_kind | float_kind);
    EXPECT_EQ(kinds(-P("x")), float_kind);
    EXPECT_EQ(kinds(to_int(P("x")) % 3), int_kind);
    EXPECT_EQ(kinds(P("order")), str_kind);
}
