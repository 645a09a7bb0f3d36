// Model set-up, the time loop, time-step control and run-time diagnostics.
#include "model/core/model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fmt/core.h>

#include "backends/launch.h"
#include "kernels/diagnostics.cuh"
#include "kernels/diff.cuh"
#include "kernels/pressure.cuh"
#include "kernels/surface.cuh"
#include "model/comm/comm_time.h"
#include "model/core/failsafe.h"
#include "model/core/gpu_session.h"
#include "model/core/init.h"
#include "model/core/output.h"
#include "model/core/profile_table.h"
#include "model/core/profiles.h"
#include "model/pressure/pressure.h"
#ifdef SQUALL_GPU_MODEL
#include "model/pressure/pressure_gpu.h"
#endif
#include "model/stats/stats.h"

namespace squall {

namespace {
// Williamson (1980) RK3 and Carpenter-Kennedy (1994) 5-stage RK4, low-storage form.
const std::vector<double> rk3_a = {0., -5. / 9., -153. / 128.};
const std::vector<double> rk3_b = {1. / 3., 15. / 16., 8. / 15.};
const std::vector<double> rk4_a = {
    0., -567301805773. / 1357537059087., -2404267990393. / 2016746695238.,
    -3550918686646. / 2091501179385., -1275806237668. / 842570457699.};
const std::vector<double> rk4_b = {1432997174477. / 9575080441755.,
                                   5161836677717. / 13612068292357.,
                                   1720146321549. / 2090206949498., 3134564353537. / 4481467310338.,
                                   2277821191437. / 14882151754819.};

std::int64_t to_itime(double t) {
    return std::int64_t(std::llround(t / time_unit));
}

// The run's time in transfers between ranks (comm_time.h) per step, as the mean over the
// ranks and its share of the loop's wall time; the slowest rank too, since a rank that
// waits long shows where the imbalance is. Collective over comm; rank 0 prints.
void print_comm_time(MPI_Comm comm, double loop_seconds, long steps) {
    int nranks = 1, rank = 0;
    MPI_Comm_size(comm, &nranks);
    MPI_Comm_rank(comm, &rank);
    const double mine[3] = {
        CommTime::seconds(CommKind::halo), CommTime::seconds(CommKind::transpose),
        CommTime::seconds(CommKind::halo) + CommTime::seconds(CommKind::transpose)};
    double sum[3], max[3];
    MPI_Allreduce(mine, sum, 3, MPI_DOUBLE, MPI_SUM, comm);
    MPI_Allreduce(mine, max, 3, MPI_DOUBLE, MPI_MAX, comm);
    if (rank != 0) return;
    const double ms = 1e3 / double(steps) / nranks; // mean ms per step
    fmt::print("squall: communication per step, mean over {} rank(s): halo exchanges {:.4f} ms, "
               "pressure transposes {:.4f} ms, {:.2f}% of the step; slowest rank {:.4f} ms\n",
               nranks, sum[0] * ms, sum[1] * ms, 100 * sum[2] / nranks / loop_seconds,
               1e3 * max[2] / double(steps));
}
} // namespace

template <typename T>
Model<T>::Model(const Config& cfg, const Decomposition& decomp)
    : cfg_(cfg), decomp_(decomp), on_device_(cfg.backend == Backend::gpu),
      g_(Grid<T>::make(cfg, decomp.npx, decomp.npy, decomp.px, decomp.py)),
      metric_arrays_(g_, on_device_), m_(metric_arrays_.get()),
      f_(g_.d, cfg.thermo != ThermoType::none, cfg.diff == DiffType::smag2,
         !runs_fused_tendencies(cfg), cfg.bc.surface.enabled, runs_scalar_stage_in_tendencies(cfg),
         on_device_, int(cfg.scalars.size()), cfg.thermo == ThermoType::moist,
         cfg.thermo == ThermoType::moist && cfg.stats_every > 0),
      halo_(g_.d, decomp, on_device_) {
    if (on_device_) {
#ifdef SQUALL_GPU_MODEL
        pres_gpu_ = std::make_shared<PressureSolverGpu<T>>(g_, decomp_);
#else
        throw std::runtime_error("backend 'gpu': this build has no GPU model (no CUDA toolkit at "
                                 "build time); use the CPU backend");
#endif
    } else {
        pres_ = std::make_unique<PressureSolver<T>>(g_, decomp_);
    }
    rk_a_ = cfg.rk_order == 4 ? rk4_a : rk3_a;
    rk_b_ = cfg.rk_order == 4 ? rk4_b : rk3_b;
    iendtime_ = to_itime(cfg.endtime);
    istats_every_ = to_itime(cfg.stats_every);
    icross_every_ = to_itime(cfg.cross.every);
    ifields_every_ = to_itime(cfg.fields_out.every);
    fixed_dt_ = !cfg.adaptive_dt;
    {
        // Largest molecular diffusion number per unit dt; a property of the grid alone.
        const auto& d = g_.d;
        const double dzi_max =
            *std::max_element(g_.dzi.begin() + d.kstart, g_.dzi.begin() + d.kend);
        dn_molecular_per_dt_ =
            std::max(cfg.nu, cfg.kappa) *
            (double(g_.dxi) * g_.dxi + double(g_.dyi) * g_.dyi + dzi_max * dzi_max);
    }
    idt_ = idt_fixed_ = to_itime(cfg.dt);
    if (cfg.bc.surface.enabled && f_.has_scalar && cfg.bc.s_bot == ScalarBc::flux) {
        // A prescribed scalar flux; the case gives it as the bottom value.
        f_.s_fluxbot.fill(T(cfg.bc.s_bot_at(0)));
    }
    for (std::size_t n = 0; n < f_.scalars.size(); ++n)
        if (cfg.scalars[n].bot == ScalarBc::flux)
            f_.scalars[n].fluxbot.fill(T(cfg.scalars[n].bot_at(0)));
    if (moist()) set_reference_state();
    if (les()) {
        smag_mlen2_.assign(g_.d.kcells, T(0), on_device_);
        for (int k = g_.d.kstart; k < g_.d.kend; ++k)
            smag_mlen2_[k] = sq::smag_mixing_length2(T(cfg.cs), g_.dx, g_.dy, g_.dz[k], g_.z[k],
                                                     T(cfg.bc.surface.z0m), surface());
        smag_mlen2_.to_device();
    }
    if (cfg.coriolis.enabled()) {
        coriolis_ug_.assign(g_.d.kcells, T(cfg.coriolis.ug - cfg.grid.utrans), on_device_);
        coriolis_vg_.assign(g_.d.kcells, T(cfg.coriolis.vg - cfg.grid.vtrans), on_device_);
        // Profiles by height (forcing.ug, forcing.vg) in place of the constants.
        const ForcingConfig& fc = cfg.forcing;
        for (int k = g_.d.kstart; k < g_.d.kend; ++k) {
            const double z = g_.z[k];
            if (!fc.ug.empty())
                coriolis_ug_[k] = T(interpolate_linear(fc.z, fc.ug, z) - cfg.grid.utrans);
            if (!fc.vg.empty())
                coriolis_vg_[k] = T(interpolate_linear(fc.z, fc.vg, z) - cfg.grid.vtrans);
        }
        coriolis_ug_.to_device();
        coriolis_vg_.to_device();
    }
    if (cfg.forcing.enabled())
        profile_forcing_ = std::make_unique<ProfileForcing<T>>(cfg_, g_, decomp_, on_device_);
    if (cfg.sponge.enabled) {
        // Damping rate sigma ((z - zstart)/(zsize - zstart))^beta above zstart.
        sponge_coef_.assign(g_.d.kcells, T(0), on_device_);
        for (int k = g_.d.kstart; k < g_.d.kend; ++k) {
            const double z = g_.z[k];
            if (z > cfg.sponge.zstart)
                sponge_coef_[k] =
                    T(cfg.sponge.sigma *
                      std::pow((z - cfg.sponge.zstart) / (cfg.grid.zsize - cfg.sponge.zstart),
                               cfg.sponge.beta));
        }
        sponge_kstart_ = g_.d.kend;
        for (int k = g_.d.kend - 1; k >= g_.d.kstart && sponge_coef_[k] != T(0); --k)
            sponge_kstart_ = k;
        sponge_coef_.to_device();
        set_sponge_reference(); // analytic, so once here: before precompile() steps too
    }
    if (cfg.stats_every > 0) {
        const std::filesystem::path dir(cfg.output_dir);
        if (decomp_.rank == 0) std::filesystem::create_directories(dir);
        stats_ = std::make_unique<Statistics<T>>(g_, decomp_, (dir / cfg.stats_file).string(),
                                                 cfg.resolved_yaml, scalar_name(cfg.thermo),
                                                 cfg.name, cfg.overwrite);
    }
    if (icross_every_ > 0 || ifields_every_ > 0) {
        if (decomp_.rank == 0) std::filesystem::create_directories(cfg.output_dir);
        output_ = std::make_unique<Output<T>>(cfg, g_, f_, decomp_);
        if (cfg.restart.empty()) output_->create(); // a restart continues them (restart.cpp)
    }
}

template <typename T>
Model<T>::~Model() = default;

template <typename T>
void Model<T>::set_fixed_dt(double dt) {
    fixed_dt_ = true;
    idt_ = idt_fixed_ = to_itime(dt);
}

template <typename T>
std::size_t Model<T>::precompile() {
#ifdef SQUALL_GPU_MODEL
    if (!on_device_ || !gpu::active()) return 0;
    // While recording, launches only note their variants and reductions return 0; the
    // pressure solver and the halo copies still run, on whatever the arrays hold.
    auto& b = gpu::backend();
    const auto itime = itime_, idt = idt_;
    const long nstep = nstep_;
    b.begin_recording();
    try {
        project_initial();
        step();
        diagnostics();
        if (moist() && stats_) moist_state_for_stats(); // ql_moist, for the first sample
    } catch (...) {
        b.end_recording();
        throw;
    }
    itime_ = itime;
    idt_ = idt;
    nstep_ = nstep;
    return b.end_recording();
#else
    return 0;
#endif
}

template <typename T>
void Model<T>::initialise() {
    // Initial fields are set on the host and copied to the device once.
    set_initial_fields(cfg_, g_, f_);
    f_.to_device();
    set_boundaries();
    project_initial();
}

template <typename T>
void Model<T>::set_sponge_reference() {
    if (cfg_.sponge.enabled) {
        // Relax towards the unperturbed initial state; it is analytic, so it is the same on
        // every rank and the run stays independent of the decomposition.
        const int kc = g_.d.kcells;
        sponge_uref_.assign(kc, T(0), on_device_);
        sponge_vref_.assign(kc, T(0), on_device_);
        sponge_sref_.assign(kc, T(0), on_device_);
        for (int k = 0; k < kc; ++k) {
            const auto [u, v] = initial_wind_profile(cfg_.init, g_.z[k]);
            sponge_uref_[k] = T(u - cfg_.grid.utrans);
            sponge_vref_[k] = T(v - cfg_.grid.vtrans);
            sponge_sref_[k] = T(initial_scalar_profile(cfg_.init, g_.z[k]));
        }
        for (DeviceArray<T>* a : {&sponge_uref_, &sponge_vref_, &sponge_sref_}) a->to_device();
        sponge_cref_.resize(cfg_.scalars.size());
        for (std::size_t n = 0; n < sponge_cref_.size(); ++n) {
            sponge_cref_[n].assign(kc, T(0), on_device_);
            for (int k = 0; k < kc; ++k)
                sponge_cref_[n][std::size_t(k)] =
                    T(initial_passive_profile(cfg_.init, cfg_.scalars[n], g_.z[k]));
            sponge_cref_[n].to_device();
        }
    }
}

template <typename T>
double Model<T>::allreduce_max(double v) const {
    double r;
    MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, decomp_.comm);
    return r;
}

