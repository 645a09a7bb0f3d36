#pragma once
// Statistics output: horizontal-mean profiles and time series, appended to one HDF5 file
// sample by sample (layout and behaviour: docs/output.md).
//
// Usage (all calls are collective over decomp.comm; rank 0 does the file I/O):
//   Statistics<T> stats(grid, decomp, "out/case.stats.h5", cfg.resolved_yaml, "th", cfg.name,
//                       cfg.overwrite);
//   stats.resume(restart_time);     // only when continuing a run (instead of a new file)
//   StatsInput<T> in;  in.u = &u; in.v = &v; in.w = &w; in.s = &th; ...
//   stats.sample(time, step, in);   // on sample times
//   stats.write();                  // appends the new samples and flushes the file
//
// A new run creates the file at create() or at the first write(), and refuses an existing
// file unless `overwrite`. resume(t) continues an existing file instead: it keeps its
// samples with time <= t, so the continued run must not sample at t again.
// Every failure throws std::runtime_error naming the file, on every rank.
//
// Inputs must have valid ghost cells: u at i = iend and v at j = jend (halo exchange),
// and the bottom/top ghost levels of s and evisc (boundary conditions), exactly as the
// tendency kernels see them. All statistics are computed in double regardless of T.
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/decomp.h"
#include "model/field.h"
#include "model/grid.h"

namespace squall {

namespace stats_io {
class StatsFile;
}

// The height where a stress profile (on the faces zh, stress[0] at the wall) first falls to
// 5 % of its surface value, linearly interpolated, divided by 0.95: the stable boundary
// layer's depth as the GABLS1 intercomparison defines it (docs/validation.md). NaN when it
// never does. The statistics' h_stress.
double stress_height(const std::vector<double>& stress, const std::vector<double>& zh);

// A scalar's units and those of its flux ("K", "K m s-1"), and what it is ("potential
// temperature"), from its conventional name (th, thl, b, qt, ...; else dimensionless).
std::pair<std::string, std::string> scalar_units(const std::string& s);
std::string scalar_noun(const std::string& s);

// A scalar for the statistics: its name, field and surface flux (nullable).
template <typename T>
struct StatsScalar {
    std::string name;
    const Field3d<T>* field = nullptr;
    const T* fluxbot = nullptr;
};

// thermo.type moist: what the liquid water needs (thl is the scalar s, qt one of scalars).
template <typename T>
struct StatsMoist {
    // ql and thv of every point by the model's kernels (thv also on the ghost levels).
    const Field3d<T>*ql = nullptr, *thv = nullptr;
    const double* rhoref = nullptr;      // reference density by k (kg m-3)
    double thvref = 300, gravity = 9.81; // the buoyancy's reference thv and g
};

template <typename T>
struct StatsInput {
    const Field3d<T>* u = nullptr; // required
    const Field3d<T>* v = nullptr; // required
    const Field3d<T>* w = nullptr; // required
    const Field3d<T>* s = nullptr; // the scalar (nullptr: none)
    const Field3d<T>* p = nullptr; // the kinematic pressure (nullptr: none)
    // The buoyancy per unit of the scalar (g/thref; 1 for a buoyancy scalar; 0: none): the
    // TKE budget's buoyancy production is it times the resolved flux of th (thv with moist).
    double buoyancy_factor = 0;
    std::vector<StatsScalar<T>> passive; // the passive scalars
    StatsMoist<T> moist;                 // with moist.ql: the cloud statistics

    // Subgrid scalar flux, as the diffusion kernels compute it at a face:
    //   Kh = kappa                                      (evisc == nullptr, constant diffusion)
    //   Kh = interp2(evisc) * prandtl_t_inv + kappa     (evisc != nullptr, smag2)
    const Field3d<T>* evisc = nullptr;
    double kappa = 0;              // molecular scalar diffusivity (m2/s)
    double nu = 0;                 // molecular viscosity (m2/s), in the subgrid momentum fluxes
    double utrans = 0, vtrans = 0; // the model frame's velocity: u, v and ke are written in
                                   // the ground frame (u + utrans, v + vtrans)
    double prandtl_t_inv = 0;      // 1 / turbulent Prandtl number

