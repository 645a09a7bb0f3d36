#include "model/pressure/pressure_gpu.h"

#include <cufft.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <map>
#include <numbers>
#include <stdexcept>

#include "embedded/pressure_gpu_sources.h"
#include "model/comm/device_exchange.h"
#include "model/field.h"
#include "model/pressure/pencil_solve.h"
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
    // Over a 3-D box with 2-D blocks (one block row per level).
    auto box_def = [&](const char* name) {
        return rt::KernelDef(name, embedded::pressure_gpu_sources(), file)
            .tuning_key(name, prec)
            .tune("block_x", {32, 64, 128, 256}, 64)
            .tune("block_y", {1, 2, 4, 8}, 4)
            .restriction("block_x * block_y >= 32 && block_x * block_y <= 1024")
            .template_args(prec)
            .block_size("block_x", "block_y")
            .launch_bounds("block_x * block_y");
    };
    // Over a 1-D range.
    auto line_def = [&](const char* name, const char* key, int dflt,
                        std::vector<rt::TextOrExpr> targs) {
        return rt::KernelDef(name, embedded::pressure_gpu_sources(), file)
            .tuning_key(key, prec)
            .tune("block_x", {32, 64, 128, 256, 512}, dflt)
            .template_args(std::move(targs))
            .block_size("block_x")
            .launch_bounds("block_x");
    };
    // Arguments as the kernels declare them, for SQUALL_CAPTURE (arrays saved whole).
    const rt::DType vt = prec == "float" ? rt::DType::f32 : rt::DType::f64;
    using rt::Access, rt::DType;
    auto array = [&](rt::KernelDef& d, const char* name, Access a) -> rt::KernelDef& {
        return d.arg_array(name, vt, a, rt::whole_allocation);
    };
    auto dims = [](rt::KernelDef& d) -> rt::KernelDef& {
        d.arg_struct("d", sizeof(sq::PressurePackDims));
        const char* names[] = {"itot",   "jtot", "ktot", "istart", "jstart",
                               "kstart", "jj",   "kk",   "stride"};
        static_assert(sizeof(sq::PressurePackDims) == sizeof(names) / sizeof(char*) * sizeof(int));
        for (size_t n = 0; n < std::size(names); ++n)
            d.member_scalar(names[n], DType::i32, n * sizeof(int));
        return d;
    };
    auto thomas = [&](rt::KernelDef d) {
        d.arg_scalar("ncol", DType::i64).arg_scalar("ktot", DType::i32);
        array(d, "x", Access::inout), array(d, "gam", Access::out);
        array(d, "bmat", Access::in), array(d, "coef", Access::in);
        return d.arg_scalar("top_mean", vt);
    };
    auto hc = [&](rt::KernelDef d, const char* in, const char* out) {
        d.arg_scalar("n", DType::i32).arg_scalar("rows", DType::i64);
        array(d, in, Access::in), array(d, out, Access::out);
        return d;
    };
    rt::KernelDef pack = box_def("pressure_gpu_pack"), unpack = box_def("pressure_gpu_unpack");
    array(array(dims(pack), "field", Access::in), "packed", Access::out);
    array(array(dims(unpack), "packed", Access::in), "field", Access::inout);
    rt::KernelDef copy = box_def("pressure_gpu_pencil_copy");
    // tile > 0: the shared-memory transpose, a tile x tile patch per block of tile x block_y.
    copy.tune("tile", {0, 32, 64}, 0)
        .restriction("tile == 0 || (block_x == tile && block_y < tile)")
        .template_args(prec, rt::expr("tile"))
        .grid_divisors("tile ? tile : block_x", "tile ? tile : block_y");
    copy.arg_struct("c", sizeof(sq::PencilCopy))
        .member_scalar("n0", DType::i32, offsetof(sq::PencilCopy, n0))
        .member_scalar("n1", DType::i32, offsetof(sq::PencilCopy, n1))
        .member_scalar("n2", DType::i32, offsetof(sq::PencilCopy, n2))
        .member_scalar("nblocks", DType::i32, offsetof(sq::PencilCopy, nblocks));
    array(array(copy, "src", Access::in), "dst", Access::inout);
    rt::KernelDef mirror = box_def("pressure_gpu_mirror_bottom");
    array(dims(mirror), "field", Access::inout);
    // In the order of PressureKernel.
    std::vector<rt::KernelDef> defs{
        pack,
        thomas(line_def("pressure_gpu_thomas", "pressure_gpu_thomas", 128, {prec, "2"})),
        unpack,
        thomas(line_def("pressure_gpu_thomas", "pressure_gpu_thomas_real", 128, {prec, "1"})),
        copy,
        hc(line_def("pressure_gpu_hc_from_complex", "pressure_gpu_hc_from_complex", 256, {prec}),
           "cplx", "hc"),
        hc(line_def("pressure_gpu_complex_from_hc", "pressure_gpu_complex_from_hc", 256, {prec}),
           "hc", "cplx"),
        mirror};
    static_assert(PressureKernel::count == 8);
    return defs;
}

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
    // rank 1 or 2 transforms of dims (slowest first), batch of them back to back in the
    // contiguous default layout; forward: R2C, else C2R.
    CufftPlan(int rank, int* dims, long batch, bool forward) : forward_(forward) {
        check_cufft(cufftCreate(&plan_), "cufftCreate");
        std::size_t work = 0;
        const cufftResult r =
            cufftMakePlanMany(plan_, rank, dims, nullptr, 1, 0, nullptr, 1, 0,
                              forward ? Cufft<T>::r2c : Cufft<T>::c2r, int(batch), &work);
        if (r != CUFFT_SUCCESS) {
            cufftDestroy(plan_);
            check_cufft(r, forward ? "cufftMakePlanMany (forward)" : "cufftMakePlanMany (inverse)");
        }
    }
    ~CufftPlan() { cufftDestroy(plan_); }
    CufftPlan(const CufftPlan&) = delete;
    CufftPlan& operator=(const CufftPlan&) = delete;

    void set_stream(rt::StreamHandle s) {
        // A CUstream and a cudaStream_t are the same handle.
        check_cufft(cufftSetStream(plan_, static_cast<cudaStream_t>(s)), "cufftSetStream");
    }
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

} // namespace