template <typename T>
double Model<T>::allreduce_sum(double v) const {
    double r;
    MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_SUM, decomp_.comm);
    return r;
}

template <typename T>
double Model<T>::cfl_per_dt() {
    const auto& d = g_.d;
    return allreduce_max(double(launch_max(range_c(), sq::Cfl<T>{.u = f_.u.data(),
                                                                 .v = f_.v.data(),
                                                                 .w = f_.w.data(),
                                                                 .dzi = m_.dzi,
                                                                 .dxi = g_.dxi,
                                                                 .dyi = g_.dyi,
                                                                 .jj = d.jj,
                                                                 .kk = d.kk})));
}

template <typename T>
double Model<T>::dn_per_dt() {
    const auto& d = g_.d;
    double dn = 0;
    if (cfg_.diff == DiffType::constant)
        dn = launch_max(range_c(), sq::DnConst<T>{.K = T(std::max(cfg_.nu, cfg_.kappa)),
                                                  .dzi = m_.dzi,
                                                  .dxi = g_.dxi,
                                                  .dyi = g_.dyi});
    else if (cfg_.diff == DiffType::smag2)
        dn = launch_max(range_c(), sq::DnSmag<T>{.evisc = f_.evisc.data(),
                                                 .dzi = m_.dzi,
                                                 .dxi = g_.dxi,
                                                 .dyi = g_.dyi,
                                                 .prandtl_t = T(cfg_.prandtl_t),
                                                 .jj = d.jj,
                                                 .kk = d.kk}) +
             dn_molecular_per_dt_; // molecular viscosity adds to evisc in the kernels
    return allreduce_max(dn);
}

