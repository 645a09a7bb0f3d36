#pragma once
// One kernel of the benchmark as the search sees it: its definition, problem, launch on the
// pool's arrays, outputs and byte count; filled from the declared members for Kernels3d,
// and from what model_kernels.h gives for the others.
#include "backends/cuda/gpu_launch.h"
#include "bench/kernel_bench/array_pool.h"
#include "bench/kernel_bench/options.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace squall::kernel_bench {

// One kernel of the benchmark: how it runs on the pool's arrays and what it writes.
template <typename T>
struct Search {
    std::string name;
    bool main = false;  // advec_u_2i5, diff_uvw_smag: the longer search
    bool small = false; // 2-D kernels and reductions: every configuration is timed
    sq::Range3 range;
    rt::ProblemSize problem;
    size_t def_index = 0;
    std::function<void(const rt::KernelInstance&)> launch; // on the pool's arrays
    std::vector<Output> outputs;
    std::function<double()> result; // reductions: the reduced value of the last launch
    int arrays = 0;                 // fewest bytes = arrays x points x sizeof(T)
    Mix mix;                        // how the arrays are accessed (3-D kernels only)
};

template <class F, typename T>
void add_search(const Options& o, Pool<T>& pool, std::vector<rt::KernelDef>& defs,
                std::vector<Search<T>>& searches) {
    if (!wanted(o, F::name)) return;
    Search<T> s;
    s.name = F::name;
    s.main = s.name == "advec_u_2i5" || s.name == "diff_uvw_smag";
    s.range = pool.g.template range<F>();
    s.problem = gpu::problem_of(s.range);
    const F f = make_kernel<F>(pool, s.outputs, s.arrays, s.mix);
    defs.push_back(gpu::def_for(s.range, f));
    s.def_index = defs.size() - 1;
    s.launch = [r = s.range, f](const rt::KernelInstance& k) { gpu::launch_instance(k, r, f); };
    searches.push_back(std::move(s));
}

// A kernel of the model that is not in Kernels3d, filled by hand (add_model_searches). The
// 2-D kernels and the reductions have small spaces (at most 16 configurations), every one
// of which is timed; the halo kernels (3-D traversals) are searched like the 3-D kernels. A
// reduction's launch is both passes, as in the model (Backend::reduce); its result is read back for
// the check against the default.
template <typename T, class F>
void add_other(const Options& o, Pool<T>& pool, std::vector<rt::KernelDef>& defs,
               std::vector<Search<T>>& searches, const F& f, gpu::Form form, sq::Range3 range,
               std::vector<Output> outputs, int arrays) {
    if (!wanted(o, F::name)) return;
    Search<T> s;
    s.name = F::name;
    s.range = range;
    s.problem = gpu::problem_of(range);
    s.outputs = std::move(outputs);
    s.arrays = arrays;
    defs.push_back(gpu::def_for(range, f, form));
    s.def_index = defs.size() - 1;
    if (form == gpu::Form::traverse3d) {
        s.launch = [range, f](const rt::KernelInstance& k) { gpu::launch_instance(k, range, f); };
    } else if (form == gpu::Form::traverse2d) {
        s.launch = [f](const rt::KernelInstance& k) { k.launch(nullptr, f); };
    } else {
        const bool sum = form == gpu::Form::reduce_sum;
        const rt::KernelInstance* fin = sum ? &pool.final_sum : &pool.final_max;
        s.launch = [f, fin, p = &pool](const rt::KernelInstance& k) {
            void* p1[2] = {const_cast<F*>(&f), const_cast<rt::DevicePtr*>(&p->partial)};
            k.launch_args(nullptr, p1, 2);
            int n = int(k.geometry().grid[0]);
            void* p2[3] = {const_cast<rt::DevicePtr*>(&p->partial), &n,
                           const_cast<rt::DevicePtr*>(&p->reduced)};
            fin->launch_args(nullptr, p2, 3);
        };
        s.result = [sum, p = &pool] {
            double v = 0;
            T t = 0;
            if (sum)
                rt::Driver::get().download(&v, p->reduced, sizeof v);
            else
                rt::Driver::get().download(&t, p->reduced, sizeof t), v = double(t);
            return v;
        };
    }
    s.small = form != gpu::Form::traverse3d;
    searches.push_back(std::move(s));
}

} // namespace squall::kernel_bench