// Several ranks: the pencil solve (pencil_solve.h) with kernels and cuFFT on the device.
// The blocks that cross ranks go device to device when the ranks share a node
// (DeviceExchange), else through page-locked host buffers and MPI. This is also the
// executor that pencil_pressure_solve() drives.
template <typename T>
struct PencilGpu {
    PencilPressure<T> pp;
    const rt::StreamHandle& stream;
    sq::PressurePackDims field_dims{};
    rt::DeviceBuffer a, b, cplx, send_d, recv_d, bmat, coef;
    rt::PinnedArray<T> send_h, recv_h; // MPI staging, when an exchange is not direct
    std::map<std::array<long, 3>, rt::KernelInstance> copies; // by (n0, n1, n2 * nblocks)
    rt::KernelInstance thomas_real, mirror;
    rt::KernelInstance to_hc[2], from_hc[2]; // per transform axis
    std::unique_ptr<CufftPlan<T>> fwd[2], bwd[2];
    MPI_Comm comm_x, comm_y;
    // Over comm_x / comm_y, when split; declared after recv_d, so unmapped before it is freed.
    std::unique_ptr<DeviceExchange> ex_x, ex_y;

    PencilGpu(const Grid<T>& grid, const Decomposition& decomp, rt::Runtime& runtime,
              const rt::StreamHandle& s)
        : pp(grid, decomp), stream(s), comm_x(decomp.comm_x), comm_y(decomp.comm_y) {
        const PencilLayout& L = pp.lay;
        const GridDims& d = grid.d;
        field_dims = {d.imax, d.jmax, d.ktot, d.istart, d.jstart, d.kstart, d.jj, d.kk, 1};
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
        if (decomp.npx > 1) ex_x = std::make_unique<DeviceExchange>(comm_x, recv_d.get());
        if (decomp.npy > 1) ex_y = std::make_unique<DeviceExchange>(comm_y, recv_d.get());
        // Host buffers only for a direction that is not device to device.
        if ((ex_x && !ex_x->direct()) || (ex_y && !ex_y->direct())) {
            send_h = rt::PinnedArray<T>(n);
            recv_h = rt::PinnedArray<T>(n);
        }

        // Every kernel and size the solve launches, compiled together.
        const std::vector<rt::KernelDef> defs = pressure_gpu_kernel_defs(precision_name<T>());
        std::vector<rt::Runtime::Request> req;
        std::vector<std::array<long, 3>> copy_keys;
        for (const PencilStep* st : {&L.zcol_x, &L.x_y, &L.y_z})
            for (const sq::PencilCopy& c : {st->own(), st->pack_others()}) {
                const std::array<long, 3> key{c.n0, c.n1, long(c.n2) * c.nblocks};
                if (key[2] == 0 ||
                    std::find(copy_keys.begin(), copy_keys.end(), key) != copy_keys.end())
                    continue;
                copy_keys.push_back(key);
                req.push_back({&defs[PressureKernel::pencil_copy],
                               rt::ProblemSize(key[0], key[1], key[2]),
                               {}});
            }
        for (int ax = 0; ax < 2; ++ax) {
            const long rows = L.transform_rows(ax), n = L.transform_length(ax);
            req.push_back({&defs[PressureKernel::hc_from_complex], rt::ProblemSize(rows * n), {}});
            req.push_back(
                {&defs[PressureKernel::complex_from_hc], rt::ProblemSize(rows * (n / 2 + 1)), {}});
        }
        req.push_back({&defs[PressureKernel::thomas_real], rt::ProblemSize(L.ncol), {}});
        req.push_back({&defs[PressureKernel::mirror_bottom], rt::ProblemSize(d.imax, d.jmax), {}});
        std::vector<rt::KernelInstance> ks = runtime.instantiate_all(req);
        std::size_t next = 0;
        for (const auto& key : copy_keys) copies[key] = ks[next++];
        for (int ax = 0; ax < 2; ++ax) {
            to_hc[ax] = ks[next++];
            from_hc[ax] = ks[next++];
        }
        thomas_real = ks[next++];
        mirror = ks[next++];

        for (int ax = 0; ax < 2; ++ax) {
            int n = L.transform_length(ax);
            if (n == 1) continue;
            fwd[ax] = std::make_unique<CufftPlan<T>>(1, &n, L.transform_rows(ax), true);
            bwd[ax] = std::make_unique<CufftPlan<T>>(1, &n, L.transform_rows(ax), false);
        }
        apply_stream();
    }

