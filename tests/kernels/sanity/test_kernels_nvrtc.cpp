// Every physics header must compile under NVRTC (the GPU backend feeds them to it as
// in-memory headers), for sm_90 in float and double. NVRTC needs no GPU, so this runs in CI.
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char* const kHeaders[] = {"common.cuh",   "declare.cuh",           "advec.cuh",
                                "diff.cuh",     "diff_fused.cuh",        "thermo.cuh",
                                "pressure.cuh", "pressure_spectral.cuh", "timeint.cuh"};

// Kernels whose operator() updates fields, and reductions returning the point value.
const char* const kVoidKernels[] = {
    "AdvecU2",     "AdvecV2", "AdvecW2",   "AdvecS2",   "AdvecU2i5", "AdvecV2i5",  "AdvecW2i5",
    "AdvecS2i5",   "Strain2", "EviscSmag", "DiffUSmag", "DiffVSmag", "DiffWSmag",  "DiffCSmag",
    "DiffUVWSmag", "DiffU2",  "DiffV2",    "DiffW2",    "DiffC2",    "BuoyancyTh", "AdvecW2i5Buoy",
    "AdvecW2Buoy", "PresIn",  "PresOut",   "PresOutRk", "RkUpdate",  "Sponge"};
const char* const kReductions[] = {"DnSmag", "DnConst", "Divergence", "Cfl"};
// The GPU pressure solver's kernels: per point, and per column (operator()(i, j)).
const char* const kSpectralKernels[] = {"PressurePack", "PressureUnpack", "PressurePencilCopy",
                                        "PressureHcFromComplex", "PressureComplexFromHc"};
const char* const kColumnKernels[] = {"PressureThomas", "PressureThomasReal",
                                      "PressureMirrorBottom"};

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// One extern "C" wrapper per struct and precision, so each operator() is instantiated.
std::string wrapper_source() {
    std::string src;
    for (const char* h : kHeaders) src += std::string("#include \"") + h + "\"\n";
    for (const char* t : {"float", "double"}) {
        for (const char* k : kVoidKernels)
            src += std::string("extern \"C\" __global__ void ") + k + "_" + t + "(sq::" + k + "<" +
                   t +
                   "> f) { f(3 + int(threadIdx.x), 3 + int(blockIdx.y), 1 + int(blockIdx.z)); }\n";
        for (const char* k : kSpectralKernels)
            src += std::string("extern \"C\" __global__ void ") + k + "_" + t + "(sq::" + k + "<" +
                   t + "> f) { f(int(threadIdx.x), int(blockIdx.y), int(blockIdx.z)); }\n";
        for (const char* k : kColumnKernels)
            src += std::string("extern \"C\" __global__ void ") + k + "_" + t + "(sq::" + k + "<" +
                   t + "> f) { f(int(threadIdx.x), int(blockIdx.y)); }\n";
        for (const char* k : kReductions)
            src += std::string("extern \"C\" __global__ void ") + k + "_" + t + "(sq::" + k + "<" +
                   t + "> f, " + t +
                   "* out) { out[threadIdx.x] = f(3 + int(threadIdx.x), 3, 1); }\n";
    }
    return src;
}

void compile(const char* std_option) {
    std::vector<std::string> contents;
    std::vector<const char*> bodies, names;
    for (const char* h : kHeaders) {
        contents.push_back(read_text(std::string(SQUALL_SOURCE_DIR) + "/kernels/" + h));
        ASSERT_FALSE(contents.back().empty()) << "cannot read kernels/" << h;
    }
    for (size_t n = 0; n < contents.size(); ++n) {
        bodies.push_back(contents[n].c_str());
        names.push_back(kHeaders[n]);
    }
    const std::string src = wrapper_source();
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

TEST(KernelsNvrtc, CompilesCxx17Sm90) {
    compile("--std=c++17");
}
TEST(KernelsNvrtc, CompilesCxx20Sm90) {
    compile("--std=c++20");
}

} // namespace
