// Every physics header must compile under NVRTC (the GPU backend feeds them to it as
// in-memory headers), for sm_90 in float and double, with every kernel of every header's
// KernelList instantiated. NVRTC needs no GPU, so this runs in CI.
#include <gtest/gtest.h>
#include <nvrtc.h>

#include "backends/cuda/declared.h"
#include "kernels/pressure_spectral.cuh"
#include "kernels/vorticity.cuh"
#include "tests/support/all_kernels.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace squall::testing;

// Every kernels/ header, by its short name as the GPU backend gives them to NVRTC.
std::vector<std::string> headers() {
    std::vector<std::string> out;
    for (const auto& e :
         std::filesystem::directory_iterator(std::string(SQUALL_SOURCE_DIR) + "/kernels"))
        if (e.path().extension() == ".cuh") out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

// One extern "C" wrapper per kernel and precision, so that each operator() is instantiated:
// 3-D kernels at a point, per-column kernels at a column, reductions writing their value.
template <class F>
void add_wrapper(std::string& src, int& n) {
    const std::string head = "extern \"C\" __global__ void k" + std::to_string(n++) + "(" +
                             squall::gpu::type_name<F>() + " f";
    if constexpr (PointKernel<F>)
        src += head + ") { f(3 + int(threadIdx.x), 3 + int(blockIdx.y), 1 + int(blockIdx.z)); }\n";
    else if constexpr (ColumnKernel<F>)
        src += head + ") { f(3 + int(threadIdx.x), 3 + int(blockIdx.y)); }\n";
    else
        src += head + ", double* out) { out[threadIdx.x] = f(3 + int(threadIdx.x), 3, 1); }\n";
}
template <template <class> class... K>
void add_wrappers(std::string& src, int& n, KernelList<K...>) {
    (add_wrapper<K<float>>(src, n), ...);
    (add_wrapper<K<double>>(src, n), ...);
}

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string wrapper_source(const std::vector<std::string>& names) {
    std::string src;
    for (const std::string& h : names) src += "#include \"" + h + "\"\n";
    int n = 0;
    add_wrappers(src, n, AllKernels{});
    add_wrappers(src, n, sq::PressureSpectralKernels{});
    add_wrappers(src, n, sq::VorticityKernels{});
    return src;
}

void compile(const char* std_option) {
    const std::vector<std::string> files = headers();
    ASSERT_GE(files.size(), 12u);
    std::vector<std::string> contents;
    std::vector<const char*> bodies, names;
    for (const std::string& h : files) {
        contents.push_back(read_text(std::string(SQUALL_SOURCE_DIR) + "/kernels/" + h));
        ASSERT_FALSE(contents.back().empty()) << "cannot read kernels/" << h;
    }
    for (size_t n = 0; n < contents.size(); ++n) {
        bodies.push_back(contents[n].c_str());
        names.push_back(files[n].c_str());
    }
    const std::string src = wrapper_source(files);
    nvrtcProgram prog;
    ASSERT_EQ(nvrtcCreateProgram(&prog, src.c_str(), "kernels_wrapper.cu", int(bodies.size()),
                                 bodies.data(), names.data()),
              NVRTC_SUCCESS);
    const char* opts[] = {std_option, "-arch=sm_90", "-default-device"};
    const nvrtcResult res = nvrtcCompileProgram(prog, 3, opts);
    size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    std::string log(log_size, '\0');
    if (log_size > 1) nvrtcGetProgramLog(prog, log.data());
    log.resize(log_size > 0 ? log_size - 1 : 0); // drop the terminating NUL
    EXPECT_EQ(res, NVRTC_SUCCESS) << nvrtcGetErrorString(res) << "\n" << log;
    if (res == NVRTC_SUCCESS) {
        size_t cubin_size = 0;
        EXPECT_EQ(nvrtcGetCUBINSize(prog, &cubin_size), NVRTC_SUCCESS);
        EXPECT_GT(cubin_size, 0u);
        // Warnings are as unwelcome here as on the host.
        EXPECT_EQ(log.find("warning"), std::string::npos) << log;
    }
    nvrtcDestroyProgram(&prog);
}

TEST(KernelsNvrtc, CompilesCxx20Sm90) {
    compile("--std=c++20");
}

} // namespace
