// The one declaration of each kernel's members (kernels/declare.cuh) against its struct:
// every shipped kernel's declaration is read without error, and declarations that
// disagree with their struct (a member swapped, left out or with the wrong use) are
// refused with a message naming the kernel and the member.
#include "backends/cuda/declared.h"
#include "kernel_list.h"
#include "kernels/vorticity.cuh"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace squall::gpu::testing {
namespace {

template <template <class> class... K>
int check_all(KernelList<K...>) {
    int count = 0;
    auto one = [&](auto* f) {
        using F = std::remove_pointer_t<decltype(f)>;
        const std::vector<Member> m = declared_members<F>();
        std::set<std::string> names;
        for (const Member& x : m) names.insert(x.name);
        EXPECT_EQ(names.size(), m.size()) << F::name << ": a name listed twice";
        EXPECT_FALSE(m.empty()) << F::name;
        ++count;
    };
    (one(static_cast<K<float>*>(nullptr)), ...);
    (one(static_cast<K<double>*>(nullptr)), ...);
    return count;
}

TEST(Declare, EveryKernelMatchesItsStruct) {
    // That the lists hold every kernel is tests/kernels/contract's to check.
    EXPECT_EQ(check_all(AllKernels{}), 2 * list_size(AllKernels{}));
    EXPECT_EQ(check_all(sq::VorticityKernels{}), 2 * list_size(sq::VorticityKernels{}));
}

// Kernels whose declaration disagrees with the struct, as a kernel author might write them.
struct Swapped { // two pointers of the same size in the wrong order
    static constexpr const char* name = "swapped";
    double* out;
    const double* in;
    int jj;
    template <class D>
    void declare(D& d) const {
        d.field(SQ_ARG(in)).field(SQ_ARG(out), sq::Use::out).scalar(SQ_ARG(jj));
    }
};
struct MissingMiddle {
    static constexpr const char* name = "missing_middle";
    double* out;
    const double* in;
    double scale;
    template <class D>
    void declare(D& d) const {
        d.field(SQ_ARG(out), sq::Use::out).scalar(SQ_ARG(scale));
    }
};
struct MissingLastInt { // hidden by the struct's tail padding: only the member count tells
    static constexpr const char* name = "missing_last_int";
    double* out;
    int jj;
    int kstart;
    template <class D>
    void declare(D& d) const {
        d.field(SQ_ARG(out), sq::Use::inout).scalar(SQ_ARG(jj));
    }
};
struct WrittenAsRead {
    static constexpr const char* name = "written_as_read";
    double* out;
    template <class D>
    void declare(D& d) const {
        d.field(SQ_ARG(out));
    }
};
struct ReadAsWritten {
    static constexpr const char* name = "read_as_written";
    const double* in;
    template <class D>
    void declare(D& d) const {
        d.field(SQ_ARG(in), sq::Use::inout);
    }
};
struct Correct {
    static constexpr const char* name = "correct";
    double* out;
    const double* in;
    int jj, kk;
    int kstart;
    template <class D>
    void declare(D& d) const {
        d.field(SQ_ARG(out), sq::Use::out).field(SQ_ARG(in)).scalars(SQ_ARG(jj), SQ_ARG(kk));
        d.scalar(SQ_ARG(kstart));
    }
};

// The message of the std::logic_error that reading F's declaration throws ("" if none).
template <class F>
std::string refusal() {
    try {
        declared_members<F>();
    } catch (const std::logic_error& e) {
        return e.what();
    }
    return "";
}

TEST(Declare, RefusesASwappedMember) {
    const std::string e = refusal<Swapped>();
    EXPECT_NE(e.find("'swapped'"), std::string::npos) << e;
    EXPECT_NE(e.find("'in'"), std::string::npos) << e;
}

TEST(Declare, RefusesAMissingMember) {
    EXPECT_NE(refusal<MissingMiddle>().find("'missing_middle'"), std::string::npos);
    const std::string e = refusal<MissingLastInt>();
    EXPECT_NE(e.find("lists 2 members, but the struct has 3"), std::string::npos) << e;
}

TEST(Declare, RefusesAWrongUse) {
    EXPECT_NE(refusal<WrittenAsRead>().find("'out' declared 'in'"), std::string::npos);
    EXPECT_NE(refusal<ReadAsWritten>().find("'in' declared 'inout'"), std::string::npos);
}

TEST(Declare, ReadsOffsetsShapesAndUses) {
    const std::vector<Member> m = declared_members<Correct>();
    ASSERT_EQ(m.size(), 5u);
    EXPECT_EQ(m[0].name, "out");
    EXPECT_EQ(m[1].offset, offsetof(Correct, in));
    EXPECT_EQ(m[4].offset, offsetof(Correct, kstart));
    EXPECT_EQ(m[0].use, sq::Use::out);
    EXPECT_EQ(m[1].use, sq::Use::in);
    EXPECT_EQ(m[3].shape, Shape::integer);
    EXPECT_TRUE(m[1].pointer());
    EXPECT_FALSE(m[2].pointer());
}

} // namespace
} // namespace squall::gpu::testing
