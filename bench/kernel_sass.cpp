// Developer tool, no GPU needed: compiles one tunable kernel with NVRTC at a grid size
// (N^3, the model's layout) and configuration (JSON; parameters not named take their
// defaults) and writes the cubin for sm_90, to inspect with nvdisasm (load counts, spills).
//   kernel_sass KERNEL float|double N '{"block_x":64,"tile_z":8,...}' OUT
// KERNEL: a 3-D, per-column or reduction kernel (cfl, diag_ke_dz, ...), or the second pass
// of the reductions, reduce_final_max (in the precision) and reduce_final_sum (double).
// SASS_ARCH=compute_90 writes PTX instead (then `ptxas -v` gives the registers);
// SASS_PROGRAM=1 prints the generated program (defines and includes).
#include "backends/cuda/gpu_launch.h"
#include "runtime/log.h"
#include "tests/backends/cuda/kernel_list.h"

#include <cstdio>
#include <fstream>
#include <iostream>

namespace {
using namespace squall;
using namespace squall::gpu::testing;

// Compiles configuration `json` of d for problem p and writes the cubin (or PTX) to out.
void compile(const rt::KernelDef& d, const rt::ProblemSize& p, const std::string& json,
             const std::string& out) {
    rt::RuntimeOptions o;
    o.use_device = false;
    o.arch = std::getenv("SASS_ARCH") ? std::getenv("SASS_ARCH") : "sm_90";
    o.cache_dir = "";
    rt::Runtime rt(o);
    const rt::Config c = d.space().config_from_json(nlohmann::json::parse(json));
    std::string why;
    if (!d.space().is_valid(c, p, rt.device(), &why))
        throw std::invalid_argument("configuration outside the space: " + why);
    const rt::CompileSpec spec = rt.compile_spec(d, c, p);
    if (std::getenv("SASS_PROGRAM"))
        std::cout << spec.program << "\n// " << spec.name_expression << "\n";
    auto k = rt.cache().get(spec);
    std::ofstream file(out, std::ios::binary);
    if (!(file << k->cubin)) throw std::runtime_error("cannot write '" + out + "'");
    std::cerr << d.space().format(c) << "\n" << k->log;
}

template <class F>
bool compile_one(gpu::Form form, std::string_view want, int n, const std::string& json,
                 const std::string& out) {
    if (want != F::name) return false;
    const TestGrid g{n, n, n};
    const F f = blank_kernel<F>(g);
    const sq::Range3 r = form == gpu::Form::traverse2d ? g.range_2d() : g.range<F>();
    compile(gpu::def_for(r, f, form), gpu::problem_of(r), json, out);
    return true;
}

template <template <class> class... K, class T>
bool dispatch(KernelList<K...>, T*, gpu::Form form, std::string_view want, int n,
              const std::string& json, const std::string& out) {
    return (compile_one<K<T>>(form, want, n, json, out) || ...);
}

template <class T>
bool dispatch_all(std::string_view want, int n, const std::string& json, const std::string& out) {
    using gpu::Form;
    if (want == "reduce_final_max" || want == "reduce_final_sum") {
        const bool sum = want == "reduce_final_sum";
        compile(gpu::make_reduce_final_def(sum              ? "double"
                                           : sizeof(T) == 4 ? "float"
                                                            : "double",
                                           sum ? 1 : 0),
                rt::ProblemSize(1), json, out);
        return true;
    }
    return dispatch(Kernels3d{}, (T*)nullptr, Form::traverse3d, want, n, json, out) ||
           dispatch(Kernels2d{}, (T*)nullptr, Form::traverse2d, want, n, json, out) ||
           dispatch(Reductions{}, (T*)nullptr, Form::reduce_max, want, n, json, out) ||
           dispatch(SumReductions{}, (T*)nullptr, Form::reduce_sum, want, n, json, out);
}
} // namespace

int main(int argc, char** argv) {
    const std::string prec = argc == 6 ? argv[2] : "";
    const int n = argc == 6 ? std::atoi(argv[3]) : 0;
    if (argc != 6 || (prec != "float" && prec != "double") || n < 1) {
        std::cerr << "usage: kernel_sass KERNEL float|double N CONFIG_JSON OUT\n";
        return 2;
    }
    try {
        const bool ok = prec == "float" ? dispatch_all<float>(argv[1], n, argv[4], argv[5])
                                        : dispatch_all<double>(argv[1], n, argv[4], argv[5]);
        if (!ok) std::cerr << "kernel_sass: unknown kernel '" << argv[1] << "'\n";
        return ok ? 0 : 1;
    } catch (const std::exception& e) { // bad JSON, a value not in the space, NVRTC errors
        std::cerr << "kernel_sass: " << e.what() << "\n";
        return 1;
    }
}
