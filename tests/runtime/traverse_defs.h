// A kernel definition shaped like the GPU backend's generic 3-D traversal (its tunables,
// restrictions, shared memory, tensor maps and geometry, with the staging and planes
// strategies on), written twice: as text assembled with fmt::format, the way the
// backend wrote it, and as typed terms. Shared by the equivalence tests and the
// sampling benchmark.
#pragma once

#include "embedded/runtime_test_sources.h"
#include "runtime/kernel_def.h"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace squall::rt::testing {

// What the backend reads from a kernel's type: element size, stencil reach, staged
// planes and the boxes of the planes strategy's inputs.
struct TraverseShape {
    int size = 8, reach = 3, stage_planes = 2, stage_fields = 3, plane_lookahead = 2;
    struct Box {
        int extra_x, extra_y;
    };
    std::vector<Box> boxes{{6, 6}, {0, 4}};
    int reach_x(bool by_rows) const { // stage.cuh's stage_reach_x
        const int unit = 16 / size;
        return by_rows ? (reach + unit - 1) / unit * unit : reach;
    }
};

inline KernelDef traverse_params(const TraverseShape& t) {
    auto def = KernelDef("stencil3d", squall::embedded::runtime_test_sources(), "stencil3d.cu");
    const int ring = t.plane_lookahead + 2;
    return def.tuning_key("traverse", "double")
        .tune("block_x", {16, 32, 64, 128, 256}, 256)
        .tune("block_y", {1, 2, 4, 8, 16}, 1)
        .tune("block_z", {1, 2, 4, 8, 16}, 1)
        .tune("tile_x", {1, 2, 4, 8}, 1)
        .tune("tile_y", {1, 2, 4, 8}, 1)
        .tune("tile_z", {1, 2, 4, 8, 16, 32}, 1)
        .tune("contig_x", {0, 1}, 0)
        .tune("contig_y", {0, 1}, 0)
        .tune("contig_z", {0, 1}, 0)
        .tune("unroll", {1, 0}, 1)
        .tune("perm", {0, 1, 2, 3, 4, 5}, 0)
        .tune("blocks_per_sm", {1, 2, 3, 4, 5, 6, 8}, 1)
        .tune("defer", {0, 1}, 0)
        .tune("march_y", {1, 2, 4, 8}, 1)
        .tune("march_z", {1, 2, 4, 8}, 1)
        .tune("stage", {0, 1}, 0)
        .tune("stage_levels", {16, 32, 64, 128, 256}, 64)
        .tune("stage_depth", {1, 2, 3}, 2)
        .tune("l1_carveout", {-1, 0}, -1)
        .tune("group", {1, 2, 4, 8, 16, 32}, 1)
        .tune("stage_fill", {0, 1}, 0)
        .tune("planes", {0, 1}, 0)
        .tune("plane_ring", {ring, ring + 1, ring + 2}, ring)
        .tune("plane_levels", {32, 64, 128, 256, 512}, 128)
        .arg_array("u", DType::f64, Access::in, whole_allocation)
        .arg_array("v", DType::f64, Access::in, whole_allocation);
}

inline KernelDef traverse_def_text(const TraverseShape& t) {
    KernelDef d = traverse_params(t);
    d.restriction(fmt::format("block_x * block_y * block_z >= {} && "
                              "block_x * block_y * block_z <= {}",
                              64, 1024))
        .restriction(fmt::format("block_x * block_y * block_z * blocks_per_sm <= {}", 2048))
        .restriction(fmt::format("tile_x * tile_y * tile_z <= {}", 32))
        .restriction("tile_x > 1 || contig_x == 0")
        .restriction("tile_y > 1 || contig_y == 0")
        .restriction("tile_z > 1 || contig_z == 0")
        .restriction("defer == 0 || unroll == 1")
        .restriction("stage == 0 || (block_z == 1 && tile_z == 1 && march_y == 1 && "
                     "march_z == 1 && defer == 1)")
        .restriction("stage == 1 || (stage_levels == 64 && stage_depth == 2)")
        .restriction("stage == 0 || l1_carveout == -1");
    const std::string stage_bytes = fmt::format(
        "stage * {} * (block_x * tile_x + (stage_fill ? {} : {})) * (block_y * tile_y + {}) * "
        "({} + {} * stage_depth)",
        t.size, 2 * t.reach_x(true), 2 * t.reach_x(false), 2 * t.reach, t.stage_planes,
        t.stage_fields);
    d.restriction("stage == 1 || stage_fill == 0")
        .restriction("stage_fill == 0 || device.compute_capability >= 90")
        .restriction(stage_bytes + " + 8 * (stage_depth + 1) * stage_fill <= " +
                     "device.max_shared_memory_per_block_optin");
    std::string slot, boxes;
    for (const auto& b : t.boxes) {
        slot += fmt::format("{}ceil_div((block_x + {}) * (block_y * tile_y + {}) * {}, 128) * 128",
                            slot.empty() ? "" : " + ", b.extra_x, b.extra_y, t.size);
        boxes += fmt::format(" && block_x + {} <= 256 && block_y * tile_y + {} <= 256", b.extra_x,
                             b.extra_y);
    }
    const std::string plane_bytes = fmt::format("planes * (plane_ring * ({}) + 128)", slot);
    d.restriction("planes == 0 || (block_z == 1 && tile_x == 1 && tile_z == 1 && "
                  "march_y == 1 && march_z == 1 && stage == 0 && defer == 0 && "
                  "(tile_y == 1 || contig_y == 1))")
        .restriction("planes == 0 || device.compute_capability >= 90")
        .restriction("planes == 0 || (1" + boxes + ")")
        .restriction(plane_bytes + " + 8 * plane_ring <= device.max_shared_memory_per_block_optin")
        .define("SQ_PLANES", expr("planes"))
        .define("SQ_PLANE_RING", expr("planes ? plane_ring : 0"));
    for (size_t i = 0; i < t.boxes.size(); ++i)
        d.tensor_map(i ? "v" : "u", -3, {32, 16, 64},
                     {fmt::format("block_x + {}", t.boxes[i].extra_x),
                      fmt::format("block_y * tile_y + {}", t.boxes[i].extra_y), "1"},
                     "planes");
    const std::string levels = "(planes ? plane_levels : (stage ? stage_levels : march_z))";
    d.preferred_carveout("l1_carveout")
        .shared_memory("(" + stage_bytes + ") + (" + plane_bytes + ")")
        .define("SQ_MZ", expr(levels))
        .block_size("block_x", "block_y", "block_z")
        .grid_size("ceil_div(problem.x, block_x * tile_x) * ceil_div(problem.y, block_y * "
                   "tile_y * march_y) * ceil_div(problem.z, block_z * tile_z * " +
                   levels + ")")
        .launch_bounds("block_x * block_y * block_z", "blocks_per_sm");
    return d;
}

