// Cross-sections and 3-D field files: choosing the kept points, gathering them to rank 0
// and the device-to-host copies (file layout: io/cross_file.h, io/fields_file.h).
#include "model/core/output.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>

#include "backends/launch.h"
#include "kernels/halo.cuh"
#include "kernels/thermo.cuh"
#include "model/io/cross_file.h"
#include "model/io/h5.h"
#include "model/stats/stats.h"

namespace squall {

namespace fs = std::filesystem;

namespace {
// Index of the value nearest to v (the first of equals).
int nearest(const std::vector<double>& values, double v) {
    int best = 0;
    for (int n = 1; n < int(values.size()); ++n)
        if (std::abs(values[n] - v) < std::abs(values[best] - v)) best = n;
    return best;
}
std::vector<int> all(int n) {
    std::vector<int> r(std::size_t(n), 0);
    for (int i = 0; i < n; ++i) r[std::size_t(i)] = i;
    return r;
}
const char* orientation_name(int o) {
    return o == 0 ? "xy" : o == 1 ? "xz" : "yz";
}
} // namespace

template <typename T>
std::vector<double> Output<T>::axis_values(const std::string& axis) const {
    const auto& d = g_.d;
    std::vector<double> r;
    const double dx = cfg_.grid.xsize / d.itot, dy = cfg_.grid.ysize / d.jtot;
    if (axis == "x" || axis == "xh")
        for (int i = 0; i < d.itot; ++i) r.push_back(i * dx + (axis == "x" ? 0.5 * dx : 0.0));
    if (axis == "y" || axis == "yh")
        for (int j = 0; j < d.jtot; ++j) r.push_back(j * dy + (axis == "y" ? 0.5 * dy : 0.0));
    if (axis == "z")
        for (int k = d.kstart; k < d.kend; ++k) r.push_back(double(g_.z[k]));
    if (axis == "zh")
        for (int k = d.kstart; k <= d.kend; ++k) r.push_back(double(g_.zh[k]));
    return r;
}

template <typename T>
typename Output<T>::Var Output<T>::var(const std::string& name) {
    const std::string scalar = scalar_name(cfg_.thermo);
    const Derive none = Derive::none;
    if (name == "u")
        return {name, &f_.u, true, false, false, none, "velocity in x", "m s-1", cfg_.grid.utrans};
    if (name == "v")
        return {name, &f_.v, false, true, false, none, "velocity in y", "m s-1", cfg_.grid.vtrans};
    if (name == "w") return {name, &f_.w, false, false, true, none, "vertical velocity", "m s-1"};
    if (name == "w2")
        return {
            name,    &f_.w, false, false, true, Derive::square, "square of the vertical velocity",
            "m2 s-2"};
    // Each component on the cell edge where it needs no interpolation (kernels/vorticity.cuh).
    if (name == "vort_x")
        return {name, &scratch_, false, true, true, Derive::vort_x, "vorticity dw/dy - dv/dz",
                "s-1"};
    if (name == "vort_y")
        return {name, &scratch_, true, false, true, Derive::vort_y, "vorticity du/dz - dw/dx",
                "s-1"};
    if (name == "vort_z")
        return {name, &scratch_, true, true, false, Derive::vort_z, "vorticity dv/dx - du/dy",
                "s-1"};
    if (name == "ql")
        return {name, &scratch_, false, false, false, Derive::ql, scalar_noun("ql"), "kg kg-1"};
    if (name == "thv")
        return {name, &scratch_, false, false, false, Derive::thv, scalar_noun("thv"), "K"};
    if (name == "evisc")
        return {name, &f_.evisc, false, false, false, none, "eddy viscosity", "m2 s-1"};
    if (f_.has_scalar && name == scalar)
        return {
            name, &f_.s, false, false, false, none, scalar_noun(name), scalar_units(name).first};
    for (std::size_t n = 0; n < f_.scalars.size(); ++n)
        if (name == cfg_.scalars[n].name)
            return {name,
                    &f_.scalars[n].c,
                    false,
                    false,
                    false,
                    none,
                    scalar_noun(name),
                    scalar_units(name).first};
    throw std::runtime_error("output: unknown field " + name); // load_config checks names
}

template <typename T>
Output<T>::Output(const Config& cfg, const Grid<T>& grid, Fields<T>& fields,
                  const Decomposition& dc)
    : cfg_(cfg), g_(grid), f_(fields), dc_(dc), restarted_(!cfg.restart.empty()),
      writer_(dc.rank == 0 && h5::library_threadsafe()) {
    const auto& d = g_.d;
    const std::array<const std::vector<double>*, 3> pos = {&cfg.cross.xy, &cfg.cross.xz,
                                                           &cfg.cross.yz};
    for (int o = 0; o < 3; ++o) {
        Section& s = sec_[o];
        s.on = cfg.cross.every > 0 && !pos[o]->empty();
        if (!s.on) continue;
        s.path = (fs::path(cfg.output_dir) /
                  fmt::format("{}.cross_{}.h5", cfg.name, orientation_name(o)))
                     .string();
        s.idx = {{"x", all(d.itot)},  {"xh", all(d.itot)}, {"y", all(d.jtot)},
                 {"yh", all(d.jtot)}, {"z", all(d.ktot)},  {"zh", all(d.ktot + 1)}};
        // The nearest centre and the nearest face of each position.
        const std::string c = o == xy ? "z" : o == xz ? "y" : "x";
        const std::vector<double> centres = axis_values(c), faces = axis_values(c + "h");
        s.idx[c].clear();
        s.idx[c + "h"].clear();
        for (double p : *pos[o]) {
            s.idx[c].push_back(nearest(centres, p));
            s.idx[c + "h"].push_back(nearest(faces, p));
        }
    }
    for (const auto& name : cfg.cross.fields) cross_vars_.push_back(var(name));
    const std::string scalar = scalar_name(cfg.thermo);
    for (const auto& name : cfg.cross.surface) {
        if (name == "ustar")
            surface_vars_.push_back({name, "friction velocity", "m s-1", &f_.ustar, false, false});
        else if (name == "obuk_inv")
            surface_vars_.push_back(
                {name, "inverse Obukhov length", "m-1", &f_.obuk_inv, false, false});
        else if (name == "u_fluxbot")
            surface_vars_.push_back(
                {name, "surface flux of u (u'w')", "m2 s-2", &f_.u_fluxbot, true, false});
        else if (name == "v_fluxbot")
            surface_vars_.push_back(
                {name, "surface flux of v (v'w')", "m2 s-2", &f_.v_fluxbot, false, true});
        else if (name == "lwp")
            surface_vars_.push_back({name, "liquid water path", "kg m-2", &lwp_, false, false});
        else if (name == "zcb")
            surface_vars_.push_back({name,
                                     "cloud base: the lowest level with liquid water (-1: clear)",
                                     "m", &zcb_, false, false});
        else if (name == scalar + "_fluxbot")
            surface_vars_.push_back({name, "surface flux of the " + scalar_noun(scalar),
                                     scalar_units(scalar).second, &f_.s_fluxbot, false, false});
        else // a passive scalar's <name>_fluxbot (load_config checks the names)
            for (std::size_t n = 0; n < cfg.scalars.size(); ++n)
                if (name == cfg.scalars[n].name + "_fluxbot")
                    surface_vars_.push_back(
                        {name, "surface flux of the " + scalar_noun(cfg.scalars[n].name),
                         scalar_units(cfg.scalars[n].name).second, &f_.scalars[n].fluxbot, false,
                         false});
    }
    surface_.on = cfg.cross.every > 0 && !surface_vars_.empty();
    surface_.path =
        (fs::path(cfg.output_dir) / fmt::format("{}.cross_surface.h5", cfg.name)).string();
    qt_ = cfg.scalar_index("qt");
    // The column kernel runs at each surface sample only when lwp or zcb is asked for.
    const auto& surf = cfg.cross.surface;
    if (std::count(surf.begin(), surf.end(), "lwp") ||
        std::count(surf.begin(), surf.end(), "zcb")) {
        lwp_.assign(std::size_t(d.nplane()), T(0), f_.on_device);
        zcb_.assign(std::size_t(d.nplane()), T(0), f_.on_device);
    }
    std::vector<Var> derived = cross_vars_;
    for (const auto& name : cfg.fields_out.names) {
        derived.push_back(var(name));
        if (derived.back().field == &scratch_)
            derived_fields_.emplace(name, Field3d<T>(d, f_.on_device));
    }
    for (const Var& v : derived)
        if (v.field == &scratch_ && scratch_.size() == 0) {
            scratch_ = Field3d<T>(d, f_.on_device);
            dzhi_.assign(g_.dzhi.size(), T(0), f_.on_device);
            std::copy(g_.dzhi.begin(), g_.dzhi.end(), dzhi_.host());
            dzhi_.to_device();
        }
    if (lwp_.size() > 0) {
        z_.assign(g_.z.size(), T(0), f_.on_device);
        std::copy(g_.z.begin(), g_.z.end(), z_.host());
        z_.to_device();
    }
    const std::array<int, 4> mine = {d.ioffset, d.joffset, d.imax, d.jmax};
    blocks_.resize(dc.rank == 0 ? std::size_t(dc.nprocs) : 0);
    MPI_Gather(mine.data(), 4, MPI_INT, blocks_.data(), 4, MPI_INT, 0, dc.comm);
    if (f_.on_device)
        pack_.assign(2 * std::size_t(std::max(d.icells, d.jmax)) * d.kcells, T(0), true);
}

template <typename T>
Output<T>::~Output() = default;

template <typename T>
void Output<T>::on_root(const std::string& path, const std::function<void()>& f) const {
    std::string error;
    if (dc_.rank == 0) {
        try {
            f();
        } catch (const std::exception& e) {
            error = path.empty() ? std::string(e.what()) : fmt::format("{}: {}", path, e.what());
        }
    }
    int n = int(error.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, dc_.comm);
    error.resize(std::size_t(n));
    MPI_Bcast(error.data(), n, MPI_CHAR, 0, dc_.comm);
    if (!error.empty()) throw std::runtime_error("output file " + error);
}

namespace {
template <typename T, typename V>
io::CrossHeader header(const Config& cfg, const std::map<std::string, std::vector<int>>& idx,
                       const std::vector<V>& vars,
                       const std::function<std::vector<double>(const std::string&)>& axis,
                       const char* orientation) {
    io::CrossHeader h;
    h.case_name = cfg.name;
    h.version = SQUALL_VERSION;
    h.title = fmt::format("squall {} cross-sections", orientation);
    h.single = sizeof(T) == 4;
    const std::map<std::string, std::string> long_names = {
        {"x", "x of the cell centres"},      {"xh", "x of the cell faces"},
        {"y", "y of the cell centres"},      {"yh", "y of the cell faces"},
        {"z", "height of the cell centres"}, {"zh", "height of the cell faces"}};
    for (const char* a : {"x", "xh", "y", "yh", "z", "zh"}) {
        const std::vector<double> all = axis(a);
        io::Axis ax{a, {}, long_names.at(a)};
        for (int n : idx.at(a)) ax.values.push_back(all[std::size_t(n)]);
        h.axes.push_back(ax);
    }
    for (const V& v : vars)
        h.vars.push_back({v.name, v.long_name, v.units, v.zh ? "zh" : "z", v.yh ? "yh" : "y",
                          v.xh ? "xh" : "x"});
    return h;
}
} // namespace

template <typename T>
io::CrossHeader Output<T>::surface_header() const {
    io::CrossHeader h;
    h.case_name = cfg_.name;
    h.version = SQUALL_VERSION;
    h.title = "squall surface fields";
    h.single = sizeof(T) == 4;
    h.axes = {{"x", axis_values("x"), "x of the cell centres"},
              {"xh", axis_values("xh"), "x of the cell faces"},
              {"y", axis_values("y"), "y of the cell centres"},
              {"yh", axis_values("yh"), "y of the cell faces"},
              {"z", {0.0}, "height of the surface"}};
    for (const SurfaceVar& v : surface_vars_)
        h.vars.push_back({v.name, v.long_name, v.units, "z", v.yh ? "yh" : "y", v.xh ? "xh" : "x"});
    return h;
}

template <typename T>
void Output<T>::create() {
    const std::string prefix = cfg_.name + ".fields.";
    on_root((fs::path(cfg_.output_dir) / (prefix + "*.h5")).string(), [&] {
        if (cfg_.fields_out.every <= 0 || cfg_.overwrite) return;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(cfg_.output_dir, ec))
            if (e.path().filename().string().rfind(prefix, 0) == 0)
                throw std::runtime_error(fmt::format(
                    "{} exists; use --overwrite to replace this case's output or --restart to "
                    "continue its run",
                    e.path().filename().string()));
    });
    if (surface_.on)
        on_root(surface_.path, [&] {
            surface_.file = io::CrossFile::create(surface_.path, surface_header(), cfg_.overwrite);
        });
    for (int o = 0; o < 3; ++o) {
        Section& s = sec_[o];
        if (!s.on) continue;
        on_root(s.path, [&] {
            s.file = io::CrossFile::create(s.path,
                                           header<T>(
                                               cfg_, s.idx, cross_vars_,
                                               [&](const std::string& a) { return axis_values(a); },
                                               orientation_name(o)),
                                           cfg_.overwrite);
        });
    }
}

