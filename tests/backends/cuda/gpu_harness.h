#pragma once
// Fills any tunable 3-D kernel struct with random non-zero data (test_value), on the host and on
// the device, from the kernel's declaration (member names, shapes and offsets), runs the CPU path
// as the reference and compares device results with it (test_gpu_kernels). Not to be confused with
// tests/kernels/reference/ref_harness.h, which runs a kernel on the host against a slow reference
// written from docs/numerics.md.
#include "backends/cpu/cpu_launch.h"
#include "backends/cuda/gpu_launch.h"
#include "kernel_list.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace squall::gpu::testing {

template <class F>
class KernelHarness {
public:
    using T = sq::precision_t<F>;

    KernelHarness(const TestGrid& g, uint32_t seed, sq::Range3 range)
        : grid_(g), range_(range), host_(blank_kernel<F>(g)), dev_(host_) {
        const std::vector<Member> members = declared_members<F>();
        std::mt19937 rng(seed);
        rt::Driver& drv = rt::Driver::get();
        for (size_t n = 0; n < members.size(); ++n) {
            const Member& m = members[n];
            char* hp = reinterpret_cast<char*>(&host_) + m.offset;
            char* dp = reinterpret_cast<char*>(&dev_) + m.offset;
            if (m.shape == Shape::real) {
                const T v = T(test_value(m.name, rng));
                std::memcpy(hp, &v, sizeof v), std::memcpy(dp, &v, sizeof v);
                continue;
            }
            if (m.shape == Shape::integer) {
                // The RK stage flags (tend_fused.cuh, timeint.cuh) take the other value in the
                // other precision (seeds sizeof(T) apart), so both paths run on the GPU.
                const bool stage_flag = m.name == "first_stage" || m.name == "drop_tendency" ||
                                        m.name == "drop_tendencies";
                if (m.name == "mason" || stage_flag) {
                    const int v = stage_flag ? int((seed >> 2) & 1) : 1;
                    std::memcpy(hp, &v, sizeof v), std::memcpy(dp, &v, sizeof v);
                }
                continue;
            }
            Array a;
            a.name = m.name;
            a.output = m.use != sq::Use::in;
            const size_t pad = g.lead(m.shape), count = g.elements(m.shape);
            a.init.resize(count);
            for (T& v : a.init) v = T(test_value(m.name, rng));
            if (a.output) poison(a.init.data() + pad, m.use == sq::Use::out);
            a.dev = drv.alloc(count * sizeof(T));
            drv.upload(a.dev, a.init.data(), count * sizeof(T));
            a.host = a.init;
            T* h = a.host.data() + pad;
            const T* d = reinterpret_cast<const T*>(a.dev) + pad;
            std::memcpy(hp, &h, sizeof h), std::memcpy(dp, &d, sizeof d);
            arrays_.push_back(std::move(a));
        }
        cpu::for_each(range_, host_); // the reference, in the host arrays
    }
    ~KernelHarness() {
        for (const Array& a : arrays_) rt::Driver::get().free(a.dev);
    }
    KernelHarness(const KernelHarness&) = delete;
    KernelHarness& operator=(const KernelHarness&) = delete;

    const F& device_kernel() const { return dev_; }
    const sq::Range3& range() const { return range_; }

    // Restores the device outputs to their initial (poisoned) contents.
    void reset() const {
        for (const Array& a : arrays_)
            if (a.output) rt::Driver::get().upload(a.dev, a.init.data(), a.init.size() * sizeof(T));
    }

    // Largest difference of the device outputs from the CPU reference, relative to the
    // largest reference value; +inf when NaN patterns (poisoned points) differ.
    double compare(std::string* where = nullptr) const {
        double worst = 0;
        std::vector<T> got;
        for (const Array& a : arrays_) {
            if (!a.output) continue;
            got.resize(a.host.size());
            rt::Driver::get().download(got.data(), a.dev, got.size() * sizeof(T));
            double scale = 0;
            for (T v : a.host)
                if (!std::isnan(v)) scale = std::max(scale, std::abs(double(v)));
            for (size_t p = 0; p < got.size(); ++p) {
                const bool nr = std::isnan(a.host[p]), ng = std::isnan(got[p]);
                double d = nr != ng ? std::numeric_limits<double>::infinity()
                           : nr     ? 0
                                    : std::abs(double(got[p]) - double(a.host[p])) / scale;
                if (d > worst) {
                    worst = d;
                    if (where) *where = a.name + "[" + std::to_string(p) + "]";
                }
            }
        }
        return worst;
    }

    // Output arrays and the number of distinct arrays touched (for bandwidth figures).
    size_t num_arrays() const { return arrays_.size(); }

private:
    struct Array {
        std::string name;
        bool output = false;
        std::vector<T> init, host;
        rt::DevicePtr dev = 0;
    };
    // Outputs are NaN outside the range; write-only outputs are NaN everywhere.
    void poison(T* a, bool all) const {
        const T nan = std::numeric_limits<T>::quiet_NaN();
        for (int k = 0; k < grid_.kcells(); ++k)
            for (int j = 0; j < grid_.jcells(); ++j)
                for (int i = 0; i < grid_.icells(); ++i) {
                    const bool in = i >= range_.i0 && i < range_.i1 && j >= range_.j0 &&
                                    j < range_.j1 && k >= range_.k0 && k < range_.k1;
                    if (all || !in) a[size_t(i + j * grid_.jj() + long(k) * grid_.kk())] = nan;
                }
    }

    TestGrid grid_;
    sq::Range3 range_;
    F host_, dev_;
    std::vector<Array> arrays_;
};

} // namespace squall::gpu::testing
