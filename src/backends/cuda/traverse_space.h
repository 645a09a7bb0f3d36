#pragma once
// The tunable space of the generic 3-D traversal, written once: each tunable's name (the
// space's and the wisdom's), the macro the kernel source reads, its values and default,
// and the restrictions between them. The kernel definitions (tiles_def.cpp) and the host
// emulation test (tests/backends/cuda/test_traverse_emulation) both read it.
#include <array>
#include <span>

namespace squall::gpu::space {

struct Tunable {
    const char* name;   // in the configuration space and in wisdom
    const char* define; // the macro the traversal reads (tiles.cuh, index_map.cuh)
    std::span<const int> values;
    int default_value;
};

inline constexpr std::array<int, 5> block_x{16, 32, 64, 128, 256};
inline constexpr std::array<int, 5> block_y{1, 2, 4, 8, 16};
inline constexpr std::array<int, 5> block_z{1, 2, 4, 8, 16};
inline constexpr std::array<int, 4> tile_x{1, 2, 4, 8};
inline constexpr std::array<int, 4> tile_y{1, 2, 4, 8};
inline constexpr std::array<int, 6> tile_z{1, 2, 4, 8, 16, 32};
inline constexpr std::array<int, 2> off_on{0, 1};
inline constexpr std::array<int, 2> unroll{1, 0};
inline constexpr std::array<int, 6> perm{0, 1, 2, 3, 4, 5};
inline constexpr std::array<int, 7> blocks_per_sm{1, 2, 3, 4, 5, 6, 8};
inline constexpr std::array<int, 4> march{1, 2, 4, 8};         // chunks a block visits along y, z
inline constexpr std::array<int, 6> group{1, 2, 4, 8, 16, 32}; // block-order swizzle
inline constexpr int permutations = int(perm.size());

// In the order the space declares them (wisdom files list parameters in this order; the
// kernel definitions add defer, l1_carveout and the planes tunables between and after).
inline constexpr Tunable shape_tunables[] = {
    {"block_x", "SQ_BX", block_x, 256}, {"block_y", "SQ_BY", block_y, 1},
    {"block_z", "SQ_BZ", block_z, 1},   {"tile_x", "SQ_TX", tile_x, 1},
    {"tile_y", "SQ_TY", tile_y, 1},     {"tile_z", "SQ_TZ", tile_z, 1},
    {"contig_x", "SQ_CX", off_on, 0},   {"contig_y", "SQ_CY", off_on, 0},
    {"contig_z", "SQ_CZ", off_on, 0},   {"unroll", "SQ_UNROLL", unroll, 1},
    {"perm", "SQ_PERM", perm, 0},       {"blocks_per_sm", nullptr, blocks_per_sm, 1}};
// SQ_MZ is the levels a block marches through (march_z, or plane_levels under planes).
inline constexpr Tunable march_tunables[] = {{"march_y", "SQ_MY", march, 1},
                                             {"march_z", nullptr, march, 1}};
inline constexpr Tunable group_tunable{"group", "SQ_GROUP", group, 1};

inline constexpr int min_threads = 64, max_threads = 1024;
inline constexpr int max_threads_per_sm = 2048;
inline constexpr int max_points_per_thread = 32;

// The restrictions, for two readers: with p = rt::P each is the runtime's condition term
// (tiles_def.cpp), with p returning plain ints a bool (the host emulation). A contiguous
// tile is only distinct from a strided one when the tile has more than one point.
template <class Param>
auto restrictions(const Param& p) {
    const auto threads = p("block_x") * p("block_y") * p("block_z");
    return std::array{threads >= min_threads && threads <= max_threads,
                      threads * p("blocks_per_sm") <= max_threads_per_sm,
                      p("tile_x") * p("tile_y") * p("tile_z") <= max_points_per_thread,
                      p("tile_x") > 1 || p("contig_x") == 0,
                      p("tile_y") > 1 || p("contig_y") == 0,
                      p("tile_z") > 1 || p("contig_z") == 0};
}

} // namespace squall::gpu::space
