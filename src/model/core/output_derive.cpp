// The derived output variables (ql, thv, vorticity): computed into the scratch field by
// their kernels, on the box of each section's kept points only.
#include <algorithm>

#include "backends/launch.h"
#include "kernels/thermo.cuh"
#include "kernels/vorticity.cuh"
#include "model/core/output.h"

namespace squall {

template <typename T>
void Output<T>::derive_in(const sq::Range3& r, const Var& v) {
    const auto& d = g_.d;
    const T *u = f_.u.data(), *vv = f_.v.data(), *w = f_.w.data();
    T* out = v.field->data();
    if (v.derive == Derive::ql || v.derive == Derive::thv) {
        const T *thl = f_.s.data(), *qt = f_.scalars[std::size_t(qt_)].c.data();
        if (v.derive == Derive::ql)
            launch(r, sq::QlMoist<T>{.ql = out,
                                     .thl = thl,
                                     .qt = qt,
                                     .pref = f_.pref.data(),
                                     .exner_ref = f_.exner_ref.data(),
                                     .jj = d.jj,
                                     .kk = d.kk});
        else
            launch(r, sq::ThvMoist<T>{.thv = out,
                                      .thl = thl,
                                      .qt = qt,
                                      .pref = f_.pref.data(),
                                      .exner_ref = f_.exner_ref.data(),
                                      .jj = d.jj,
                                      .kk = d.kk});
        return;
    }
    if (v.derive == Derive::vort_x)
        launch(r, sq::VorticityX<T>{.vort = out,
                                    .v = vv,
                                    .w = w,
                                    .dzhi = dzhi_.data(),
                                    .dyi = g_.dyi,
                                    .jj = d.jj,
                                    .kk = d.kk});
    else if (v.derive == Derive::vort_y)
        launch(r, sq::VorticityY<T>{.vort = out,
                                    .u = u,
                                    .w = w,
                                    .dzhi = dzhi_.data(),
                                    .dxi = g_.dxi,
                                    .jj = d.jj,
                                    .kk = d.kk});
    else
        launch(r, sq::VorticityZ<T>{.vort = out,
                                    .u = u,
                                    .v = vv,
                                    .dxi = g_.dxi,
                                    .dyi = g_.dyi,
                                    .jj = d.jj,
                                    .kk = d.kk});
}

template <typename T>
void Output<T>::derive(const Section& s, const Var& v) {
    if (v.field != &scratch_) return;
    const auto& d = g_.d;
    const Part p = part(s, v, d.ioffset, d.joffset, d.imax, d.jmax);
    if (p.k.empty() || p.j.empty() || p.i.empty()) return;
    // The box around this rank's kept points (positions may be listed in any order), one
    // launch per kept plane across the section: the planes of a section may lie far apart.
    auto lo = [](const std::vector<int>& a) { return *std::min_element(a.begin(), a.end()); };
    auto hi = [](const std::vector<int>& a) { return *std::max_element(a.begin(), a.end()) + 1; };
    const int di = d.istart - d.ioffset, dj = d.jstart - d.joffset;
    const sq::Range3 box{lo(p.i) + di, hi(p.i) + di,       lo(p.j) + dj,
                         hi(p.j) + dj, lo(p.k) + d.kstart, hi(p.k) + d.kstart};
    auto compute = [&](const sq::Range3& r) { derive_in(r, v); };
    if (&s == &sec_[xy])
        for (int k : p.k) compute({box.i0, box.i1, box.j0, box.j1, k + d.kstart, k + d.kstart + 1});
    else if (&s == &sec_[xz])
        for (int j : p.j) compute({box.i0, box.i1, j + dj, j + dj + 1, box.k0, box.k1});
    else
        for (int i : p.i) compute({i + di, i + di + 1, box.j0, box.j1, box.k0, box.k1});
}

template void Output<float>::derive_in(const sq::Range3&, const Output<float>::Var&);
template void Output<float>::derive(const Output<float>::Section&, const Output<float>::Var&);
template void Output<double>::derive_in(const sq::Range3&, const Output<double>::Var&);
template void Output<double>::derive(const Output<double>::Section&, const Output<double>::Var&);

} // namespace squall