    void apply_stream() {
        for (auto* plans : {&fwd, &bwd})
            for (auto& p : *plans)
                if (p) p->set_stream(stream);
    }

    void solve(T* field) {
        pencil_pressure_solve(pp.lay, *this, field, as_ptr<T>(a), as_ptr<T>(b), as_ptr<T>(cplx));
    }

    // ---- the executor interface ----
    void exchange_blocks(const PencilStep& s) {
        const DeviceExchange* ex = s.comm == comm_x ? ex_x.get() : ex_y.get();
        if (!ex->direct()) return exchange_blocks_staged<T>(s, *this);
        const std::size_t blk = sizeof(T) * std::size_t(s.block());
        ex->begin();
        for (int q = 0; q < s.nq; ++q)
            if (q != s.me) ex->put(q, send_d.get() + q * blk, s.me * blk, blk);
        ex->end();
    }
    void copy(const sq::PencilCopy& c, const T* src, T* dst) {
        if (c.nblocks == 0) return;
        copies.at({c.n0, c.n1, long(c.n2) * c.nblocks}).launch(stream, c, src, dst);
    }
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
    void r2c(int axis, T* real, T* c) { fwd[axis]->run(real, c); }
    void c2r(int axis, T* c, T* real) { bwd[axis]->run(real, c); }
    void hc_from_complex(int axis, const T* c, T* real) {
        const int n = pp.lay.transform_length(axis);
        const long rows = pp.lay.transform_rows(axis);
        to_hc[axis].launch(stream, n, rows, c, real);
    }
    void complex_from_hc(int axis, const T* real, T* c) {
        const int n = pp.lay.transform_length(axis);
        const long rows = pp.lay.transform_rows(axis);
        from_hc[axis].launch(stream, n, rows, real, c);
    }
    void thomas(T* x, T* gam) {
        const long ncol = pp.lay.ncol;
        const int ktot = pp.lay.ktot;
        const T* bm = as_ptr<T>(bmat);
        const T* cf = as_ptr<T>(coef);
        thomas_real.launch(stream, ncol, ktot, x, gam, bm, cf, pp.top_mean);
    }
    void mirror_bottom(T* field) { mirror.launch(stream, field_dims, field); }
};