template <typename T>
void Output<T>::resume(double time) {
    if (surface_.on)
        on_root(surface_.path, [&] {
            surface_.file = io::CrossFile::resume(surface_.path, surface_header(), time);
        });
    for (int o = 0; o < 3; ++o) {
        Section& s = sec_[o];
        if (!s.on) continue;
        on_root(s.path, [&] {
            s.file = io::CrossFile::resume(s.path,
                                           header<T>(
                                               cfg_, s.idx, cross_vars_,
                                               [&](const std::string& a) { return axis_values(a); },
                                               orientation_name(o)),
                                           time);
        });
    }
}

template <typename T>
typename Output<T>::Part Output<T>::part(const Section& s, const Var& v, int ioff, int joff,
                                         int imax, int jmax) const {
    Part p;
    p.ydim = v.yh ? "yh" : "y";
    p.xdim = v.xh ? "xh" : "x";
    p.k = s.idx.at(v.zh ? "zh" : "z");
    const std::vector<int>& js = s.idx.at(p.ydim);
    const std::vector<int>& is = s.idx.at(p.xdim);
    for (std::size_t n = 0; n < js.size(); ++n)
        if (js[n] >= joff && js[n] < joff + jmax) p.j.push_back(js[n]), p.jn.push_back(n);
    for (std::size_t n = 0; n < is.size(); ++n)
        if (is[n] >= ioff && is[n] < ioff + imax) p.i.push_back(is[n]), p.in.push_back(n);
    return p;
}

