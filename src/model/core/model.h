#pragma once
// The model of one rank: grid, fields and the physics modules, advanced in time by a
// low-storage Runge-Kutta scheme. See docs/ and docs/numerics.md for the equations.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common.cuh"
#include "model/config/config.h"
#include "model/core/fields.h"
#include "model/core/halo.h"
#include "model/core/interior.h"
#include "model/core/metrics.h"
#include "model/core/profile_forcing.h"
#include "model/decomp.h"
#include "model/grid.h"
#include "model/io/checkpoint.h"

namespace squall {

template <typename T>
class PressureSolver;
template <typename T>
class PressureSolverGpu;
template <typename T>
class Statistics;
template <typename T>
class Output;

// Model time is an integer count of this unit, so output times and restarts are exact.
inline constexpr double time_unit = 1e-9;

struct Diagnostics {
    double cfl = 0, dn = 0, div = 0, ke = 0, s_mean = 0, mom_u = 0, mom_v = 0;
    double passive_mean = 0;         // the sum of the passive scalars' volume means
    double stable_limit_columns = 0; // surface columns without a stable Obukhov root
};

template <typename T>
class Model {
public:
    // With cfg.backend == gpu every array lives on the device and the GPU dispatch must be
    // active (gpu_session.h) while the model steps; anything else runs on the CPU.
    Model(const Config& cfg, const Decomposition& decomp);
    ~Model();

    // GPU: compiles, in parallel, every kernel variant that initialise() and the time loop
    // launch (one recorded pass through them); returns the number of variants. CPU: 0.
    // Call before initialise(): the recorded pass leaves the fields' contents undefined.
    std::size_t precompile();
    void initialise(); // initial fields from cfg.init, projected divergence-free
    // Instead of initialise(): the state of a checkpoint (restart.cpp). Throws, naming every
    // key that differs, when the checkpoint does not fit this case.
    void restart(const std::string& checkpoint_file);
    // Writes the state to output.dir/<case>.chk.<itime>.h5 (collective); returns the path.
    std::string write_checkpoint();
    // The process exit code the run asks for: 0, or 128 + signal after a stop by a signal.
    int exit_code() const { return exit_code_; }
    void run();                   // advance to endtime, printing status and writing stats
    void step();                  // one full RK step of size dt (adaptive or fixed)
    void set_fixed_dt(double dt); // for tests: disable adaptivity and use dt

    double time() const { return double(itime_) * time_unit; }
    long steps() const { return nstep_; }
    double dt() const { return double(idt_) * time_unit; }
    Diagnostics diagnostics(); // global (MPI-reduced) diagnostics of the current state

    Fields<T>& fields() { return f_; }
    bool on_device() const { return on_device_; }
    // Whether a substep's advection and diffusion run as fused kernels (model.tendencies).
    bool fused_tendencies() const;
    // Copies the whole state back to the host copies (no-op on the CPU).
    void to_host() { f_.to_host(); }
    const Grid<T>& grid() const { return g_; }
    const Config& config() const { return cfg_; }
    const Decomposition& decomp() const { return decomp_; }
    // thermo.type moist: the reference pressure by level (Pa; empty otherwise).
    const DeviceArray<T>& reference_pressure() const { return f_.pref; }
    const DeviceArray<T>& reference_exner() const { return f_.exner_ref; }
    // Fill all ghost cells of the prognostic fields (halo and walls).
    void set_boundaries();

private:
    const Config& cfg_;
    const Decomposition& decomp_;
    bool on_device_;
    Grid<T> g_;
    MetricArrays<T> metric_arrays_;
    Metrics<T> m_; // the metric pointers kernels take (host or device copies)
    Fields<T> f_;
    Halo<T> halo_;
    std::unique_ptr<PressureSolver<T>> pres_;
    std::shared_ptr<PressureSolverGpu<T>> pres_gpu_; // shared_ptr: complete type only where made
    // Host-only copies for output on the GPU: Statistics reads Field3d::data().
    std::unique_ptr<Statistics<T>> stats_;
    std::unique_ptr<Output<T>> output_; // cross-sections and 3-D fields (output.h)

    std::vector<double> rk_a_, rk_b_;
    double dn_molecular_per_dt_ = 0;
    std::int64_t itime_ = 0, idt_ = 0, iendtime_ = 0, istats_every_ = 0;
    std::int64_t icross_every_ = 0, ifields_every_ = 0;
    std::int64_t idt_fixed_ = 0; // the step without adaptivity, before output-time clipping
    long nstep_ = 0;
    bool fixed_dt_ = false;
    DeviceArray<T> smag_mlen2_; // the Smagorinsky mixing length squared by level (les())
    DeviceArray<T> sponge_coef_, sponge_uref_, sponge_vref_, sponge_sref_;
    std::vector<DeviceArray<T>> sponge_cref_;  // the passive scalars' sponge references
    DeviceArray<T> coriolis_ug_, coriolis_vg_; // the geostrophic wind by level
    // thermo.type moist: the reference density by level (the reference pressure is in
    // Fields), and the surface thv flux.
    std::vector<double> rhoref_;
    DeviceArray<T> thv_fluxbot_;
    int qt_ = -1; // moist: the index of qt in f_.scalars
    void set_reference_state();
    std::unique_ptr<ProfileForcing<T>> profile_forcing_; // cfg.forcing (when it is given)
    int sponge_kstart_ = 0; // first level with a non-zero damping rate (the sponge's bottom)
    void set_sponge_reference();

