#include "backends/cuda/kernel_defs.h"

#include "backends/cuda/traverse_defs.h"
#include "embedded/gpu_kernel_sources.h"
#include "runtime/term.h"

#include <stdexcept>

namespace squall::gpu {

namespace {

const char* const kMainFile = "src/backends/cuda/all_kernels.cuh"; // generated, see below

// The element type of a precision, and of a member (pointers: what they point to).
rt::DType real_dtype(const std::string& prec) {
    return prec == "float" ? rt::DType::f32 : rt::DType::f64;
}
rt::DType member_dtype(const Member& m, const std::string& prec) {
    return m.shape == Shape::integer ? rt::DType::i32 : real_dtype(prec);
}
rt::Access member_access(const Member& m) {
    return m.use == sq::Use::inout ? rt::Access::inout
           : m.use == sq::Use::out ? rt::Access::out
                                   : rt::Access::in;
}

// Kernels taking their struct as one parameter: the struct and what lies in it, so that
// SQUALL_CAPTURE can save it (every array as its whole allocation). Reductions add the
// per-block partial results they write.
void add_struct_args(rt::KernelDef& d, const KernelType& t) {
    if (t.members.empty()) return;
    d.arg_struct("f", t.size);
    for (const Member& m : t.members) {
        const rt::DType type = member_dtype(m, t.prec);
        if (m.pointer())
            d.member_array(m.name, type, member_access(m), rt::whole_allocation, m.offset);
        else
            d.member_scalar(m.name, type, m.offset);
    }
    if (t.form == Form::reduce_sum)
        d.arg_array("partial", rt::DType::f64, rt::Access::out, rt::whole_allocation,
                    rt::Partials::sum);
    else if (t.form == Form::reduce_max)
        d.arg_array("partial", real_dtype(t.prec), rt::Access::out, rt::whole_allocation,
                    rt::Partials::max);
}

} // namespace

// The embedded headers plus a generated main file that includes every kernels/*.cuh
// (so a new kernel header needs no edit here) and then the traversal.
rt::SourcesPtr kernel_sources() {
    static const rt::SourcesPtr sources = [] {
        auto set = std::make_shared<rt::SourceSet>(*squall::embedded::gpu_kernel_sources());
        std::string main = "#pragma once\n";
        for (const auto& [path, text] : set->files())
            if (path.rfind("kernels/", 0) == 0) main += "#include \"" + path.substr(8) + "\"\n";
        main += "#include \"traverse.cuh\"\n";
        set->add(kMainFile, main);
        return rt::SourcesPtr(std::move(set));
    }();
    return sources;
}

rt::KernelDef make_def(const KernelType& t, const Variant& v) {
    using rt::P;
    const sq::Range3& r = v.range;
    const bool flat = t.flat();
    const char* fn = t.form == Form::traverse2d   ? "sq_traverse_2d"
                     : t.form == Form::traverse3d ? (flat ? "sq_traverse_flat" : "sq_traverse")
                                                  : "sq_reduce";
    rt::KernelDef d(fn, kernel_sources(), kMainFile);
    d.tuning_key(t.name, t.prec);
    // Unannotated functions are device code: NVRTC otherwise takes a generic lambda's call
    // operator (planes.cuh's static_for) for a host function.
    d.compiler_flags({"-default-device"});
    d.define("SQ_I0", r.i0).define("SQ_J0", r.j0).define("SQ_K0", r.k0);
    d.define("SQ_NI", rt::problem_x()).define("SQ_NJ", rt::problem_y());
    d.define("SQ_NK", rt::problem_z());
    d.define("SQ_JJ", v.jj).define("SQ_KK", v.kk);
    switch (t.form) {
    case Form::traverse3d:
        add_traverse3d(d, t);
        break;
    case Form::traverse2d:
        d.tune("block_x", {32, 64, 128, 256}, 128)
            .tune("block_y", {1, 2, 4, 8}, 1)
            .restriction(P("block_x") * P("block_y") <= 1024)
            .define("SQ_2D", 1)
            .block_size(P("block_x"), P("block_y"))
            // Every block size launches, whatever a column kernel's registers (the float
            // Thomas solve's chunk of levels takes 150).
            .launch_bounds(P("block_x") * P("block_y"));
        break;
    case Form::reduce_max:
    case Form::reduce_sum:
        d.tune("block_x", {128, 256, 512}, 256)
            .define("SQ_REDUCE", 1)
            .define("SQ_BX", P("block_x"))
            .block_size(P("block_x"))
            .grid_size(min(
                ceil_div(rt::problem_x() * rt::problem_y() * rt::problem_z(), P("block_x")), 1024));
        break;
    }
    if (t.form == Form::reduce_max || t.form == Form::reduce_sum) {
        const bool sum = t.form == Form::reduce_sum;
        d.template_args(t.cpp_type, sum ? "double" : t.prec, sum ? "1" : "0");
        add_struct_args(d, t);
        return d;
    }
    d.template_args(t.cpp_type);
    if (!flat) {
        add_struct_args(d, t);
        return d;
    }

    // Parameters, aggregate initialiser and argument layout from the declaration.
    std::string params, init;
    for (const Member& m : t.members) {
        const std::string type = m.shape == Shape::integer ? "int"
                                 : m.shape == Shape::real  ? t.prec
                                 : m.use != sq::Use::in    ? t.prec + "*"
                                                           : "const " + t.prec + "*";
        // __restrict__ as on the struct's members (the kernels' contract): on parameters
        // the compiler honours it, so loads go through the read-only path. (Repeated loads
        // across a tile's points are merged only when no store comes between: SQ_DEFER.)
        params +=
            (params.empty() ? "" : ", ") + type + (m.pointer() ? " __restrict__ " : " ") + m.name;
        // The strides come from the variant's constants so that index arithmetic folds.
        const std::string value = m.name == "jj" ? "SQ_JJ" : m.name == "kk" ? "SQ_KK" : m.name;
        init += (init.empty() ? "" : ", ") + value;
        if (m.pointer())
            d.arg_array(m.name, member_dtype(m, t.prec), member_access(m), rt::whole_allocation);
        else
            d.arg_scalar(m.name, member_dtype(m, t.prec));
    }
    d.arg_scalar("sq_nlev", rt::DType::i32);
    d.define("SQ_FLAT_PARAMS", params).define("SQ_FLAT_INIT", init);
    if (d.space().param_index("planes") >= 0) add_plane_maps(d, t, v);
    return d;
}

rt::KernelDef make_reduce_final_def(const std::string& acc_type, int op) {
    rt::KernelDef d("sq_reduce_final", kernel_sources(), kMainFile);
    d.tuning_key(op == 0 ? "reduce_final_max" : "reduce_final_sum", acc_type);
    d.compiler_flags({"-default-device"}); // the same program text as make_def's
    d.tune("block_x", {256}, 256);
    for (const char* n : {"SQ_I0", "SQ_J0", "SQ_K0", "SQ_NI", "SQ_NJ", "SQ_NK", "SQ_JJ", "SQ_KK"})
        d.define(n, 1);
    d.define("SQ_REDUCE", 1).define("SQ_BX", rt::P("block_x"));
    d.template_args(acc_type, op == 0 ? "0" : "1").block_size(rt::P("block_x")).grid_size(1);
    // The partials and the result share one scratch allocation (capture saves it once).
    const rt::DType at = real_dtype(acc_type);
    d.arg_array("partial", at, rt::Access::in, rt::whole_allocation)
        .arg_scalar("n", rt::DType::i32)
        .arg_array("out", at, rt::Access::out, rt::whole_allocation);
    return d;
}

} // namespace squall::gpu
