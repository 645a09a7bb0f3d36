#include "model/pressure/pressure_gpu.h"

#include <cufft.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>

#include "backends/cuda/gpu_launch.h"
#include "model/comm/device_exchange.h"
#include "model/pressure/pencil_solve.h"
#include "model/pressure/pressure.h"

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
T* as_ptr(const rt::DeviceBuffer& b) {
    return reinterpret_cast<T*>(b.get());
}

} // namespace

template <typename T>
PressureGpuLayout<T> PressureGpuLayout<T>::make(const Grid<T>& grid) {
    const GridDims& d = grid.d;
    PressureGpuLayout<T> L;
    L.ktot = d.ktot;
    const bool x_fast = d.itot > 1;
    L.nfast = x_fast ? d.itot : d.jtot;
    L.nslow = x_fast ? d.jtot : 1;
    const int ncf = L.nfast / 2 + 1;
    L.ncol = long(ncf) * L.nslow;
    L.bmat.resize(std::size_t(L.ncol));
    for (int cs = 0; cs < L.nslow; ++cs)
        for (int cf = 0; cf < ncf; ++cf) {
            // x_fast: (cf, cs) = (n, m); otherwise itot == jtot_slow == 1 and cf = m.
            const double bx = x_fast ? pressure_wavenumber_term(cf, d.itot, grid.dxi) : 0.0;
            const double by = pressure_wavenumber_term(x_fast ? cs : cf, d.jtot, grid.dyi);
            L.bmat[std::size_t(cf + long(ncf) * cs)] = T(bx + by);
        }
    const PressureTridiag<T> tri = PressureTridiag<T>::make(grid);
    L.coef = tri.packed();
    L.top_mean = tri.top_mean;
    return L;
}

namespace {

// One batched cuFFT plan, destroyed with the object.
template <typename T>
class CufftPlan {
public:
    // rank 1 or 2 transforms of dims (slowest first), batch of them; forward: R2C, else C2R.
    // The complex side is contiguous; the real side too, or where `real` says (a field).
    // The plan runs on `stream`, the one the kernels run on.
    CufftPlan(int rank, int* dims, long batch, bool forward, rt::StreamHandle stream,
              const PressureRealLayout* real = nullptr)
        : forward_(forward) {
        check_cufft(cufftCreate(&plan_), "cufftCreate");
        std::size_t work = 0;
        const int nc_fast = dims[rank - 1] / 2 + 1;
        int cembed[2] = {rank == 2 ? dims[0] : nc_fast, nc_fast};
        const int cdist = (rank == 2 ? dims[0] : 1) * nc_fast;
        int rnembed[2] = {real ? real->nembed[0] : 0, real ? real->nembed[1] : 0}; // cuFFT: int*
        int* rembed = real ? rnembed : nullptr;
        const int rstride = real ? real->stride : 1, rdist = real ? real->dist : 0;
        cufftResult r =
            forward ? cufftMakePlanMany(plan_, rank, dims, rembed, rstride, rdist,
                                        real ? cembed : nullptr, 1, cdist, Cufft<T>::r2c,
                                        int(batch), &work)
                    : cufftMakePlanMany(plan_, rank, dims, real ? cembed : nullptr, 1, cdist,
                                        rembed, rstride, rdist, Cufft<T>::c2r, int(batch), &work);
        const char* call = forward ? "cufftMakePlanMany (forward)" : "cufftMakePlanMany (inverse)";
        // A CUstream and a cudaStream_t are the same handle.
        if (r == CUFFT_SUCCESS)
            r = cufftSetStream(plan_, static_cast<cudaStream_t>(stream)), call = "cufftSetStream";
        if (r != CUFFT_SUCCESS) {
            cufftDestroy(plan_);
            check_cufft(r, call);
        }
    }
    ~CufftPlan() { cufftDestroy(plan_); }
    CufftPlan(const CufftPlan&) = delete;
    CufftPlan& operator=(const CufftPlan&) = delete;