template <typename T>
std::int64_t Model<T>::compute_idt() {
    if (fixed_dt_) return idt_fixed_;
    const double cflmax = cfg_.cflmax; // load_config resolves the scheme's default
    const double dt_cap = std::min(cfg_.dtmax, nstep_ == 0 ? cfg_.dt : cfg_.dtmax);
    const double cfl = cfl_per_dt(), dn = dn_per_dt();
    if (!std::isfinite(cfl) || !std::isfinite(dn))
        fail_not_finite(*this, fmt::format("cfl per unit dt = {}, dn per unit dt = {}", cfl, dn));
    double dt = dt_cap;
    if (cfl > 0) dt = std::min(dt, cflmax / cfl);
    if (dn > 0) dt = std::min(dt, cfg_.dnmax / dn);
    // The given step exactly (1 s is 1e9 units, not 999999999); a stability limit rounds down.
    if (dt == dt_cap) return to_itime(dt_cap);
    return std::max<std::int64_t>(1, std::int64_t(dt / time_unit));
}

template <typename T>
void Model<T>::step() {
    const int nsub = int(rk_b_.size());
    for (int sub = 0; sub < nsub; ++sub) {
        if (sub > 0) set_boundaries();
        thermo_state();
        closure();
        if (sub == 0) {
            // Time step for this full step, from the current velocities and eddy viscosity,
            // clipped so that sample times and the end time are hit exactly, the remainder
            // spread over the last two steps so that none is a sliver.
            idt_ = compute_idt();
            std::int64_t target = iendtime_ > itime_ ? iendtime_ : -1;
            for (const std::int64_t every : {istats_every_, icross_every_, ifields_every_}) {
                if (every <= 0) continue;
                const std::int64_t next = (itime_ / every + 1) * every;
                target = target < 0 ? next : std::min(target, next);
            }
            if (target > itime_) idt_ = spread_step(idt_, target - itime_);
        }
        const T b_dt = T(rk_b_[sub] * dt());
        const T a_next = sub + 1 < nsub ? T(rk_a_[sub + 1]) : T(0); // 0: the last stage
        tendencies(sub == 0, b_dt, a_next);
        pressure_and_update(b_dt, a_next);
        rk_update_scalar(b_dt, a_next);
    }
    // The new state's ghost cells take the boundary values of its own time (a surface value
    // or flux that changes in time), which every substep of the next step then uses.
    itime_ += idt_;
    ++nstep_;
    set_boundaries();
}