    // Checkpoints, restart, signals and the wall-time limit (restart.cpp).
    bool restarted_ = false;
    int exit_code_ = 0;
    std::int64_t itime_last_checkpoint_ = -1;
    double wall_start_ = wall_seconds(), wall_last_step_ = -1, wall_last_checkpoint_ = -1;
    double checkpoint_seconds_ = -1; // the last write's duration (-1: none yet)
    // What output cost this run (wall seconds, samples) by kind; printed at the end of run().
    enum OutputKind { stats_output, cross_output, fields_output, output_kinds };
    struct OutputTime {
        double seconds[output_kinds] = {};
        long samples[output_kinds] = {};
    } output_time_;
    void count_output(OutputKind kind, double since); // one sample of kind, begun at since
    static double wall_seconds();
    std::vector<io::CheckpointField<T>> checkpoint_fields();
    bool checkpoint_after_step(); // at the end of every step; true: stop the run
    void final_checkpoint();      // at the end of the run, when checkpoints are on

    // One RK substep pieces (tendencies.cpp, boundaries.cpp, surface_layer.cpp, projection.cpp).
    void surface_layer();
    void thermo_state(); // moist: thv from thl and qt, before the closure and the tendencies
    void moist_state_for_stats(); // moist: thv and ql on the host (sample_stats)
    void closure();
    // The substep's tendencies; with the fused kernels, first: the RK's first stage (they
    // start from zero), and the scalar's stage with b_dt and a_next (scalar_stage_in_tendencies).
    void tendencies(bool first, T b_dt, T a_next);
    void advection();
    void diffusion();
    // The passive scalars' advection and diffusion by the separate scalar kernels.
    void passive_advection();
    void passive_diffusion();
    // advection() and diffusion() in the fused kernels, the passive scalars' too.
    void advection_diffusion_fused(bool first, T b_dt, T a_next);
    void momentum_tendency_fused(int first_stage);
    void scalar_tendency_fused(Field3d<T>& st, const Field3d<T>& s, const DeviceArray<T>& fluxbot,
                               const T* sref, int first_stage, T* s_next, T b_dt, T a_next,
                               int drop_tendency);
    bool scalar_stage_in_tendencies() const { return f_.s_next.size() > 0; }
    bool has_buoyancy() const;
    T buoyancy_factor() const;
    T buoyancy_reference() const;
    bool moist() const { return cfg_.thermo == ThermoType::moist; }
    // The field the buoyancy and the closure's stability correction take: thv (moist) or s.
    const T* buoyancy_scalar() const { return moist() ? f_.thv.data() : f_.s.data(); }
    void sponge();
    void large_scale_forcing(); // tendencies.cpp
    bool sponge_in_tendencies() const;
    // a_next == 0 marks the last stage (where the fused kernels' next stage starts from zero).
    void pressure_and_update(T b_dt, T a_next);
    void rk_update_scalar(T b_dt, T a_next);
    void project_initial();

    // Time step control (model.cpp).
    std::int64_t compute_idt();
    double cfl_per_dt();
    double dn_per_dt();
    void print_status(double wall_per_step, double eta);
    void sample_stats();
    void sample_output(bool first); // cross-sections and 3-D fields due at this time
    void print_output_time(double loop_seconds) const; // rank 0: output_time_ of this run
    // Model time in s as the nearest double, for output files: 60 s, where time() =
    // itime * 1e-9 gives 60.00000000000001.
    double output_time() const {
        static_assert(time_unit == 1e-9);
        return double(itime_) / 1e9;
    }

    sq::Range3 range_c() const; // centred interior (3-D kernels: interior_of<F>, interior.h)
    // Launches k over its interior with the grid's members set (interior.h: on_grid).
    template <class K>
    void launch_on_grid(const K& k) const {
        launch_interior(g_.d, on_grid(k, g_, m_));
    }
    sq::Range3 range_2d() const;
    double allreduce_max(double v) const;
    double allreduce_sum(double v) const;
    bool les() const { return cfg_.diff == DiffType::smag2; }
    bool surface() const { return cfg_.bc.surface.enabled; }
    // The surface layer takes the scalar's surface value and computes its flux (else the
    // flux is prescribed).
    bool surface_value_given() const {
        return surface() && f_.has_scalar && cfg_.bc.s_bot == ScalarBc::dirichlet;
    }
};

// Run a case from a loaded configuration on MPI_COMM_WORLD; returns the exit code.
int run_case(const Config& cfg);

} // namespace squall
