// The host side of the generic tiled 3-D traversal (tiles.cuh): every tunable of the 3-D
// kernels, their restrictions and defines, and the launch geometry; the planes traversal
// (planes_def.cpp) adds its own on top for the kernels that declare plane inputs.
#include "backends/cuda/traverse_defs.h"
#include "backends/cuda/traverse_space.h"

#include "runtime/term.h"

#include <vector>

namespace squall::gpu {

void add_traverse3d(rt::KernelDef& d, const KernelType& t) {
    namespace sp = space;
    using rt::P;
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
        .tune("blocks_per_sm", values(sp::blocks_per_sm), 1);
    const rt::Term threads = P("block_x") * P("block_y") * P("block_z");
    d.restriction(threads >= sp::min_threads && threads <= sp::max_threads)
        .restriction(threads * P("blocks_per_sm") <= sp::max_threads_per_sm)
        .restriction(P("tile_x") * P("tile_y") * P("tile_z") <= sp::max_points_per_thread)
        .restriction(P("tile_x") > 1 || P("contig_x") == 0)
        .restriction(P("tile_y") > 1 || P("contig_y") == 0)
        .restriction(P("tile_z") > 1 || P("contig_z") == 0);
    // Deferred stores (index_map.cuh, trav_tile): the tile's values live in registers, so
    // the tile loops must be unrolled.
    // A search also starts from a deferred tile (two columns by four levels, each
    // thread's points contiguous): it pays only with tile, contiguity and defer set
    // together, which single-parameter moves from the default rarely find.
    if (t.deferrable)
        d.tune("defer", {0, 1}, 0)
            .restriction(P("defer") == 0 || P("unroll") == 1)
            .define("SQ_DEFER", P("defer"))
            .start_point({{"defer", 1},
                          {"tile_x", 2},
                          {"tile_z", 4},
                          {"contig_x", 1},
                          {"contig_z", 1},
                          {"block_x", 64},
                          {"block_y", 2},
                          {"blocks_per_sm", 2}});
    else
        d.define("SQ_DEFER", 0);
    // Declared after defer so that older wisdom files stay a prefix of the parameter list.
    d.tune("march_y", values(sp::march), 1).tune("march_z", values(sp::march), 1);
    // The unified L1/shared memory split: the driver's choice, or the largest L1 (the
    // stencils reread their neighbours' values through L1).
    d.tune("l1_carveout", {-1, 0}, -1).preferred_carveout(P("l1_carveout"));
    // Block-order swizzle (index_map.cuh, trav_split): neighbours along the two slower axes
    // of perm run close together in time, so the halos they share are still in L2.
    d.tune("group", values(sp::group), 1).define("SQ_GROUP", P("group"));
    // Levels a block marches through: chunks of block_z * tile_z levels, or single levels
    // in the planes traversal.
    const bool planes = t.deferrable && t.flat() && !t.plane_boxes.empty();
    if (planes)
        add_planes(d, t);
    else
        d.define("SQ_PLANES", 0);
    const rt::Term levels =
        planes ? select(P("planes"), P("plane_levels"), P("march_z")) : P("march_z");
    const char* defs[][2] = {{"SQ_BX", "block_x"},    {"SQ_BY", "block_y"},  {"SQ_BZ", "block_z"},
                             {"SQ_TX", "tile_x"},     {"SQ_TY", "tile_y"},   {"SQ_TZ", "tile_z"},
                             {"SQ_CX", "contig_x"},   {"SQ_CY", "contig_y"}, {"SQ_CZ", "contig_z"},
                             {"SQ_UNROLL", "unroll"}, {"SQ_PERM", "perm"},   {"SQ_MY", "march_y"}};
    for (const auto& kv : defs) d.define(kv[0], P(kv[1]));
    d.define("SQ_MZ", levels);
    d.define("SQ_3D", 1)
        .block_size(P("block_x"), P("block_y"), P("block_z"))
        .grid_size(ceil_div(rt::problem_x(), P("block_x") * P("tile_x")) *
                   ceil_div(rt::problem_y(), P("block_y") * P("tile_y") * P("march_y")) *
                   ceil_div(rt::problem_z(), P("block_z") * P("tile_z") * levels))
        .launch_bounds(threads, P("blocks_per_sm"));
}

} // namespace squall::gpu
