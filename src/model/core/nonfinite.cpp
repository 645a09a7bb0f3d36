// A state that holds a NaN or an Inf: find the first bad point of the prognostic fields,
// write a diagnostic file and stop the run (failsafe.h).
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <utility>
#include <vector>

#include "model/core/failsafe.h"
#include "model/core/model.h"

namespace squall {

namespace {

// Per-level summary of one field's interior over all ranks.
struct LevelSummary {
    std::vector<double> min, max, bad; // min/max of the finite values; count of the others
};

template <typename T>
struct Scan {
    std::string name;
    const Field3d<T>* f;
    LevelSummary levels;
    long long first = -1; // global (k, j, i) key of this rank's first bad point
    double first_value = 0;
};

} // namespace

template <typename T>
void check_finite(Model<T>& m, const Diagnostics& dg) {
    const std::pair<const char*, double> values[] = {{"cfl", dg.cfl},
                                                     {"dn", dg.dn},
                                                     {"div", dg.div},
                                                     {"ke", dg.ke},
                                                     {"mean scalar", dg.s_mean},
                                                     {"passive scalars' means", dg.passive_mean},
                                                     {"u momentum", dg.mom_u},
                                                     {"v momentum", dg.mom_v}};
    for (const auto& [name, v] : values)
        if (!std::isfinite(v)) fail_not_finite(m, fmt::format("{} = {}", name, v));
}

template <typename T>
void fail_not_finite(Model<T>& m, const std::string& diagnostic) {
    m.to_host();
    const Config& cfg = m.config();
    const GridDims& d = m.grid().d;
    const MPI_Comm comm = m.decomp().comm;
    Fields<T>& f = m.fields();
    std::vector<Scan<T>> scans = {{"u", &f.u, {}}, {"v", &f.v, {}}, {"w", &f.w, {}}};
    if (f.has_scalar) scans.push_back({scalar_name(cfg.thermo), &f.s, {}});
    for (std::size_t n = 0; n < f.scalars.size(); ++n)
        scans.push_back({cfg.scalars[n].name, &f.scalars[n].c, {}});

    const long long npoints = (long long)d.itot * d.jtot * d.ktot;
    long long first = std::numeric_limits<long long>::max(); // over fields, then (k, j, i)
    double total_bad = 0;
    double largest = -1, largest_value = 0; // the finite value of largest magnitude
    long long largest_key = 0;
    for (std::size_t n = 0; n < scans.size(); ++n) {
        Scan<T>& s = scans[n];
        LevelSummary& L = s.levels;
        L.min.assign(d.kmax, std::numeric_limits<double>::infinity());
        L.max.assign(d.kmax, -std::numeric_limits<double>::infinity());
        L.bad.assign(d.kmax, 0);
        for (int k = d.kstart; k < d.kend; ++k)
            for (int j = d.jstart; j < d.jend; ++j)
                for (int i = d.istart; i < d.iend; ++i) {
                    const double v = double((*s.f)(i, j, k));
                    const int kl = k - d.kstart;
                    const long long gi = i - d.istart + d.ioffset, gj = j - d.jstart + d.joffset;
                    const long long key =
                        (long long)n * npoints + ((kl * (long long)d.jtot) + gj) * d.itot + gi;
                    if (std::isfinite(v)) {
                        L.min[kl] = std::min(L.min[kl], v);
                        L.max[kl] = std::max(L.max[kl], v);
                        if (std::abs(v) > largest)
                            largest = std::abs(v), largest_value = v, largest_key = key;
                        continue;
                    }
                    L.bad[kl] += 1;
                    if (key < first) first = key, s.first_value = v;
                }
        MPI_Allreduce(MPI_IN_PLACE, L.min.data(), d.kmax, MPI_DOUBLE, MPI_MIN, comm);
        MPI_Allreduce(MPI_IN_PLACE, L.max.data(), d.kmax, MPI_DOUBLE, MPI_MAX, comm);
        MPI_Allreduce(MPI_IN_PLACE, L.bad.data(), d.kmax, MPI_DOUBLE, MPI_SUM, comm);
        for (double b : L.bad) total_bad += b;
    }
    long long global_first = first;
    MPI_Allreduce(&first, &global_first, 1, MPI_LONG_LONG, MPI_MIN, comm);

    // "field u" and "i = 5, j = 6, k = 3" of a key.
    auto point = [&](long long key) {
        const long long rest = key % npoints;
        return std::pair{scans[std::size_t(key / npoints)].name,
                         fmt::format("i = {}, j = {}, k = {}", rest % d.itot,
                                     (rest / d.itot) % d.jtot,
                                     rest / ((long long)d.itot * d.jtot))};
    };
    std::string where;
    if (total_bad == 0) {
        // Finite but overflowing diagnostics (e.g. ke = inf): name the largest value.
        struct {
            double v;
            int rank;
        } mine{largest, m.decomp().rank}, top{};
        MPI_Allreduce(&mine, &top, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
        double sent[2] = {largest_value, double(largest_key)};
        MPI_Bcast(sent, 2, MPI_DOUBLE, top.rank, comm);
        const auto [name, at] = point((long long)sent[1]);
        where = fmt::format("no NaN or Inf in the prognostic fields yet; their largest magnitude "
                            "is field {} = {:.6g} at {} (0-based global cell indices)",
                            name, sent[0], at);
    } else {
        const std::size_t n = std::size_t(global_first / npoints);
        // The owner knows the value: 0 NaN, 1 +Inf, 2 -Inf.
        int kind = -1;
        if (first == global_first) {
            const double v = scans[n].first_value;
            kind = std::isnan(v) ? 0 : v > 0 ? 1 : 2;
        }
        MPI_Allreduce(MPI_IN_PLACE, &kind, 1, MPI_INT, MPI_MAX, comm);
        const char* kinds[] = {"nan", "inf", "-inf"};
        const auto [name, at] = point(global_first);
        where = fmt::format("field {} is {} at {} (0-based global cell indices; {:.0f} "
                            "non-finite points in all)",
                            name, kinds[std::max(kind, 0)], at, total_bad);
    }
    const std::filesystem::path file = std::filesystem::path(cfg.output_dir) /
                                       fmt::format("{}.failed.{}.txt", cfg.name, m.steps());
    const std::string message =
        fmt::format("numerical failure after step {} (model time {:.9g} s): {}; {}; per-level "
                    "summary in {}",
                    m.steps(), m.time(), diagnostic, where, file.string());

    if (m.decomp().rank == 0) {
        std::error_code ec; // the run may not have written anything there yet
        std::filesystem::create_directories(file.parent_path(), ec);
        std::FILE* fp = std::fopen(file.c_str(), "w");
        if (fp) {
            fmt::print(fp, "# squall: {}\n# case {}, {} x {} x {} grid, step {}, time {:.9g} s\n",
                       message, cfg.name, d.itot, d.jtot, d.ktot, m.steps(), m.time());
            fmt::print(fp, "# Finite minimum and maximum, and count of NaN/Inf, per level.\n");
            fmt::print(fp, "{:>6} {:>5} {:>14} {:>24} {:>24} {:>10}\n", "field", "k", "z", "min",
                       "max", "nonfinite");
            for (const auto& s : scans)
                for (int k = 0; k < d.kmax; ++k)
                    fmt::print(fp, "{:>6} {:>5} {:>14.6g} {:>24.16g} {:>24.16g} {:>10.0f}\n",
                               s.name, k, double(m.grid().z[d.kstart + k]), s.levels.min[k],
                               s.levels.max[k], s.levels.bad[k]);
            if (std::fclose(fp) != 0)
                fmt::print(stderr, "squall: warning: cannot write {}\n", file.string());
        } else {
            fmt::print(stderr, "squall: warning: cannot create {}\n", file.string());
        }
    }
    throw NumericalFailure(message);
}

template void check_finite(Model<float>&, const Diagnostics&);
template void check_finite(Model<double>&, const Diagnostics&);
template void fail_not_finite(Model<float>&, const std::string&);
template void fail_not_finite(Model<double>&, const std::string&);

} // namespace squall
