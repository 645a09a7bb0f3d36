// The host side of the generic tiled 3-D traversal (tiles.cuh): the tunables of the 3-D
// kernels with their restrictions and defines (written once in traverse_space.h, but for
// defer and l1_carveout), and the launch geometry; the planes traversal
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
    auto tune = [&](const sp::Tunable& p) {
        d.tune(p.name, values(p.values), p.default_value);
        if (p.define) d.define(p.define, P(p.name));
    };
    for (const sp::Tunable& p : sp::shape_tunables) tune(p);
    for (const rt::Term& r : sp::restrictions([](const char* name) { return P(name); }))
        d.restriction(r);
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
    for (const sp::Tunable& p : sp::march_tunables) tune(p);
    // The unified L1/shared memory split: the driver's choice, or the largest L1 (the
    // stencils reread their neighbours' values through L1).
    d.tune("l1_carveout", {-1, 0}, -1).preferred_carveout(P("l1_carveout"));
    // Block-order swizzle (index_map.cuh, trav_split): neighbours along the two slower axes
    // of perm run close together in time, so the halos they share are still in L2.
    tune(sp::group_tunable);
    // Levels a block marches through: chunks of block_z * tile_z levels, or single levels
    // in the planes traversal.
    const bool planes = t.deferrable && t.flat() && !t.plane_boxes.empty();
    if (planes)
        add_planes(d, t);
    else
        d.define("SQ_PLANES", 0);
    const rt::Term levels =
        planes ? select(P("planes"), P("plane_levels"), P("march_z")) : P("march_z");
    d.define("SQ_MZ", levels);
    d.define("SQ_3D", 1)
        .block_size(P("block_x"), P("block_y"), P("block_z"))
        .grid_size(ceil_div(rt::problem_x(), P("block_x") * P("tile_x")) *
                   ceil_div(rt::problem_y(), P("block_y") * P("tile_y") * P("march_y")) *
                   ceil_div(rt::problem_z(), P("block_z") * P("tile_z") * levels))
        .launch_bounds(P("block_x") * P("block_y") * P("block_z"), P("blocks_per_sm"));
}

} // namespace squall::gpu
