// The host side of the planes traversal (planes.cuh, sm_90): a block marches plane_levels
// levels of a block_x x (block_y * tile_y) column tile, one thread per column, its inputs'
// planes brought in by the copy engine into a ring of plane_ring levels, through tensor
// maps the runtime encodes at launch (origin plane_shift elements left of the range's first
// column, extents the whole array).
#include "backends/cuda/traverse_defs.h"

#include <fmt/format.h>

namespace squall::gpu {

// Declared after every other tunable. plane_ring and plane_levels are left free when
// planes == 0 (they change nothing then, and the program text is the same): a restriction
// pinning them would leave so few valid points in the raw space that uniform sampling falls
// back to enumerating it. The dynamic shared memory is the ring (0 unless planes == 1).
void add_planes(rt::KernelDef& d, const KernelType& t) {
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
                     "march_y == 1 && march_z == 1 && defer == 0 && "
                     "(tile_y == 1 || contig_y == 1))")
        .restriction("planes == 0 || device.compute_capability >= 90")
        .restriction("planes == 0 || (1" + boxes + ")")
        .restriction(bytes + " + 8 * plane_ring <= device.max_shared_memory_per_block_optin")
        .define("SQ_PLANES", rt::expr("planes"))
        .define("SQ_PLANE_RING", rt::expr("planes ? plane_ring : 0"))
        .shared_memory(bytes);
}

void add_plane_maps(rt::KernelDef& d, const KernelType& t, const Variant& v) {
    const long long jj = v.jj, rows = v.kk / v.jj, levels = v.range.k1 + 1;
    for (const KernelType::PlaneBox& b : t.plane_boxes)
        d.tensor_map(t.members[size_t(b.member)].name, v.range.i0 - t.plane_shift,
                     {jj, rows, levels},
                     {fmt::format("block_x + {}", b.extra_x),
                      fmt::format("block_y * tile_y + {}", b.extra_y), "1"},
                     "planes");
}

} // namespace squall::gpu
