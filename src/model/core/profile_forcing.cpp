#include "model/core/profile_forcing.h"

#include <mpi.h>

#include <algorithm>

#include "backends/launch.h"
#include "kernels/forcing.cuh"
#include "model/core/interior.h"
#include "model/core/profiles.h"

namespace squall {

namespace {

// A forcing column at the model's levels (empty when the case gives none).
template <typename T>
std::vector<double> at_levels(const ForcingConfig& fc, const std::vector<double>& column,
                              const Grid<T>& g) {
    if (column.empty()) return {};
    std::vector<double> out(std::size_t(g.d.kcells), 0.0);
    for (int k = g.d.kstart; k < g.d.kend; ++k)
        out[std::size_t(k)] = interpolate_linear(fc.z, column, double(g.z[k]));
    return out;
}

} // namespace

template <typename T>
ProfileForcing<T>::ProfileForcing(const Config& cfg, const Grid<T>& g, const Decomposition& decomp,
                                  bool on_device)
    : cfg_(cfg), g_(g), decomp_(decomp) {
    const ForcingConfig& fc = cfg.forcing;
    const GridDims& d = g.d;
    th_base_ = at_levels(fc, fc.th_tendency, g);
    w_ls_ = at_levels(fc, fc.w_ls, g);
    nudge_th_ = at_levels(fc, fc.nudge_th, g);
    nudge_u_ = at_levels(fc, fc.nudge_u, g);
    nudge_v_ = at_levels(fc, fc.nudge_v, g);
    // The momentum targets in the model's frame (grid.utrans, vtrans).
    for (double& u : nudge_u_) u -= cfg.grid.utrans;
    for (double& v : nudge_v_) v -= cfg.grid.vtrans;
    // ColumnSums writes (i, k) at i + k*jj: room for every level, and at least a plane (the
    // kernel declares it as one).
    column_sum_.assign(std::size_t(d.jj) * std::size_t(std::max(d.kcells, d.jcells)), T(0),
                       on_device);
    level_sum_.assign(std::size_t(d.kcells), T(0), on_device);
    for (DeviceArray<T>* a : {&tend_th_, &tend_u_, &tend_v_})
        a->assign(std::size_t(d.kcells), T(0), on_device);
    if (fc.scalar_forced() && !scalar_needs_means()) // a constant tendency: set it once
        level_tendency({}, &th_base_, false, nullptr, tend_th_);
    passive_.resize(cfg.scalars.size());
    for (std::size_t n = 0; n < passive_.size(); ++n) {
        const std::string& name = cfg.scalars[n].name;
        Passive& p = passive_[n];
        p.base = at_levels(fc, fc.scalar_tendency.at(name), g);
        p.nudge = at_levels(fc, fc.nudge_scalar.at(name), g);
        p.forced = fc.passive_forced(name);
        p.means = fc.subsidence() || !p.nudge.empty();
        p.tend.assign(std::size_t(d.kcells), T(0), on_device);
        if (p.forced && !p.means) level_tendency({}, &p.base, false, nullptr, p.tend);
    }
}

template <typename T>
std::vector<double> ProfileForcing<T>::horizontal_mean(const Field3d<T>& a) {
    const GridDims& d = g_.d;
    const int k0 = d.kstart - 1, k1 = d.kend + 1; // the ghost levels too
    launch_2d(sq::Range3{d.istart, d.iend, k0, k1, 0, 1},
              sq::ColumnSums<T>{.column_sum = column_sum_.data(),
                                .a = a.data(),
                                .jstart = d.jstart,
                                .jend = d.jend,
                                .jj = d.jj,
                                .kk = d.kk});
    launch_2d(sq::Range3{k0, k1, 0, 1, 0, 1}, sq::LevelSums<T>{.level_sum = level_sum_.data(),
                                                               .column_sum = column_sum_.data(),
                                                               .istart = d.istart,
                                                               .iend = d.iend,
                                                               .jj = d.jj});
    level_sum_.to_host();
    std::vector<double> mean(std::size_t(d.kcells), 0.0);
    for (int k = k0; k < k1; ++k) mean[std::size_t(k)] = double(level_sum_[std::size_t(k)]);
    MPI_Allreduce(MPI_IN_PLACE, mean.data(), int(mean.size()), MPI_DOUBLE, MPI_SUM, decomp_.comm);
    const double n_inv = 1.0 / (double(d.itot) * double(d.jtot));
    for (double& m : mean) m *= n_inv;
    return mean;
}

template <typename T>
void ProfileForcing<T>::level_tendency(const std::vector<double>& mean,
                                       const std::vector<double>* base, bool subside,
                                       const std::vector<double>* target, DeviceArray<T>& tend) {
    const GridDims& d = g_.d;
    const double tau_inv = cfg_.forcing.nudging() ? 1.0 / cfg_.forcing.nudge_time : 0.0;
    for (int k = d.kstart; k < d.kend; ++k) {
        const std::size_t n = std::size_t(k);
        double t = base && !base->empty() ? (*base)[n] : 0.0;
        if (subside) {
            // Upwind on the mean profile: a sinking (w_ls < 0) level takes the gradient from
            // above, a rising one from below (the ghost levels at the walls).
            const double w = w_ls_[n];
            const double grad = w < 0 ? (mean[n + 1] - mean[n]) / double(g_.z[k + 1] - g_.z[k])
                                      : (mean[n] - mean[n - 1]) / double(g_.z[k] - g_.z[k - 1]);
            t -= w * grad;
        }
        if (target && !target->empty()) t -= (mean[n] - (*target)[n]) * tau_inv;
        tend[n] = T(t);
    }
    tend.to_device();
}

template <typename T>
void ProfileForcing<T>::apply(Fields<T>& f) {
    const ForcingConfig& fc = cfg_.forcing;
    auto add = [&](Field3d<T>& at, const DeviceArray<T>& tend) {
        launch_interior(g_.d,
                        sq::LargeScaleTendency<T>{
                            .at = at.data(), .tend = tend.data(), .jj = g_.d.jj, .kk = g_.d.kk});
    };
    if (fc.scalar_forced() && f.has_scalar) { // subsidence alone may act on passive scalars only
        if (scalar_needs_means())
            level_tendency(horizontal_mean(f.s), &th_base_, fc.subsidence(), &nudge_th_, tend_th_);
        add(f.st, tend_th_);
    }
    for (std::size_t n = 0; n < passive_.size(); ++n) {
        Passive& p = passive_[n];
        if (!p.forced) continue;
        if (p.means)
            level_tendency(horizontal_mean(f.scalars[n].c), &p.base, fc.subsidence(), &p.nudge,
                           p.tend);
        add(f.scalars[n].ct, p.tend);
    }
    const bool subside = fc.subsidence() && fc.subsidence_momentum;
    if (subside || !nudge_u_.empty()) {
        level_tendency(horizontal_mean(f.u), nullptr, subside, &nudge_u_, tend_u_);
        add(f.ut, tend_u_);
    }
    if (subside || !nudge_v_.empty()) {
        level_tendency(horizontal_mean(f.v), nullptr, subside, &nudge_v_, tend_v_);
        add(f.vt, tend_v_);
    }
}

template class ProfileForcing<float>;
template class ProfileForcing<double>;

} // namespace squall
