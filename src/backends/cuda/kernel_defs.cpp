#include "backends/cuda/kernel_defs.h"

#include "backends/cuda/stage.cuh"
#include "backends/cuda/traverse_space.h"
#include "embedded/gpu_kernel_sources.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
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
        d.arg_array("partial", rt::DType::f64, rt::Access::out, rt::whole_allocation);
    else if (t.form == Form::reduce_max)
        d.arg_array("partial", real_dtype(t.prec), rt::Access::out, rt::whole_allocation);
}

// Shared-memory staging (stage.cuh): the block marches stage_levels levels over an x-y
// chunk of one level (no z tiles or blocks, no y marching), with deferred stores.
void add_staging(rt::KernelDef& d) {
    d.tune("stage", {0, 1}, 0)
        .tune("stage_levels", {16, 32, 64, 128, 256}, 64)
        .tune("stage_depth", {1, 2, 3}, 2)
        .restriction("stage == 0 || (block_z == 1 && tile_z == 1 && march_y == 1 && "
                     "march_z == 1 && defer == 1)")
        .restriction("stage == 1 || (stage_levels == 64 && stage_depth == 2)")
        .define("SQ_STAGE", rt::expr("stage"))
        .define("SQ_STAGE_DEPTH", rt::expr("stage_depth"));
}

// How staging fills its planes (stage.cuh): 0 cp.async per element, 1 bulk row copies
// (sm_90), for which the box reaches lx, the reach rounded up to 16 bytes, to each side in
// x and whose mbarriers take 8 bytes per level in flight besides. Declared after every
// other tunable, so older wisdom files stay a prefix of the parameter list.
// Returns the dynamic shared memory it needs (0 unless stage == 1).
std::string add_stage_fill(rt::KernelDef& d, const KernelType& t) {
    const int size = t.prec == "float" ? 4 : 8, reach = t.stage_reach;
    const std::string bytes = fmt::format(
        "stage * {} * (block_x * tile_x + (stage_fill ? {} : {})) * (block_y * tile_y + {}) * "
        "({} + {} * stage_depth)",
        size, 2 * sq::stage_reach_x(reach, size, true), 2 * sq::stage_reach_x(reach, size, false),
        2 * reach, t.stage_planes, t.stage_fields);
    d.tune("stage_fill", {0, 1}, 0)
        .restriction("stage == 1 || stage_fill == 0")
        .restriction("stage_fill == 0 || device.compute_capability >= 90")
        .restriction(bytes + " + 8 * (stage_depth + 1) * stage_fill <= " +
                     "device.max_shared_memory_per_block_optin")
        .define("SQ_STAGE_FILL", rt::expr("stage_fill"));
    return bytes;
}

// The planes traversal (planes.cuh, sm_90): a block marches plane_levels levels of a
// block_x x (block_y * tile_y) column tile, one thread per column, its inputs' planes
// brought in by the copy engine into a ring of plane_ring levels, through tensor maps the
// runtime encodes at launch (origin plane_shift elements left of the range's first column,
// extents the whole array). Declared after every other tunable. plane_ring and plane_levels
// are left free when planes == 0 (they change nothing then, and the program text is the
// same): a restriction pinning them would leave so few valid points in the raw space that
// uniform sampling falls back to enumerating it.
// Returns the dynamic shared memory it needs (0 unless planes == 1).
std::string add_planes(rt::KernelDef& d, const KernelType& t) {
    const int size = t.prec == "float" ? 4 : 8, ring = t.plane_lookahead + 2;
    std::string slot, boxes;
    for (const KernelType::PlaneBox& b : t.plane_boxes) {
        slot += fmt::format("{}ceil_div((block_x + {}) * (block_y * tile_y + {}) * {}, 128) * 128",
                            slot.empty() ? "" : " + ", b.extra_x, b.extra_y, size);
        boxes += fmt::format(" && block_x + {} <= 256 && block_y * tile_y + {} <= 256", b.extra_x,
                             b.extra_y);
    }
    const std::string bytes = fmt::format("planes * (plane_ring * ({}) + 128)", slot);
    d.tune("planes", {0, 1}, 0)
        .tune("plane_ring", {ring, ring + 1, ring + 2}, ring)
        .tune("plane_levels", {32, 64, 128, 256, 512}, 128)
        .restriction("planes == 0 || (block_z == 1 && tile_x == 1 && tile_z == 1 && "
                     "march_y == 1 && march_z == 1 && stage == 0 && defer == 0 && "
                     "(tile_y == 1 || contig_y == 1))")
        .restriction("planes == 0 || device.compute_capability >= 90")
        .restriction("planes == 0 || (1" + boxes + ")")
        .restriction(bytes + " + 8 * plane_ring <= device.max_shared_memory_per_block_optin")
        .define("SQ_PLANES", rt::expr("planes"))
        .define("SQ_PLANE_RING", rt::expr("planes ? plane_ring : 0"));
    return bytes;
}

