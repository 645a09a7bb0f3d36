// Expr::compile: a typed term to the bytecode ExprParser emits for the term's text,
// with names resolved and the kinds of every operation checked on the way.
#include "runtime/term.h"

#include <fmt/format.h>

#include <algorithm>

namespace squall::rt {

namespace {

constexpr Kinds number_kinds = int_kind | float_kind | bool_kind;
constexpr Kinds integer_kinds = int_kind | bool_kind;

// Kinds of a result computed the way Expr::eval does: integer when both operands are
// integers (bools count), float when either is a float.
Kinds arithmetic_kinds(Kinds a, Kinds b) {
    return static_cast<Kinds>(((a & integer_kinds) && (b & integer_kinds) ? int_kind : 0) |
                              ((a & float_kind) || (b & float_kind) ? float_kind : 0));
}

// Both may be numbers, or both may be strings: anything else never compares equal.
bool comparable(Kinds a, Kinds b) {
    return ((a & number_kinds) && (b & number_kinds)) || ((a & str_kind) && (b & str_kind));
}

const char* op_name(Expr::Op op) {
    using Op = Expr::Op;
    switch (op) {
    case Op::Neg:
        return "'-'";
    case Op::Not:
        return "'!'";
    case Op::Add:
        return "'+'";
    case Op::Sub:
        return "'-'";
    case Op::Mul:
        return "'*'";
    case Op::Div:
        return "'/'";
    case Op::Mod:
        return "'%'";
    case Op::Lt:
        return "'<'";
    case Op::Le:
        return "'<='";
    case Op::Gt:
        return "'>'";
    case Op::Ge:
        return "'>='";
    case Op::Eq:
        return "'=='";
    case Op::Ne:
        return "'!='";
    case Op::AndJump:
        return "'&&'";
    case Op::OrJump:
        return "'||'";
    default:
        return "the operation";
    }
}

} // namespace

class TermLowering {
public:
    TermLowering(const Scope& scope, Expr& out) : scope_(scope), out_(out) {}

    void run(const Term& t) {
        out_.kinds_ = lower(t);
        auto& used = out_.slots_used_;
        std::sort(used.begin(), used.end());
        used.erase(std::unique(used.begin(), used.end()), used.end());
    }

private:
    using Op = Expr::Op;
    using Kind = Term::Node::Kind;
    static constexpr int max_stack = 64; // Expr::eval's stack

    const Scope& scope_;
    Expr& out_;
    int depth_ = 0;

    [[noreturn]] void fail(const Term& at, const std::string& what) const {
        const std::string sub = at.to_string();
        if (sub == out_.text_)
            throw ExprError(fmt::format("expression '{}': {}", out_.text_, what));
        throw ExprError(fmt::format("expression '{}', in '{}': {}", out_.text_, sub, what));
    }
    // Throws unless the operand may have one of the allowed kinds.
    void need(const Term& at, const char* op, const Term& operand, Kinds k, Kinds allowed) const {
        if (k & allowed) return;
        fail(at, fmt::format("{} needs {}, but '{}' is {}", op, kinds_name(allowed),
                             operand.to_string(), kinds_name(k)));
    }

    size_t emit(const Term& at, Op op, int32_t arg, int stack_delta) {
        out_.code_.push_back({op, arg});
        depth_ += stack_delta;
        if (depth_ > max_stack) fail(at, "expression too deeply nested");
        out_.max_depth_ = std::max(out_.max_depth_, depth_);
        return out_.code_.size() - 1;
    }
    void patch(size_t at) { out_.code_[at].arg = static_cast<int32_t>(out_.code_.size()); }

    Kinds lower(const Term& t) {
        const Term::Node& n = t.node();
        switch (n.kind) {
        case Kind::Literal:
            out_.consts_.push_back(n.value);
            emit(t, Op::Const, static_cast<int32_t>(out_.consts_.size() - 1), +1);
            return kind_bit(n.value.kind());
        case Kind::Name:
            return load(t, n.text);
        case Kind::Unary:
            return unary(t, n);
        case Kind::Binary:
            return binary(t, n);
        case Kind::Select:
            return select(t, n);
        case Kind::Call:
            return call(t, n);
        }
        fail(t, "internal: unknown term kind");
    }

