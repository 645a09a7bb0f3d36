// The end of a Runge-Kutta substep: the pressure projection of the velocity tendencies
// and the RK stage of every prognostic field.
#include "kernels/pressure.cuh"
#include "kernels/timeint.cuh"
#include "model/core/interior.h"
#include "model/core/model.h"
#include "model/pressure/pressure.h"
#ifdef SQUALL_GPU_MODEL
#include "model/pressure/pressure_gpu.h"
#endif

namespace squall {

// Projects the velocity tendencies onto a divergence-free field (docs/numerics.md) and takes
// the RK stage of u, v and w: the pressure solve for dts = b_dt, then the gradient and the
// stage in one pass (PresOutRk). At the last stage (a_next == 0) the fused kernels' next
// stage starts the tendencies from zero, so they are not written (3 passes); the separate
// kernels add into them, so they get the zeros.
template <typename T>
void Model<T>::pressure_and_update(T b_dt, T a_next) {
    const auto& d = g_.d;
    // The divergence reads the tendencies at i+1 and j+1, so their halos must be current.
    halo_.exchange({f_.ut.data(), f_.vt.data(), f_.wt.data()}, d.kcells);
    launch_interior(d, sq::PresIn<T>{.p = f_.p.data(),
                                     .u = f_.u.data(),
                                     .v = f_.v.data(),
                                     .w = f_.w.data(),
                                     .ut = f_.ut.data(),
                                     .vt = f_.vt.data(),
                                     .wt = f_.wt.data(),
                                     .dzi = m_.dzi,
                                     .rho = m_.rho,
                                     .rhoh = m_.rhoh,
                                     .dxi = g_.dxi,
                                     .dyi = g_.dyi,
                                     .dtsi = T(1) / b_dt,
                                     .jj = d.jj,
                                     .kk = d.kk});
#ifdef SQUALL_GPU_MODEL
    if (pres_gpu_)
        pres_gpu_->solve(f_.p.data());
    else
#endif
        pres_->solve(f_.p);
    halo_.exchange(f_.p.data(), d.kcells);
    launch_interior(d, sq::PresOutRk<T>{.u = f_.u.data(),
                                        .v = f_.v.data(),
                                        .w = f_.w.data(),
                                        .ut = f_.ut.data(),
                                        .vt = f_.vt.data(),
                                        .wt = f_.wt.data(),
                                        .p = f_.p.data(),
                                        .dzhi = m_.dzhi,
                                        .dxi = g_.dxi,
                                        .dyi = g_.dyi,
                                        .b_dt = b_dt,
                                        .a_next = a_next,
                                        .kstart = d.kstart,
                                        .jj = d.jj,
                                        .kk = d.kk,
                                        .drop_tendencies = a_next == T(0) && fused_tendencies()});
}

// The RK stage of the scalar: s += b dt s_t, then s_t *= a_next so the next stage simply
// adds into it; unless the fused scalar kernel took it (scalar_stage_in_tendencies). The
// passive scalars' likewise.
template <typename T>
void Model<T>::rk_update_scalar(T b_dt, T a_next) {
    const auto& d = g_.d;
    // As the momentum's (pressure_and_update): after the last stage the fused kernels start
    // the next step's tendencies from zero, so the zeros need not be written.
    const int drop = a_next == T(0) && fused_tendencies();
    if (f_.has_scalar && !scalar_stage_in_tendencies())
        launch_interior(d, sq::RkUpdate<T>{.a = f_.s.data(),
                                           .at = f_.st.data(),
                                           .b_dt = b_dt,
                                           .a_next = a_next,
                                           .jj = d.jj,
                                           .kk = d.kk,
                                           .drop_tendency = drop});
    for (PassiveScalar<T>& c : f_.scalars)
        launch_interior(d, sq::RkUpdate<T>{.a = c.c.data(),
                                           .at = c.ct.data(),
                                           .b_dt = b_dt,
                                           .a_next = a_next,
                                           .jj = d.jj,
                                           .kk = d.kk,
                                           .drop_tendency = drop});
}

// Remove the divergence of the initial velocity field: one projection with dts = 1.
template <typename T>
void Model<T>::project_initial() {
    set_boundaries();
    f_.ut.fill(T(0));
    f_.vt.fill(T(0));
    f_.wt.fill(T(0));
    pressure_and_update(T(1), T(0));
    set_boundaries();
}

template void Model<float>::pressure_and_update(float, float);
template void Model<double>::pressure_and_update(double, double);
template void Model<float>::rk_update_scalar(float, float);
template void Model<double>::rk_update_scalar(double, double);
template void Model<float>::project_initial();
template void Model<double>::project_initial();

} // namespace squall