template <typename T>
struct PressureSolverGpu<T>::Impl {
    rt::StreamHandle stream = nullptr;
    GridDims d;

    // Several ranks: pencils.
    std::unique_ptr<PencilGpu<T>> pencil;

    // One rank: 2-D transforms of every level and complex columns.
    PressureGpuLayout<T> lay;
    sq::PressurePackDims pack_dims{};
    rt::DeviceBuffer real_buf; // FFT real data; doubles as the Thomas scratch gam
    rt::DeviceBuffer cplx_buf; // transformed data, interleaved (re, im)
    rt::DeviceBuffer bmat_buf, coef_buf;
    rt::KernelInstance pack, thomas, unpack;
    std::unique_ptr<CufftPlan<T>> fwd, bwd;

    Impl(const Grid<T>& grid, const Decomposition& decomp, rt::Runtime& runtime) : d(grid.d) {
        if (!runtime.has_device())
            throw rt::NoDeviceError("GPU pressure solver: no GPU available (" +
                                    runtime.no_device_reason() + ")");
        rt::Driver::get().make_current();
        if (decomp.npx * decomp.npy > 1) {
            pencil = std::make_unique<PencilGpu<T>>(grid, decomp, runtime, stream);
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
        std::vector<rt::KernelInstance> ks =
            runtime.instantiate_all({{&defs[PressureKernel::pack], box, {}},
                                     {&defs[PressureKernel::thomas], rt::ProblemSize(lay.ncol), {}},
                                     {&defs[PressureKernel::unpack], box, {}}});
        pack = ks[0];
        thomas = ks[1];
        unpack = ks[2];

        if (lay.needs_fft()) {
            // Batched over the levels: 2-D transforms [slow][fast], or 1-D when slow has one
            // entry.
            int n[2] = {lay.nslow, lay.nfast};
            const int rank = lay.nslow > 1 ? 2 : 1;
            int* dims = rank == 2 ? n : n + 1;
            fwd = std::make_unique<CufftPlan<T>>(rank, dims, lay.ktot, true);
            bwd = std::make_unique<CufftPlan<T>>(rank, dims, lay.ktot, false);
        }
        apply_stream();
    }

    void apply_stream() {
        if (pencil) pencil->apply_stream();
        for (auto* p : {&fwd, &bwd})
            if (*p) (*p)->set_stream(stream);
    }

    void solve(T* p) {
        rt::Driver::get().make_current();
        if (pencil) return pencil->solve(p);
        T* rbuf = as_ptr<T>(real_buf);
        T* cbuf = as_ptr<T>(cplx_buf);
        const T* bmat = as_ptr<T>(bmat_buf);
        const T* coef = as_ptr<T>(coef_buf);
        const bool fft = lay.needs_fft();
        T* packed = fft ? rbuf : cbuf;
        const T* p_in = p;
        pack.launch(stream, pack_dims, p_in, packed);
        if (fft) fwd->run(rbuf, cbuf);
        const long ncol = lay.ncol;
        const int ktot = lay.ktot;
        thomas.launch(stream, ncol, ktot, cbuf, rbuf, bmat, coef, lay.top_mean);
        if (fft) bwd->run(rbuf, cbuf);
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
