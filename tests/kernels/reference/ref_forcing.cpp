// Independent references of the large-scale forcings (kernels/forcing.cuh), from
// docs/numerics.md "Coriolis force".
#include "ref_numerics.h"

namespace sqref {

CoriolisTend ref_coriolis(const RefGrid& g, const Vec& u, const Vec& v, double f, const Vec& ug,
                          const Vec& vg) {
    CoriolisTend t{Vec(g.ncells, 0.0), Vec(g.ncells, 0.0)};
    for (int k = g.kstart; k < g.kend; ++k)
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i) {
                // u sits on the west face of cell (i, j): the v faces around it are those of
                // cells (i-1, j), (i, j), (i-1, j+1) and (i, j+1); v's point likewise.
                R v_at_u = 0, u_at_v = 0;
                for (int di = -1; di <= 0; ++di)
                    for (int dj = 0; dj <= 1; ++dj) v_at_u += v[g.idx(i + di, j + dj, k)];
                for (int di = 0; di <= 1; ++di)
                    for (int dj = -1; dj <= 0; ++dj) u_at_v += u[g.idx(i + di, j + dj, k)];
                t.ut[g.idx(i, j, k)] = double(R(f) * (v_at_u / 4 - vg[k]));
                t.vt[g.idx(i, j, k)] = double(-R(f) * (u_at_v / 4 - ug[k]));
            }
    return t;
}

} // namespace sqref
