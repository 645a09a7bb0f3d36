#pragma once
// The vertical metric arrays as the kernels see them: raw pointers into the host copies
// of Grid<T> on the CPU, or into device copies that this class owns on the GPU.
#include <vector>

#include "model/field.h"
#include "model/grid.h"

namespace squall {

template <typename T>
struct Metrics {
    const T *z = nullptr, *zh = nullptr, *dz = nullptr, *dzh = nullptr;
    const T *dzi = nullptr, *dzhi = nullptr, *rho = nullptr, *rhoh = nullptr;
};

template <typename T>
class MetricArrays {
public:
    MetricArrays(const Grid<T>& g, bool on_device) {
        const std::vector<T>* src[n] = {&g.z,   &g.zh,   &g.dz,  &g.dzh,
                                        &g.dzi, &g.dzhi, &g.rho, &g.rhoh};
        const T* ptr[n];
        for (int a = 0; a < n; ++a) {
            if (on_device) {
                copies_[a].assign(src[a]->size(), T(0), true);
                std::copy(src[a]->begin(), src[a]->end(), copies_[a].host());
                copies_[a].to_device();
                ptr[a] = copies_[a].data();
            } else {
                ptr[a] = src[a]->data();
            }
        }
        m_ = {ptr[0], ptr[1], ptr[2], ptr[3], ptr[4], ptr[5], ptr[6], ptr[7]};
    }
    const Metrics<T>& get() const { return m_; }

private:
    static constexpr int n = 8;
    DeviceArray<T> copies_[n];
    Metrics<T> m_;
};

} // namespace squall
