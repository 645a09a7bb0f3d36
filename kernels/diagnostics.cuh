#pragma once
// Run-time diagnostics as reductions (launch_max / launch_sum): one value per centre
// point, reduced by the backend. Sums are formed in double, as the CPU backend
// accumulates, so float runs report the same diagnostics to float round-off of the fields.
#include "common.cuh"
#include "pressure.cuh"

namespace sq {

// The largest |divergence| is AbsDivergence (pressure.cuh: Divergence's template).

// Kinetic energy of the centre-interpolated velocity times the layer depth.
template <typename T>
struct KineticEnergyDz {
    static constexpr const char* name = "diag_ke_dz";
    static constexpr Traits traits{.summed = true};
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T* SQ_RESTRICT dz;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w)).profile(SQ_ARG(dz));
        d.scalars(SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD double operator()(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        const double uc = interp2(u[ijk], u[ijk + 1]);
        const double vc = interp2(v[ijk], v[ijk + jj]);
        const double wc = interp2(w[ijk], w[ijk + kk]);
        return 0.5 * (uc * uc + vc * vc + wc * wc) * dz[k];
    }
};

// A field times the layer depth (vertical integrals: momentum, scalar content).
template <typename T>
struct ValueDz {
    static constexpr const char* name = "diag_value_dz";
    static constexpr Traits traits{.summed = true};
    const T* SQ_RESTRICT a;
    const T* SQ_RESTRICT dz;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(a)).profile(SQ_ARG(dz)).scalars(SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD double operator()(int i, int j, int k) const {
        return double(a[index3(i, j, k, jj, kk)]) * dz[k];
    }
};

// Every kernel of this header (tests and benchmarks iterate over them).
using DiagnosticKernels = KernelList<KineticEnergyDz, ValueDz>;

} // namespace sq
