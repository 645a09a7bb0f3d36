#include "backends/cuda/gpu_launch.h"

#include "runtime/log.h"

#include <fmt/format.h>

#include <iterator>
#include <stdexcept>

namespace squall::gpu {

namespace {
std::unique_ptr<Backend> g_owner;
constexpr int max_partials = 1024; // the reductions' grid is at most this many blocks

std::string entry_key(const KernelType& t, const Variant& v) {
    const sq::Range3& r = v.range;
    return fmt::format("{}/{}/{},{},{},{},{},{}/{},{}", t.key(), int(t.form), r.i0, r.i1, r.j0,
                       r.j1, r.k0, r.k1, v.jj, v.kk);
}
} // namespace

rt::ProblemSize Entry::problem() const {
    return problem_of(variant.range);
}

Backend::Backend(rt::RuntimeOptions options)
    : runtime_(std::make_unique<rt::Runtime>(std::move(options))),
      generation_(++detail::g_generation) {}

Backend::~Backend() {
    if (scratch_) {
        try {
            rt::Driver::get().free(scratch_);
        } catch (const std::exception&) {
        }
    }
}

Entry& Backend::entry(const KernelType& t, const Variant& v) {
    const std::string key = entry_key(t, v);
    auto it = index_.find(key);
    if (it != index_.end()) return *it->second;
    Entry& e = entries_.emplace_back(Entry{t, v, make_def(t, v), {}});
    index_.emplace(key, &e);
    return e;
}

void Backend::ensure(Entry& e) {
    if (!e.instance.valid()) e.instance = runtime_->instantiate(e.def, e.problem());
}

void Backend::note(Entry& e) {
    for (Entry* n : noted_)
        if (n == &e) return;
    noted_.push_back(&e);
}

void Backend::compile_all(const std::vector<Entry*>& entries) {
    std::vector<rt::Runtime::Request> reqs;
    std::vector<Entry*> todo;
    for (Entry* e : entries)
        if (!e->instance.valid()) {
            reqs.push_back({&e->def, e->problem(), std::nullopt});
            todo.push_back(e);
        }
    if (reqs.empty()) return;
    auto ks = runtime_->instantiate_all(reqs);
    for (size_t n = 0; n < todo.size(); ++n) todo[n]->instance = ks[n];
}

size_t Backend::end_recording() {
    recording_ = false;
    std::vector<Entry*> list;
    list.swap(noted_);
    compile_all(list);
    rt::log_info("GPU backend: {} kernel variant(s) ready before the time loop", list.size());
    return list.size();
}

void Backend::launch_struct(const Entry& e, const void* f, size_t) {
    void* params[1] = {const_cast<void*>(f)};
    e.instance.launch_args(nullptr, params, 1);
}

void launch_members(const rt::KernelInstance& k, const KernelType& t, const void* f, int nlev) {
    void* params[40];
    const size_t n = t.members.size();
    if (n >= std::size(params))
        throw std::logic_error("GPU backend: kernel '" + t.name + "' has too many members");
    for (size_t a = 0; a < n; ++a)
        params[a] = const_cast<char*>(static_cast<const char*>(f)) + t.members[a].offset;
    params[n] = &nlev;
    k.launch_args(nullptr, params, n + 1);
}

double Backend::reduce(Entry& e, const void* f, bool sum) {
    if (recording_) {
        note(e);
        return 0;
    }
    ensure(e);
    rt::Driver& drv = rt::Driver::get();
    if (!scratch_) scratch_ = drv.alloc((max_partials + 1) * sizeof(double));
    const std::string acc = sum ? "double" : e.type.prec;
    auto it = finals_.find(acc + (sum ? "+" : "max"));
    if (it == finals_.end()) {
        KernelType ft{"reduce_final", "", acc, 0, sum ? Form::reduce_sum : Form::reduce_max};
        Entry fe{ft, Variant{}, make_reduce_final_def(acc, sum ? 1 : 0), {}};
        fe.instance = runtime_->instantiate(fe.def, rt::ProblemSize(1));
        it = finals_.emplace(acc + (sum ? "+" : "max"), std::move(fe)).first;
    }
    rt::DevicePtr partial = scratch_;
    rt::DevicePtr result = scratch_ + max_partials * sizeof(double);
    void* p1[2] = {const_cast<void*>(f), &partial};
    e.instance.launch_args(nullptr, p1, 2);
    int n = int(e.instance.geometry().grid[0]);
    void* p2[3] = {&partial, &n, &result};
    it->second.instance.launch_args(nullptr, p2, 3);
    if (sum || acc == "double") {
        double v = 0;
        drv.download(&v, result, sizeof v);
        return v;
    }
    float v = 0;
    drv.download(&v, result, sizeof v);
    return v;
}

Backend& activate(rt::RuntimeOptions options) {
    deactivate();
    const bool want_device = options.use_device;
    auto b = std::make_unique<Backend>(std::move(options));
    if (want_device && !b->runtime().has_device())
        throw rt::NoDeviceError(b->runtime().no_device_reason());
    g_owner = std::move(b);
    detail::g_backend = g_owner.get();
    detail::g_active = true;
    return *g_owner;
}

void set_enabled(bool on) {
    if (on && !detail::g_backend) throw std::logic_error("the GPU backend is not active");
    detail::g_active = on;
}

void deactivate() {
    detail::g_active = false;
    detail::g_backend = nullptr;
    g_owner.reset();
}

Backend& backend() {
    if (!detail::g_backend) throw std::logic_error("the GPU backend is not active");
    return *detail::g_backend;
}

} // namespace squall::gpu
