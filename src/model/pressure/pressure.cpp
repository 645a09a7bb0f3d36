#include "model/pressure/pressure.h"

#include <fftw3.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "model/pressure/transpose.h"

namespace squall {

namespace {

// The double and single precision FFTW interfaces behind one name. FFTW_NO_BUFFERING: for
// lengths other than powers of two (48) the buffered plans FFTW_ESTIMATE picks allocate
// and free their buffers at every execution; without them a 48^3 solve takes 1.28 ms
// instead of 1.75 (1 thread, bench/pressure_bench 48). Powers of two do not change.
template <typename T>
struct Fftw;

template <>
struct Fftw<double> {
    using plan = fftw_plan;
    static double* alloc(long n) { return fftw_alloc_real(std::size_t(n)); }
    static void free(double* p) { fftw_free(p); }
    static plan many(int n, int howmany, double* data, fftw_r2r_kind kind) {
        return fftw_plan_many_r2r(1, &n, howmany, data, nullptr, 1, n, data, nullptr, 1, n, &kind,
                                  FFTW_ESTIMATE | FFTW_NO_BUFFERING);
    }
    static void execute(plan p) { fftw_execute(p); }
    static void destroy(plan p) { fftw_destroy_plan(p); }
};

template <>
struct Fftw<float> {
    using plan = fftwf_plan;
    static float* alloc(long n) { return fftwf_alloc_real(std::size_t(n)); }
    static void free(float* p) { fftwf_free(p); }
    static plan many(int n, int howmany, float* data, fftw_r2r_kind kind) {
        return fftwf_plan_many_r2r(1, &n, howmany, data, nullptr, 1, n, data, nullptr, 1, n, &kind,
                                   FFTW_ESTIMATE | FFTW_NO_BUFFERING);
    }
    static void execute(plan p) { fftwf_execute(p); }
    static void destroy(plan p) { fftwf_destroy_plan(p); }
};

// Columns per OpenMP work item of the tridiagonal solve: long enough to vectorise, short
// enough that a chunk's k-loop stays in cache.
constexpr long thomas_chunk = 64;

} // namespace

double pressure_wavenumber_term(int n, int ntot, double dinv) {
    return 2.0 * (std::cos(2.0 * std::numbers::pi * n / ntot) - 1.0) * dinv * dinv;
}

template <typename T>
PressureTridiag<T> PressureTridiag<T>::make(const Grid<T>& grid) {
    const GridDims& d = grid.d;
    const int kmax = d.ktot, ks = d.kstart;
    PressureTridiag<T> t;
    for (auto* v : {&t.a, &t.c, &t.dz2rho, &t.b_base, &t.rhs_scale}) v->resize(std::size_t(kmax));
    const T norm = T(1.0 / (double(d.itot) * d.jtot));
    for (int k = 0; k < kmax; ++k) {
        const int kg = k + ks;
        t.a[k] = grid.dz[kg] * grid.rhoh[kg] * grid.dzhi[kg];
        t.c[k] = grid.dz[kg] * grid.rhoh[kg + 1] * grid.dzhi[kg + 1];
        t.dz2rho[k] = grid.dz[kg] * grid.dz[kg] * grid.rho[kg];
        t.rhs_scale[k] = grid.dz[kg] * grid.dz[kg] * norm;
        t.b_base[k] = -(t.a[k] + t.c[k]);
    }
    // Neumann at the bottom wall and, for all but the mean mode, at the top; the mean
    // mode has pi = 0 on the top face, i.e. b -= c instead of += c.
    t.b_base[0] += t.a[0];
    t.b_base[kmax - 1] += t.c[kmax - 1];
    t.top_mean = T(-2) * t.c[kmax - 1];
    // Drop the links to the non-existent neighbours outside the column.
    t.a[0] = T(0);
    t.c[kmax - 1] = T(0);
    return t;
}

template <typename T>
std::vector<T> PressureTridiag<T>::packed() const {
    std::vector<T> p;
    for (const auto* v : {&a, &c, &dz2rho, &b_base, &rhs_scale})
        p.insert(p.end(), v->begin(), v->end());
    return p;
}

template struct PressureTridiag<float>;
template struct PressureTridiag<double>;

template <typename T>
struct PressureSolver<T>::Impl {
    using Api = Fftw<T>;
    using Plan = typename Api::plan;

