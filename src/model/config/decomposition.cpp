// resolve_decomposition(): check or choose npx x npy for a number of ranks.
// The rules come from the layout of the pressure solver's pencil transposes (see
// docs/case-schema.md, section mpi).
#include "model/config/config.h"
#include "model/grid.h"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace squall {

namespace {

// Every rule `npx x npy` breaks for this grid, as readable sentences.
std::vector<std::string> broken_rules(const GridConfig& g, int npx, int npy) {
    std::vector<std::string> why;
    auto divisible = [&](const char* n, int size, const char* p, int parts) {
        if (size % parts != 0)
            why.push_back(fmt::format("{} = {} is not divisible by {} = {}", n, size, p, parts));
    };
    divisible("itot", g.itot, "npx", npx); // z-columns along x
    divisible("jtot", g.jtot, "npy", npy); // z-columns along y
    divisible("ktot", g.ktot, "npx", npx); // x-pencils split k over npx
    divisible("itot", g.itot, "npy", npy); // y-pencils split i over npy
    divisible("jtot", g.jtot, "npx", npx); // x-pencils split j over npx
    // Each rank must own at least as many cells as the 3 ghost cells it sends.
    if (npx > 1 && g.itot % npx == 0 && g.itot / npx < 3)
        why.push_back(fmt::format("imax = itot / npx = {} / {} = {} is below the 3 ghost cells",
                                  g.itot, npx, g.itot / npx));
    if (npy > 1 && g.jtot % npy == 0 && g.jtot / npy < 3)
        why.push_back(fmt::format("jmax = jtot / npy = {} / {} = {} is below the 3 ghost cells",
                                  g.jtot, npy, g.jtot / npy));
    // The kernels index a rank's arrays with 32-bit ints (ijk = i + j*jj + k*kk): the local
    // array, with ghost cells and row padding as Grid::make lays it out, must stay below 2^31.
    if (g.itot % npx == 0 && g.jtot % npy == 0) {
        const long long jj = padded_row(g.itot / npx + 2 * igc);
        const long long cells =
            leading_pad(igc) + jj * (g.jtot / npy + 2 * jgc) * (g.ktot + 2 * kgc);
        if (cells > max_local_cells)
            why.push_back(fmt::format("the local array of {} points (with ghost cells and row "
                                      "padding) exceeds the limit of 2^31 - 1 of 32-bit indices",
                                      cells));
    }
    return why;
}

// All fitting decompositions of n ranks, ordered by npx; npx_fixed/npy_fixed > 0 pin one.
std::vector<Decomp2> fitting(const GridConfig& g, int n, int npx_fixed = 0, int npy_fixed = 0) {
    std::vector<Decomp2> fits;
    for (int npx = 1; npx <= n; ++npx) {
        if (n % npx != 0) continue;
        const int npy = n / npx;
        if ((npx_fixed > 0 && npx != npx_fixed) || (npy_fixed > 0 && npy != npy_fixed)) continue;
        if (broken_rules(g, npx, npy).empty()) fits.push_back({npx, npy});
    }
    return fits;
}

std::string list(const std::vector<Decomp2>& ds) {
    std::vector<std::string> s;
    for (const auto& d : ds) s.push_back(fmt::format("{} x {}", d.npx, d.npy));
    return fmt::format("{}", fmt::join(s, ", "));
}

// "rank counts that fit this grid: 1, 2, 4" (up to 16, or further until one is found).
std::string working_counts(const GridConfig& g, int nprocs) {
    std::vector<int> counts;
    const int limit = std::max(16, 2 * nprocs);
    for (int n = 1; n <= limit; ++n)
        if (!fitting(g, n).empty()) counts.push_back(n);
    return fmt::format("rank counts up to {} that fit this grid: {}", limit,
                       fmt::join(counts, ", "));
}

std::string where(const Config& cfg) {
    return cfg.mpi.source.empty() ? cfg.file : cfg.mpi.source;
}

std::string grid_text(const GridConfig& g) {
    return fmt::format("the {} x {} x {} grid", g.itot, g.jtot, g.ktot);
}

// The model of a layout's cost: the halo columns a rank exchanges, imax + jmax (its halo
// volume is 2 x 3 x (imax + jmax) x levels per field). The pencil transposes move the same
// volume in every layout.
long halo_cost(const GridConfig& g, Decomp2 d) {
    return long(g.itot / d.npx) + long(g.jtot / d.npy);
}

// Smallest halo perimeter imax + jmax per rank; ties go to the larger npy, which keeps
// the contiguous x rows long.
Decomp2 best(const GridConfig& g, const std::vector<Decomp2>& fits) {
    Decomp2 choice = fits.front();
    long best_cost = -1;
    for (const auto& d : fits) {
        const long cost = halo_cost(g, d);
        if (best_cost < 0 || cost < best_cost || (cost == best_cost && d.npy > choice.npy))
            choice = d, best_cost = cost;
    }
    return choice;
}

} // namespace

