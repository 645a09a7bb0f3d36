// The profile families that Statistics::sample gathers besides the velocities' own: a
// scalar's mean, variance and fluxes, the cloud statistics, the resolved TKE budget. Each
// level's sum runs in one thread, in a fixed order, so the files do not depend on the
// number of threads.
#include <mpi.h>

#include <cmath>
#include <limits>

#include "kernels/common.cuh"
#include "kernels/diff.cuh"
#include "model/stats/stats.h"

namespace squall {

namespace {

const double nan_value = std::numeric_limits<double>::quiet_NaN();

} // namespace

template <typename T>
void Statistics<T>::mean_allreduce(std::vector<double>& sums) const {
    MPI_Allreduce(MPI_IN_PLACE, sums.data(), int(sums.size()), MPI_DOUBLE, MPI_SUM, decomp_.comm);
    const double n_inv = 1.0 / (double(grid_.d.itot) * double(grid_.d.jtot));
    for (double& x : sums) x *= n_inv;
}

template <typename T>
typename Statistics<T>::ScalarProfiles
Statistics<T>::scalar_profiles(const T* s, const T* fluxbot, const StatsInput<T>& in,
                               const std::vector<double>& wbar) {
    const GridDims& d = grid_.d;
    const int nz = d.kmax, nzh = d.kmax + 1, ks = d.kstart, kk = d.kk;
    const T* w = in.w->host();
    const T* ev = in.evisc ? in.evisc->host() : nullptr;
    auto hsum = [&](int k, auto&& f) { return level_sum(k, f); };
    auto sum_allreduce = [&](std::vector<double>& buf) { mean_allreduce(buf); };
    ScalarProfiles p;
    p.mean.assign(std::size_t(nz), 0.0);
#pragma omp parallel for schedule(dynamic)
    for (int k = 0; k < nz; ++k)
        p.mean[std::size_t(k)] = hsum(ks + k, [&](int ijk) { return s[ijk]; });
    sum_allreduce(p.mean);
    const double* sbar = p.mean.data();
    // Variance at the centres, then the resolved and subgrid fluxes at the faces; at the
    // bottom wall the prescribed or surface-model flux where there is one.
    std::vector<double> r(std::size_t(nz + 2 * nzh), 0.0);
#pragma omp parallel for schedule(dynamic)
    for (int k = 0; k < nz; ++k)
        r[std::size_t(k)] =
            hsum(ks + k, [&](int ijk) { return (s[ijk] - sbar[k]) * (s[ijk] - sbar[k]); });
    double* res = &r[std::size_t(nz)];
    double* sgs = res + nzh;
#pragma omp parallel for schedule(dynamic)
    for (int kf = 0; kf < nzh; ++kf) {
        const int k = ks + kf;
        const double wb = wbar[std::size_t(kf)], dzhi = double(grid_.dzhi[k]);
        const double sf = sq::interp2(sbar[kf > 0 ? kf - 1 : 0], sbar[kf < nz ? kf : nz - 1]);
        res[kf] = hsum(k, [&](int ijk) {
            return (w[ijk] - wb) * (sq::interp2(double(s[ijk - kk]), double(s[ijk])) - sf);
        });
        if (kf == 0 && fluxbot) {
            sgs[0] = hsum(0, [&](int ij) { return fluxbot[ij]; });
        } else {
            sgs[kf] = -hsum(k, [&](int ijk) {
                const double kh =
                    ev ? sq::interp2(double(ev[ijk - kk]), double(ev[ijk])) * in.prandtl_t_inv +
                             in.kappa
                       : in.kappa;
                return kh * (double(s[ijk]) - double(s[ijk - kk])) * dzhi;
            });
        }
    }
    sum_allreduce(r);
    p.var.assign(r.begin(), r.begin() + nz);
    p.flux_res.assign(res, res + nzh);
    p.flux_sgs.assign(sgs, sgs + nzh);
    p.flux.resize(std::size_t(nzh));
    for (int kf = 0; kf < nzh; ++kf) p.flux[std::size_t(kf)] = res[kf] + sgs[kf];
    return p;
}

template <typename T>
typename Statistics<T>::MoistProfiles
Statistics<T>::moist_profiles(const StatsInput<T>& in, const std::vector<double>& wbar) {
    const GridDims& d = grid_.d;
    const int nz = d.kmax, nzh = d.kmax + 1, ks = d.kstart, jj = d.jj, kk = d.kk;
    const double n_inv = 1.0 / (double(d.itot) * double(d.jtot));
    const StatsMoist<T>& mo = in.moist;
    const T *qlp = mo.ql->host(), *thvp = mo.thv->host(), *w = in.w->host();
    // Sums: ql, cloudy points, thv (nz each); lwp, cloudy columns (the thv flux below).
    std::vector<double> sums(std::size_t(3 * nz + 2), 0.0);
    double *ql = sums.data(), *cf = ql + nz, *thv = cf + nz, *col = thv + nz;
    // Level by level (contiguous rows), then each column's water path and cloudiness.
#pragma omp parallel for schedule(dynamic)
    for (int k = 0; k < nz; ++k) {
        ql[k] = level_sum(ks + k, [&](int ijk) { return double(qlp[ijk]); });
        cf[k] = level_sum(ks + k, [&](int ijk) { return qlp[ijk] > 0 ? 1.0 : 0.0; });
        thv[k] = level_sum(ks + k, [&](int ijk) { return double(thvp[ijk]); });
    }
    const std::size_t ni = std::size_t(d.imax);
    std::vector<double> path(ni * std::size_t(d.jmax), 0.0);
    std::vector<char> cloudy(path.size(), 0);
#pragma omp parallel for schedule(static)
    for (int j = d.jstart; j < d.jend; ++j) {
        double* row_path = &path[std::size_t(j - d.jstart) * ni];
        char* row_cloudy = &cloudy[std::size_t(j - d.jstart) * ni];
        for (int k = 0; k < nz; ++k) {
            const double rho = mo.rhoref[ks + k], dz = double(grid_.dz[ks + k]);
            for (int i = d.istart; i < d.iend; ++i) {
                const double l = double(qlp[i + j * jj + (ks + k) * kk]);
                row_path[i - d.istart] += rho * l * dz;
                row_cloudy[i - d.istart] |= l > 0;
            }
        }
    }
    for (std::size_t n = 0; n < path.size(); ++n) {
        col[0] += path[n];
        col[1] += cloudy[n] ? 1.0 : 0.0;
    }
    MPI_Allreduce(MPI_IN_PLACE, sums.data(), int(sums.size()), MPI_DOUBLE, MPI_SUM, decomp_.comm);
    for (double& x : sums) x *= n_inv;
    // The resolved flux w'thv' at the interior faces, with the means just found.
    std::vector<double> f(std::size_t(nzh), 0.0);
#pragma omp parallel for schedule(dynamic)
    for (int kf = 1; kf < nz; ++kf) {
        const double thv_face = sq::interp2(thv[kf - 1], thv[kf]), wb = wbar[std::size_t(kf)];
        f[std::size_t(kf)] = level_sum(ks + kf, [&](int ijk) {
            const double v = sq::interp2(double(thvp[ijk - kk]), double(thvp[ijk]));
            return (double(w[ijk]) - wb) * (v - thv_face);
        });
    }
    MPI_Allreduce(MPI_IN_PLACE, f.data(), int(f.size()), MPI_DOUBLE, MPI_SUM, decomp_.comm);
    MoistProfiles r;
    r.ql.assign(ql, ql + nz);
    r.cloud_fraction.assign(cf, cf + nz);
    r.thv.assign(thv, thv + nz);
    r.thv_flux_res.resize(std::size_t(nzh));
    for (int kf = 0; kf < nzh; ++kf) r.thv_flux_res[std::size_t(kf)] = f[std::size_t(kf)] * n_inv;
    r.lwp = col[0];
    r.cover = col[1];
    r.zcb = r.zct = nan_value;
    for (int k = 0; k < nz; ++k)
        if (cf[k] > 0) {
            if (std::isnan(r.zcb)) r.zcb = double(grid_.z[ks + k]);
            r.zct = double(grid_.z[ks + k]);
        }
    return r;
}

template <typename T>
typename Statistics<T>::TkeBudget
Statistics<T>::tke_budget(const StatsInput<T>& in, const double* ubar, const double* vbar,
                          const double* wbar, const double* u_res, const double* v_res) {
    const GridDims& d = grid_.d;
    const int nz = d.kmax, nzh = d.kmax + 1, ks = d.kstart, jj = d.jj, kk = d.kk;
    const T *u = in.u->host(), *v = in.v->host(), *w = in.w->host();
    const T* p = in.p ? in.p->host() : nullptr;
    auto hsum = [&](int k, auto&& f) { return level_sum(k, f); };
    auto sum_allreduce = [&](std::vector<double>& buf) { mean_allreduce(buf); };
    std::vector<double> pbar(std::size_t(nz), 0.0);
    if (p) {
#pragma omp parallel for schedule(dynamic)
        for (int k = 0; k < nz; ++k)
            pbar[std::size_t(k)] = hsum(ks + k, [&](int ijk) { return p[ijk]; });
        sum_allreduce(pbar);
    }
    // At the centres: the vertical fluxes of e' = (u'^2 + v'^2 + w'^2)/2 and of p', p'^2,
    // the velocities interpolated to the centre, and the energy the closure takes from the
    // resolved flow, evisc S2 with the closure's own S2 = 2 S_ij S_ij (Strain2).
    const T* ev = in.evisc ? in.evisc->host() : nullptr;
    const sq::Strain2<T> strain{.strain2 = nullptr,
                                .u = u,
                                .v = v,
                                .w = w,
                                .dzi = grid_.dzi.data(),
                                .dzhi = grid_.dzhi.data(),
                                .dxi = grid_.dxi,
                                .dyi = grid_.dyi,
                                .jj = jj,
                                .kk = kk};
    std::vector<double> c(std::size_t(4 * nz), 0.0);
#pragma omp parallel for schedule(dynamic)
    for (int k = 0; k < nz; ++k) {
        const double wc_bar = sq::interp2(wbar[k], wbar[k + 1]);
        double fe = 0, fp = 0, pp = 0, diss = 0;
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i) {
                const int ijk = i + j * jj + (ks + k) * kk;
                const double uc = sq::interp2(double(u[ijk]), double(u[ijk + 1])) - ubar[k];
                const double vc = sq::interp2(double(v[ijk]), double(v[ijk + jj])) - vbar[k];
                const double wc = sq::interp2(double(w[ijk]), double(w[ijk + kk])) - wc_bar;
                fe += wc * 0.5 * (uc * uc + vc * vc + wc * wc);
                if (ev) diss -= double(ev[ijk]) * double(strain.value(i, j, ks + k));
                if (p) {
                    const double pc = double(p[ijk]) - pbar[std::size_t(k)];
                    fp += wc * pc;
                    pp += pc * pc;
                }
            }
        c[std::size_t(k)] = fe;
        c[std::size_t(nz + k)] = fp;
        c[std::size_t(2 * nz + k)] = pp;
        c[std::size_t(3 * nz + k)] = diss;
    }
    sum_allreduce(c);
    TkeBudget b;
    b.shear.assign(std::size_t(nzh), 0.0);
    b.turb = b.pres = b.shear;
    // Interior faces; at the walls w' = 0, so the resolved terms vanish.
    for (int kf = 1; kf < nz; ++kf) {
        const double dzhi = double(grid_.dzhi[ks + kf]);
        const std::size_t n = std::size_t(kf);
        b.shear[n] =
            -(u_res[kf] * (ubar[kf] - ubar[kf - 1]) + v_res[kf] * (vbar[kf] - vbar[kf - 1])) * dzhi;
        b.turb[n] = -(c[n] - c[n - 1]) * dzhi;
        b.pres[n] = -(c[std::size_t(nz) + n] - c[std::size_t(nz) + n - 1]) * dzhi;
    }
    if (p) b.p2.assign(c.begin() + 2 * nz, c.begin() + 3 * nz);
    if (ev) b.diss.assign(c.begin() + 3 * nz, c.end());
    return b;
}

template void Statistics<float>::mean_allreduce(std::vector<double>&) const;
template Statistics<float>::ScalarProfiles
Statistics<float>::scalar_profiles(const float*, const float*, const StatsInput<float>&,
                                   const std::vector<double>&);
template Statistics<float>::MoistProfiles
Statistics<float>::moist_profiles(const StatsInput<float>&, const std::vector<double>&);
template Statistics<float>::TkeBudget Statistics<float>::tke_budget(const StatsInput<float>&,
                                                                    const double*, const double*,
                                                                    const double*, const double*,
                                                                    const double*);
template void Statistics<double>::mean_allreduce(std::vector<double>&) const;
template Statistics<double>::ScalarProfiles
Statistics<double>::scalar_profiles(const double*, const double*, const StatsInput<double>&,
                                    const std::vector<double>&);
template Statistics<double>::MoistProfiles
Statistics<double>::moist_profiles(const StatsInput<double>&, const std::vector<double>&);
template Statistics<double>::TkeBudget Statistics<double>::tke_budget(const StatsInput<double>&,
                                                                      const double*, const double*,
                                                                      const double*, const double*,
                                                                      const double*);

} // namespace squall