    PencilTransposer<T> tr;
    GridDims d;
    T* buf_a = nullptr; // x-pencil and z-pencil
    T* buf_b = nullptr; // y-pencil, and the Thomas work array
    // One plan per thread-sized slice of the transforms: each runs on its own thread.
    std::vector<Plan> fwd_x, bwd_x, fwd_y, bwd_y;

    std::vector<T> bmat;      // bmati[n] + bmatj[m] per z-pencil column
    std::vector<T> top_fix;   // extra diagonal term at the top: -2c for the mean mode, else 0
    std::vector<T> a, c;      // sub/super diagonals per level (ktot)
    std::vector<T> dz2rho;    // dz^2 rho: multiplies the wavenumber term
    std::vector<T> b_base;    // -(a+c) with the Neumann closures at bottom and top
    std::vector<T> rhs_scale; // dz^2 / (itot jtot): the FFT normalisation folded in
    std::vector<T> beta;      // inverse Thomas pivots, one per column

    Impl(const Grid<T>& grid, const Decomposition& decomp) : tr(grid.d, decomp), d(grid.d) {
        buf_a = Api::alloc(std::max(tr.nlocal, 1L));
        buf_b = Api::alloc(std::max(tr.nlocal, 1L));
        if (!buf_a || !buf_b) throw std::bad_alloc();
        std::fill(buf_a, buf_a + tr.nlocal, T(0));
        std::fill(buf_b, buf_b + tr.nlocal, T(0));

        make_plans(fwd_x, tr.itot, tr.jmax * tr.kblk, buf_a, FFTW_R2HC);
        make_plans(bwd_x, tr.itot, tr.jmax * tr.kblk, buf_a, FFTW_HC2R);
        make_plans(fwd_y, tr.jtot, tr.iblk * tr.kblk, buf_b, FFTW_R2HC);
        make_plans(bwd_y, tr.jtot, tr.iblk * tr.kblk, buf_b, FFTW_HC2R);

        // Modified wavenumbers of the 2nd-order Laplacian; the half-complex index N-n holds
        // the imaginary part of wavenumber n, and the term is symmetric in n.
        bmat.resize(tr.ncol);
        top_fix.assign(tr.ncol, T(0));
        for (int jl = 0; jl < tr.jblk; ++jl)
            for (int il = 0; il < tr.iblk; ++il)
                bmat[il + long(tr.iblk) * jl] =
                    T(pressure_wavenumber_term(tr.i0 + il, tr.itot, grid.dxi) +
                      pressure_wavenumber_term(tr.j0 + jl, tr.jtot, grid.dyi));
        const PressureTridiag<T> tri = PressureTridiag<T>::make(grid);
        a = tri.a;
        c = tri.c;
        dz2rho = tri.dz2rho;
        b_base = tri.b_base;
        rhs_scale = tri.rhs_scale;
        if (tr.i0 == 0 && tr.j0 == 0 && tr.ncol > 0) top_fix[0] = tri.top_mean;
        beta.resize(tr.ncol);
    }

    ~Impl() {
        for (auto* plans : {&fwd_x, &bwd_x, &fwd_y, &bwd_y})
            for (Plan p : *plans) Api::destroy(p);
        Api::free(buf_a);
        Api::free(buf_b);
    }

    // Split `howmany` transforms of length n (stored back to back) into one plan per
    // thread. A length-1 transform is the identity and needs no plan.
    void make_plans(std::vector<Plan>& plans, int n, int howmany, T* data, fftw_r2r_kind kind) {
        if (n <= 1 || howmany <= 0) return;
        const int nslices = std::min(omp_get_max_threads(), howmany);
        for (int s = 0; s < nslices; ++s) {
            const int first = int(long(howmany) * s / nslices);
            const int last = int(long(howmany) * (s + 1) / nslices);
            Plan p = Api::many(n, last - first, data + long(first) * n, kind);
            if (!p) throw std::runtime_error("PressureSolver: FFTW planning failed");
            plans.push_back(p);
        }
    }

