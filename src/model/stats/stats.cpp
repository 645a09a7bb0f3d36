#include "model/stats/stats.h"

#include <hdf5.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <stdexcept>
#include <utility>

#include "kernels/common.cuh"

#ifndef SQUALL_VERSION
#define SQUALL_VERSION "unknown"
#endif

namespace squall {

namespace {

const double nan_value = std::numeric_limits<double>::quiet_NaN();

// Units of a scalar and of its flux, from its conventional name.
std::pair<std::string, std::string> scalar_units(const std::string& s) {
    if (s == "th") return {"K", "K m s-1"};
    if (s == "b") return {"m s-2", "m2 s-3"};
    return {"1", "m s-1"};
}

// ---- small HDF5 helpers -------------------------------------------------------------------

struct H5Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

hid_t check(hid_t id, const std::string& what) {
    if (id < 0) throw H5Error(what);
    return id;
}
void check(herr_t err, const char* what) {
    if (err < 0) throw H5Error(what);
}

// Owns one HDF5 identifier and closes it with the matching function.
class Handle {
public:
    Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what)
        : id_(check(id, what)), close_(close) {}
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { close_(id_); }
    operator hid_t() const { return id_; }

private:
    hid_t id_;
    herr_t (*close_)(hid_t);
};

void write_string_attr(hid_t loc, const char* name, const std::string& value) {
    Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
    check(H5Tset_size(type, value.size() + 1), "string size");
    check(H5Tset_strpad(type, H5T_STR_NULLTERM), "string padding");
    Handle space(H5Screate(H5S_SCALAR), H5Sclose, "scalar space");
    Handle attr(H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                std::string("attribute ") + name);
    check(H5Awrite(attr, type, value.c_str()), name);
}

// A dataset of doubles (or int64 with `integer`) with dims; data may be empty when a
// dimension is zero.
hid_t create_dataset(hid_t loc, const std::string& name, const std::vector<hsize_t>& dims,
                     const void* data, bool integer = false) {
    Handle space(H5Screate_simple(int(dims.size()), dims.data(), nullptr), H5Sclose,
                 "dataspace of " + name);
    const hid_t ftype = integer ? H5T_STD_I64LE : H5T_IEEE_F64LE;
    const hid_t mtype = integer ? H5T_NATIVE_LLONG : H5T_NATIVE_DOUBLE;
    const hid_t ds =
        check(H5Dcreate2(loc, name.c_str(), ftype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
              "dataset " + name);
    hsize_t n = 1;
    for (hsize_t d : dims) n *= d;
    if (n > 0 && H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
        H5Dclose(ds);
        throw H5Error("writing " + name);
    }
    return ds;
}

// Dimension scales written with the core library, following the HDF5 Dimension Scale
// specification that H5DS (hdf5_hl) implements, so that H5DS, netCDF-4 and xarray read them:
//   scale:   CLASS = "DIMENSION_SCALE", NAME = <dim name>,
//            REFERENCE_LIST = [{dataset: object ref, dimension: int}, ...];
//   dataset: DIMENSION_LIST = one vlen of object refs per dimension.
// (Avoids linking hdf5_hl, which the build does not provide.)
struct RefListEntry {
    hobj_ref_t dataset;
    int dimension;
};

class DimScales {
public:
    explicit DimScales(hid_t file) : file_(file) {}

    void make_scale(hid_t ds, const std::string& path, const std::string& dimname) {
        write_string_attr(ds, "CLASS", "DIMENSION_SCALE");
        write_string_attr(ds, "NAME", dimname);
        scales_[path];
    }

    // Attach scale paths (one per dimension, in order) to the dataset at data_path.
    void attach(hid_t ds, const std::string& data_path, const std::vector<std::string>& dims) {
        std::vector<hobj_ref_t> refs(dims.size());
        std::vector<hvl_t> list(dims.size());
        for (std::size_t d = 0; d < dims.size(); ++d) {
            check(H5Rcreate(&refs[d], file_, dims[d].c_str(), H5R_OBJECT, -1), "scale reference");
            list[d].len = 1;
            list[d].p = &refs[d];
            hobj_ref_t self;
            check(H5Rcreate(&self, file_, data_path.c_str(), H5R_OBJECT, -1), "dataset reference");
            scales_.at(dims[d]).push_back({self, int(d)});
        }
        Handle vtype(H5Tvlen_create(H5T_STD_REF_OBJ), H5Tclose, "vlen type");
        const hsize_t n = dims.size();
        Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose, "DIMENSION_LIST space");
        Handle attr(H5Acreate2(ds, "DIMENSION_LIST", vtype, space, H5P_DEFAULT, H5P_DEFAULT),
                    H5Aclose, "DIMENSION_LIST");
        check(H5Awrite(attr, vtype, list.data()), "DIMENSION_LIST");
    }

    // Write the back references on every scale (after all attachments).
    void finish() {
        Handle ctype(H5Tcreate(H5T_COMPOUND, sizeof(RefListEntry)), H5Tclose, "compound type");
        check(H5Tinsert(ctype, "dataset", HOFFSET(RefListEntry, dataset), H5T_STD_REF_OBJ),
              "compound member");
        check(H5Tinsert(ctype, "dimension", HOFFSET(RefListEntry, dimension), H5T_NATIVE_INT),
              "compound member");
        for (const auto& [path, entries] : scales_) {
            if (entries.empty()) continue;
            Handle ds(H5Dopen2(file_, path.c_str(), H5P_DEFAULT), H5Dclose, path);
            const hsize_t n = entries.size();
            Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose, "REFERENCE_LIST space");
            Handle attr(H5Acreate2(ds, "REFERENCE_LIST", ctype, space, H5P_DEFAULT, H5P_DEFAULT),
                        H5Aclose, "REFERENCE_LIST");
            check(H5Awrite(attr, ctype, entries.data()), "REFERENCE_LIST");
        }
    }

private:
    hid_t file_;
    std::map<std::string, std::vector<RefListEntry>> scales_;
};