    Kinds load(const Term& t, const std::string& name) {
        const int slot = scope_.find(name);
        if (slot < 0) {
            // Parameters are what a definition misspells; list them, not device.*.
            std::string params;
            for (const auto& [known, s] : scope_.names())
                if (known.rfind("problem.", 0) != 0 && known.rfind("device.", 0) != 0)
                    params += (params.empty() ? "" : ", ") + known;
            fail(t, fmt::format("unknown name '{}' (parameters declared so far: {})", name,
                                params.empty() ? "none" : params));
        }
        out_.slots_used_.push_back(slot);
        emit(t, Op::Load, slot, +1);
        return scope_.kinds(slot);
    }

    Kinds unary(const Term& t, const Term::Node& n) {
        const Kinds a = lower(n.a);
        emit(t, n.op, 0, 0);
        need(t, op_name(n.op), n.a, a, number_kinds);
        if (n.op == Op::Not) return bool_kind;
        return static_cast<Kinds>(((a & integer_kinds) ? int_kind : 0) | (a & float_kind));
    }

    Kinds binary(const Term& t, const Term::Node& n) {
        const char* name = op_name(n.op);
        if (n.op == Op::AndJump || n.op == Op::OrJump) {
            // As the parser: a false (true) left operand is the result, else the right's.
            need(t, name, n.a, lower(n.a), number_kinds);
            const size_t j = emit(t, n.op, 0, -1);
            need(t, name, n.b, lower(n.b), number_kinds);
            emit(t, Op::ToBool, 0, 0);
            patch(j);
            return bool_kind;
        }
        const Kinds a = lower(n.a), b = lower(n.b);
        emit(t, n.op, 0, -1);
        if (n.op == Op::Eq || n.op == Op::Ne) {
            if (!comparable(a, b))
                fail(t, fmt::format("{} compares '{}' ({}) with '{}' ({}), which are never equal",
                                    name, n.a.to_string(), kinds_name(a), n.b.to_string(),
                                    kinds_name(b)));
            return bool_kind;
        }
        need(t, name, n.a, a, number_kinds);
        need(t, name, n.b, b, number_kinds);
        if (n.op == Op::Lt || n.op == Op::Le || n.op == Op::Gt || n.op == Op::Ge) return bool_kind;
        return arithmetic_kinds(a, b);
    }

    Kinds select(const Term& t, const Term::Node& n) {
        need(t, "the condition of '?:'", n.a, lower(n.a), number_kinds);
        const size_t jf = emit(t, Op::JumpIfFalse, 0, -1);
        const Kinds a = lower(n.b);
        const size_t j = emit(t, Op::Jump, 0, -1); // the other branch pushes the result
        patch(jf);
        const Kinds b = lower(n.c);
        patch(j);
        if (!comparable(a, b))
            fail(t,
                 fmt::format("the branches of '?:' are {} and {}", kinds_name(a), kinds_name(b)));
        return static_cast<Kinds>(a | b);
    }

    Kinds call(const Term& t, const Term::Node& n) {
        const std::string fn = n.text + "()";
        const Kinds a = lower(n.a);
        if (n.b.empty()) {
            emit(t, n.op, 0, 0);
            if (n.op == Op::Log2 || n.op == Op::IsPow2) {
                need(t, fn.c_str(), n.a, a, integer_kinds);
                return n.op == Op::Log2 ? int_kind : bool_kind;
            }
            need(t, fn.c_str(), n.a, a, number_kinds);
            if (n.op == Op::ToFloat) return float_kind;
            if (n.op == Op::ToInt) return int_kind;
            return static_cast<Kinds>(((a & integer_kinds) ? int_kind : 0) | (a & float_kind));
        }
        const Kinds b = lower(n.b);
        emit(t, n.op, 0, -1);
        need(t, fn.c_str(), n.a, a, number_kinds);
        need(t, fn.c_str(), n.b, b, number_kinds);
        return arithmetic_kinds(a, b);
    }
};

Expr Expr::compile(const Term& term, const Scope& scope) {
    Expr e;
    e.text_ = term.to_string();
    TermLowering(scope, e).run(term);
    return e;
}

} // namespace squall::rt
