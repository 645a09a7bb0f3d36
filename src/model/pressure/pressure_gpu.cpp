#include "model/pressure/pressure_gpu.h"

#include <cufft.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "embedded/pressure_gpu_sources.h"
#include "model/field.h"
#include "model/pressure/pressure.h"
#include "model/pressure/pressure_gpu.cuh"

namespace squall {

namespace {

const char* cufft_error_name(cufftResult r) {
    switch (r) {
    case CUFFT_SUCCESS:
        return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN:
        return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
        return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE:
        return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE:
        return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
        return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
        return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
        return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
        return "CUFFT_INVALID_SIZE";
    case CUFFT_NOT_SUPPORTED:
        return "CUFFT_NOT_SUPPORTED";
    default:
        return "cuFFT error";
    }
}

void check_cufft(cufftResult r, const char* call) {
    if (r != CUFFT_SUCCESS)
        throw std::runtime_error(fmt::format("GPU pressure solver: {} failed: {} ({})", call,
                                             cufft_error_name(r), int(r)));
}

// The cuFFT types and calls of one precision.
template <typename T>
struct Cufft;

template <>
struct Cufft<double> {
    static constexpr cufftType r2c = CUFFT_D2Z, c2r = CUFFT_Z2D;
    static cufftResult forward(cufftHandle p, double* in, double* out) {
        return cufftExecD2Z(p, in, reinterpret_cast<cufftDoubleComplex*>(out));
    }
    static cufftResult inverse(cufftHandle p, double* in, double* out) {
        return cufftExecZ2D(p, reinterpret_cast<cufftDoubleComplex*>(in), out);
    }
};

template <>
struct Cufft<float> {
    static constexpr cufftType r2c = CUFFT_R2C, c2r = CUFFT_C2R;
    static cufftResult forward(cufftHandle p, float* in, float* out) {
        return cufftExecR2C(p, in, reinterpret_cast<cufftComplex*>(out));
    }
    static cufftResult inverse(cufftHandle p, float* in, float* out) {
        return cufftExecC2R(p, reinterpret_cast<cufftComplex*>(in), out);
    }
};

template <typename T>
const char* precision_name() {
    return sizeof(T) == 8 ? "double" : "float";
}

template <typename T>
T* as_ptr(const rt::DeviceBuffer& b) {
    return reinterpret_cast<T*>(b.get());
}

} // namespace

std::vector<rt::KernelDef> pressure_gpu_kernel_defs(const std::string& prec) {
    const std::string file = "src/model/pressure/pressure_gpu.cuh";
    auto copy_def = [&](const char* name) {
        return rt::KernelDef(name, embedded::pressure_gpu_sources(), file)
            .tuning_key(name, prec)
            .tune("block_x", {32, 64, 128, 256}, 64)
            .tune("block_y", {1, 2, 4, 8}, 4)
            .restriction("block_x * block_y >= 32 && block_x * block_y <= 1024")
            .template_args(prec)
            .block_size("block_x", "block_y")
            .launch_bounds("block_x * block_y");
    };
    rt::KernelDef thomas =
        rt::KernelDef("pressure_gpu_thomas", embedded::pressure_gpu_sources(), file)
            .tuning_key("pressure_gpu_thomas", prec)
            .tune("block_x", {32, 64, 128, 256, 512}, 128)
            .template_args(prec)
            .block_size("block_x")
            .launch_bounds("block_x");
    return {copy_def("pressure_gpu_pack"), thomas, copy_def("pressure_gpu_unpack")};
}

template <typename T>
PressureGpuLayout<T> PressureGpuLayout<T>::make(const Grid<T>& grid) {
    const GridDims& d = grid.d;
    PressureGpuLayout<T> L;
    L.ktot = d.ktot;
    // Wavenumber term of one horizontal direction, as the CPU solver computes it.
    const double pi = std::numbers::pi;
    auto wave = [&](int n, int ntot, double dinv) {
        return 2.0 * (std::cos(2.0 * pi * n / ntot) - 1.0) * dinv * dinv;
    };
    const bool x_fast = d.itot > 1;
    L.nfast = x_fast ? d.itot : d.jtot;
    L.nslow = x_fast ? d.jtot : 1;
    const int ncf = L.nfast / 2 + 1;
    L.ncol = long(ncf) * L.nslow;
    L.bmat.resize(std::size_t(L.ncol));
    for (int cs = 0; cs < L.nslow; ++cs)
        for (int cf = 0; cf < ncf; ++cf) {
            // x_fast: (cf, cs) = (n, m); otherwise itot == jtot_slow == 1 and cf = m.
            const double bx = x_fast ? wave(cf, d.itot, grid.dxi) : 0.0;
            const double by = x_fast ? wave(cs, d.jtot, grid.dyi) : wave(cf, d.jtot, grid.dyi);
            L.bmat[std::size_t(cf + long(ncf) * cs)] = T(bx + by);
        }

    const int kmax = d.ktot, ks = d.kstart;
    L.coef.assign(std::size_t(5) * kmax, T(0));
    T* a = L.coef.data();
    T* c = a + kmax;
    T* dz2rho = a + 2 * kmax;
    T* b_base = a + 3 * kmax;
    T* rhs_scale = a + 4 * kmax;
    const T norm = T(1.0 / (double(d.itot) * d.jtot));
    for (int k = 0; k < kmax; ++k) {
        const int kg = k + ks;
        a[k] = grid.dz[kg] * grid.rhoh[kg] * grid.dzhi[kg];
        c[k] = grid.dz[kg] * grid.rhoh[kg + 1] * grid.dzhi[kg + 1];
        dz2rho[k] = grid.dz[kg] * grid.dz[kg] * grid.rho[kg];
        rhs_scale[k] = grid.dz[kg] * grid.dz[kg] * norm;
        b_base[k] = -(a[k] + c[k]);
    }
    // Neumann at the bottom wall and, except for the mean mode, at the top.
    b_base[0] += a[0];
    b_base[kmax - 1] += c[kmax - 1];
    L.top_mean = T(-2) * c[kmax - 1]; // mean mode: pi = 0 on the top face
    a[0] = T(0);
    c[kmax - 1] = T(0);
    return L;
}

template <typename T>
struct PressureSolverGpu<T>::Impl {
    rt::StreamHandle stream = nullptr;
    GridDims d;

