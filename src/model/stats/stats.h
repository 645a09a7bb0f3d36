#pragma once
// Statistics output: horizontal-mean profiles and time series, kept in memory and written
// to one HDF5 file (layout: docs/output.md).
//
// Usage (all calls are collective over decomp.comm):
//   Statistics<T> stats(grid, decomp, "out/case.stats.h5", cfg.resolved_yaml, "th", cfg.name);
//   StatsInput<T> in;  in.u = &u; in.v = &v; in.w = &w; in.s = &th; ...
//   stats.sample(time, step, in);   // on sample times
//   stats.write();                  // rewrites the whole file atomically (rank 0 writes)
//
// Inputs must have valid ghost cells: u at i = iend and v at j = jend (halo exchange),
// and the bottom/top ghost levels of s and evisc (boundary conditions), exactly as the
// tendency kernels see them. All statistics are computed in double regardless of T.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "model/decomp.h"
#include "model/field.h"
#include "model/grid.h"

namespace squall {

template <typename T>
struct StatsInput {
    const Field3d<T>* u = nullptr; // required
    const Field3d<T>* v = nullptr; // required
    const Field3d<T>* w = nullptr; // required
    const Field3d<T>* s = nullptr; // the scalar (nullptr: none)

    // Subgrid scalar flux, as the diffusion kernels compute it at a face:
    //   Kh = kappa                                      (evisc == nullptr, constant diffusion)
    //   Kh = interp2(evisc) * prandtl_t_inv + kappa     (evisc != nullptr, smag2)
    const Field3d<T>* evisc = nullptr;
    double kappa = 0;         // molecular scalar diffusivity (m2/s)
    double prandtl_t_inv = 0; // 1 / turbulent Prandtl number

    // 2-D surface arrays (index ij = i + j*jj of the local grid), each nullable.
    const T* s_fluxbot = nullptr; // prescribed surface scalar flux: used as the flux at kstart
    const T* ustar = nullptr;     // friction velocity (surface model)
    const T* obuk_inv = nullptr;  // 1 / Obukhov length (surface model)

    // Time-series values computed elsewhere (already global).
    double dt = 0, cfl = 0, dn = 0, div = 0;
};

template <typename T>
class Statistics {
public:
    // scalar: the scalar's name ("th", "b", ... or "" for none); it names the scalar's
    // datasets (th, th2, th_flux, ...). case_name goes into the root attribute "case".
    Statistics(const Grid<T>& grid, const Decomposition& decomp, std::string path,
               std::string resolved_yaml, std::string scalar, std::string case_name = "");

    // Compute and append one sample (collective).
    void sample(double time, long step, const StatsInput<T>& in);

    // Write everything sampled so far to "<path>.tmp", then rename it over path
    // (collective; rank 0 writes). Throws std::runtime_error naming the path on every rank
    // when the file cannot be written; the previous file, if any, is left untouched.
    void write() const;

    const std::string& path() const { return path_; }
    std::size_t nsamples() const { return time_.size(); }
    // All samples of a profile (nsamples x n, row-major) or time series, by dataset name.
    const std::vector<double>& profile(const std::string& name) const;
    const std::vector<double>& series(const std::string& name) const;
    bool has(const std::string& name) const { return vars_.count(name) != 0; }

private:
    enum class Loc { z, zh, time };
    struct Var {
        Loc loc;
        std::string long_name, units;
        std::vector<double> data;
    };
    void add(const std::string& name, Loc loc, std::string long_name, std::string units);
    void push(const std::string& name, const std::vector<double>& v);
    void push(const std::string& name, double v);
    void write_file(const std::string& file) const;

    const Grid<T>& grid_;
    const Decomposition& decomp_;
    std::string path_, yaml_, scalar_, case_;
    std::vector<double> time_;
    std::vector<long long> step_;
    std::map<std::string, Var> vars_;
    std::vector<std::string> order_; // creation order, for a stable file layout
};

extern template class Statistics<float>;
extern template class Statistics<double>;

} // namespace squall