// Silences HDF5's automatic error stack printing for the lifetime of the object: failures
// are reported through the exception instead.
class QuietHdf5 {
public:
    QuietHdf5() {
        H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

private:
    H5E_auto2_t func_ = nullptr;
    void* data_ = nullptr;
};

} // namespace

// ---- Statistics ---------------------------------------------------------------------------

template <typename T>
Statistics<T>::Statistics(const Grid<T>& grid, const Decomposition& decomp, std::string path,
                          std::string resolved_yaml, std::string scalar, std::string case_name)
    : grid_(grid), decomp_(decomp), path_(std::move(path)), yaml_(std::move(resolved_yaml)),
      scalar_(std::move(scalar)), case_(std::move(case_name)) {}

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

template <typename T>
const std::vector<double>& Statistics<T>::profile(const std::string& name) const {
    return vars_.at(name).data;
}

template <typename T>
const std::vector<double>& Statistics<T>::series(const std::string& name) const {
    return vars_.at(name).data;
}

template <typename T>
void Statistics<T>::sample(double time, long step, const StatsInput<T>& in) {
    if (!in.u || !in.v || !in.w) throw std::invalid_argument("statistics: u, v and w are required");
    const GridDims& d = grid_.d;
    const int nz = d.kmax, nzh = d.kmax + 1, ks = d.kstart, jj = d.jj, kk = d.kk;
    const double n_inv = 1.0 / (double(d.itot) * double(d.jtot));
    const T *u = in.u->host(), *v = in.v->host(), *w = in.w->host();
    const T* s = in.s ? in.s->host() : nullptr;
    const T* ev = in.evisc ? in.evisc->host() : nullptr;
    auto sum_allreduce = [&](std::vector<double>& buf) {
        MPI_Allreduce(MPI_IN_PLACE, buf.data(), int(buf.size()), MPI_DOUBLE, MPI_SUM, decomp_.comm);
        for (double& x : buf) x *= n_inv;
    };
    // Horizontal sum of f(ijk) at level k over the local interior.
    auto hsum = [&](int k, auto&& f) {
        double acc = 0;
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i) acc += double(f(i + j * jj + k * kk));
        return acc;
    };

    // Pass 1: means. Layout: u, v, s at centres (nz each), w at faces (nzh).
    std::vector<double> m(3 * nz + nzh, 0.0);
    for (int k = 0; k < nz; ++k) {
        m[k] = hsum(ks + k, [&](int ijk) { return u[ijk]; });
        m[nz + k] = hsum(ks + k, [&](int ijk) { return v[ijk]; });
        if (s) m[2 * nz + k] = hsum(ks + k, [&](int ijk) { return s[ijk]; });
    }
    for (int k = 0; k < nzh; ++k) m[3 * nz + k] = hsum(ks + k, [&](int ijk) { return w[ijk]; });
    sum_allreduce(m);
    const double *ubar = &m[0], *vbar = &m[nz], *sbar = &m[2 * nz], *wbar = &m[3 * nz];
    // Means at face k (index kf = k - kstart) from the neighbouring centres; the ghost
    // centres below/above the walls take the wall-adjacent mean (only used times w' = 0).
    auto at_face = [&](const double* c, int kf) {
        const std::size_t lo = std::size_t(kf > 0 ? kf - 1 : 0);
        const std::size_t hi = std::size_t(kf < nz ? kf : nz - 1);
        return sq::interp2(c[lo], c[hi]);
    };

    // Pass 2: centres u2, v2, s2, ke (4 nz); faces w2, s_res, s_sgs, u_res, v_res (5 nzh);
    // then 3 surface sums: s_fluxbot, ustar, obuk_inv.
    std::vector<double> r(4 * nz + 5 * nzh + 3, 0.0);
    for (int k = 0; k < nz; ++k) {
        const int kc = ks + k;
        r[k] = hsum(kc, [&](int ijk) { return (u[ijk] - ubar[k]) * (u[ijk] - ubar[k]); });
        r[nz + k] = hsum(kc, [&](int ijk) { return (v[ijk] - vbar[k]) * (v[ijk] - vbar[k]); });
        if (s)
            r[2 * nz + k] =
                hsum(kc, [&](int ijk) { return (s[ijk] - sbar[k]) * (s[ijk] - sbar[k]); });
        r[3 * nz + k] = hsum(kc, [&](int ijk) {
            const double uc = sq::interp2(double(u[ijk]), double(u[ijk + 1]));
            const double vc = sq::interp2(double(v[ijk]), double(v[ijk + jj]));
            const double wc = sq::interp2(double(w[ijk]), double(w[ijk + kk]));
            return 0.5 * (uc * uc + vc * vc + wc * wc);
        });
    }
    double* f = &r[4 * nz];
    for (int kf = 0; kf < nzh; ++kf) {
        const int k = ks + kf;
        const double wb = wbar[kf], dzhi = double(grid_.dzhi[k]);
        f[kf] = hsum(k, [&](int ijk) { return (w[ijk] - wb) * (w[ijk] - wb); });
        if (s) {
            const double sf = at_face(sbar, kf);
            f[nzh + kf] = hsum(k, [&](int ijk) {
                return (w[ijk] - wb) * (sq::interp2(double(s[ijk - kk]), double(s[ijk])) - sf);
            });
            if (kf == 0 && in.s_fluxbot) {
                f[2 * nzh] = hsum(0, [&](int ij) { return in.s_fluxbot[ij]; });
            } else {
                f[2 * nzh + kf] = -hsum(k, [&](int ijk) {
                    const double kh =
                        ev ? sq::interp2(double(ev[ijk - kk]), double(ev[ijk])) * in.prandtl_t_inv +
                                 in.kappa
                           : in.kappa;
                    return kh * (double(s[ijk]) - double(s[ijk - kk])) * dzhi;
                });
            }
        }
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
    double* surf = &r[4 * nz + 5 * nzh];
    if (in.s_fluxbot) surf[0] = hsum(0, [&](int ij) { return in.s_fluxbot[ij]; });
    if (in.ustar) surf[1] = hsum(0, [&](int ij) { return in.ustar[ij]; });
    if (in.obuk_inv) surf[2] = hsum(0, [&](int ij) { return in.obuk_inv[ij]; });
    sum_allreduce(r);

    // Append the sample. Variables not pushed this time are padded with NaN below.
    auto slice = [](const double* p, int n) { return std::vector<double>(p, p + n); };
    std::set<std::string> pushed;
    auto put = [&](const std::string& name, Loc loc, const char* ln, const std::string& units,
                   const std::vector<double>& val) {
        add(name, loc, ln, units);
        push(name, val);
        pushed.insert(name);
    };
    auto put1 = [&](const std::string& name, const char* ln, const std::string& units, double x) {
        put(name, Loc::time, ln, units, std::vector<double>{x});
    };
    const double* fl = f;
    put("u", Loc::z, "horizontal mean of u", "m s-1", slice(ubar, nz));
    put("v", Loc::z, "horizontal mean of v", "m s-1", slice(vbar, nz));
    put("w", Loc::zh, "horizontal mean of w", "m s-1", slice(wbar, nzh));
    put("u2", Loc::z, "variance of u", "m2 s-2", slice(&r[0], nz));
    put("v2", Loc::z, "variance of v", "m2 s-2", slice(&r[nz], nz));
    put("w2", Loc::zh, "variance of w", "m2 s-2", slice(fl, nzh));
    put("u_flux_res", Loc::zh, "resolved vertical flux of u (mean u'w')", "m2 s-2",
        slice(fl + 3 * nzh, nzh));
    put("v_flux_res", Loc::zh, "resolved vertical flux of v (mean v'w')", "m2 s-2",
        slice(fl + 4 * nzh, nzh));
    double ke = 0, s_mean = 0, zsum = 0;
    for (int k = 0; k < nz; ++k) {
        const double dz = double(grid_.dz[ks + k]);
        ke += dz * r[3 * nz + k];
        s_mean += dz * sbar[k];
        zsum += dz;
    }
    put1("ke", "volume mean kinetic energy 0.5 (u^2+v^2+w^2) at centres", "m2 s-2", ke / zsum);
    if (s) {
        const std::string& sn = scalar_;
        const auto [su, sfu] = scalar_units(sn);
        std::vector<double> total(nzh);
        for (int kf = 0; kf < nzh; ++kf) total[kf] = fl[nzh + kf] + fl[2 * nzh + kf];
        put(sn, Loc::z, "horizontal mean of the scalar", su, slice(sbar, nz));
        put(sn + "2", Loc::z, "variance of the scalar", su == "1" ? "1" : su + "2",
            slice(&r[2 * nz], nz));
        put(sn + "_flux_res", Loc::zh, "resolved vertical scalar flux (mean w's')", sfu,
            slice(fl + nzh, nzh));
        put(sn + "_flux_sgs", Loc::zh, "subgrid vertical scalar flux", sfu,
            slice(fl + 2 * nzh, nzh));
        put(sn + "_flux", Loc::zh, "total vertical scalar flux", sfu, total);
        put1(sn + "_mean", "volume mean of the scalar", su, s_mean / zsum);
        // Boundary-layer height: the face with the most negative total flux (interior faces).
        int kmin = 1;
        for (int kf = 1; kf < nzh - 1; ++kf)
            if (total[kf] < total[kmin]) kmin = kf;
        put1("zi", "boundary-layer height (height of the minimum scalar flux)", "m",
             nzh > 2 ? double(grid_.zh[ks + kmin]) : nan_value);
    }
    if (in.s_fluxbot)
        put1(scalar_ + "_fluxbot", "mean prescribed surface flux", scalar_units(scalar_).second,
             surf[0]);
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

template <typename T>
void Statistics<T>::write_file(const std::string& file) const {
    const QuietHdf5 quiet;
    Handle fid(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
               "cannot create the file");
    write_string_attr(fid, "case", case_);
    write_string_attr(fid, "squall_version", SQUALL_VERSION);
    write_string_attr(fid, "configuration", yaml_);
    write_string_attr(fid, "scalar", scalar_);
    write_string_attr(fid, "title", "squall statistics: horizontal-mean profiles and time series");

    const GridDims& d = grid_.d;
    const hsize_t nt = time_.size(), nz = hsize_t(d.kmax), nzh = hsize_t(d.kmax + 1);
    std::vector<double> z(nz), zh(nzh);
    for (hsize_t k = 0; k < nz; ++k) z[k] = double(grid_.z[d.kstart + k]);
    for (hsize_t k = 0; k < nzh; ++k) zh[k] = double(grid_.zh[d.kstart + k]);

    DimScales scales(fid);
    auto scale = [&](const char* name, const std::vector<double>& val, const char* ln,
                     const char* units) {
        Handle ds(create_dataset(fid, name, {hsize_t(val.size())}, val.data()), H5Dclose, name);
        write_string_attr(ds, "units", units);
        write_string_attr(ds, "long_name", ln);
        scales.make_scale(ds, std::string("/") + name, name);
    };
    scale("time", time_, "model time", "s");
    scale("z", z, "height of the cell centres", "m");
    scale("zh", zh, "height of the cell faces", "m");

    Handle prof(H5Gcreate2(fid, "profiles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                "group profiles");
    Handle ts(H5Gcreate2(fid, "timeseries", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
              "group timeseries");
    {
        Handle ds(create_dataset(ts, "step", {nt}, step_.data(), true), H5Dclose, "step");
        write_string_attr(ds, "units", "1");
        write_string_attr(ds, "long_name", "time step number");
        scales.attach(ds, "/timeseries/step", {"/time"});
    }
    for (const std::string& name : order_) {
        const Var& var = vars_.at(name);
        const bool series = var.loc == Loc::time;
        const std::string path = (series ? "/timeseries/" : "/profiles/") + name;
        std::vector<hsize_t> dims{nt};
        std::vector<std::string> dimnames{"/time"};
        if (!series) {
            dims.push_back(var.loc == Loc::z ? nz : nzh);
            dimnames.push_back(var.loc == Loc::z ? "/z" : "/zh");
        }
        Handle ds(create_dataset(series ? ts : prof, name, dims, var.data.data()), H5Dclose, path);
        write_string_attr(ds, "units", var.units);
        write_string_attr(ds, "long_name", var.long_name);
        scales.attach(ds, path, dimnames);
    }
    scales.finish();
}

template <typename T>
void Statistics<T>::write() const {
    std::string error;
    if (decomp_.rank == 0) {
        const std::string tmp = path_ + ".tmp";
        try {
            write_file(tmp);
            if (std::rename(tmp.c_str(), path_.c_str()) != 0)
                throw H5Error("cannot rename " + tmp + " to the final name");
        } catch (const std::exception& e) {
            std::remove(tmp.c_str());
            error = e.what();
            if (error.empty()) error = "unknown error";
        }
    }
    // Every rank learns the outcome, so that all of them throw together.
    int len = int(error.size());
    MPI_Bcast(&len, 1, MPI_INT, 0, decomp_.comm);
    error.resize(std::size_t(len));
    if (len > 0) MPI_Bcast(error.data(), len, MPI_CHAR, 0, decomp_.comm);
    if (len > 0) throw std::runtime_error("statistics: cannot write '" + path_ + "': " + error);
}

template class Statistics<float>;
template class Statistics<double>;

} // namespace squall