template <typename T>
Diagnostics Model<T>::diagnostics() {
    const auto& d = g_.d;
    Diagnostics r;
    const double dtv = dt();
    r.cfl = cfl_per_dt() * dtv;
    r.dn = dn_per_dt() * dtv;
    const T *u = f_.u.data(), *v = f_.v.data(), *w = f_.w.data(), *dz = m_.dz;
    r.div = allreduce_max(double(launch_max(range_c(), sq::AbsDivergence<T>{.u = u,
                                                                            .v = v,
                                                                            .w = w,
                                                                            .dzi = m_.dzi,
                                                                            .rho = m_.rho,
                                                                            .rhoh = m_.rhoh,
                                                                            .dxi = g_.dxi,
                                                                            .dyi = g_.dyi,
                                                                            .jj = d.jj,
                                                                            .kk = d.kk})));
    const double volume = double(g_.xsize) * g_.ysize * g_.zsize;
    const double cell = double(g_.dx) * g_.dy;
    r.ke = allreduce_sum(launch_sum(
               range_c(),
               sq::KineticEnergyDz<T>{.u = u, .v = v, .w = w, .dz = dz, .jj = d.jj, .kk = d.kk})) *
           cell / volume;
    r.mom_u = allreduce_sum(
                  launch_sum(range_c(), sq::ValueDz<T>{.a = u, .dz = dz, .jj = d.jj, .kk = d.kk})) *
              cell;
    r.mom_v = allreduce_sum(
                  launch_sum(range_c(), sq::ValueDz<T>{.a = v, .dz = dz, .jj = d.jj, .kk = d.kk})) *
              cell;
    if (f_.has_scalar)
        r.s_mean =
            allreduce_sum(launch_sum(
                range_c(), sq::ValueDz<T>{.a = f_.s.data(), .dz = dz, .jj = d.jj, .kk = d.kk})) *
            cell / volume;
    // The passive scalars' volume means, summed: NaN or Inf in any of them shows here.
    for (PassiveScalar<T>& c : f_.scalars)
        r.passive_mean +=
            allreduce_sum(launch_sum(
                range_c(), sq::ValueDz<T>{.a = c.c.data(), .dz = dz, .jj = d.jj, .kk = d.kk})) *
            cell / volume;
    if (surface() && !(cfg_.bc.ustar > 0)) // a prescribed u* has no stable limit
        r.stable_limit_columns = allreduce_sum(
            launch_sum(range_2d(), sq::SurfaceStableLimit<T>{.obuk_inv = f_.obuk_inv.data(),
                                                             .z1 = g_.z[d.kstart],
                                                             .z0m = T(cfg_.bc.surface.z0m),
                                                             .jj = d.jj}));
    return r;
}