template <typename T>
void Output<T>::stage_on_host(const Section& s, const Var& v) {
    if (!f_.on_device) return;
    const auto& d = g_.d;
    const Part p = part(s, v, d.ioffset, d.joffset, d.imax, d.jmax);
    if (p.j.empty() || p.i.empty()) return;
    Field3d<T>& a = *v.field;
    if (&s == &sec_[xy]) {
        for (int k : p.k) a.range_to_host(long(d.kstart + k) * d.kk, d.kk); // one plane
    } else if (&s == &sec_[xz]) {
        for (int jg : s.idx.at(p.ydim)) {
            if (jg < d.joffset || jg >= d.joffset + d.jmax) continue;
            const int j = d.jstart + jg - d.joffset;
            launch(sq::Range3{0, d.icells, 0, 1, 0, d.kcells},
                   sq::HaloPackY<T>{.send_s = pack_.data(),
                                    .send_n = pack_.data() + std::size_t(d.icells) * d.kcells,
                                    .a = a.data(),
                                    .jstart = j,
                                    .jend = j + 1,
                                    .jgc = 1,
                                    .icells = d.icells,
                                    .jj = d.jj,
                                    .kk = d.kk});
            pack_.range_to_host(0, std::size_t(d.icells) * d.kcells);
            for (int k = 0; k < d.kcells; ++k)
                for (int i = 0; i < d.icells; ++i) a(i, j, k) = pack_[i + d.icells * k];
        }
    } else {
        for (int ig : s.idx.at(p.xdim)) {
            if (ig < d.ioffset || ig >= d.ioffset + d.imax) continue;
            const int i = d.istart + ig - d.ioffset;
            launch(sq::halo_x_range(d.jstart, d.jend, d.kcells, 1),
                   sq::HaloPackX<T>{.send_w = pack_.data(),
                                    .send_e = pack_.data() + std::size_t(d.jmax) * d.kcells,
                                    .a = a.data(),
                                    .istart = i,
                                    .iend = i + 1,
                                    .jstart = d.jstart,
                                    .jmax = d.jmax,
                                    .igc = 1,
                                    .jj = d.jj,
                                    .kk = d.kk});
            pack_.range_to_host(0, std::size_t(d.jmax) * d.kcells);
            for (int k = 0; k < d.kcells; ++k)
                for (int j = d.jstart; j < d.jend; ++j)
                    a(i, j, k) = pack_[std::size_t(j - d.jstart) + std::size_t(d.jmax) * k];
        }
    }
}

