#include "runtime/expr.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace squall::rt {

std::string kinds_name(Kinds k) {
    if (k == (int_kind | float_kind | bool_kind)) return "a number";
    if (k == (int_kind | bool_kind)) return "an integer";
    static constexpr const char* names[] = {"an int", "a float", "a bool", "a string"};
    std::string out;
    for (unsigned i = 0; i < 4; ++i)
        if (k & (1u << i)) out += (out.empty() ? "" : " or ") + std::string(names[i]);
    return out.empty() ? "nothing" : out;
}

void Scope::bind(std::string name, int slot, Kinds kinds) {
    for (size_t i = 0; i < names_.size(); ++i) {
        if (names_[i].first == name) {
            names_[i].second = slot;
            kinds_[i] = kinds;
            return;
        }
    }
    names_.emplace_back(std::move(name), slot);
    kinds_.push_back(kinds);
}

Kinds Scope::kinds(int slot) const {
    for (size_t i = 0; i < names_.size(); ++i)
        if (names_[i].second == slot) return kinds_[i];
    return any_kind;
}

int Scope::find(std::string_view name) const {
    for (const auto& [n, s] : names_)
        if (n == name) return s;
    return -1;
}

// Recursive-descent parser emitting bytecode directly; it tracks the stack depth so
// evaluation can use a fixed-size stack array.
class ExprParser {
public:
    ExprParser(std::string_view text, const Scope& scope, Expr& out)
        : src_(text), scope_(scope), out_(out) {}

    void run() {
        ternary();
        skip_ws();
        if (pos_ < src_.size()) fail("unexpected '{}'", src_[pos_]);
        std::sort(out_.slots_used_.begin(), out_.slots_used_.end());
        out_.slots_used_.erase(std::unique(out_.slots_used_.begin(), out_.slots_used_.end()),
                               out_.slots_used_.end());
    }

private:
    using Op = Expr::Op;
    static constexpr int max_stack = 64;

    std::string_view src_;
    const Scope& scope_;
    Expr& out_;
    size_t pos_ = 0;
    int depth_ = 0;

