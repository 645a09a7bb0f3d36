#include "model/stats/stats.h"

#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>
#include <stdexcept>
#include <utility>

#include "kernels/common.cuh"
#include "kernels/diff.cuh"
#include "model/stats/stats_file.h"

#ifndef SQUALL_VERSION
#define SQUALL_VERSION "unknown"
#endif

namespace squall {

namespace {

const double nan_value = std::numeric_limits<double>::quiet_NaN();

} // namespace

std::pair<std::string, std::string> scalar_units(const std::string& s) {
    if (s == "th" || s == "thl" || s == "thv") return {"K", "K m s-1"};
    if (s == "b") return {"m s-2", "m2 s-3"};
    if (s == "qt" || s == "ql") return {"kg kg-1", "kg kg-1 m s-1"};
    return {"1", "m s-1"};
}

std::string scalar_noun(const std::string& s) {
    if (s == "th") return "potential temperature";
    if (s == "thl") return "liquid-water potential temperature";
    if (s == "thv") return "virtual potential temperature";
    if (s == "b") return "buoyancy";
    if (s == "qt") return "total water specific humidity";
    if (s == "ql") return "liquid water specific humidity";
    return "scalar " + s;
}

// ---- Statistics ---------------------------------------------------------------------------

template <typename T>
Statistics<T>::Statistics(const Grid<T>& grid, const Decomposition& decomp, std::string path,
                          std::string resolved_yaml, std::string scalar, std::string case_name,
                          bool overwrite)
    : grid_(grid), decomp_(decomp), path_(std::move(path)), yaml_(std::move(resolved_yaml)),
      scalar_(std::move(scalar)), case_(std::move(case_name)), overwrite_(overwrite) {}

template <typename T>
Statistics<T>::~Statistics() = default;

template <typename T>
void Statistics<T>::on_root(const std::function<void()>& f) {
    std::string error;
    if (decomp_.rank == 0) {
        try {
            f();
        } catch (const std::exception& e) {
            error = e.what();
            if (error.empty()) error = "unknown error";
        }
    }
    // Every rank learns the outcome, so that all of them throw together.
    int len = int(error.size());
    MPI_Bcast(&len, 1, MPI_INT, 0, decomp_.comm);
    error.resize(std::size_t(len));
    if (len > 0) MPI_Bcast(error.data(), len, MPI_CHAR, 0, decomp_.comm);
    if (len > 0) throw std::runtime_error("statistics file '" + path_ + "': " + error);
}

namespace {
template <typename T>
stats_io::Header make_header(const Grid<T>& g, const std::string& case_name,
                             const std::string& yaml, const std::string& scalar) {
    stats_io::Header h{case_name, SQUALL_VERSION, yaml, scalar, {}, {}};
    for (int k = g.d.kstart; k < g.d.kend; ++k) h.z.push_back(double(g.z[k]));
    for (int k = g.d.kstart; k <= g.d.kend; ++k) h.zh.push_back(double(g.zh[k]));
    return h;
}
} // namespace

template <typename T>
void Statistics<T>::create() {
    if (opened_) throw std::logic_error("statistics: create() after the file was opened");
    on_root([&] {
        file_ = stats_io::StatsFile::create(path_, make_header(grid_, case_, yaml_, scalar_),
                                            overwrite_);
    });
    opened_ = true;
}

template <typename T>
void Statistics<T>::resume(double time) {
    if (opened_) throw std::logic_error("statistics: resume() after the file was opened");
    // A restart with --overwrite whose file is gone (deleted during the run it continues)
    // starts a new one, from this time on.
    int missing = 0;
    on_root([&] { missing = overwrite_ && !std::filesystem::exists(path_); });
    MPI_Bcast(&missing, 1, MPI_INT, 0, decomp_.comm);
    if (missing) {
        if (decomp_.rank == 0)
            std::fprintf(stderr,
                         "squall: warning: statistics file %s does not exist: with --overwrite "
                         "a new file starts at t = %g s\n",
                         path_.c_str(), time);
        create();
        return;
    }
    unsigned long long kept = 0;
    on_root([&] {
        file_ = stats_io::StatsFile::resume(path_, make_header(grid_, case_, yaml_, scalar_), time);
        kept = file_->nsamples();
    });
    MPI_Bcast(&kept, 1, MPI_UNSIGNED_LONG_LONG, 0, decomp_.comm);
    nwritten_ = std::size_t(kept);
    opened_ = true;
    check_vars_ = true;
}

template <typename T>
void Statistics<T>::write() {
    if (!opened_) create();
    if (time_.empty()) return;
    on_root([&] {
        if (!file_) throw std::runtime_error("the file was closed after an earlier error");
        double last = file_->last_time();
        for (double t : time_) {
            // A repeated time would duplicate a sample (e.g. sampling again at a restart).
            if (!(t > last))
                throw std::runtime_error("sample time " + std::to_string(t) +
                                         " s is not after the last sample at " +
                                         std::to_string(last) + " s");
            last = t;
        }
        std::vector<stats_io::VarInfo> info;
        for (const std::string& name : order_) {
            const Var& v = vars_.at(name);
            const stats_io::Loc loc = v.loc == Loc::time ? stats_io::Loc::time
                                      : v.loc == Loc::z  ? stats_io::Loc::z
                                                         : stats_io::Loc::zh;
            info.push_back({name, loc, v.long_name, v.units});
        }
        file_->define(info, check_vars_);
        std::vector<const std::vector<double>*> data;
        for (const stats_io::VarInfo& v : file_->vars()) {
            const auto it = vars_.find(v.name);
            data.push_back(it == vars_.end() ? nullptr : &it->second.data);
        }
        file_->append(time_, step_, data);
    });
    check_vars_ = false;
    nwritten_ += time_.size();
    time_.clear();
    step_.clear();
    for (auto& [name, var] : vars_) var.data.clear();
}

template <typename T>
void Statistics<T>::close() {
    on_root([&] {
        if (file_) file_->close();
    });
}

template <typename T>
void Statistics<T>::add(const std::string& name, Loc loc, std::string long_name,
                        std::string units) {
    if (vars_.count(name)) return;
    Var v{loc, std::move(long_name), std::move(units), {}};
    // A variable that appears later is padded with NaN for the earlier samples.
    const std::size_t n = loc == Loc::time ? 1 : (loc == Loc::z ? grid_.d.kmax : grid_.d.kmax + 1);
    v.data.assign(time_.size() * n, nan_value);
    vars_.emplace(name, std::move(v));
    order_.push_back(name);
}

template <typename T>
void Statistics<T>::push(const std::string& name, const std::vector<double>& v) {
    auto& d = vars_.at(name).data;
    d.insert(d.end(), v.begin(), v.end());
}

template <typename T>
void Statistics<T>::push(const std::string& name, double v) {
    vars_.at(name).data.push_back(v);
}

double stress_height(const std::vector<double>& stress, const std::vector<double>& zh) {
    const double target = 0.05 * stress[0];
    for (std::size_t kf = 1; kf < stress.size(); ++kf)
        if (stress[kf] <= target) {
            const double a = stress[kf - 1], b = stress[kf];
            const double w = a > b ? (a - target) / (a - b) : 1.0;
            return (zh[kf - 1] + w * (zh[kf] - zh[kf - 1])) / 0.95;
        }
    return nan_value;
}

template <typename T>
void Statistics<T>::sample(double time, long step, const StatsInput<T>& in) {
    if (!in.u || !in.v || !in.w) throw std::invalid_argument("statistics: u, v and w are required");
    const GridDims& d = grid_.d;
    const int nz = d.kmax, nzh = d.kmax + 1, ks = d.kstart, jj = d.jj, kk = d.kk;
    const T *u = in.u->host(), *v = in.v->host(), *w = in.w->host();
    const T* s = in.s ? in.s->host() : nullptr;
    const T* ev = in.evisc ? in.evisc->host() : nullptr;
    auto sum_allreduce = [&](std::vector<double>& buf) { mean_allreduce(buf); };
    // Horizontal sum of f(ijk) at level k over the local interior.
    auto hsum = [&](int k, auto&& f) { return level_sum(k, f); };

    // Pass 1: means. Layout: u, v at centres (nz each), w at faces (nzh).
    std::vector<double> m(2 * nz + nzh, 0.0);
#pragma omp parallel for schedule(dynamic)
    for (int k = 0; k < nz; ++k) {
        m[k] = hsum(ks + k, [&](int ijk) { return u[ijk]; });
        m[nz + k] = hsum(ks + k, [&](int ijk) { return v[ijk]; });
    }
#pragma omp parallel for schedule(dynamic)
    for (int k = 0; k < nzh; ++k) m[2 * nz + k] = hsum(ks + k, [&](int ijk) { return w[ijk]; });
    sum_allreduce(m);
    const double *ubar = &m[0], *vbar = &m[nz], *wbar = &m[2 * nz];
    // Means at face k (index kf = k - kstart) from the neighbouring centres; the ghost
    // centres below/above the walls take the wall-adjacent mean (only used times w' = 0).
    auto at_face = [&](const double* c, int kf) {
        const std::size_t lo = std::size_t(kf > 0 ? kf - 1 : 0);
        const std::size_t hi = std::size_t(kf < nz ? kf : nz - 1);
        return sq::interp2(c[lo], c[hi]);
    };

    // Pass 2: centres u2, v2, (unused), ke (4 nz); faces w2, (unused x2), u_res, v_res, u_sgs,
    // v_sgs (7 nzh); then 3 surface sums: (unused), ustar, obuk_inv; then w3 (nzh) and
    // evisc (nz). The scalars' come from scalar_profiles.
    std::vector<double> r(4 * nz + 7 * nzh + 3 + nzh + nz, 0.0);
    const double dxi = double(grid_.dxi), dyi = double(grid_.dyi);
#pragma omp parallel for schedule(dynamic)
    for (int k = 0; k < nz; ++k) {
        const int kc = ks + k;
        r[k] = hsum(kc, [&](int ijk) { return (u[ijk] - ubar[k]) * (u[ijk] - ubar[k]); });
        r[nz + k] = hsum(kc, [&](int ijk) { return (v[ijk] - vbar[k]) * (v[ijk] - vbar[k]); });
        r[3 * nz + k] = hsum(kc, [&](int ijk) {
            const double uc = sq::interp2(double(u[ijk]), double(u[ijk + 1])) + in.utrans;
            const double vc = sq::interp2(double(v[ijk]), double(v[ijk + jj])) + in.vtrans;
            const double wc = sq::interp2(double(w[ijk]), double(w[ijk + kk]));
            return 0.5 * (uc * uc + vc * vc + wc * wc);
        });
    }
    double* f = &r[4 * nz];
#pragma omp parallel for schedule(dynamic)
    for (int kf = 0; kf < nzh; ++kf) {
        const int k = ks + kf;
        const double wb = wbar[kf];
        f[kf] = hsum(k, [&](int ijk) { return (w[ijk] - wb) * (w[ijk] - wb); });
        const double uf = at_face(ubar, kf), vf = at_face(vbar, kf);
        f[3 * nzh + kf] = hsum(k, [&](int ijk) {
            const double uface = sq::interp2(double(u[ijk - kk]), double(u[ijk])) - uf;
            return uface * (sq::interp2(double(w[ijk - 1]), double(w[ijk])) - wb);
        });
        f[4 * nzh + kf] = hsum(k, [&](int ijk) {
            const double vface = sq::interp2(double(v[ijk - kk]), double(v[ijk])) - vf;
            return vface * (sq::interp2(double(w[ijk - jj]), double(w[ijk])) - wb);
        });
    }
    // Subgrid momentum fluxes -K (du/dz + dw/dx) on the u-w and v-w edges, with K the
    // diffusion kernels' edge average of evisc plus nu; at the bottom wall the surface
    // model's flux where there is one.
#pragma omp parallel for schedule(dynamic)
    for (int kf = 0; kf < nzh; ++kf) {
        const int k = ks + kf;
        const double dzhi = double(grid_.dzhi[k]);
        auto k_edge = [&](int ijk, int s) {
            const double e = ev ? 0.25 * (double(ev[ijk]) + double(ev[ijk - s]) +
                                          double(ev[ijk - kk]) + double(ev[ijk - s - kk]))
                                : 0.0;
            return e + in.nu;
        };
        if (kf == 0 && in.u_fluxbot) {
            f[5 * nzh] = hsum(0, [&](int ij) { return in.u_fluxbot[ij]; });
            f[6 * nzh] = hsum(0, [&](int ij) { return in.v_fluxbot[ij]; });
            continue;
        }
        f[5 * nzh + kf] = -hsum(k, [&](int ijk) {
            return k_edge(ijk, 1) * ((double(u[ijk]) - double(u[ijk - kk])) * dzhi +
                                     (double(w[ijk]) - double(w[ijk - 1])) * dxi);
        });
        f[6 * nzh + kf] = -hsum(k, [&](int ijk) {
            return k_edge(ijk, jj) * ((double(v[ijk]) - double(v[ijk - kk])) * dzhi +
                                      (double(w[ijk]) - double(w[ijk - jj])) * dyi);
        });
    }
    double* surf = &r[4 * nz + 7 * nzh];
    if (in.ustar) surf[1] = hsum(0, [&](int ij) { return in.ustar[ij]; });
    if (in.obuk_inv) surf[2] = hsum(0, [&](int ij) { return in.obuk_inv[ij]; });
    double* w3 = surf + 3;
    double* ev_mean = w3 + nzh;
#pragma omp parallel for schedule(dynamic)
    for (int kf = 0; kf < nzh; ++kf) {
        const double wb = wbar[kf];
        w3[kf] = hsum(ks + kf, [&](int ijk) {
            const double a = double(w[ijk]) - wb;
            return a * a * a;
        });
    }
    if (ev)
#pragma omp parallel for schedule(dynamic)
        for (int k = 0; k < nz; ++k) ev_mean[k] = hsum(ks + k, [&](int ijk) { return ev[ijk]; });
    sum_allreduce(r);

    // Append the sample. Variables not pushed this time are padded with NaN below.
    auto slice = [](const double* p, int n) { return std::vector<double>(p, p + n); };
    std::set<std::string> pushed;
    auto put = [&](const std::string& name, Loc loc, const std::string& ln,
                   const std::string& units, const std::vector<double>& val) {
        add(name, loc, ln, units);
        push(name, val);
        pushed.insert(name);
    };
    auto put1 = [&](const std::string& name, const std::string& ln, const std::string& units,
                    double x) { put(name, Loc::time, ln, units, std::vector<double>{x}); };
    const double* fl = f;
    auto ground = [&](const double* m, double trans) {
        std::vector<double> r(m, m + nz);
        for (double& x : r) x += trans;
        return r;
    };
    put("u", Loc::z, "horizontal mean of u", "m s-1", ground(ubar, in.utrans));
    put("v", Loc::z, "horizontal mean of v", "m s-1", ground(vbar, in.vtrans));
    put("w", Loc::zh, "horizontal mean of w", "m s-1", slice(wbar, nzh));
    put("u2", Loc::z, "variance of u", "m2 s-2", slice(&r[0], nz));
    put("v2", Loc::z, "variance of v", "m2 s-2", slice(&r[nz], nz));
    put("w2", Loc::zh, "variance of w", "m2 s-2", slice(fl, nzh));
    put("u_flux_res", Loc::zh, "resolved vertical flux of u (mean u'w')", "m2 s-2",
        slice(fl + 3 * nzh, nzh));
    put("v_flux_res", Loc::zh, "resolved vertical flux of v (mean v'w')", "m2 s-2",
        slice(fl + 4 * nzh, nzh));
    put("w3", Loc::zh, "third moment of w", "m3 s-3", slice(w3, nzh));
    std::vector<double> skew(nzh);
    for (int kf = 0; kf < nzh; ++kf)
        skew[kf] = fl[kf] > 0 ? w3[kf] / std::pow(fl[kf], 1.5) : nan_value;
    put("w_skew", Loc::zh, "skewness of w (w3 / w2^1.5)", "1", skew);
    if (ev)
        put("evisc", Loc::z, "horizontal mean of the eddy viscosity", "m2 s-1", slice(ev_mean, nz));
    put("u_flux_sgs", Loc::zh, "subgrid vertical flux of u", "m2 s-2", slice(fl + 5 * nzh, nzh));
    put("v_flux_sgs", Loc::zh, "subgrid vertical flux of v", "m2 s-2", slice(fl + 6 * nzh, nzh));
    std::vector<double> u_total(nzh), v_total(nzh), stress(nzh);
    for (int kf = 0; kf < nzh; ++kf) {
        u_total[kf] = fl[3 * nzh + kf] + fl[5 * nzh + kf];
        v_total[kf] = fl[4 * nzh + kf] + fl[6 * nzh + kf];
        stress[kf] = std::hypot(u_total[kf], v_total[kf]);
    }
    put("u_flux", Loc::zh, "total vertical flux of u", "m2 s-2", u_total);
    const TkeBudget tke = tke_budget(in, ubar, vbar, wbar, fl + 3 * nzh, fl + 4 * nzh);
    put("tke_shear", Loc::zh, "resolved TKE budget: shear production -u'w' dU/dz - v'w' dV/dz",
        "m2 s-3", tke.shear);
    put("tke_turb", Loc::zh, "resolved TKE budget: turbulent transport -d(w'e')/dz", "m2 s-3",
        tke.turb);
    if (in.p) {
        put("tke_pres", Loc::zh, "resolved TKE budget: pressure transport -d(w'p')/dz", "m2 s-3",
            tke.pres);
        put("p2", Loc::z, "variance of the kinematic pressure", "m4 s-4", tke.p2);
    }
    if (ev)
        put("tke_diss", Loc::z,
            "resolved TKE budget: loss to the subgrid scales -evisc S2, S2 = 2 S_ij S_ij", "m2 s-3",
            tke.diss);
    put("v_flux", Loc::zh, "total vertical flux of v", "m2 s-2", v_total);
    put1("h_stress",
         "boundary-layer height from the stress: where it first falls to 5 % of its surface "
         "value, divided by 0.95",
         "m", stress_height(stress, std::vector<double>(grid_.zh.begin() + ks, grid_.zh.end())));
    double ke = 0, zsum = 0;
    for (int k = 0; k < nz; ++k) {
        const double dz = double(grid_.dz[ks + k]);
        ke += dz * r[3 * nz + k];
        zsum += dz;
    }
    put1("ke", "volume mean kinetic energy 0.5 (u^2+v^2+w^2) at centres", "m2 s-2", ke / zsum);
    // Each scalar's profiles, volume mean and surface flux.
    auto put_scalar = [&](const std::string& sn, const T* field, const T* fluxbot) {
        const ScalarProfiles p =
            scalar_profiles(field, fluxbot, in, std::vector<double>(wbar, wbar + nzh));
        const auto [su, sfu] = scalar_units(sn);
        const std::string noun = scalar_noun(sn);
        double mean = 0;
        for (int k = 0; k < nz; ++k) mean += double(grid_.dz[ks + k]) * p.mean[std::size_t(k)];
        put(sn, Loc::z, "horizontal mean of the " + noun, su, p.mean);
        put(sn + "2", Loc::z, "variance of the " + noun, su == "1" ? "1" : su + "2", p.var);
        put(sn + "_flux_res", Loc::zh, "resolved vertical flux of the " + noun, sfu, p.flux_res);
        put(sn + "_flux_sgs", Loc::zh, "subgrid vertical flux of the " + noun, sfu, p.flux_sgs);
        put(sn + "_flux", Loc::zh, "total vertical flux of the " + noun, sfu, p.flux);
        put1(sn + "_mean", "volume mean of the " + noun, su, mean / zsum);
        if (fluxbot) put1(sn + "_fluxbot", "mean surface flux", sfu, p.flux_sgs[0]);
        return p;
    };
    std::vector<double> buoyancy_flux; // the resolved flux the buoyancy production takes
    if (s) {
        const ScalarProfiles p = put_scalar(scalar_, s, in.s_fluxbot);
        buoyancy_flux = p.flux_res;
        // Boundary-layer height: the face with the most negative total flux (interior faces).
        int kmin = 1;
        for (int kf = 1; kf < nzh - 1; ++kf)
            if (p.flux[std::size_t(kf)] < p.flux[std::size_t(kmin)]) kmin = kf;
        put1("zi", "boundary-layer height (height of the minimum scalar flux)", "m",
             nzh > 2 ? double(grid_.zh[ks + kmin]) : nan_value);
    }
    for (const StatsScalar<T>& c : in.passive) put_scalar(c.name, c.field->host(), c.fluxbot);
    if (in.moist.ql) {
        const MoistProfiles mp = moist_profiles(in, std::vector<double>(wbar, wbar + nzh));
        put("ql", Loc::z, "horizontal mean of the " + scalar_noun("ql"), "kg kg-1", mp.ql);
        put("cloud_fraction", Loc::z, "fraction of the level's points with liquid water", "1",
            mp.cloud_fraction);
        put("thv", Loc::z, "horizontal mean of the " + scalar_noun("thv"), "K", mp.thv);
        put("thv_flux_res", Loc::zh, "resolved vertical flux of the " + scalar_noun("thv"),
            "K m s-1", mp.thv_flux_res);
        put1("lwp", "liquid water path (mean over columns)", "kg m-2", mp.lwp);
        put1("cloud_cover", "fraction of the columns with liquid water", "1", mp.cover);
        put1("zcb", "cloud base: the lowest level with liquid water", "m", mp.zcb);
        put1("zct", "cloud top: the highest level with liquid water", "m", mp.zct);
        buoyancy_flux = mp.thv_flux_res;
    }
    if (in.buoyancy_factor != 0 && !buoyancy_flux.empty()) {
        for (double& x : buoyancy_flux) x *= in.buoyancy_factor;
        put("tke_buoy", Loc::zh, "resolved TKE budget: buoyancy production g/thref w'th'", "m2 s-3",
            buoyancy_flux);
    }
    if (in.ustar) put1("ustar", "mean friction velocity", "m s-1", surf[1]);
    if (in.obuk_inv) {
        put1("obuk_inv", "mean inverse Obukhov length", "m-1", surf[2]);
        put1("obuk", "Obukhov length of the mean 1/L (1 / obuk_inv)", "m", 1.0 / surf[2]);
    }
    put1("dt", "time step", "s", in.dt);
    put1("cfl", "CFL number", "1", in.cfl);
    put1("dn", "diffusion number", "1", in.dn);
    put1("div", "maximum divergence", "s-1", in.div);

    for (auto& [name, var] : vars_) {
        if (pushed.count(name)) continue;
        const std::size_t n = var.loc == Loc::time ? 1 : (var.loc == Loc::z ? nz : nzh);
        var.data.insert(var.data.end(), n, nan_value);
    }
    time_.push_back(time);
    step_.push_back(step);
}

template class Statistics<float>;
template class Statistics<double>;

} // namespace squall