template <typename T>
void Output<T>::wait_for_writes() {
    on_root("", [&] { writer_.wait(); });
}

template <typename T>
void Output<T>::cross(double time) {
    const auto& d = g_.d;
    wait_for_writes(); // the sample before is on disk and its buffers are free
    // Rank 0: each file's sample, written after the loop in one background job.
    std::vector<std::pair<Section*, std::vector<const void*>>> samples;
    for (int o = 0; o < 3; ++o) {
        Section& s = sec_[o];
        if (!s.on) continue;
        // This rank's values of every variable, one after the other.
        std::vector<T>& mine = s.mine;
        mine.clear();
        for (const Var& v : cross_vars_) {
            derive(s, v);
            stage_on_host(s, v);
            const Part p = part(s, v, d.ioffset, d.joffset, d.imax, d.jmax);
            mine.reserve(mine.size() + p.k.size() * p.j.size() * p.i.size());
            const bool square = v.derive == Derive::square;
            for (int k : p.k)
                for (int j : p.j) {
                    // The row's first interior point; i - ioffset indexes it.
                    const T* row = &(*v.field)(d.istart, d.jstart + j - d.joffset, d.kstart + k);
                    for (int i : p.i) {
                        const T a = row[i - d.ioffset];
                        mine.push_back(square ? a * a : T(a + v.offset));
                    }
                }
        }
        std::vector<int> counts(blocks_.size());
        for (std::size_t r = 0; r < blocks_.size(); ++r) {
            const auto& b = blocks_[r];
            for (const Var& v : cross_vars_) {
                const Part p = part(s, v, b[0], b[1], b[2], b[3]);
                counts[r] += int(p.k.size() * p.j.size() * p.i.size());
            }
        }
        const std::vector<int> displs = gather_on_root(s, counts);
        const std::vector<T>& got = s.got;
        on_root(s.path, [&] {
            // Each variable as a global (z, y, x) array in the order of the file's axes.
            std::vector<std::vector<T>>& global = s.global;
            global.resize(cross_vars_.size());
            std::vector<const void*> data;
            for (std::size_t n = 0; n < cross_vars_.size(); ++n) {
                const Var& v = cross_vars_[n];
                const Part all = part(s, v, 0, 0, d.itot, d.jtot);
                global[n].resize(all.k.size() * all.j.size() * all.i.size());
                data.push_back(global[n].data());
            }
            for (std::size_t r = 0; r < blocks_.size(); ++r) {
                const auto& b = blocks_[r];
                std::size_t at = std::size_t(displs[r]);
                for (std::size_t n = 0; n < cross_vars_.size(); ++n) {
                    const Var& v = cross_vars_[n];
                    const Part p = part(s, v, b[0], b[1], b[2], b[3]);
                    const std::size_t nj = s.idx.at(p.ydim).size(), ni = s.idx.at(p.xdim).size();
                    for (std::size_t k = 0; k < p.k.size(); ++k)
                        for (std::size_t jn : p.jn) {
                            T* row = global[n].data() + (k * nj + jn) * ni;
                            for (std::size_t in : p.in) row[in] = got[at++];
                        }
                }
            }
            samples.emplace_back(&s, std::move(data));
        });
    }
    if (surface_.on) {
        gather_surface();
        on_root(surface_.path, [&] {
            std::vector<const void*> data;
            for (const auto& g : surface_.global) data.push_back(g.data());
            samples.emplace_back(&surface_, std::move(data));
        });
    }
    if (samples.empty()) return;
    writer_.run([samples = std::move(samples), time] {
        for (const auto& [s, data] : samples) {
            try {
                s->file->append(time, data);
            } catch (const std::exception& e) { // the later files are left as they were
                throw std::runtime_error(fmt::format("{}: {}", s->path, e.what()));
            }
        }
    });
}