    // Host-staged mode (several ranks): the CPU solver on a host copy.
    std::unique_ptr<PressureSolver<T>> cpu;
    std::unique_ptr<Field3d<T>> host_p;

    // Device mode.
    PressureGpuLayout<T> lay;
    sq::PressurePackDims pack_dims{};
    rt::DeviceBuffer real_buf; // FFT real data; doubles as the Thomas scratch gam
    rt::DeviceBuffer cplx_buf; // transformed data, interleaved (re, im)
    rt::DeviceBuffer bmat_buf, coef_buf;
    rt::KernelInstance pack, thomas, unpack;
    cufftHandle fwd = 0, bwd = 0;
    bool have_plans = false;

    Impl(const Grid<T>& grid, const Decomposition& decomp, rt::Runtime& runtime) : d(grid.d) {
        if (!runtime.has_device())
            throw rt::NoDeviceError("GPU pressure solver: no GPU available (" +
                                    runtime.no_device_reason() + ")");
        rt::Driver::get().make_current();
        if (decomp.npx * decomp.npy > 1) {
            cpu = std::make_unique<PressureSolver<T>>(grid, decomp);
            host_p = std::make_unique<Field3d<T>>(grid.d);
            return;
        }
        lay = PressureGpuLayout<T>::make(grid);
        const int ktot = d.ktot;
        pack_dims = {d.itot,   d.jtot,   ktot,
                     d.istart, d.jstart, d.kstart,
                     d.jj,     d.kk,     lay.needs_fft() ? 1 : 2};

        const long nreal = long(d.itot) * d.jtot * ktot;
        const long ncplx = lay.ncol * ktot;
        real_buf = rt::DeviceBuffer(sizeof(T) * std::size_t(std::max(nreal, ncplx)));
        cplx_buf = rt::DeviceBuffer(sizeof(T) * std::size_t(2 * ncplx));
        // Imaginary parts stay zero when there is no transform (itot = jtot = 1).
        rt::Driver::get().memset8(cplx_buf.get(), 0, cplx_buf.size());
        bmat_buf = rt::DeviceBuffer(sizeof(T) * lay.bmat.size());
        bmat_buf.upload(lay.bmat.data());
        coef_buf = rt::DeviceBuffer(sizeof(T) * lay.coef.size());
        coef_buf.upload(lay.coef.data());

        const std::vector<rt::KernelDef> defs = pressure_gpu_kernel_defs(precision_name<T>());
        const rt::ProblemSize box(d.itot, d.jtot, ktot);
        std::vector<rt::KernelInstance> ks = runtime.instantiate_all(
            {{&defs[0], box, {}}, {&defs[1], rt::ProblemSize(lay.ncol), {}}, {&defs[2], box, {}}});
        pack = ks[0];
        thomas = ks[1];
        unpack = ks[2];

        if (lay.needs_fft()) make_plans();
    }

