#pragma once
// Test-only grid, random fields and helpers for the independent kernel references.
// Deliberately self-contained: metrics are built here straight from docs/numerics.md "Grid"
// rather than through squall::Grid, so a metric bug there cannot hide in both sides.
#include <cstdint>
#include <vector>

namespace sqref {

using R = long double; // accumulation type of every reference
using Vec = std::vector<double>;

struct RefGrid {
    int itot, jtot, ktot;
    int igc = 3, jgc = 3, kgc = 1;
    int icells, jcells, kcells, ijcells, ncells;
    int istart, iend, jstart, jend, kstart, kend;
    double xsize, ysize, zsize;
    double dx, dy, dxi, dyi;
    Vec z, zh, dz, dzh, dzi, dzhi; // size kcells, ghost levels included
    Vec rho, rhoh;                 // reference density at centres / faces

    int idx(int i, int j, int k) const { return i + j * icells + k * ijcells; }
    int idx2(int i, int j) const { return i + j * icells; }
};

struct GridSpec {
    int itot = 24, jtot = 20, ktot = 16;
    double xsize = 3.0, ysize = 2.2, zsize = 1.0;
    double stretch = 1.5;    // tanh stretching strength of the centre heights (0: uniform)
    double jitter = 0.15;    // random perturbation of centre heights, fraction of local dz
    bool boussinesq = false; // rho = rhoh = 1 if true, else random-perturbed decaying profile
    std::uint64_t seed = 12345;
};

RefGrid make_ref_grid(const GridSpec& spec);

// Uniform random values in [lo, hi] in every cell (ghosts included).
Vec random_field(const RefGrid& g, double lo, double hi, std::uint64_t seed);
// Random 2-D (ij) array of icells*jcells values.
Vec random_plane(const RefGrid& g, double lo, double hi, std::uint64_t seed);
// Impermeable walls: w[kstart] = w[kend] = 0.
void zero_w_walls(const RefGrid& g, Vec& w);
// Copy interior values into the horizontal ghost cells (doubly periodic).
void fill_periodic_xy(const RefGrid& g, Vec& a);
// Round every value to the nearest float (inputs of the float kernel test).
void round_to_float(Vec& a);
void round_to_float(RefGrid& g);

} // namespace sqref