template <typename T>
void Model<T>::print_status(double wall_per_step, double eta) {
    const Diagnostics dg = diagnostics();
    check_finite(*this, dg);
    if (decomp_.rank != 0) return;
    fmt::print(
        "step {:7d}  time {:11.4f}  dt {:9.3e}  cfl {:6.3f}  dn {:6.3f}  div {:9.2e}  ke {:10.4e}"
        "  {:7.3f} s/step  eta {:>8} s\n",
        nstep_, time(), dt(), dg.cfl, dg.dn, dg.div, dg.ke, wall_per_step,
        // No step timed yet (the first line): no estimate rather than 0.
        wall_per_step > 0 ? fmt::format("{:.1f}", eta) : std::string("-"));
    std::fflush(stdout);
    if (dg.stable_limit_columns > 0) {
        const double z1 = g_.z[g_.d.kstart];
        fmt::print(stderr,
                   "squall: warning: surface layer: {:.0f} of {} columns have no stable "
                   "Monin-Obukhov solution (strong cooling, weak wind) and use the most stable "
                   "state z1/L = {:.4g}\n",
                   dg.stable_limit_columns, long(g_.d.itot) * g_.d.jtot,
                   sq::most::zeta_stable_max(z1, double(cfg_.bc.surface.z0m)));
    }
}