    ~Impl() {
        if (have_plans) {
            cufftDestroy(fwd);
            cufftDestroy(bwd);
        }
    }

    // Batched over the levels: 2-D transforms [slow][fast], or 1-D when slow has one entry.
    void make_plans() {
        int n[2] = {lay.nslow, lay.nfast};
        const int rank = lay.nslow > 1 ? 2 : 1;
        int* dims = rank == 2 ? n : n + 1;
        check_cufft(cufftCreate(&fwd), "cufftCreate");
        if (cufftCreate(&bwd) != CUFFT_SUCCESS) {
            cufftDestroy(fwd);
            throw std::runtime_error("GPU pressure solver: cufftCreate failed");
        }
        have_plans = true;
        std::size_t work = 0;
        check_cufft(cufftMakePlanMany(fwd, rank, dims, nullptr, 1, 0, nullptr, 1, 0, Cufft<T>::r2c,
                                      lay.ktot, &work),
                    "cufftMakePlanMany (forward)");
        check_cufft(cufftMakePlanMany(bwd, rank, dims, nullptr, 1, 0, nullptr, 1, 0, Cufft<T>::c2r,
                                      lay.ktot, &work),
                    "cufftMakePlanMany (inverse)");
        apply_stream();
    }

    void apply_stream() {
        if (!have_plans) return;
        // A CUstream and a cudaStream_t are the same handle.
        check_cufft(cufftSetStream(fwd, static_cast<cudaStream_t>(stream)), "cufftSetStream");
        check_cufft(cufftSetStream(bwd, static_cast<cudaStream_t>(stream)), "cufftSetStream");
    }

    void solve(T* p) {
        const rt::Driver& drv = rt::Driver::get();
        drv.make_current();
        if (cpu) {
            drv.stream_synchronize(stream);
            const std::size_t bytes = sizeof(T) * std::size_t(d.ncells);
            drv.download(host_p->data(), rt::DevicePtr(p), bytes);
            cpu->solve(*host_p);
            drv.upload(rt::DevicePtr(p), host_p->data(), bytes);
            return;
        }
        T* rbuf = as_ptr<T>(real_buf);
        T* cbuf = as_ptr<T>(cplx_buf);
        const T* bmat = as_ptr<T>(bmat_buf);
        const T* coef = as_ptr<T>(coef_buf);
        const bool fft = lay.needs_fft();
        T* packed = fft ? rbuf : cbuf;
        const T* p_in = p;
        pack.launch(stream, pack_dims, p_in, packed);
        if (fft) check_cufft(Cufft<T>::forward(fwd, rbuf, cbuf), "forward FFT");
        const long ncol = lay.ncol;
        const int ktot = lay.ktot;
        thomas.launch(stream, ncol, ktot, cbuf, rbuf, bmat, coef, lay.top_mean);
        if (fft) check_cufft(Cufft<T>::inverse(bwd, cbuf, rbuf), "inverse FFT");
        const T* packed_in = packed;
        unpack.launch(stream, pack_dims, packed_in, p);
    }
};

template <typename T>
PressureSolverGpu<T>::PressureSolverGpu(const Grid<T>& grid, const Decomposition& decomp,
                                        rt::Runtime& runtime)
    : impl_(std::make_unique<Impl>(grid, decomp, runtime)) {}

template <typename T>
PressureSolverGpu<T>::~PressureSolverGpu() = default;

template <typename T>
void PressureSolverGpu<T>::solve(T* p_device) {
    impl_->solve(p_device);
}

template <typename T>
void PressureSolverGpu<T>::set_stream(rt::StreamHandle stream) {
    impl_->stream = stream;
    impl_->apply_stream();
}

template <typename T>
bool PressureSolverGpu<T>::host_staged() const {
    return impl_->cpu != nullptr;
}

template <typename T>
std::size_t PressureSolverGpu<T>::device_bytes(const GridDims& d) {
    const std::size_t nreal = std::size_t(d.itot) * d.jtot * d.ktot;
    const std::size_t ncplx = std::size_t(d.itot / 2 + 1) * d.jtot * d.ktot;
    // Real buffer, complex buffer, and cuFFT work areas estimated generously as one complex
    // array per plan.
    return sizeof(T) * (std::max(nreal, ncplx) + 2 * ncplx + 2 * 2 * ncplx);
}

template class PressureSolverGpu<float>;
template class PressureSolverGpu<double>;
template struct PressureGpuLayout<float>;
template struct PressureGpuLayout<double>;

} // namespace squall
