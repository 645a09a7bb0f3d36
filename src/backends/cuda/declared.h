#pragma once
// The members of a kernel struct as its declare() lists them (kernels/declare.cuh): the
// single source of the NVRTC parameters, the capture layout and the test fills. Reading a
// declaration also checks it against the struct: each member must sit exactly where the
// previous one ends (after natural alignment) and the last must end the struct, so a
// member left out, listed twice or out of order throws, naming the kernel and member.
#include "kernels/kernel.cuh"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace squall::gpu {

enum class Shape { field, profile, plane, buffer, real, integer };

struct Member {
    std::string name;
    Shape shape;
    sq::Use use;
    size_t offset, size;
    bool pointer() const { return shape != Shape::real && shape != Shape::integer; }
};

// The declarer handed to F::declare: records each member's offset from the struct.
class Declarer {
public:
    Declarer(const char* kernel, const void* base) : kernel_(kernel), base_(base) {}

    template <class M>
    Declarer& field(const char* name, const M& m, sq::Use use = sq::Use::in) {
        return pointer(name, m, Shape::field, use);
    }
    template <class M>
    Declarer& profile(const char* name, const M& m, sq::Use use = sq::Use::in) {
        return pointer(name, m, Shape::profile, use);
    }
    template <class M>
    Declarer& plane(const char* name, const M& m, sq::Use use = sq::Use::in) {
        return pointer(name, m, Shape::plane, use);
    }
    template <class M>
    Declarer& buffer(const char* name, const M& m, sq::Use use = sq::Use::in) {
        return pointer(name, m, Shape::buffer, use);
    }
    template <class M>
    Declarer& scalar(const char* name, const M& m) {
        static_assert(std::is_arithmetic_v<M>, "scalar(): a value of the precision or an int");
        return add(name, &m, sizeof m, std::is_integral_v<M> ? Shape::integer : Shape::real,
                   sq::Use::in);
    }
    // Runs of read members of one kind: fields(SQ_ARG(u), SQ_ARG(v)) and so on.
    template <class M, class... R>
    Declarer& fields(const char* name, const M& m, const R&... rest) {
        field(name, m);
        if constexpr (sizeof...(R) > 0) fields(rest...);
        return *this;
    }
    template <class M, class... R>
    Declarer& profiles(const char* name, const M& m, const R&... rest) {
        profile(name, m);
        if constexpr (sizeof...(R) > 0) profiles(rest...);
        return *this;
    }
    template <class M, class... R>
    Declarer& planes(const char* name, const M& m, const R&... rest) {
        plane(name, m);
        if constexpr (sizeof...(R) > 0) planes(rest...);
        return *this;
    }
    template <class M, class... R>
    Declarer& buffers(const char* name, const M& m, const R&... rest) {
        buffer(name, m);
        if constexpr (sizeof...(R) > 0) buffers(rest...);
        return *this;
    }
    template <class M, class... R>
    Declarer& scalars(const char* name, const M& m, const R&... rest) {
        scalar(name, m);
        if constexpr (sizeof...(R) > 0) scalars(rest...);
        return *this;
    }

    // The members, once the declaration ends; checks them against the struct's size and
    // its number of members.
    std::vector<Member> finish(size_t struct_size, size_t struct_members) &&;

private:
    template <class M>
    Declarer& pointer(const char* name, const M& m, Shape shape, sq::Use use) {
        static_assert(
            requires { *m; }, "field/profile/plane/buffer(): a pointer member");
        using Pointee = std::remove_reference_t<decltype(*m)>;
        if (std::is_const_v<Pointee> != (use == sq::Use::in)) mismatch(name, use);
        return add(name, &m, sizeof m, shape, use);
    }
    Declarer& add(const char* name, const void* at, size_t size, Shape shape, sq::Use use);
    [[noreturn]] void mismatch(const char* name, sq::Use use) const;

    const char* kernel_;
    const void* base_;
    std::vector<Member> members_;
};

// F's members, read from its declaration and checked; throws std::logic_error when the
// declaration and the struct disagree.
template <class F>
std::vector<Member> declared_members() {
    const F f{};
    Declarer d(F::name, &f);
    f.declare(d);
    return std::move(d).finish(sizeof(F), size_t(sq::contract::aggregate_members<F>()));
}

template <class F>
constexpr std::string_view pretty_name() {
    return __PRETTY_FUNCTION__;
}
// The C++ spelling of F for NVRTC's name expression, from the compiler's pretty name
// ("... [with F = sq::AdvecU2i5<double>; ...]").
template <class F>
std::string type_name() {
    const std::string_view p = pretty_name<F>();
    const size_t a = p.find("F = ") + 4;
    return std::string(p.substr(a, p.find_first_of(";]", a) - a));
}

template <class F>
constexpr bool has_declaration = requires(const F& f, Declarer& d) {
    f.declare(d);
};

} // namespace squall::gpu