// The tensor maps of the planes traversal's inputs (after the arguments they refer to).
void add_plane_maps(rt::KernelDef& d, const KernelType& t, const Variant& v) {
    const long long jj = v.jj, rows = v.kk / v.jj, levels = v.range.k1 + 1;
    for (const KernelType::PlaneBox& b : t.plane_boxes)
        d.tensor_map(t.members[size_t(b.member)].name, v.range.i0 - t.plane_shift,
                     {jj, rows, levels},
                     {fmt::format("block_x + {}", b.extra_x),
                      fmt::format("block_y * tile_y + {}", b.extra_y), "1"},
                     "planes");
}

void add_traverse3d(rt::KernelDef& d, const KernelType& t, bool flat) {
    const bool deferrable = t.deferrable;
    namespace sp = space;
    auto values = [](const auto& a) { return std::vector<rt::Value>(a.begin(), a.end()); };
    d.tune("block_x", values(sp::block_x), 256)
        .tune("block_y", values(sp::block_y), 1)
        .tune("block_z", values(sp::block_z), 1)
        .tune("tile_x", values(sp::tile_x), 1)
        .tune("tile_y", values(sp::tile_y), 1)
        .tune("tile_z", values(sp::tile_z), 1)
        .tune("contig_x", {0, 1}, 0)
        .tune("contig_y", {0, 1}, 0)
        .tune("contig_z", {0, 1}, 0)
        .tune("unroll", {1, 0}, 1)
        .tune("perm", {0, 1, 2, 3, 4, 5}, 0)
        .tune("blocks_per_sm", values(sp::blocks_per_sm), 1)
        .restriction(fmt::format("block_x * block_y * block_z >= {} && "
                                 "block_x * block_y * block_z <= {}",
                                 sp::min_threads, sp::max_threads))
        .restriction(fmt::format("block_x * block_y * block_z * blocks_per_sm <= {}",
                                 sp::max_threads_per_sm))
        .restriction(fmt::format("tile_x * tile_y * tile_z <= {}", sp::max_points_per_thread))
        .restriction("tile_x > 1 || contig_x == 0")
        .restriction("tile_y > 1 || contig_y == 0")
        .restriction("tile_z > 1 || contig_z == 0");
    // Deferred stores (traverse.cuh, trav_tile): the tile's values live in registers, so
    // the tile loops must be unrolled.
    if (deferrable)
        d.tune("defer", {0, 1}, 0)
            .restriction("defer == 0 || unroll == 1")
            .define("SQ_DEFER", rt::expr("defer"));
    // Declared last so that older wisdom files stay a prefix of the parameter list.
    d.tune("march_y", values(sp::march), 1).tune("march_z", values(sp::march), 1);
    // Levels a block marches through (chunks of block_z * tile_z levels).
    std::string levels = "march_z";
    const bool stageable = deferrable && t.stage_reach >= 0 && flat;
    if (stageable) {
        add_staging(d);
        levels = "(stage ? stage_levels : march_z)";
    }
    const bool planes = stageable && !t.plane_boxes.empty();
    // The unified L1/shared memory split: the driver's choice, or the largest L1 (the
    // stencils reread their neighbours' values through L1). Staging needs shared memory.
    d.tune("l1_carveout", {-1, 0}, -1).preferred_carveout("l1_carveout");
    if (stageable) d.restriction("stage == 0 || l1_carveout == -1");
    // Block-order swizzle (traverse.cuh, trav_split): neighbours along the two slower axes
    // of perm run close together in time, so the halos they share are still in L2.
    d.tune("group", values(sp::group), 1).define("SQ_GROUP", rt::expr("group"));
    // One shared-memory expression for both strategies (each is 0 when off): a second
    // shared_memory() call would replace the first.
    std::string smem;
    if (stageable) smem = add_stage_fill(d, t);
    if (planes) {
        smem = "(" + smem + ") + (" + add_planes(d, t) + ")";
        levels = "(planes ? plane_levels : " + levels + ")";
    }
    if (!smem.empty()) d.shared_memory(smem);
    const char* defs[][2] = {{"SQ_BX", "block_x"},    {"SQ_BY", "block_y"},  {"SQ_BZ", "block_z"},
                             {"SQ_TX", "tile_x"},     {"SQ_TY", "tile_y"},   {"SQ_TZ", "tile_z"},
                             {"SQ_CX", "contig_x"},   {"SQ_CY", "contig_y"}, {"SQ_CZ", "contig_z"},
                             {"SQ_UNROLL", "unroll"}, {"SQ_PERM", "perm"},   {"SQ_MY", "march_y"}};
    for (const auto& kv : defs) d.define(kv[0], rt::expr(kv[1]));
    d.define("SQ_MZ", rt::expr(levels));
    d.define("SQ_3D", 1)
        .block_size("block_x", "block_y", "block_z")
        .grid_size("ceil_div(problem.x, block_x * tile_x) * ceil_div(problem.y, block_y * "
                   "tile_y * march_y) * ceil_div(problem.z, block_z * tile_z * " +
                   levels + ")")
        .launch_bounds("block_x * block_y * block_z", "blocks_per_sm");
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

const FlatLayout* flat_layout(const KernelType& t) {
    if (t.form != Form::traverse3d || t.members.empty()) return nullptr;
    static std::mutex mutex;
    static std::map<std::string, FlatLayout> layouts;
    std::lock_guard<std::mutex> lock(mutex);
    auto done = layouts.find(t.key());
    if (done != layouts.end()) return &done->second;
    FlatLayout l;
    for (const Member& m : t.members) l.offsets.push_back(m.offset);
    return &layouts.emplace(t.key(), std::move(l)).first->second;
}

rt::KernelDef make_def(const KernelType& t, const Variant& v) {
    const sq::Range3& r = v.range;
    const bool flat = flat_layout(t) != nullptr;
    const char* fn = t.form == Form::traverse2d   ? "sq_traverse_2d"
                     : t.form == Form::traverse3d ? (flat ? "sq_traverse_flat" : "sq_traverse")
                                                  : "sq_reduce";
    rt::KernelDef d(fn, kernel_sources(), kMainFile);
    d.tuning_key(t.name, t.prec);
    // Unannotated functions are device code: NVRTC otherwise takes a generic lambda's call
    // operator (planes.cuh's static_for) for a host function.
    d.compiler_flags({"-default-device"});
    d.define("SQ_I0", r.i0).define("SQ_J0", r.j0).define("SQ_K0", r.k0);
    d.define("SQ_NI", rt::expr("problem.x")).define("SQ_NJ", rt::expr("problem.y"));
    d.define("SQ_NK", rt::expr("problem.z"));
    d.define("SQ_JJ", v.jj).define("SQ_KK", v.kk);
    switch (t.form) {
    case Form::traverse3d:
        add_traverse3d(d, t, flat);
        break;
    case Form::traverse2d:
        d.tune("block_x", {32, 64, 128, 256}, 128)
            .tune("block_y", {1, 2, 4, 8}, 1)
            .restriction("block_x * block_y <= 1024")
            .define("SQ_2D", 1)
            .block_size("block_x", "block_y");
        break;
    case Form::reduce_max:
    case Form::reduce_sum:
        d.tune("block_x", {128, 256, 512}, 256)
            .define("SQ_REDUCE", 1)
            .define("SQ_BX", rt::expr("block_x"))
            .block_size("block_x")
            .grid_size("min(ceil_div(problem.x * problem.y * problem.z, block_x), 1024)");
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
    d.define("SQ_REDUCE", 1).define("SQ_BX", rt::expr("block_x"));
    d.template_args(acc_type, op == 0 ? "0" : "1").block_size("block_x").grid_size("1");
    // The partials and the result share one scratch allocation (capture saves it once).
    const rt::DType at = real_dtype(acc_type);
    d.arg_array("partial", at, rt::Access::in, rt::whole_allocation)
        .arg_scalar("n", rt::DType::i32)
        .arg_array("out", at, rt::Access::out, rt::whole_allocation);
    return d;
}

} // namespace squall::gpu