template <typename T>
void Model<T>::sample_stats() {
    if (!stats_) return;
    const double t0 = wall_seconds();
    const Diagnostics dg = diagnostics();
    check_finite(*this, dg); // a NaN state is not sampled
    // Statistics reads the host copies; on the GPU bring the sampled arrays down first.
    if (on_device_) {
        for (Field3d<T>* a : {&f_.u, &f_.v, &f_.w, &f_.p}) a->to_host();
        if (f_.has_scalar) f_.s.to_host();
        for (PassiveScalar<T>& c : f_.scalars) {
            c.c.to_host();
            c.fluxbot.to_host();
        }
        if (les()) f_.evisc.to_host();
        if (surface())
            for (DeviceArray<T>* a :
                 {&f_.s_fluxbot, &f_.u_fluxbot, &f_.v_fluxbot, &f_.ustar, &f_.obuk_inv})
                a->to_host();
    }
    StatsInput<T> in;
    in.u = &f_.u;
    in.v = &f_.v;
    in.w = &f_.w;
    if (f_.has_scalar) in.s = &f_.s;
    if (les()) in.evisc = &f_.evisc;
    in.p = &f_.p;
    if (has_buoyancy())
        in.buoyancy_factor = cfg_.thermo == ThermoType::buoy ? 1.0 : cfg_.gravity / cfg_.thref;
    for (std::size_t n = 0; n < f_.scalars.size(); ++n)
        in.passive.push_back({cfg_.scalars[n].name, &f_.scalars[n].c,
                              surface() ? f_.scalars[n].fluxbot.host() : nullptr});
    if (moist()) {
        moist_state_for_stats();
        in.moist.ql = &f_.ql;
        in.moist.thv = &f_.thv;
        in.moist.rhoref = rhoref_.data();
        in.moist.thvref = cfg_.thref;
        in.moist.gravity = cfg_.gravity;
    }
    if (surface()) {
        if (f_.has_scalar) in.s_fluxbot = f_.s_fluxbot.host();
        in.u_fluxbot = f_.u_fluxbot.host();
        in.v_fluxbot = f_.v_fluxbot.host();
        in.ustar = f_.ustar.host();
        in.obuk_inv = f_.obuk_inv.host();
    }
    in.kappa = cfg_.kappa;
    in.nu = cfg_.nu;
    in.utrans = cfg_.grid.utrans;
    in.vtrans = cfg_.grid.vtrans;
    in.prandtl_t_inv = 1.0 / cfg_.prandtl_t;
    in.dt = dt();
    in.cfl = dg.cfl;
    in.dn = dg.dn;
    in.div = dg.div;
    stats_->sample(time(), nstep_, in);
    stats_->write();
    count_output(stats_output, t0);
}

template <typename T>
void Model<T>::count_output(OutputKind kind, double since) {
    output_time_.seconds[kind] += wall_seconds() - since;
    ++output_time_.samples[kind];
}

template <typename T>
void Model<T>::sample_output(bool first) {
    if (!output_) return;
    const double t = output_time();
    if (icross_every_ > 0 && (first || itime_ % icross_every_ == 0)) {
        const double t0 = wall_seconds();
        output_->cross(t);
        count_output(cross_output, t0);
    }
    if (ifields_every_ > 0 && (first || itime_ % ifields_every_ == 0)) {
        const double t0 = wall_seconds();
        output_->fields(itime_, t);
        count_output(fields_output, t0);
    }
}

