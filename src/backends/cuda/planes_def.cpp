// The host side of the planes traversal (planes.cuh, sm_90): a block marches plane_levels
// levels of a block_x x (block_y * tile_y) column tile, one thread per column, its inputs'
// planes brought in by the copy engine into a ring of plane_ring levels, through tensor
// maps the runtime encodes at launch (origin plane_shift elements left of the range's first
// column, extents the whole array).
#include "backends/cuda/traverse_defs.h"

#include "runtime/term.h"

#include <vector>

namespace squall::gpu {

// Declared after every other tunable. plane_ring and plane_levels are left free when
// planes == 0 (they change nothing then, and the program text is the same): a restriction
// pinning them would leave so few valid points in the raw space that uniform sampling falls
// back to enumerating it. The dynamic shared memory is the ring (0 unless planes == 1).
void add_planes(rt::KernelDef& d, const KernelType& t) {
    using rt::P;
    const int size = t.prec == "float" ? 4 : 8, ring = t.plane_lookahead + 2;
    const rt::Term rows = P("block_y") * P("tile_y");
    std::vector<rt::Term> slots, boxes;
    for (const KernelType::PlaneBox& b : t.plane_boxes) {
        slots.push_back(ceil_div((P("block_x") + b.extra_x) * (rows + b.extra_y) * size, 128) *
                        128);
        boxes.push_back(P("block_x") + b.extra_x <= 256 && rows + b.extra_y <= 256);
    }
    d.tune("planes", {0, 1}, 0)
        .tune("plane_ring", {ring, ring + 1, ring + 2}, ring)
        .tune("plane_levels", {32, 64, 128, 256, 512}, 128);
    const rt::Term off = P("planes") == 0;
    const rt::Term bytes = P("planes") * (P("plane_ring") * rt::sum(slots) + 128);
    d.restriction(off || (P("block_z") == 1 && P("tile_x") == 1 && P("tile_z") == 1 &&
                          P("march_y") == 1 && P("march_z") == 1 && P("defer") == 0 &&
                          (P("tile_y") == 1 || P("contig_y") == 1)))
        .restriction(off || rt::device("compute_capability") >= 90)
        .restriction(off || rt::all_of(boxes))
        .restriction(bytes + 8 * P("plane_ring") <= rt::device("max_shared_memory_per_block_optin"))
        .define("SQ_PLANES", P("planes"))
        .define("SQ_PLANE_RING", select(P("planes"), P("plane_ring"), 0))
        .shared_memory(bytes);
    // The traversal's own default, where searches also start: from the space's default
    // (one row of 256 columns) the planes move is valid but slow, and from a tiled
    // configuration it is invalid until six other parameters are reset with it.
    d.start_point({{"planes", 1}, {"block_x", 64}, {"block_y", 4}, {"blocks_per_sm", 2}});
    // The z-carry (kernels with the z-carry form, planes.cuh): free when planes == 0, as the
    // ring and the levels are; a start point of its own, so that every search tries it.
    if (t.plane_carry) {
        d.tune("plane_carry", {0, 1}, 0)
            .define("SQ_PLANE_CARRY", select(P("planes"), P("plane_carry"), 0));
        // 32 x 4 at 3 per SM leaves 170 registers a thread: the momentum kernel needs 168.
        d.start_point({{"planes", 1},
                       {"block_x", 32},
                       {"block_y", 4},
                       {"blocks_per_sm", 3},
                       {"plane_carry", 1}});
    }
}

void add_plane_maps(rt::KernelDef& d, const KernelType& t, const Variant& v) {
    const long long jj = v.jj, rows = v.kk / v.jj, levels = v.range.k1 + 1;
    for (const KernelType::PlaneBox& b : t.plane_boxes)
        d.tensor_map(
            t.members[size_t(b.member)].name, v.range.i0 - t.plane_shift, {jj, rows, levels},
            {rt::P("block_x") + b.extra_x, rt::P("block_y") * rt::P("tile_y") + b.extra_y, 1},
            rt::P("planes"));
}

} // namespace squall::gpu
