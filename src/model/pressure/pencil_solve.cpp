#include "model/pressure/pencil_solve.h"

#include <algorithm>

#include "model/pressure/pressure.h"

namespace squall {

template <typename T>
PencilPressure<T>::PencilPressure(const Grid<T>& grid, const Decomposition& decomp)
    : lay(grid.d, decomp) {
    bmat.resize(std::size_t(lay.ncol));
    for (int jl = 0; jl < lay.jblk; ++jl)
        for (int il = 0; il < lay.iblk; ++il)
            bmat[std::size_t(il + long(lay.iblk) * jl)] =
                T(pressure_wavenumber_term(lay.i0 + il, lay.itot, grid.dxi) +
                  pressure_wavenumber_term(lay.j0 + jl, lay.jtot, grid.dyi));
    const PressureTridiag<T> tri = PressureTridiag<T>::make(grid);
    coef = tri.packed();
    if (lay.i0 == 0 && lay.j0 == 0) top_mean = tri.top_mean;
    for (int axis = 0; axis < 2; ++axis)
        ncplx = std::max(ncplx, lay.transform_rows(axis) * (lay.transform_length(axis) / 2 + 1));
}

template struct PencilPressure<float>;
template struct PencilPressure<double>;

} // namespace squall
