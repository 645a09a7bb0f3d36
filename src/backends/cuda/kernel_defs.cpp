#include "backends/cuda/kernel_defs.h"

#include "backends/cuda/stage.cuh"
#include "backends/cuda/traverse_space.h"
#include "embedded/gpu_kernel_sources.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace squall::gpu {

namespace {

const char* const kMainFile = "src/backends/cuda/all_kernels.cuh"; // generated, see below

// Parameter tables: the members of each 3-D kernel struct in declaration order, as
// name:kind. Kinds: 3o (T*, a 3-D field updated in place), 3w (T*, written only),
// 3i (const T*, 3-D), zi (const T*, by level k), 2i (const T*, 2-D ij, nullable),
// T (scalar of the precision), int.
const std::map<std::string, std::string>& tables() {
    static const std::map<std::string, std::string> t = {
        {"advec_u_2", "ut:3o u:3i v:3i w:3i dzi:zi rho:zi rhoh:zi dxi:T dyi:T jj:int kk:int"},
        {"advec_v_2", "vt:3o u:3i v:3i w:3i dzi:zi rho:zi rhoh:zi dxi:T dyi:T jj:int kk:int"},
        {"advec_w_2", "wt:3o u:3i v:3i w:3i dzhi:zi rho:zi rhoh:zi dxi:T dyi:T jj:int kk:int"},
        {"advec_s_2", "st:3o s:3i u:3i v:3i w:3i dzi:zi rho:zi rhoh:zi dxi:T dyi:T jj:int kk:int"},
        {"advec_u_2i5", "ut:3o u:3i v:3i w:3i dzi:zi rho:zi rhoh:zi dxi:T dyi:T jj:int kk:int "
                        "kstart:int kend:int"},
        {"advec_v_2i5", "vt:3o u:3i v:3i w:3i dzi:zi rho:zi rhoh:zi dxi:T dyi:T jj:int kk:int "
                        "kstart:int kend:int"},
        {"advec_w_2i5", "wt:3o u:3i v:3i w:3i dzhi:zi rho:zi rhoh:zi dxi:T dyi:T jj:int kk:int "
                        "kstart:int kend:int"},
        {"advec_s_2i5", "st:3o s:3i u:3i v:3i w:3i dzi:zi rho:zi rhoh:zi dxi:T dyi:T jj:int "
                        "kk:int kstart:int kend:int"},
        {"strain2", "strain2:3w u:3i v:3i w:3i dzi:zi dzhi:zi dxi:T dyi:T jj:int kk:int"},
        {"evisc_smag", "evisc:3w strain2:3i th:3i g_over_thref:T z:zi dz:zi dx:T dy:T cs:T "
                       "prandtl_t:T z0m:T mason:int jj:int kk:int"},
        {"diff_u_smag", "ut:3o u:3i v:3i w:3i evisc:3i dzi:zi dzhi:zi rho:zi rhoh:zi dxi:T "
                        "dyi:T nu:T fluxbot:2i fluxtop:2i kstart:int kend:int jj:int kk:int"},
        {"diff_v_smag", "vt:3o u:3i v:3i w:3i evisc:3i dzi:zi dzhi:zi rho:zi rhoh:zi dxi:T "
                        "dyi:T nu:T fluxbot:2i fluxtop:2i kstart:int kend:int jj:int kk:int"},
        {"diff_w_smag", "wt:3o u:3i v:3i w:3i evisc:3i dzi:zi dzhi:zi rho:zi rhoh:zi dxi:T "
                        "dyi:T nu:T kstart:int kend:int jj:int kk:int"},
        {"diff_c_smag", "st:3o s:3i evisc:3i dzi:zi dzhi:zi rho:zi rhoh:zi dxi:T dyi:T "
                        "prandtl_t_inv:T kappa:T fluxbot:2i fluxtop:2i kstart:int kend:int "
                        "jj:int kk:int"},
        {"diff_uvw_smag",
         "ut:3o vt:3o wt:3o u:3i v:3i w:3i evisc:3i dzi:zi dzhi:zi rho:zi rhoh:zi dxi:T dyi:T "
         "nu:T ufluxbot:2i ufluxtop:2i vfluxbot:2i vfluxtop:2i kstart:int kend:int jj:int "
         "kk:int"},
        {"diff_u_2", "at:3o a:3i dzi:zi dzhi:zi rho:zi rhoh:zi dxi:T dyi:T K:T jj:int kk:int"},
        {"diff_v_2", "at:3o a:3i dzi:zi dzhi:zi rho:zi rhoh:zi dxi:T dyi:T K:T jj:int kk:int"},
        {"diff_c_2", "at:3o a:3i dzi:zi dzhi:zi rho:zi rhoh:zi dxi:T dyi:T K:T jj:int kk:int"},
        {"diff_w_2", "at:3o a:3i dzi:zi dzhi:zi rho:zi rhoh:zi dxi:T dyi:T K:T jj:int kk:int"},
        {"buoyancy_th", "wt:3o th:3i g_over_thref:T thref:T jj:int kk:int"},
        {"advec_w_2i5_buoy", "wt:3o u:3i v:3i w:3i th:3i dzhi:zi rho:zi rhoh:zi dxi:T dyi:T "
                             "g_over_thref:T thref:T jj:int kk:int kstart:int kend:int"},
        {"advec_w_2_buoy", "wt:3o u:3i v:3i w:3i th:3i dzhi:zi rho:zi rhoh:zi dxi:T dyi:T "
                           "g_over_thref:T thref:T jj:int kk:int"},
        {"pres_in", "p:3w u:3i v:3i w:3i ut:3i vt:3i wt:3i dzi:zi rho:zi rhoh:zi dxi:T dyi:T "
                    "dtsi:T jj:int kk:int"},
        {"pres_out", "ut:3o vt:3o wt:3o p:3i dzhi:zi dxi:T dyi:T kstart:int jj:int kk:int"},
        {"pres_out_rk", "u:3o v:3o w:3o ut:3o vt:3o wt:3o p:3i dzhi:zi dxi:T dyi:T b_dt:T "
                        "a_next:T kstart:int jj:int kk:int"},
        {"rk_update", "a:3o at:3o b_dt:T a_next:T jj:int kk:int"},
        {"sponge", "at:3o a:3i aref:zi coef:zi jj:int kk:int"},
    };
    return t;
}

// Kernels passed as one struct parameter (2-D kernels, reductions, halo copies): the same
// table syntax, used only to describe the struct to capture. More pointer kinds: 2w (T*,
// 2-D, written), bw / bi (T* / const T*, a packed halo buffer).
const std::map<std::string, std::string>& struct_tables() {
    static const std::map<std::string, std::string> t = {
        {"ghost_bottom", "a:3o values:2i value:T dzh_wall:T dirichlet:int kstart:int jj:int "
                         "kk:int"},
        {"ghost_top", "a:3o value:T dzh_wall:T dirichlet:int kend:int jj:int kk:int"},
        {"ghost_w", "w:3o kstart:int kend:int jj:int kk:int"},
        {"ghost_mirror", "a:3o kstart:int kend:int jj:int kk:int"},
        {"surface_most", "ustar:2w obuk_inv:2w u:3i v:3i sfluxbot:2i g_over_thref:T ubot:T "
                         "vbot:T z1:T z0m:T umin:T kstart:int jj:int kk:int"},
        {"surface_momentum_flux", "ufluxbot:2w vfluxbot:2w dudz_bot:2w dvdz_bot:2w u:3i v:3i "
                                  "ustar:2i obuk_inv:2i ubot:T vbot:T z1:T z0m:T kstart:int "
                                  "jj:int kk:int"},
        {"surface_scalar", "dsdz_bot:2w fluxbot:2i ustar:2i obuk_inv:2i z1:T jj:int"},
        {"surface_stable_limit", "obuk_inv:2i z1:T z0m:T jj:int"},
        {"cfl", "u:3i v:3i w:3i dzi:zi dxi:T dyi:T jj:int kk:int"},
        {"divergence", "u:3i v:3i w:3i dzi:zi rho:zi rhoh:zi dxi:T dyi:T jj:int kk:int"},
        {"dn_smag", "evisc:3i dzi:zi dxi:T dyi:T prandtl_t:T jj:int kk:int"},
        {"dn_const", "K:T dzi:zi dxi:T dyi:T"},
        {"diag_abs_divergence", "u:3i v:3i w:3i dzi:zi rho:zi rhoh:zi dxi:T dyi:T jj:int "
                                "kk:int"},
        {"diag_ke_dz", "u:3i v:3i w:3i dz:zi jj:int kk:int"},
        {"diag_value_dz", "a:3i dz:zi jj:int kk:int"},
        {"halo_wrap_x", "a:3o istart:int iend:int imax:int jj:int kk:int"},
        {"halo_wrap_y", "a:3o jstart:int jend:int jmax:int jj:int kk:int"},
        {"halo_pack_x", "send_w:bw send_e:bw a:3i istart:int iend:int jstart:int jmax:int "
                        "igc:int jj:int kk:int"},
        {"halo_unpack_x", "a:3o recv_w:bi recv_e:bi istart:int iend:int jstart:int jmax:int "
                          "igc:int jj:int kk:int"},
        {"halo_pack_y", "send_s:bw send_n:bw a:3i jstart:int jend:int jgc:int icells:int jj:int "
                        "kk:int"},
        {"halo_unpack_y", "a:3o recv_s:bi recv_n:bi jstart:int jend:int jgc:int icells:int "
                          "jj:int kk:int"},
    };
    return t;
}

struct Member {
    std::string name, kind;
    bool pointer() const { return kind != "T" && kind != "int"; }
};

std::vector<Member> parse_table(const std::string& text) {
    std::vector<Member> out;
    std::istringstream in(text);
    std::string tok;
    while (in >> tok) {
        const auto c = tok.find(':');
        out.push_back({tok.substr(0, c), tok.substr(c + 1)});
    }
    return out;
}

size_t member_size(const Member& m, size_t value_size) {
    return m.pointer() ? sizeof(void*) : m.kind == "int" ? sizeof(int) : value_size;
}

// The element type of a precision, and of a table member (pointers: what they point to).
rt::DType real_dtype(const std::string& prec) {
    return prec == "float" ? rt::DType::f32 : rt::DType::f64;
}
rt::DType member_dtype(const Member& m, const std::string& prec) {
    return m.kind == "int" ? rt::DType::i32 : real_dtype(prec);
}

// The second letter of a pointer kind: o updated, w written, i read.
rt::Access member_access(const Member& m) {
    if (m.kind[1] == 'o') return rt::Access::inout;
    if (m.kind[1] == 'w') return rt::Access::out;
    return rt::Access::in;
}

// Byte offsets of a table's members in a standard-layout struct (each member at the next
// multiple of its size; all are 4 or 8 bytes); throws when they do not add up to the
// struct's size.
std::vector<size_t> member_offsets(const KernelType& t, const std::vector<Member>& members) {
    const size_t vsize = t.prec == "float" ? 4 : 8;
    std::vector<size_t> offsets;
    size_t off = 0, align = 4;
    for (const Member& m : members) {
        const size_t s = member_size(m, vsize);
        off = (off + s - 1) / s * s;
        offsets.push_back(off);
        off += s;
        align = std::max(align, s);
    }
    off = (off + align - 1) / align * align;
    if (off != t.size)
        throw std::logic_error(fmt::format("GPU backend: the parameter table of '{}' describes "
                                           "{} bytes, but sizeof({}) is {}",
                                           t.name, off, t.cpp_type, t.size));
    return offsets;
}

// Kernels taking their struct as one parameter: the struct and what lies in it, so that
// SQUALL_CAPTURE can save it (every array as its whole allocation). Reductions add the
// per-block partial results they write.
void add_struct_args(rt::KernelDef& d, const KernelType& t) {
    auto it = struct_tables().find(t.name);
    if (it == struct_tables().end()) return;
    const auto members = parse_table(it->second);
    const auto offsets = member_offsets(t, members);
    d.arg_struct("f", t.size);
    for (size_t n = 0; n < members.size(); ++n) {
        const Member& m = members[n];
        const rt::DType type = member_dtype(m, t.prec);
        if (m.pointer())
            d.member_array(m.name, type, member_access(m), rt::whole_allocation, offsets[n]);
        else
            d.member_scalar(m.name, type, offsets[n]);
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
    const auto members = parse_table(tables().at(t.name));
    const long long jj = v.jj, rows = v.kk / v.jj, levels = v.range.k1 + 1;
    for (const KernelType::PlaneBox& b : t.plane_boxes)
        d.tensor_map(members[size_t(b.member)].name, v.range.i0 - t.plane_shift, {jj, rows, levels},
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

std::vector<std::string> table_kernels() {
    std::vector<std::string> out;
    for (const auto& [name, text] : tables()) out.push_back(name);
    return out;
}

std::vector<TableMember> table_members(const std::string& kernel) {
    std::vector<TableMember> out;
    for (const auto* t : {&tables(), &struct_tables()}) {
        auto it = t->find(kernel);
        if (it != t->end())
            for (const Member& m : parse_table(it->second)) out.push_back({m.name, m.kind});
    }
    return out;
}

const FlatLayout* flat_layout(const KernelType& t) {
    if (t.form != Form::traverse3d) return nullptr;
    auto it = tables().find(t.name);
    if (it == tables().end()) return nullptr;
    static std::mutex mutex;
    static std::map<std::string, FlatLayout> layouts;
    std::lock_guard<std::mutex> lock(mutex);
    auto done = layouts.find(t.key());
    if (done != layouts.end()) return &done->second;
    FlatLayout l{member_offsets(t, parse_table(it->second))};
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

    // Parameters, aggregate initialiser and argument layout from the table.
    std::string params, init;
    const auto members = parse_table(tables().at(t.name));
    for (const Member& m : members) {
        const std::string type = m.kind == "int"                      ? "int"
                                 : m.kind == "T"                      ? t.prec
                                 : member_access(m) != rt::Access::in ? t.prec + "*"
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
