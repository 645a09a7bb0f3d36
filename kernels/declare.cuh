#pragma once
// The one declaration of a kernel's members. Each kernel struct lists its members once,
// in member order, with what each one is:
//
//     template <class D>
//     void declare(D& d) const {
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
// updated (inout).

// A member and its name, for declare(): SQ_ARG(ut) is "ut", ut.
#define SQ_ARG(member) #member, member

namespace sq {

enum class Use : unsigned char { in, out, inout };

// Every kernel of a header, for code that iterates over all of them (tests, benchmarks).
template <template <class> class... K>
struct KernelList {};

} // namespace sq
