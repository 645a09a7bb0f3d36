#pragma once
// The large-scale forcings of a case's `forcing` section that act on whole levels: the
// prescribed scalar tendency, subsidence of the horizontal means and nudging of the means
// towards profiles (docs/numerics.md, "Large-scale forcing"). Each becomes a tendency by
// level, added by the LargeScaleTendency kernel; the means come from the ColumnSums and
// LevelSums kernels and one allreduce per field and substage.
#include <vector>

#include "model/config/config.h"
#include "model/core/fields.h"
#include "model/decomp.h"
#include "model/grid.h"

namespace squall {

template <typename T>
class ProfileForcing {
public:
    ProfileForcing(const Config& cfg, const Grid<T>& g, const Decomposition& decomp,
                   bool on_device);
    // Adds the tendencies of the current state to ut, vt, st and the passive scalars'
    // (collective).
    void apply(Fields<T>& f);

    // The horizontal mean of a at every level, ghost levels included (collective): levels
    // kstart - 1 and kend hold the wall ghost cells' means.
    std::vector<double> horizontal_mean(const Field3d<T>& a);

private:
    bool scalar_needs_means() const { return cfg_.forcing.subsidence() || !nudge_th_.empty(); }
    // base + subsidence of `mean` + nudging of `mean` towards `target`, at the interior
    // levels, into `tend` (then copied to the device).
    void level_tendency(const std::vector<double>& mean, const std::vector<double>* base,
                        bool subside, const std::vector<double>* target, DeviceArray<T>& tend);

    const Config& cfg_;
    const Grid<T>& g_;
    const Decomposition& decomp_;
    std::vector<double> th_base_, w_ls_, nudge_th_, nudge_u_, nudge_v_; // by level
    DeviceArray<T> column_sum_, level_sum_;                             // the means' passes
    DeviceArray<T> tend_th_, tend_u_, tend_v_;                          // by level
    // Each passive scalar's prescribed tendency and nudging target by level, and its
    // tendency (forced: any forcing acts on it; means: one needs its horizontal mean).
    struct Passive {
        std::vector<double> base, nudge;
        DeviceArray<T> tend;
        bool forced = false, means = false;
    };
    std::vector<Passive> passive_;
};

} // namespace squall