    // forward: real -> cplx; inverse: cplx -> real (cplx is overwritten).
    void run(T* real, T* cplx) {
        if (forward_)
            check_cufft(Cufft<T>::forward(plan_, real, cplx), "forward FFT");
        else
            check_cufft(Cufft<T>::inverse(plan_, cplx, real), "inverse FFT");
    }

private:
    cufftHandle plan_ = 0;
    bool forward_;
};

// The backend every kernel of the solver goes through: active, with a device.
gpu::Backend& solver_backend() {
    if (!gpu::active())
        throw std::logic_error("GPU pressure solver: the GPU backend is not active "
                               "(gpu::activate, gpu::set_enabled)");
    gpu::Backend& b = gpu::backend();
    if (!b.runtime().has_device())
        throw rt::NoDeviceError("GPU pressure solver: no GPU available (" +
                                b.runtime().no_device_reason() + ")");
    return b;
}

} // namespace

// Several ranks: the pencil solve (pencil_solve.h) with kernels and cuFFT on the device.
// The blocks that cross ranks go device to device (DeviceExchange: NCCL or CUDA IPC),
// else through page-locked host buffers and MPI. This is also the executor that
// pencil_pressure_solve() drives.
template <typename T>
struct PencilGpu {
    PencilPressure<T> pp;
    rt::StreamHandle stream;
    rt::DeviceBuffer a, b, cplx, send_d, recv_d, bmat, coef;
    rt::PinnedArray<T> send_h, recv_h; // MPI staging, when an exchange is not direct
    PencilSteps<T> steps;              // the kernels, on the device arrays above
    std::unique_ptr<CufftPlan<T>> fwd[2], bwd[2];
    MPI_Comm comm_x, comm_y;
    // Over comm_x / comm_y, when split; declared after recv_d, so unmapped before it is freed.
    std::unique_ptr<DeviceExchange> ex_x, ex_y;

    PencilGpu(const Grid<T>& grid, const Decomposition& decomp, rt::StreamHandle s)
        : pp(grid, decomp), stream(s), comm_x(decomp.comm_x), comm_y(decomp.comm_y) {
        const PencilLayout& L = pp.lay;
        const std::size_t n = std::size_t(L.nlocal);
        a = rt::DeviceBuffer(sizeof(T) * n);
        b = rt::DeviceBuffer(sizeof(T) * n);
        cplx = rt::DeviceBuffer(sizeof(T) * 2 * std::size_t(pp.ncplx));
        send_d = rt::DeviceBuffer(sizeof(T) * n);
        recv_d = rt::DeviceBuffer(sizeof(T) * n);
        bmat = rt::DeviceBuffer(sizeof(T) * pp.bmat.size());
        bmat.upload(pp.bmat.data());
        coef = rt::DeviceBuffer(sizeof(T) * pp.coef.size());
        coef.upload(pp.coef.data());
        steps = pp.steps(grid.d, as_ptr<T>(bmat), as_ptr<T>(coef));
        if (decomp.npx > 1) ex_x = std::make_unique<DeviceExchange>(comm_x, recv_d.get(), stream);
        if (decomp.npy > 1) ex_y = std::make_unique<DeviceExchange>(comm_y, recv_d.get(), stream);
        // Host buffers only for a direction that is not device to device.
        if ((ex_x && !ex_x->direct()) || (ex_y && !ex_y->direct())) {
            send_h = rt::PinnedArray<T>(n);
            recv_h = rt::PinnedArray<T>(n);
        }
        for (int ax = 0; ax < 2; ++ax) {
            int len = L.transform_length(ax);
            if (len == 1) continue;
            const long rows = L.transform_rows(ax);
            fwd[ax] = std::make_unique<CufftPlan<T>>(1, &len, rows, true, stream);
            bwd[ax] = std::make_unique<CufftPlan<T>>(1, &len, rows, false, stream);
        }
    }

    void solve(T* field) {
        pencil_pressure_solve(pp.lay, *this, field, as_ptr<T>(a), as_ptr<T>(b), as_ptr<T>(cplx));
    }

