// The surface tests' references and small grid.
#pragma once

#include <cmath>
#include <vector>

namespace squall::test {

inline constexpr double kap = 0.4;

// phi written out here from docs/numerics.md (not taken from the kernels' header).
inline double phi_m_ref(double z) {
    return z < 0 ? 1.0 / std::sqrt(1.0 + 3.6 * std::pow(-z, 2.0 / 3.0)) : 1.0 + 5.0 * z;
}
inline double phi_h_ref(double z) {
    return z < 0 ? 1.0 / std::sqrt(1.0 + 7.9 * std::pow(-z, 2.0 / 3.0))
                 : std::pow(1.0 + 4.0 * z, 2);
}

// A small grid: 2 ghost columns around 5 x 4 interior columns, 3 levels.
template <typename T>
struct SmallGrid {
    int icells = 9, jcells = 8, kcells = 3, kstart = 1;
    int jj = icells, kk = icells * jcells;
    std::vector<T> u, v, sflux;
    SmallGrid() : u(kk * kcells), v(kk * kcells), sflux(kk) {
        for (int k = 0; k < kcells; ++k)
            for (int j = 0; j < jcells; ++j)
                for (int i = 0; i < icells; ++i) {
                    const int ijk = i + j * jj + k * kk;
                    u[ijk] = T(1.5 + 2.0 * std::sin(0.7 * i + 0.3 * j) + 0.1 * k);
                    v[ijk] = T(-0.5 + 1.7 * std::cos(0.4 * i - 0.9 * j));
                }
        for (int ij = 0; ij < kk; ++ij) { // both signs; the stable ones weaker
            const double c = std::cos(0.5 * ij);
            sflux[ij] = T(c > 0 ? 0.1 * c : 0.002 * c);
        }
        // One calm column (tiny wind) to exercise umin.
        const int ijc = 4 + 3 * jj + kstart * kk;
        u[ijc] = u[ijc + 1] = T(0);
        v[ijc] = v[ijc + jj] = T(1e-4);
    }
};

} // namespace squall::test