    // 2-D surface arrays (index ij = i + j*jj of the local grid), each nullable.
    const T* s_fluxbot = nullptr; // surface scalar flux: used as the flux at kstart
    const T* u_fluxbot = nullptr; // surface momentum fluxes (on the u and v faces): used as
    const T* v_fluxbot = nullptr; // the subgrid fluxes at kstart (both or neither)
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
    // overwrite: a new run replaces an existing file instead of refusing it.
    Statistics(const Grid<T>& grid, const Decomposition& decomp, std::string path,
               std::string resolved_yaml, std::string scalar, std::string case_name = "",
               bool overwrite = false);
    ~Statistics(); // closes the file; everything written is already flushed

    // Create the file for a new run now (else the first write() does): refuses an existing
    // file unless `overwrite`.
    void create();
    // Continue the file of an earlier run at model time `time`: checks that it has the
    // same levels, scalar and (at the next write) variables, and drops its samples after
    // `time`. Call before any write().
    void resume(double time);

    // Compute one sample and keep it until the next write() (collective).
    void sample(double time, long step, const StatsInput<T>& in);

    // Append the samples taken since the last write to the file and flush it (collective).
    // On failure the file keeps the samples of earlier writes and is closed.
    void write();
    // Close the file, reporting a failure (collective).
    void close();

    const std::string& path() const { return path_; }
    // Samples in the file plus those not yet written.
    std::size_t nsamples() const { return nwritten_ + time_.size(); }
    bool has(const std::string& name) const { return vars_.count(name) != 0; }

private:
    enum class Loc { z, zh, time };
    struct Var {
        Loc loc;
        std::string long_name, units;
        std::vector<double> data;
    };
    void add(const std::string& name, Loc loc, std::string long_name, std::string units);
    // The sum of f(ijk) over this rank's interior points of level k.
    template <class F>
    double level_sum(int k, F&& f) const {
        const GridDims& d = grid_.d;
        double acc = 0;
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i) acc += double(f(i + j * d.jj + k * d.kk));
        return acc;
    }
    // Sums over all ranks, divided by the points of a level: horizontal means (collective).
    void mean_allreduce(std::vector<double>& sums) const;
    // One scalar's profiles: mean, variance, resolved, subgrid and total flux (collective).
    struct ScalarProfiles {
        std::vector<double> mean, var, flux_res, flux_sgs, flux;
    };
    ScalarProfiles scalar_profiles(const T* s, const T* fluxbot, const StatsInput<T>& in,
                                   const std::vector<double>& wbar);
    // The cloud statistics of thermo.type moist (collective).
    struct MoistProfiles {
        std::vector<double> ql, cloud_fraction, thv, thv_flux_res;
        double lwp = 0, cover = 0, zcb = 0, zct = 0;
    };
    MoistProfiles moist_profiles(const StatsInput<T>& in, const std::vector<double>& wbar);
    // The resolved TKE budget's shear production, turbulent and pressure transport at the
    // faces, and the pressure variance at the centres (collective).
    struct TkeBudget {
        std::vector<double> shear, turb, pres, p2, diss;
    };
    TkeBudget tke_budget(const StatsInput<T>& in, const double* ubar, const double* vbar,
                         const double* wbar, const double* u_res, const double* v_res);
    void push(const std::string& name, const std::vector<double>& v);
    void push(const std::string& name, double v);
    // Runs f on rank 0; an exception there is rethrown on every rank, naming the file.
    void on_root(const std::function<void()>& f);

    const Grid<T>& grid_;
    const Decomposition& decomp_;
    std::string path_, yaml_, scalar_, case_;
    bool overwrite_;
    bool opened_ = false;      // create() or resume() done
    bool check_vars_ = false;  // resumed: the next write checks the file's variables
    std::size_t nwritten_ = 0; // samples in the file
    std::unique_ptr<stats_io::StatsFile> file_; // rank 0
    // Samples not yet written:
    std::vector<double> time_;
    std::vector<long long> step_;
    std::map<std::string, Var> vars_;
    std::vector<std::string> order_; // creation order, for a stable file layout
};

extern template class Statistics<float>;
extern template class Statistics<double>;

} // namespace squall