    template <typename... Args>
    [[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) {
        throw ExprError(fmt::format("expression '{}', at column {}: {}", src_, pos_ + 1,
                                    fmt::format(f, std::forward<Args>(args)...)));
    }

    size_t emit(Op op, int32_t arg, int stack_delta) {
        out_.code_.push_back({op, arg});
        depth_ += stack_delta;
        if (depth_ > max_stack) fail("expression too deeply nested");
        out_.max_depth_ = std::max(out_.max_depth_, depth_);
        return out_.code_.size() - 1;
    }
    void patch(size_t at) { out_.code_[at].arg = static_cast<int32_t>(out_.code_.size()); }

    void skip_ws() {
        while (pos_ < src_.size() && std::isspace(static_cast<unsigned char>(src_[pos_]))) ++pos_;
    }
    bool accept(std::string_view tok) {
        skip_ws();
        if (src_.substr(pos_, tok.size()) != tok) return false;
        // Do not let '<' match the start of '<=' etc.
        if (tok.size() == 1 && pos_ + 1 < src_.size()) {
            char n = src_[pos_ + 1];
            if ((tok == "<" || tok == ">" || tok == "!" || tok == "=") && n == '=') return false;
            if ((tok == "&" && n == '&') || (tok == "|" && n == '|')) return false;
        }
        pos_ += tok.size();
        return true;
    }
    void expect(std::string_view tok) {
        if (!accept(tok)) fail("expected '{}'", tok);
    }

    void ternary() {
        logical_or();
        if (!accept("?")) return;
        size_t jf = emit(Op::JumpIfFalse, 0, -1);
        ternary();
        size_t j = emit(Op::Jump, 0, -1); // the other branch pushes the result instead
        patch(jf);
        expect(":");
        ternary();
        patch(j);
    }
    void logical_or() {
        logical_and();
        while (accept("||")) {
            size_t j = emit(Op::OrJump, 0, -1);
            logical_and();
            emit(Op::ToBool, 0, 0);
            patch(j);
        }
    }
    void logical_and() {
        equality();
        while (accept("&&")) {
            size_t j = emit(Op::AndJump, 0, -1);
            equality();
            emit(Op::ToBool, 0, 0);
            patch(j);
        }
    }
    void equality() {
        relational();
        for (;;) {
            if (accept("=="))
                relational(), emit(Op::Eq, 0, -1);
            else if (accept("!="))
                relational(), emit(Op::Ne, 0, -1);
            else
                return;
        }
    }
    void relational() {
        additive();
        for (;;) {
            if (accept("<="))
                additive(), emit(Op::Le, 0, -1);
            else if (accept(">="))
                additive(), emit(Op::Ge, 0, -1);
            else if (accept("<"))
                additive(), emit(Op::Lt, 0, -1);
            else if (accept(">"))
                additive(), emit(Op::Gt, 0, -1);
            else
                return;
        }
    }
    void additive() {
        multiplicative();
        for (;;) {
            if (accept("+"))
                multiplicative(), emit(Op::Add, 0, -1);
            else if (accept("-"))
                multiplicative(), emit(Op::Sub, 0, -1);
            else
                return;
        }
    }
    void multiplicative() {
        unary();
        for (;;) {
            if (accept("*"))
                unary(), emit(Op::Mul, 0, -1);
            else if (accept("/"))
                unary(), emit(Op::Div, 0, -1);
            else if (accept("%"))
                unary(), emit(Op::Mod, 0, -1);
            else
                return;
        }
    }
    void unary() {
        if (accept("-"))
            unary(), emit(Op::Neg, 0, 0);
        else if (accept("!"))
            unary(), emit(Op::Not, 0, 0);
        else if (accept("+"))
            unary();
        else
            primary();
    }
    void push_const(Value v) {
        out_.consts_.push_back(v);
        emit(Op::Const, static_cast<int32_t>(out_.consts_.size() - 1), +1);
    }
    void primary() {
        skip_ws();
        if (pos_ >= src_.size()) fail("unexpected end of expression");
        char c = src_[pos_];
        if (c == '(') {
            ++pos_;
            ternary();
            expect(")");
        } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
            number();
        } else if (c == '\'' || c == '"') {
            size_t end = src_.find(c, pos_ + 1);
            if (end == std::string_view::npos) fail("unterminated string");
            push_const(Value(src_.substr(pos_ + 1, end - pos_ - 1)));
            pos_ = end + 1;
        } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            identifier();
        } else {
            fail("unexpected '{}'", c);
        }
    }
    void number() {
        const char* begin = src_.data() + pos_;
        size_t len = 0;
        bool is_float = false;
        while (pos_ + len < src_.size()) {
            char ch = src_[pos_ + len];
            if (ch == '.' || ch == 'e' || ch == 'E')
                is_float = true;
            else if ((ch == '+' || ch == '-') && len > 0 &&
                     (src_[pos_ + len - 1] == 'e' || src_[pos_ + len - 1] == 'E'))
                ;
            else if (!std::isdigit(static_cast<unsigned char>(ch)))
                break;
            ++len;
        }
        std::string tok(begin, len);
        char* end = nullptr;
        if (is_float) {
            double v = std::strtod(tok.c_str(), &end);
            if (end != tok.c_str() + tok.size()) fail("bad number '{}'", tok);
            push_const(Value(v));
        } else {
            long long v = std::strtoll(tok.c_str(), &end, 10);
            if (end != tok.c_str() + tok.size()) fail("bad number '{}'", tok);
            push_const(Value(v));
        }
        pos_ += len;
    }
    void identifier() {
        size_t start = pos_;
        while (pos_ < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[pos_])) ||
                                      src_[pos_] == '_' || src_[pos_] == '.'))
            ++pos_;
        std::string_view name = src_.substr(start, pos_ - start);
        if (name == "true") return push_const(Value(true));
        if (name == "false") return push_const(Value(false));
        if (accept("(")) return call(name);
        int slot = scope_.find(name);
        if (slot < 0) {
            std::string known;
            for (const auto& [n, s] : scope_.names()) known += (known.empty() ? "" : ", ") + n;
            pos_ = start;
            fail("unknown name '{}' (known: {})", name, known);
        }
        out_.slots_used_.push_back(slot);
        emit(Op::Load, slot, +1);
    }
    void call(std::string_view name) {
        struct Fn {
            std::string_view name;
            Op op;
            int argc;
        };
        static constexpr Fn fns[] = {
            {"min", Op::Min, 2},          {"max", Op::Max, 2},          {"abs", Op::Abs, 1},
            {"ceil_div", Op::CeilDiv, 2}, {"round_up", Op::RoundUp, 2}, {"log2", Op::Log2, 1},
            {"is_pow2", Op::IsPow2, 1},   {"float", Op::ToFloat, 1},    {"int", Op::ToInt, 1},
        };
        const Fn* fn = nullptr;
        for (const Fn& f : fns)
            if (f.name == name) fn = &f;
        if (!fn) fail("unknown function '{}'", name);
        int argc = 0;
        if (!accept(")")) {
            do {
                ternary();
                ++argc;
            } while (accept(","));
            expect(")");
        }
        if (argc != fn->argc) fail("{}() takes {} argument(s), got {}", name, fn->argc, argc);
        emit(fn->op, 0, 1 - argc);
    }
};