// Rank 0's time in output (it writes every file): per sample of each kind, and the share
// of the loop's wall time, so that a user sees what an output interval costs.
template <typename T>
void Model<T>::print_output_time(double loop_seconds) const {
    const char* names[output_kinds] = {"statistics", "cross-sections", "3-D fields"};
    std::string parts;
    double sum = 0;
    for (int n = 0; n < output_kinds; ++n) {
        const OutputTime& o = output_time_;
        if (o.samples[n] == 0) continue;
        parts += fmt::format("{}{} {} x {:.2f} ms", parts.empty() ? "" : ", ", names[n],
                             o.samples[n], 1e3 * o.seconds[n] / double(o.samples[n]));
        sum += o.seconds[n];
    }
    if (!parts.empty())
        fmt::print("squall: output: {}; {:.2f}% of the run's wall time\n", parts,
                   100 * sum / loop_seconds);
}

template <typename T>
void Model<T>::run() {
    using clock = std::chrono::steady_clock;
    const auto t_start = clock::now();
    auto t_last = t_start;
    long n_last = nstep_;
    const long n_first = nstep_;
    const std::int64_t itime_first = itime_;
    // SQUALL_PROFILE and the communication time: the loop only.
    CommTime::reset();
    if (on_device_)
        gpu_runtime().profile_reset();
    else
        cpu::profile_reset();
    if (!restarted_) { // a restart's samples were taken before
        if (istats_every_ > 0) sample_stats();
        sample_output(true);
    }
    print_status(0, 0);
    while (itime_ < iendtime_ && (cfg_.max_steps < 0 || nstep_ < cfg_.max_steps)) {
        step();
        if (istats_every_ > 0 && itime_ % istats_every_ == 0) sample_stats();
        sample_output(false);
        if (nstep_ % cfg_.status_every == 0 || itime_ >= iendtime_) {
            const auto now = clock::now();
            const double wall = std::chrono::duration<double>(now - t_last).count() /
                                std::max<long>(1, nstep_ - n_last);
            const double elapsed = std::chrono::duration<double>(now - t_start).count();
            print_status(wall, run_eta(elapsed, itime_first, itime_, iendtime_, n_first, nstep_,
                                       cfg_.max_steps));
            t_last = now;
            n_last = nstep_;
        }
        if (checkpoint_after_step()) break;
    }
    if (output_) output_->wait_for_writes();
    final_checkpoint();
    if (on_device_) rt::Driver::get().synchronize(); // kernels run asynchronously
    const double total = std::chrono::duration<double>(clock::now() - t_start).count();
    to_host();                          // the final state back on the host
    const long nrun = nstep_ - n_first; // this run's steps (a restart starts at n_first > 0)
    if (decomp_.rank == 0 && nrun > 0) {
        const double points = double(g_.d.itot) * g_.d.jtot * g_.d.ktot;
        // Significant digits per step, not decimals: a 48^3 GPU step is under a millisecond.
        fmt::print("squall: {} steps in {:.3f} s: {:.5g} s/step, {:.2f} ns per grid point per step "
                   "(RK{})\n",
                   nrun, total, total / nrun, 1e9 * total / nrun / points, cfg_.rk_order);
    }
    if (nrun > 0) print_comm_time(decomp_.comm, total, nrun);
    if (decomp_.rank == 0 && nrun > 0) print_output_time(total);
    if (on_device_ ? gpu_runtime().profiling() : cpu::profiling()) {
        const std::string table =
            on_device_ ? profile_table(gpu_runtime().profile(), total, nstep_ - n_first, "GPU",
                                       "copies, halo transfers, host work")
                       : profile_table(cpu::profile(), total, nstep_ - n_first, "CPU",
                                       "FFTs, transposes, reductions, MPI");
        if (decomp_.rank == 0) fmt::print("{}", table);
    }
}

template class Model<float>;
template class Model<double>;

} // namespace squall