    static void run(const std::vector<Plan>& plans) {
        const int np = int(plans.size());
#pragma omp parallel for schedule(static)
        for (int s = 0; s < np; ++s) Api::execute(plans[s]);
    }

    // Solve every column of the z-pencil in place in buf_a; buf_b holds the Thomas
    // ratios gam. Columns are innermost so each level is one vector loop.
    void thomas() {
        const long ncol = tr.ncol;
        const int kmax = tr.ktot;
        T* x = buf_a;
        T* gam = buf_b;
        const long nchunks = (ncol + thomas_chunk - 1) / thomas_chunk;
#pragma omp parallel for schedule(static)
        for (long ch = 0; ch < nchunks; ++ch) {
            const long c0 = ch * thomas_chunk, c1 = std::min(ncol, c0 + thomas_chunk);
            T* bet = beta.data();
            const T* bm = bmat.data();
            const T* tf = top_fix.data();
            for (int k = 0; k < kmax; ++k) {
                T* xk = x + ncol * k;
                T* gk = gam + ncol * k;
                const T* xkm = k > 0 ? x + ncol * (k - 1) : xk;
                const T ak = a[k], ckm = k > 0 ? c[k - 1] : T(0), d2r = dz2rho[k], bb = b_base[k];
                const T sc = rhs_scale[k];
                const bool top = k == kmax - 1;
                if (k == 0) {
#pragma omp simd
                    for (long col = c0; col < c1; ++col) {
                        const T binv = T(1) / (d2r * bm[col] + bb + (top ? tf[col] : T(0)));
                        bet[col] = binv;
                        xk[col] = sc * xk[col] * binv;
                    }
                } else {
#pragma omp simd
                    for (long col = c0; col < c1; ++col) {
                        const T g = ckm * bet[col];
                        const T binv =
                            T(1) / (d2r * bm[col] + bb + (top ? tf[col] : T(0)) - ak * g);
                        gk[col] = g;
                        bet[col] = binv;
                        xk[col] = (sc * xk[col] - ak * xkm[col]) * binv;
                    }
                }
            }
            for (int k = kmax - 2; k >= 0; --k) {
                T* xk = x + ncol * k;
                const T* xkp = x + ncol * (k + 1);
                const T* gkp = gam + ncol * (k + 1);
#pragma omp simd
                for (long col = c0; col < c1; ++col) xk[col] -= gkp[col] * xkp[col];
            }
        }
    }

    void solve(Field3d<T>& p) {
        tr.zcol_to_x(p.data(), buf_a);
        run(fwd_x);
        tr.x_to_y(buf_a, buf_b);
        run(fwd_y);
        tr.y_to_z(buf_b, buf_a);
        thomas();
        tr.z_to_y(buf_a, buf_b);
        run(bwd_y);
        tr.y_to_x(buf_b, buf_a);
        run(bwd_x);
        tr.x_to_zcol(buf_a, p.data());

        // Neumann ghost below the bottom wall, as the momentum update expects.
        T* pd = p.data();
        const long km = long(d.kstart - 1) * d.kk, k0 = long(d.kstart) * d.kk;
#pragma omp parallel for schedule(static)
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i) pd[i + j * d.jj + km] = pd[i + j * d.jj + k0];
    }
};

template <typename T>
PressureSolver<T>::PressureSolver(const Grid<T>& grid, const Decomposition& decomp)
    : impl_(std::make_unique<Impl>(grid, decomp)) {}

template <typename T>
PressureSolver<T>::~PressureSolver() = default;

template <typename T>
void PressureSolver<T>::solve(Field3d<T>& p) {
    impl_->solve(p);
}

template class PressureSolver<float>;
template class PressureSolver<double>;

} // namespace squall
