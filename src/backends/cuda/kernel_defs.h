#pragma once
// Kernel definitions of the GPU backend, built generically from a kernel struct's name,
// C++ type and precision: one tuning key per (struct, precision), "<name>_<float|double>".
#include "backends/cuda/declared.h"
#include "kernels/common.cuh"
#include "runtime/kernel_def.h"

#include <cstddef>
#include <string>
#include <vector>

namespace squall::gpu {

// How a kernel struct is mapped onto threads.
enum class Form { traverse3d, traverse2d, reduce_max, reduce_sum };

// What the launching template knows about a kernel struct F.
struct KernelType {
    std::string name;     // F::name, e.g. "advec_u_2i5"
    std::string cpp_type; // "sq::AdvecU2i5<double>"
    std::string prec;     // "float" or "double"
    size_t size = 0;      // sizeof(F)
    Form form = Form::traverse3d;
    std::vector<Member> members{}; // F's declaration (kernels/declare.cuh), in member order
    bool deferrable = false;       // has value(i, j, k) and store(i, j, k, v): deferred stores
    // The planes traversal (planes.cuh), for kernels that declare plane_inputs: each
    // input's member (index into members) and box ((X + extra_x) x (Y + extra_y) for an X x Y
    // tile), the levels read ahead and the tensor maps' origin shift (elements left of the range's
    // first column).
    struct PlaneBox {
        int member, extra_x, extra_y;
    };
    std::vector<PlaneBox> plane_boxes{};
    int plane_lookahead = 0, plane_shift = 0;
    bool plane_carry = false; // F has the z-carry form (tunable plane_carry)
    std::string key() const { return name + "_" + prec; }
    // A declared 3-D kernel takes its members as separate parameters (plus the level count
    // used for capture sizes), so that SQUALL_CAPTURE can describe and save every array;
    // the others take the struct as one parameter.
    bool flat() const { return form == Form::traverse3d && !members.empty(); }
};

// The compile-time constants of one variant besides the tunables.
struct Variant {
    sq::Range3 range;
    int jj = 0, kk = 0;
};

// The definition of one variant (tunables, restrictions, defines, geometry, arguments).
rt::KernelDef make_def(const KernelType& t, const Variant& v);

// Second pass of a reduction over `partials` per-block values; OP 0: max, 1: sum.
rt::KernelDef make_reduce_final_def(const std::string& acc_type, int op);

// The embedded sources (kernels/*.cuh and the traversal).
rt::SourcesPtr kernel_sources();

} // namespace squall::gpu