template <typename T>
std::vector<int> Output<T>::gather_on_root(Section& s, const std::vector<int>& counts) {
    std::vector<int> displs(counts.size());
    for (std::size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
    if (dc_.nprocs == 1) {
        s.got.swap(s.mine);
    } else {
        s.got.resize(counts.empty() ? 0 : std::size_t(displs.back() + counts.back()));
        MPI_Gatherv(s.mine.data(), int(s.mine.size()), mpi_type<T>(), s.got.data(), counts.data(),
                    displs.data(), mpi_type<T>(), 0, dc_.comm);
    }
    return displs;
}

template <typename T>
void Output<T>::gather_surface() {
    const auto& d = g_.d;
    std::vector<T>& mine = surface_.mine;
    mine.clear();
    if (lwp_.size() > 0)
        launch_2d(sq::Range3{d.istart, d.iend, d.jstart, d.jend, 0, 1},
                  sq::ColumnCloud<T>{.lwp = lwp_.data(),
                                     .zcb = zcb_.data(),
                                     .thl = f_.s.data(),
                                     .qt = f_.scalars[std::size_t(qt_)].c.data(),
                                     .pref = f_.pref.data(),
                                     .exner_ref = f_.exner_ref.data(),
                                     .rho_dz = f_.rho_dz.data(),
                                     .z = z_.data(),
                                     .kstart = d.kstart,
                                     .kend = d.kend,
                                     .jj = d.jj,
                                     .kk = d.kk});
    for (const SurfaceVar& v : surface_vars_) {
        v.a->to_host();
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i)
                mine.push_back((*v.a)[std::size_t(i + j * d.jj)]);
    }
    const std::size_t nv = surface_vars_.size();
    std::vector<int> counts(blocks_.size());
    for (std::size_t r = 0; r < blocks_.size(); ++r)
        counts[r] = int(nv) * blocks_[r][2] * blocks_[r][3];
    const std::vector<int> displs = gather_on_root(surface_, counts);
    const std::vector<T>& got = surface_.got;
    if (dc_.rank != 0) return;
    // Each variable as a global (1, jtot, itot) plane: every rank's block in place.
    surface_.global.assign(nv, std::vector<T>(std::size_t(d.itot) * d.jtot));
    for (std::size_t r = 0; r < blocks_.size(); ++r) {
        const auto& [ioff, joff, imax, jmax] = blocks_[r];
        std::size_t at = std::size_t(displs[r]);
        for (std::size_t n = 0; n < nv; ++n)
            for (int j = 0; j < jmax; ++j)
                for (int i = 0; i < imax; ++i)
                    surface_.global[n][std::size_t(joff + j) * d.itot + std::size_t(ioff + i)] =
                        got[at++];
    }
}