    // ---- the executor interface ----
    void exchange_blocks(const PencilStep& s) {
        const DeviceExchange* ex = s.comm == comm_x ? ex_x.get() : ex_y.get();
        // Both paths wait for the packing kernel first; waiting here keeps it out of the timing.
        rt::Driver::get().stream_synchronize(stream);
        const CommTime::Scope timed(CommKind::transpose);
        if (!ex->direct()) return exchange_blocks_staged<T>(s, *this);
        const std::size_t blk = sizeof(T) * std::size_t(s.block());
        ex->begin();
        for (int q = 0; q < s.nq; ++q)
            if (q != s.me) {
                ex->put(q, send_d.get() + q * blk, s.me * blk, blk);
                ex->get(q, q * blk, blk);
            }
        ex->end();
    }
    void copy(const PencilCopy& c, const T* src, T* dst) { steps.copy(c, src, dst); }
    T* send() { return as_ptr<T>(send_d); }
    T* recv() { return as_ptr<T>(recv_d); }
    T* host_send() { return send_h.data(); }
    T* host_recv() { return recv_h.data(); }
    void to_host(long first, long n) {
        rt::Driver::get().stream_synchronize(stream); // the packing kernel is done
        if (n > 0)
            rt::Driver::get().download(send_h.data() + first, send_d.get() + sizeof(T) * first,
                                       sizeof(T) * std::size_t(n));
    }
    // Synchronous: kernels launched after it see the data.
    void to_device(long first, long n) {
        if (n > 0)
            rt::Driver::get().upload(recv_d.get() + sizeof(T) * first, recv_h.data() + first,
                                     sizeof(T) * std::size_t(n));
    }
    void r2c(int axis, T* real, T* c) {
        transform("cufft_forward", axis, [&] { fwd[axis]->run(real, c); });
    }
    void c2r(int axis, T* c, T* real) {
        transform("cufft_inverse", axis, [&] { bwd[axis]->run(real, c); });
    }
    // A transform as a profile row named by its length and batch.
    void transform(const char* name, int axis, const std::function<void()>& run) {
        const rt::ProblemSize size(pp.lay.transform_length(axis), pp.lay.transform_rows(axis));
        solver_backend().runtime().profile_library(name, size, stream, run);
    }
    void hc_from_complex(int axis, const T* c, T* real) { steps.hc_from_complex(axis, c, real); }
    void complex_from_hc(int axis, const T* real, T* c) { steps.complex_from_hc(axis, real, c); }
    void thomas(T* x, T* gam) { steps.thomas(x, gam); }
    void mirror_bottom(T* field) { steps.mirror_bottom(field); }
};

template <typename T>
struct PressureSolverGpu<T>::Impl {
    // Several ranks: pencils.
    std::unique_ptr<PencilGpu<T>> pencil;

    // One rank: 2-D transforms of every level and complex columns.
    PressureGpuLayout<T> lay;
    rt::DeviceBuffer real_buf; // the Thomas scratch gam
    rt::DeviceBuffer cplx_buf; // transformed data, interleaved (re, im)
    rt::DeviceBuffer bmat_buf, coef_buf;
    SpectralSteps<T> steps;                 // the kernels, on the device arrays above
    std::unique_ptr<CufftPlan<T>> fwd, bwd; // between the field's interior and cplx_buf
    long field_offset = 0;                  // of the interior, PressureRealLayout::offset
    rt::ProblemSize problem;                // names the transforms' profile rows

