#pragma once
// The tunable space of the generic 3-D traversal, shared by the kernel definitions
// (kernel_defs.cpp) and the host emulation test, so that both see the same values.
#include <array>

namespace squall::gpu::space {

inline constexpr std::array<int, 5> block_x{16, 32, 64, 128, 256};
inline constexpr std::array<int, 5> block_y{1, 2, 4, 8, 16};
inline constexpr std::array<int, 5> block_z{1, 2, 4, 8, 16};
inline constexpr std::array<int, 4> tile_x{1, 2, 4, 8};
inline constexpr std::array<int, 4> tile_y{1, 2, 4, 8};
inline constexpr std::array<int, 6> tile_z{1, 2, 4, 8, 16, 32};
inline constexpr std::array<int, 7> blocks_per_sm{1, 2, 3, 4, 5, 6, 8};
inline constexpr std::array<int, 4> march{1, 2, 4, 8};         // chunks a block visits along y, z
inline constexpr std::array<int, 6> group{1, 2, 4, 8, 16, 32}; // block-order swizzle
inline constexpr int permutations = 6;
inline constexpr int min_threads = 64, max_threads = 1024;
inline constexpr int max_threads_per_sm = 2048;
inline constexpr int max_points_per_thread = 32;

// The restrictions of the issue, plus: a contiguous tile is only distinct from a
// strided one when the tile has more than one point.
inline bool valid(int bx, int by, int bz, int tx, int ty, int tz, int cx, int cy, int cz, int bps) {
    const int threads = bx * by * bz;
    return threads >= min_threads && threads <= max_threads &&
           threads * bps <= max_threads_per_sm && tx * ty * tz <= max_points_per_thread &&
           (tx > 1 || cx == 0) && (ty > 1 || cy == 0) && (tz > 1 || cz == 0);
}

} // namespace squall::gpu::space
