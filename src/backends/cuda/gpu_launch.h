#pragma once
// GPU backend dispatch: launch()/launch_2d()/reduce_max()/reduce_sum() of a kernel struct
// F on the active Backend. Each F keeps a small cache from (range, jj, kk) to a compiled
// instance; the first use builds the definition (tuning key "<F::name>_<precision>")
// and instantiates it through the runtime (wisdom -> NVRTC/cache -> module). After that
// a launch is a short linear search plus cuLaunchKernel. See README.md.
#include "backends/cuda/kernel_defs.h"
#include "backends/cuda/traverse_defs.h"
#include "kernels/common.cuh"
#include "runtime/runtime.h"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace squall::gpu {

// One kernel variant known to the backend: its definition and, once compiled, its instance.
struct Entry {
    KernelType type;
    Variant variant;
    rt::KernelDef def;
    rt::KernelInstance instance; // invalid until compiled
    rt::ProblemSize problem() const;
};

class Backend {
public:
    explicit Backend(rt::RuntimeOptions options);
    ~Backend();
    Backend(const Backend&) = delete;
    Backend& operator=(const Backend&) = delete;

    rt::Runtime& runtime() { return *runtime_; }
    rt::StreamHandle stream() const { return nullptr; } // the legacy default stream

    // The entry of a variant (definition built on first request, nothing compiled).
    Entry& entry(const KernelType& t, const Variant& v);
    // Compiles and loads the entry when it has no instance yet.
    void ensure(Entry& e);

    // Recording: while on, launches only note their variants (reductions return 0);
    // end_recording() compiles every noted variant in parallel and returns their number.
    void begin_recording() { recording_ = true; }
    size_t end_recording();
    bool recording() const { return recording_; }
    void note(Entry& e);
    // Compiles the given entries (those without an instance) in parallel.
    void compile_all(const std::vector<Entry*>& entries);

    // Launch helpers (non-template part of the dispatch).
    void launch_struct(const Entry& e, const void* f, size_t size);
    double reduce(Entry& e, const void* f, bool sum);

    uint64_t generation() const { return generation_; }

private:
    std::unique_ptr<rt::Runtime> runtime_;
    std::map<std::string, Entry*> index_;
    std::deque<Entry> entries_;
    std::vector<Entry*> noted_;
    bool recording_ = false;
    uint64_t generation_;
    rt::DevicePtr scratch_ = 0; // reduction partials (1024 doubles) + result
    std::map<std::string, Entry> finals_;
};

namespace detail {
inline bool g_active = false;
inline Backend* g_backend = nullptr;
inline uint64_t g_generation = 0;

template <class F>
KernelType kernel_type(Form form) {
    static_assert(sq::check_kernel<F>()); // kernels/kernel.cuh
    using T = sq::precision_t<F>;
    static_assert(sizeof(T) == 4 || sizeof(T) == 8);
    const bool deferrable = requires(const F& f) {
        f.store(0, 0, 0, f.value(0, 0, 0));
    };
    KernelType t{F::name, type_name<F>(), sizeof(T) == 4 ? "float" : "double", sizeof(F), form,
                 {},      deferrable};
    if constexpr (has_declaration<F>) t.members = declared_members<F>();
    if constexpr (requires { F::plane_inputs; }) {
        if (form == Form::traverse3d && !t.members.empty()) plane_boxes<F, T>(t);
    }
    return t;
}

template <class F>
Variant variant_of(const sq::Range3& r, const F& f) {
    Variant v{r, 0, 0};
    if constexpr (requires { f.jj; }) v.jj = f.jj;
    if constexpr (requires { f.kk; }) v.kk = f.kk;
    return v;
}

inline bool same(const Variant& a, const sq::Range3& r, int jj, int kk) {
    return a.jj == jj && a.kk == kk && a.range.i0 == r.i0 && a.range.i1 == r.i1 &&
           a.range.j0 == r.j0 && a.range.j1 == r.j1 && a.range.k0 == r.k0 && a.range.k1 == r.k1;
}

// The entry of (F, form, range, strides): a per-type cache in front of Backend::entry.
template <class F, Form form>
Entry& find_entry(const sq::Range3& r, const F& f) {
    static std::vector<Entry*> cache;
    static uint64_t generation = 0;
    if (generation != g_generation) {
        cache.clear();
        generation = g_generation;
    }
    const Variant v = variant_of(r, f);
    for (Entry* e : cache)
        if (same(e->variant, r, v.jj, v.kk)) return *e;
    Entry& e = g_backend->entry(kernel_type<F>(form), v);
    cache.push_back(&e);
    return e;
}
} // namespace detail