template <typename T>
void Output<T>::fields(std::int64_t itime, double time) {
    io::FieldsInfo info;
    info.case_name = cfg_.name;
    info.version = SQUALL_VERSION;
    info.time = time;
    info.x = axis_values("x");
    info.xh = axis_values("xh");
    info.y = axis_values("y");
    info.yh = axis_values("yh");
    info.z = axis_values("z");
    info.zh = axis_values("zh");
    info.single = cfg_.fields_out.float32;
    info.checksum = cfg_.fields_out.checksum;
    info.overwrite = cfg_.overwrite || restarted_;
    const auto t0 = std::chrono::steady_clock::now(); // the copy from the device counts
    std::vector<io::OutputField<T>> list;
    const auto& d = g_.d;
    for (const auto& name : cfg_.fields_out.names) {
        Var v = var(name);
        if (v.field == &scratch_) { // derived: each into its own field, all written at once
            v.field = &derived_fields_.at(name);
            derive_in(sq::Range3{d.istart, d.iend, d.jstart, d.jend, d.kstart, d.kend}, v);
        }
        if (f_.on_device) v.field->to_host();
        const io::Stagger stagger = v.xh   ? io::Stagger::x
                                    : v.yh ? io::Stagger::y
                                    : v.zh ? io::Stagger::z
                                           : io::Stagger::centre;
        list.push_back({v.name, v.long_name, v.units, v.field, stagger, v.offset});
    }
    const std::string path =
        (fs::path(cfg_.output_dir) / io::fields_name(cfg_.name, itime)).string();
    io::write_fields(path, info, list, dc_);
    if (dc_.rank == 0) {
        const std::chrono::duration<double> s = std::chrono::steady_clock::now() - t0;
        const double mb = double(list.size()) * g_.d.itot * g_.d.jtot * g_.d.ktot *
                          (info.single ? 4 : sizeof(T)) / 1e6;
        fmt::print("squall: fields {}: {} field(s), {:.1f} MB in {:.3f} s\n", path, list.size(), mb,
                   s.count());
    }
}

template class Output<float>;
template class Output<double>;

} // namespace squall