inline KernelDef traverse_def_typed(const TraverseShape& t) {
    KernelDef d = traverse_params(t);
    const Term threads = P("block_x") * P("block_y") * P("block_z");
    const Term rows = P("block_y") * P("tile_y"); // of a block's x-y tile
    d.restriction(threads >= 64 && threads <= 1024)
        .restriction(threads * P("blocks_per_sm") <= 2048)
        .restriction(P("tile_x") * P("tile_y") * P("tile_z") <= 32)
        .restriction(P("tile_x") > 1 || P("contig_x") == 0)
        .restriction(P("tile_y") > 1 || P("contig_y") == 0)
        .restriction(P("tile_z") > 1 || P("contig_z") == 0)
        .restriction(P("defer") == 0 || P("unroll") == 1)
        .restriction(P("stage") == 0 || (P("block_z") == 1 && P("tile_z") == 1 &&
                                         P("march_y") == 1 && P("march_z") == 1 && P("defer") == 1))
        .restriction(P("stage") == 1 || (P("stage_levels") == 64 && P("stage_depth") == 2))
        .restriction(P("stage") == 0 || P("l1_carveout") == -1);
    const Term stage_bytes = P("stage") * t.size *
                             (P("block_x") * P("tile_x") +
                              select(P("stage_fill"), 2 * t.reach_x(true), 2 * t.reach_x(false))) *
                             (rows + 2 * t.reach) *
                             (t.stage_planes + t.stage_fields * P("stage_depth"));
    d.restriction(P("stage") == 1 || P("stage_fill") == 0)
        .restriction(P("stage_fill") == 0 || device("compute_capability") >= 90)
        .restriction(stage_bytes + 8 * (P("stage_depth") + 1) * P("stage_fill") <=
                     device("max_shared_memory_per_block_optin"));
    std::vector<Term> slot, boxes;
    for (const auto& b : t.boxes) {
        slot.push_back(ceil_div((P("block_x") + b.extra_x) * (rows + b.extra_y) * t.size, 128) *
                       128);
        boxes.push_back(P("block_x") + b.extra_x <= 256 && rows + b.extra_y <= 256);
    }
    const Term plane_bytes = P("planes") * (P("plane_ring") * sum(slot) + 128);
    d.restriction(P("planes") == 0 || (P("block_z") == 1 && P("tile_x") == 1 && P("tile_z") == 1 &&
                                       P("march_y") == 1 && P("march_z") == 1 && P("stage") == 0 &&
                                       P("defer") == 0 && (P("tile_y") == 1 || P("contig_y") == 1)))
        .restriction(P("planes") == 0 || device("compute_capability") >= 90)
        .restriction(P("planes") == 0 || all_of(boxes))
        .restriction(plane_bytes + 8 * P("plane_ring") <=
                     device("max_shared_memory_per_block_optin"))
        .define("SQ_PLANES", P("planes"))
        .define("SQ_PLANE_RING", select(P("planes"), P("plane_ring"), 0));
    for (size_t i = 0; i < t.boxes.size(); ++i)
        d.tensor_map(i ? "v" : "u", -3, {32, 16, 64},
                     {P("block_x") + t.boxes[i].extra_x, rows + t.boxes[i].extra_y, 1},
                     P("planes"));
    const Term levels =
        select(P("planes"), P("plane_levels"), select(P("stage"), P("stage_levels"), P("march_z")));
    d.preferred_carveout(P("l1_carveout"))
        .shared_memory(stage_bytes + plane_bytes)
        .define("SQ_MZ", levels)
        .block_size(P("block_x"), P("block_y"), P("block_z"))
        .grid_size(ceil_div(problem_x(), P("block_x") * P("tile_x")) *
                   ceil_div(problem_y(), rows * P("march_y")) *
                   ceil_div(problem_z(), P("block_z") * P("tile_z") * levels))
        .launch_bounds(threads, P("blocks_per_sm"));
    return d;
}

} // namespace squall::rt::testing