// Creates the process-wide backend (replacing an earlier one) and makes it active.
// Throws rt::NoDeviceError when there is no GPU (use_device=false for compile only).
Backend& activate(rt::RuntimeOptions options = {});
// Destroys the backend; launches go to the CPU again.
void deactivate();
// Whether launch.h dispatches to the backend. activate() switches it on; set_enabled(false)
// keeps the backend (its runtime, compiled kernels) but sends launches to the CPU until
// set_enabled(true). Switching on without a backend throws std::logic_error.
void set_enabled(bool on);
inline bool active() {
    return detail::g_active;
}
Backend& backend(); // throws std::logic_error when none is active

// The definition the backend uses for F over r (tests, benchmarks, tuning).
template <class F>
rt::KernelDef def_for(const sq::Range3& r, const F& f, Form form = Form::traverse3d) {
    return make_def(detail::kernel_type<F>(form), detail::variant_of(r, f));
}
inline rt::ProblemSize problem_of(const sq::Range3& r) {
    return rt::ProblemSize(r.i1 - r.i0, r.j1 - r.j0, r.k1 - r.k0);
}

// Launches a flat kernel (KernelType::flat): each declared member of the struct at f as a
// parameter, then the level count nlev.
void launch_members(const rt::KernelInstance& k, const KernelType& t, const void* f, int nlev);

// Launches a 3-D kernel with an explicit instance of def_for(r, f) (tests, benchmarks).
template <class F>
void launch_instance(const rt::KernelInstance& k, const sq::Range3& r, const F& f) {
    const KernelType t = detail::kernel_type<F>(Form::traverse3d);
    if (!t.flat()) return k.launch(nullptr, f);
    launch_members(k, t, &f, r.k1 + 1);
}

template <class F>
void launch(const sq::Range3& r, const F& f) {
    Entry& e = detail::find_entry<F, Form::traverse3d>(r, f);
    Backend& b = *detail::g_backend;
    if (b.recording()) return b.note(e);
    if (!e.instance.valid()) [[unlikely]]
        b.ensure(e);
    if (e.type.flat())
        launch_members(e.instance, e.type, &f, r.k1 + 1);
    else
        e.instance.launch(nullptr, f);
}

template <class F>
void launch_2d(const sq::Range3& r, const F& f) {
    Entry& e = detail::find_entry<F, Form::traverse2d>(r, f);
    Backend& b = *detail::g_backend;
    if (b.recording()) return b.note(e);
    if (!e.instance.valid()) [[unlikely]]
        b.ensure(e);
    e.instance.launch(nullptr, f);
}

// Max over the points of r, in the kernel's precision (0 while recording).
template <class F>
auto reduce_max(const sq::Range3& r, const F& f) {
    using T = decltype(f(r.i0, r.j0, r.k0));
    Entry& e = detail::find_entry<F, Form::reduce_max>(r, f);
    return T(detail::g_backend->reduce(e, &f, false));
}

// Sum over the points of r, accumulated in double (0 while recording).
template <class F>
double reduce_sum(const sq::Range3& r, const F& f) {
    Entry& e = detail::find_entry<F, Form::reduce_sum>(r, f);
    return detail::g_backend->reduce(e, &f, true);
}

// Notes a variant for the next compile without launching it (see end_recording()).
template <class F>
void precompile(const sq::Range3& r, const F& f, Form form = Form::traverse3d) {
    Entry* e = nullptr;
    switch (form) {
    case Form::traverse3d:
        e = &detail::find_entry<F, Form::traverse3d>(r, f);
        break;
    case Form::traverse2d:
        e = &detail::find_entry<F, Form::traverse2d>(r, f);
        break;
    case Form::reduce_max:
        e = &detail::find_entry<F, Form::reduce_max>(r, f);
        break;
    case Form::reduce_sum:
        e = &detail::find_entry<F, Form::reduce_sum>(r, f);
        break;
    }
    detail::g_backend->note(*e);
}

} // namespace squall::gpu