    Impl(const Grid<T>& grid, const Decomposition& decomp) {
        const rt::StreamHandle stream = solver_backend().stream();
        rt::Driver::get().make_current();
        if (decomp.npx * decomp.npy > 1) {
            pencil = std::make_unique<PencilGpu<T>>(grid, decomp, stream);
            return;
        }
        const GridDims& d = grid.d;
        problem = rt::ProblemSize(d.itot, d.jtot, d.ktot);
        lay = PressureGpuLayout<T>::make(grid);
        const long ncplx = lay.ncol * d.ktot;
        real_buf = rt::DeviceBuffer(sizeof(T) * std::size_t(ncplx));
        cplx_buf = rt::DeviceBuffer(sizeof(T) * std::size_t(2 * ncplx));
        // Imaginary parts stay zero when there is no transform (itot = jtot = 1).
        rt::Driver::get().memset8(cplx_buf.get(), 0, cplx_buf.size());
        bmat_buf = rt::DeviceBuffer(sizeof(T) * lay.bmat.size());
        bmat_buf.upload(lay.bmat.data());
        coef_buf = rt::DeviceBuffer(sizeof(T) * lay.coef.size());
        coef_buf.upload(lay.coef.data());
        steps = lay.steps(d, as_ptr<T>(bmat_buf), as_ptr<T>(coef_buf));

        if (lay.needs_fft()) { // batched over the levels
            PressureRealLayout real = lay.real_layout(d);
            fwd = std::make_unique<CufftPlan<T>>(real.rank, real.n, lay.ktot, true, stream, &real);
            bwd = std::make_unique<CufftPlan<T>>(real.rank, real.n, lay.ktot, false, stream, &real);
            field_offset = real.offset;
        }
    }

    void solve(T* p) {
        gpu::Backend& b = solver_backend();
        rt::Driver::get().make_current();
        if (pencil) return pencil->solve(p);
        T* gam = as_ptr<T>(real_buf);
        T* cbuf = as_ptr<T>(cplx_buf);
        if (!lay.needs_fft()) { // one column: the values into the real parts and back
            steps.pack(p, cbuf);
            steps.thomas(cbuf, gam);
            return steps.unpack(cbuf, p);
        }
        // cuFFT refuses real data not aligned as its complex values; a Field3d's interior is.
        if (reinterpret_cast<std::uintptr_t>(p + field_offset) % (2 * sizeof(T)) != 0)
            throw std::invalid_argument(fmt::format(
                "GPU pressure solver: the field's first interior point is not aligned to {} "
                "bytes; pass a field with the model's layout (Field3d, leading pad)",
                2 * sizeof(T)));
        b.runtime().profile_library("cufft_forward", problem, b.stream(),
                                    [&] { fwd->run(p + field_offset, cbuf); });
        steps.thomas(cbuf, gam);
        b.runtime().profile_library("cufft_inverse", problem, b.stream(),
                                    [&] { bwd->run(p + field_offset, cbuf); });
        steps.mirror_bottom(p);
    }
};

template <typename T>
PressureSolverGpu<T>::PressureSolverGpu(const Grid<T>& grid, const Decomposition& decomp)
    : impl_(std::make_unique<Impl>(grid, decomp)) {}

template <typename T>
PressureSolverGpu<T>::~PressureSolverGpu() = default;

template <typename T>
void PressureSolverGpu<T>::solve(T* p_device) {
    impl_->solve(p_device);
}

template <typename T>
bool PressureSolverGpu<T>::pencils() const {
    return impl_->pencil != nullptr;
}

template <typename T>
std::size_t PressureSolverGpu<T>::device_bytes(const GridDims& d) {
    if (d.imax != d.itot || d.jmax != d.jtot) {
        // Pencils: two pencil buffers, two packed MPI buffers, the transform output and
        // cuFFT work areas, each estimated as at most the rank's share of the grid.
        const std::size_t nlocal = std::size_t(d.imax) * d.jmax * d.ktot;
        return sizeof(T) * 10 * nlocal;
    }
    const std::size_t ncplx = std::size_t(d.itot / 2 + 1) * d.jtot * d.ktot;
    // The Thomas scratch, the complex buffer, and cuFFT work areas estimated generously as
    // one complex array per plan.
    return sizeof(T) * (ncplx + 2 * ncplx + 2 * 2 * ncplx);
}

template class PressureSolverGpu<float>;
template class PressureSolverGpu<double>;
template struct PressureGpuLayout<float>;
template struct PressureGpuLayout<double>;

} // namespace squall
