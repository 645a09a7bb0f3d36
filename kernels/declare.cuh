#pragma once
// The one declaration of a kernel's members. Each kernel struct lists its members once,
// in member order, with what each one is:
//
//     template <class D>
//     SQ_HD constexpr void declare(D& d) const {
//         d.field(SQ_ARG(ut), sq::Use::inout).field(SQ_ARG(u)).profile(SQ_ARG(dzi));
//         d.scalar(SQ_ARG(dxi)).scalar(SQ_ARG(jj));
//     }
//
// The GPU backend derives everything else from it (the NVRTC parameters, the capture
// layout, the test lists) and checks every member's offset against the struct, so a
// member left out or listed out of order is an error, not a silent misread. The declarer
// D is host code (backends/cuda/declared.h); kernels only name the shapes.
//   field    3-D array of the model's layout (ghost cells, leading pad)
//   profile  1-D array by level k (metrics, reference profiles)
//   plane    2-D array by column ij (surface values, fluxes); may be null
//   buffer   packed halo buffer
//   scalar   a value of the precision, or an int
// A const pointer is read; a non-const one must say whether it is written (out) or
// updated (inout). declare() is SQ_HD only because NVRTC refuses unannotated functions;
// it is instantiated on the host alone.

// A member and its name, for declare(): SQ_ARG(ut) is "ut", ut.
#define SQ_ARG(member) #member, member

namespace sq {

enum class Use : unsigned char { in, out, inout };

// What a kernel states about itself besides its members, in one member:
//
//     static constexpr sq::Traits traits{.on_w_levels = true, .wall_levels = 3};
//
// The fields are designated initialisers, so a misspelt trait does not compile (a misspelt
// static member once turned a path off in silence).
struct Traits {
    // Runs on the w faces between the walls, kstart+1 <= k < kend (else kstart <= k < kend).
    bool on_w_levels = false;
    // Branches on k only within this many levels of kstart or kend - 1 (-1: no branch on
    // k). Away from the walls the GPU traversal promises the compiler so; a wrong value
    // gives wrong results near the walls (tests/backends/cuda/test_wall_levels).
    int wall_levels = -1;
    // The CPU backend runs the rows away from the walls with the walls moved out of reach,
    // so that they vectorise (backends/cpu/cpu_launch.h); only for kernels whose results
    // that leaves bitwise unchanged (tests/backends/cpu/test_cpu_rows).
    bool promise_interior = false;
    // A reduction whose point values are summed (else their maximum is taken).
    bool summed = false;
};

// F's traits, or the defaults for a kernel that states none.
template <class F>
SQ_HD constexpr auto traits_of(int) -> decltype(F::traits) {
    return F::traits;
}
template <class F>
SQ_HD constexpr Traits traits_of(long) {
    return Traits{};
}
template <class F>
inline constexpr Traits traits_v = traits_of<F>(0);

// The precision T of a kernel struct: K<T>, K<T, Tag> or K<T, staggering> (declarations
// for decltype only; backends use precision_t).
template <template <class> class K, class T>
SQ_HD T precision_of(const K<T>*);
template <template <class, class> class K, class T, class Tag>
SQ_HD T precision_of(const K<T, Tag>*);
template <template <class, auto> class K, class T, auto V>
SQ_HD T precision_of(const K<T, V>*);
template <class F>
using precision_t = decltype(precision_of(static_cast<const F*>(nullptr)));

// Every kernel of a header, for code that iterates over all of them (tests, benchmarks).
template <template <class> class... K>
struct KernelList {};

} // namespace sq