Expr Expr::parse(std::string_view text, const Scope& scope) {
    Expr e;
    e.text_ = std::string(text);
    ExprParser(e.text_, scope, e).run();
    return e;
}

Expr Expr::constant(Value v) {
    Expr e;
    e.text_ = v.is_str() ? fmt::format("'{}'", v.as_str()) : v.to_string();
    e.consts_.push_back(v);
    e.code_.push_back({Op::Const, 0});
    e.max_depth_ = 1;
    return e;
}

int Expr::max_slot() const {
    return slots_used_.empty() ? -1 : slots_used_.back();
}

namespace {

[[noreturn]] void eval_fail(const std::string& text, const char* what) {
    throw ExprError(fmt::format("expression '{}': {}", text, what));
}

inline bool both_int(const Value& a, const Value& b) {
    return a.is_int() && b.is_int();
}

} // namespace

Value Expr::eval(const Value* slots) const {
    // Uninitialised storage: zeroing 64 Values per call would cost more than the work.
    union Slot {
        Value v;
        Slot() {}
    };
    Slot raw[64];
    Value* stack = &raw[0].v;
    static_assert(sizeof(Slot) == sizeof(Value));
    int sp = 0; // next free
    const size_t n = code_.size();
    auto num_check = [&](const Value& a, const Value& b) {
        if (a.is_str() || b.is_str()) eval_fail(text_, "arithmetic on a string");
    };
    for (size_t pc = 0; pc < n; ++pc) {
        const Instr in = code_[pc];
        switch (in.op) {
        case Op::Const:
            stack[sp++] = consts_[static_cast<size_t>(in.arg)];
            break;
        case Op::Load:
            stack[sp++] = slots[in.arg];
            break;
        case Op::Neg: {
            Value& a = stack[sp - 1];
            if (a.is_str()) eval_fail(text_, "negating a string");
            a = a.is_float() ? Value(-a.as_float()) : Value(static_cast<long long>(-a.as_int()));
            break;
        }
        case Op::Not:
            stack[sp - 1] = Value(!stack[sp - 1].truthy());
            break;
        case Op::ToBool:
            stack[sp - 1] = Value(stack[sp - 1].truthy());
            break;
        case Op::Add:
        case Op::Sub:
        case Op::Mul:
        case Op::Div:
        case Op::Mod:
        case Op::Min:
        case Op::Max:
        case Op::CeilDiv:
        case Op::RoundUp: {
            const Value b = stack[--sp];
            Value& a = stack[sp - 1];
            num_check(a, b);
            if (both_int(a, b)) {
                long long x = a.as_int(), y = b.as_int(), r = 0;
                switch (in.op) {
                case Op::Add:
                    r = x + y;
                    break;
                case Op::Sub:
                    r = x - y;
                    break;
                case Op::Mul:
                    r = x * y;
                    break;
                case Op::Min:
                    r = x < y ? x : y;
                    break;
                case Op::Max:
                    r = x > y ? x : y;
                    break;
                default:
                    if (y == 0) eval_fail(text_, "division by zero");
                    if (in.op == Op::Div)
                        r = x / y;
                    else if (in.op == Op::Mod)
                        r = x % y;
                    else if (in.op == Op::CeilDiv)
                        r = (x + y - 1) / y;
                    else
                        r = (x + y - 1) / y * y;
                }
                a = Value(r);
            } else {
                double x = a.as_float(), y = b.as_float(), r = 0;
                switch (in.op) {
                case Op::Add:
                    r = x + y;
                    break;
                case Op::Sub:
                    r = x - y;
                    break;
                case Op::Mul:
                    r = x * y;
                    break;
                case Op::Div:
                    r = x / y;
                    break;
                case Op::Mod:
                    r = std::fmod(x, y);
                    break;
                case Op::Min:
                    r = x < y ? x : y;
                    break;
                case Op::Max:
                    r = x > y ? x : y;
                    break;
                case Op::CeilDiv:
                    r = std::ceil(x / y);
                    break;
                default:
                    r = std::ceil(x / y) * y;
                }
                a = Value(r);
            }
            break;
        }
        case Op::Lt:
        case Op::Le:
        case Op::Gt:
        case Op::Ge: {
            const Value b = stack[--sp];
            Value& a = stack[sp - 1];
            num_check(a, b);
            bool r;
            if (both_int(a, b)) {
                long long x = a.as_int(), y = b.as_int();
                r = in.op == Op::Lt   ? x < y
                    : in.op == Op::Le ? x <= y
                    : in.op == Op::Gt ? x > y
                                      : x >= y;
            } else {
                double x = a.as_float(), y = b.as_float();
                r = in.op == Op::Lt   ? x < y
                    : in.op == Op::Le ? x <= y
                    : in.op == Op::Gt ? x > y
                                      : x >= y;
            }
            a = Value(r);
            break;
        }
        case Op::Eq:
        case Op::Ne: {
            const Value b = stack[--sp];
            Value& a = stack[sp - 1];
            bool eq = a == b;
            a = Value(in.op == Op::Eq ? eq : !eq);
            break;
        }
        case Op::AndJump: // keep a false left operand as the result, else evaluate the right
            if (!stack[sp - 1].truthy()) {
                stack[sp - 1] = Value(false);
                pc = static_cast<size_t>(in.arg) - 1;
            } else {
                --sp;
            }
            break;
        case Op::OrJump:
            if (stack[sp - 1].truthy()) {
                stack[sp - 1] = Value(true);
                pc = static_cast<size_t>(in.arg) - 1;
            } else {
                --sp;
            }
            break;
        case Op::JumpIfFalse:
            if (!stack[--sp].truthy()) pc = static_cast<size_t>(in.arg) - 1;
            break;
        case Op::Jump:
            pc = static_cast<size_t>(in.arg) - 1;
            break;
        case Op::Abs: {
            Value& a = stack[sp - 1];
            if (a.is_str()) eval_fail(text_, "abs of a string");
            a = a.is_float() ? Value(std::fabs(a.as_float()))
                             : Value(static_cast<long long>(std::llabs(a.as_int())));
            break;
        }
        case Op::Log2: {
            Value& a = stack[sp - 1];
            long long x = a.as_int(), r = -1;
            if (x <= 0) eval_fail(text_, "log2 of a non-positive value");
            while (x) x >>= 1, ++r;
            a = Value(r);
            break;
        }
        case Op::IsPow2: {
            long long x = stack[sp - 1].as_int();
            stack[sp - 1] = Value(x > 0 && (x & (x - 1)) == 0);
            break;
        }
        case Op::ToFloat:
            stack[sp - 1] = Value(stack[sp - 1].as_float());
            break;
        case Op::ToInt:
            stack[sp - 1] = Value(static_cast<long long>(stack[sp - 1].as_int()));
            break;
        }
    }
    if (sp != 1) eval_fail(text_, "empty expression");
    return stack[0];
}

} // namespace squall::rt