Decomp2 resolve_decomposition(const Config& cfg, int nprocs) {
    const GridConfig& g = cfg.grid;
    const int npx = cfg.mpi.npx, npy = cfg.mpi.npy;
    if (nprocs < 1)
        throw ConfigError(fmt::format("{}: mpi: invalid number of ranks {}", where(cfg), nprocs));

    if (npx > 0 && npy > 0) {
        std::vector<std::string> why;
        if (npx * npy != nprocs)
            why.push_back(
                fmt::format("it needs npx * npy = {} ranks but the run has {}", npx * npy, nprocs));
        for (auto& w : broken_rules(g, npx, npy)) why.push_back(std::move(w));
        if (why.empty()) return {npx, npy};
        const auto fits = fitting(g, nprocs);
        const std::string advice =
            fits.empty()
                ? fmt::format("No decomposition of {} fits {} rank{}; {}", grid_text(g), nprocs,
                              nprocs == 1 ? "" : "s", working_counts(g, nprocs))
                : fmt::format("Decompositions of {} that fit {} rank{} (npx x npy): {}; or set "
                              "mpi.npx and mpi.npy to 0 to choose automatically",
                              grid_text(g), nprocs, nprocs == 1 ? "" : "s", list(fits));
        throw ConfigError(fmt::format("{}: mpi.npx: decomposition npx x npy = {} x {} does not "
                                      "fit: {}. {}",
                                      where(cfg), npx, npy, fmt::join(why, "; "), advice));
    }

    // Automatic, or one of npx/npy pinned.
    const auto fits = fitting(g, nprocs, npx, npy);
    if (!fits.empty()) return best(g, fits);

    std::vector<std::string> why;
    for (int px = 1; px <= nprocs; ++px) {
        if (nprocs % px != 0) continue;
        const int py = nprocs / px;
        if ((npx > 0 && px != npx) || (npy > 0 && py != npy)) continue;
        why.push_back(fmt::format("{} x {}: {}", px, py, fmt::join(broken_rules(g, px, py), ", ")));
    }
    const std::string pinned = npx > 0   ? fmt::format(" with mpi.npx = {}", npx)
                               : npy > 0 ? fmt::format(" with mpi.npy = {}", npy)
                                         : "";
    if (why.empty()) why.push_back(fmt::format("{} ranks cannot be split{}", nprocs, pinned));
    const auto any_fit = fitting(g, nprocs);
    const std::string advice =
        !pinned.empty() && !any_fit.empty()
            ? fmt::format("decompositions that fit {} ranks: {}", nprocs, list(any_fit))
            : working_counts(g, nprocs);
    throw ConfigError(fmt::format("{}: mpi: no decomposition of {} fits {} rank{}{} ({}). {}",
                                  where(cfg), grid_text(g), nprocs, nprocs == 1 ? "" : "s", pinned,
                                  fmt::join(why, "; "), advice));
}

std::string explain_decomposition(const Config& cfg, int nprocs, Decomp2 chosen) {
    if (cfg.mpi.npx > 0 && cfg.mpi.npy > 0) return {};
    const GridConfig& g = cfg.grid;
    std::vector<std::string> others;
    for (const Decomp2& d : fitting(g, nprocs, cfg.mpi.npx, cfg.mpi.npy))
        if (d.npx != chosen.npx || d.npy != chosen.npy)
            others.push_back(fmt::format("{} x {} ({})", d.npx, d.npy, halo_cost(g, d)));
    return fmt::format(
        "layout {} x {} chosen automatically{}: the fewest halo columns per rank, imax + jmax = "
        "{} + {} = {}; {}; set mpi.npx and mpi.npy to choose",
        chosen.npx, chosen.npy,
        cfg.mpi.npx > 0   ? fmt::format(" with mpi.npx = {}", cfg.mpi.npx)
        : cfg.mpi.npy > 0 ? fmt::format(" with mpi.npy = {}", cfg.mpi.npy)
                          : "",
        g.itot / chosen.npx, g.jtot / chosen.npy, halo_cost(g, chosen),
        others.empty() ? std::string("no other layout fits")
                       : fmt::format("the others that fit: {}", fmt::join(others, ", ")));
}

} // namespace squall
