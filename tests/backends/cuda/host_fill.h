#pragma once
// Host-side filling of a kernel struct, and a loop over the kernel list, for the host tests of the
// GPU backend's contracts (wall_levels, plane inputs): every array of its declaration gets
// random values.
#include "backends/cuda/gpu_launch.h"
#include "kernel_list.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace squall::gpu::testing {

// Fills every member of f from its declaration: arrays with test_value (nullable 2-D arrays
// too, so that wall fluxes are in use), scalars likewise, ints other than the strides and
// walls left as blank_kernel set them.
template <class F, typename T>
void fill(F& f, const TestGrid& g, std::vector<std::vector<T>>& storage, uint32_t seed) {
    std::mt19937 rng(seed);
    for (const Member& m : declared_members<F>()) {
        char* at = reinterpret_cast<char*>(&f) + m.offset;
        if (m.shape == Shape::integer) continue;
        if (m.shape == Shape::real) {
            const T v = T(test_value(m.name, rng));
            std::memcpy(at, &v, sizeof v);
            continue;
        }
        const size_t pad = g.lead(m.shape), count = g.elements(m.shape);
        storage.emplace_back(count);
        for (T& v : storage.back()) v = T(test_value(m.name, rng));
        T* p = storage.back().data() + pad;
        std::memcpy(at, &p, sizeof p);
    }
}

// Calls check(static_cast<K<T>*>(nullptr), count) for every kernel of the list in float
// and double; returns the count the checks incremented (the kernels they applied to).
template <template <class> class... K, class Check>
int for_each_kernel(KernelList<K...>, Check check) {
    int count = 0;
    (check(static_cast<K<float>*>(nullptr), count), ...);
    (check(static_cast<K<double>*>(nullptr), count), ...);
    return count;
}

} // namespace squall::gpu::testing
