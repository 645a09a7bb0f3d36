// The staged traversal's host side, as it was in src/backends/cuda/kernel_defs.cpp and
// gpu_launch.h (record only, not built; see README.md "How it plugged in").

// KernelType (kernel_defs.h) carried, for kernels that declare staged_inputs:
//     int stage_reach = -1;                     // the x-y reach, -1: not stageable
//     int stage_planes = 0, stage_fields = 0;   // planes = stage_planes + stage_fields * depth
// filled by kernel_type<F>() (gpu_launch.h):
//     if constexpr (requires { F::stage_reach; }) {
//         sq::StageCount c{0};
//         const F f{};
//         F::staged_inputs(c, f);
//         t.stage_reach = F::stage_reach;
//         t.stage_planes = c.planes, t.stage_fields = c.fields;
//     }

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

// In add_traverse3d (kernel_defs.cpp), after march_y and march_z:
//     std::string levels = "march_z";   // levels a block marches through
//     const bool stageable = deferrable && t.stage_reach >= 0 && flat;
//     if (stageable) {
//         add_staging(d);
//         levels = "(stage ? stage_levels : march_z)";
//     }
//     d.tune("l1_carveout", {-1, 0}, -1).preferred_carveout("l1_carveout");
//     if (stageable) d.restriction("stage == 0 || l1_carveout == -1");
//     ... group ...
//     std::string smem;
//     if (stageable) smem = add_stage_fill(d, t);
//     // the planes traversal (stageable kernels with plane inputs) added its own tunables
//     // and "stage == 0" to its restriction; one shared_memory() call for both:
//     //     smem = "(" + smem + ") + (" + add_planes(d, t) + ")";
//     //     levels = "(planes ? plane_levels : " + levels + ")";
//     if (!smem.empty()) d.shared_memory(smem);
//     d.define("SQ_MZ", rt::expr(levels));  // and the grid's z factor:
//     // ceil_div(problem.z, block_z * tile_z * levels)
