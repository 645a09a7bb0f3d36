#pragma once
// Local (per-rank) grid: sizes, index ranges and vertical metrics on the Arakawa C grid.
// Vertical metric arrays have kcells entries and include the ghost levels.
#include <vector>

#include "model/config/config.h"

namespace squall {

inline constexpr int igc = 3, jgc = 3, kgc = 1;

// Memory layout: rows are padded to a multiple of row_align elements, and every 3-D
// allocation starts row_align - igc elements early (GridDims::pad), so that the first
// interior point of every row, and therefore each warp's centre loads, is 128-byte
// aligned (256 bytes in double). The GPU stencils are bound by L1 wavefronts: an
// aligned row saves a wavefront on every unshifted load.
inline constexpr int row_align = 32;

// Row stride for rows of `icells` points, and the leading pad that puts `istart` on an
// `align` boundary (align = 1: the unpadded layout).
inline constexpr int padded_row(int icells, int align = row_align) {
    return (icells + align - 1) / align * align;
}
inline constexpr int leading_pad(int istart, int align = row_align) {
    return (align - istart % align) % align;
}

// Largest 3-D array per rank, pad + ncells: kernels index with 32-bit ints.
// resolve_decomposition() refuses decompositions that exceed it.
inline constexpr long long max_local_cells = 2147483647;

struct GridDims {
    int itot, jtot, ktot;                         // global interior sizes
    int imax, jmax, kmax;                         // local interior sizes (kmax == ktot)
    int icells, jcells, kcells;                   // local sizes with ghost cells
    int istart, iend, jstart, jend, kstart, kend; // interior ranges [start, end)
    int ii, jj, kk; // strides of the linear index ijk = i*ii + j*jj + k*kk (jj >= icells)
    long ncells;    // kk*kcells: the extent of ijk
    int pad;        // elements allocated before ijk = 0 (see row_align)
    long nplane() const { return long(jj) * jcells; } // extent of a 2-D index ij = i + j*jj
    int ioffset, joffset; // global index of this rank's first interior point
};

template <typename T>
struct Grid {
    GridDims d;
    T xsize, ysize, zsize;
    T dx, dy, dxi, dyi;
    // Vertical metrics (size kcells): cell centres z, faces zh, spacings and inverses.
    std::vector<T> z, zh, dz, dzh, dzi, dzhi;
    std::vector<T> rho, rhoh;         // reference density (1 for Boussinesq)
    std::vector<double> x, xh, y, yh; // local horizontal coordinates (icells / jcells)

    // Build the grid for a rank with coordinates (px, py) in an npx x npy layout.
    static Grid make(const Config& cfg, int npx, int npy, int px, int py);
};

// Cell-centre heights for a case (ktot values) from explicit levels or a stretching rule.
std::vector<double> vertical_levels(const GridConfig& g);

} // namespace squall
