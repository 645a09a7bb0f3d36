#include "runtime/replay.h"

#include "runtime/driver.h"
#include "runtime/hash.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace squall::rt {

namespace {

// Compares n elements of `got` with `want` on the device: out[0] counts the elements whose
// bits differ; out[1..3] hold (as the bits of non-negative doubles, which order like
// integers) the largest |got - want| (1e300 for a NaN on one side), |want| and the
// relative difference. T is the element type, U an unsigned type of its size.
const char* const kCompareSource = R"(
template <typename T, typename U>
__global__ void sq_compare(const void* got_v, const void* want_v, unsigned long long n,
                           unsigned long long* out) {
    const T* got = (const T*)got_v;
    const T* want = (const T*)want_v;
    const U* got_bits = (const U*)got_v;
    const U* want_bits = (const U*)want_v;
    unsigned long long differing = 0;
    double max_abs = 0, max_ref = 0, max_rel = 0;
    for (unsigned long long p = blockIdx.x * 256ull + threadIdx.x; p < n;
         p += gridDim.x * 256ull) {
        const double a = double(got[p]), b = double(want[p]);
        if (fabs(b) == fabs(b)) max_ref = fmax(max_ref, fabs(b));
        if (got_bits[p] == want_bits[p]) continue;
        ++differing;
        double d = fabs(a - b);
        if (d != d) d = 1e300;
        max_abs = fmax(max_abs, d);
        max_rel = fmax(max_rel, b != 0 ? d / fabs(b) : d);
    }
    for (int o = 16; o > 0; o /= 2) {
        differing += __shfl_down_sync(0xffffffffu, differing, o);
        max_abs = fmax(max_abs, __shfl_down_sync(0xffffffffu, max_abs, o));
        max_ref = fmax(max_ref, __shfl_down_sync(0xffffffffu, max_ref, o));
        max_rel = fmax(max_rel, __shfl_down_sync(0xffffffffu, max_rel, o));
    }
    if ((threadIdx.x & 31) != 0) return;
    atomicAdd(out, differing);
    atomicMax(out + 1, (unsigned long long)__double_as_longlong(max_abs));
    atomicMax(out + 2, (unsigned long long)__double_as_longlong(max_ref));
    atomicMax(out + 3, (unsigned long long)__double_as_longlong(max_rel));
}
)";

// A hash of n 32-bit words on the device: the sum over p of a bijective mix of (word p, p),
// so that blocks may add their parts in any order and the result stays the same.
const char* const kHashSource = R"(
__global__ void sq_hash(const unsigned int* w, unsigned long long n, unsigned long long* out) {
    unsigned long long h = 0;
    for (unsigned long long p = blockIdx.x * 256ull + threadIdx.x; p < n;
         p += gridDim.x * 256ull) {
        unsigned long long x = ((unsigned long long)w[p] << 32) ^ (p * 0x9E3779B97F4A7C15ull);
        x ^= x >> 30;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 27;
        x *= 0x94D049BB133111EBull;
        x ^= x >> 31;
        h += x;
    }
    for (int o = 16; o > 0; o /= 2) h += __shfl_down_sync(0xffffffffu, h, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, h);
}
)";

KernelDef hash_def() {
    static const SourcesPtr sources = [] {
        auto s = std::make_shared<SourceSet>();
        s->add("sq_hash.cu", kHashSource);
        return SourcesPtr(s);
    }();
    KernelDef d("sq_hash", sources, "sq_hash.cu");
    d.tuning_key("sq_hash");
    d.tune("block_x", {256}, 256);
    d.block_size("256").grid_size("1024");
    return d;
}

KernelDef compare_def(DType t) {
    static const SourcesPtr sources = [] {
        auto s = std::make_shared<SourceSet>();
        s->add("sq_compare.cu", kCompareSource);
        return SourcesPtr(s);
    }();
    const bool real = t == DType::f32 || t == DType::f64;
    const std::string value = t == DType::f32   ? "float"
                              : t == DType::f64 ? "double"
                                                : "unsigned char";
    const std::string bits = t == DType::f32   ? "unsigned int"
                             : t == DType::f64 ? "unsigned long long"
                                               : "unsigned char";
    KernelDef d("sq_compare", sources, "sq_compare.cu");
    d.tuning_key("sq_compare", real ? value : "bytes");
    d.tune("block_x", {256}, 256).template_args(value, bits);
    d.block_size("256").grid_size("1024");
    return d;
}

double bits_to_double(uint64_t b) {
    double d;
    std::memcpy(&d, &b, sizeof d);
    return d;
}

// The sum or maximum of the first n partial results.
double fold_partials(const char* data, DType t, uint64_t n, Partials op) {
    double acc = op == Partials::sum ? 0.0 : -INFINITY;
    for (uint64_t i = 0; i < n; ++i) {
        double v;
        if (t == DType::f32) {
            float f;
            std::memcpy(&f, data + i * 4, 4);
            v = f;
        } else {
            std::memcpy(&v, data + i * 8, 8);
        }
        acc = op == Partials::sum ? acc + v : std::max(acc, v);
    }
    return acc;
}

uint64_t blocks(const LaunchGeometry& g) {
    return uint64_t(g.grid[0]) * g.grid[1] * g.grid[2];
}

} // namespace

uint64_t device_hash(Runtime& rt, DevicePtr p, size_t bytes) {
    Driver& drv = Driver::get();
    const KernelDef def = hash_def();
    const KernelInstance k =
        rt.instantiate_candidate(def, ProblemSize(1), def.space().default_config());
    DeviceBuffer out(8);
    drv.memset8(out.get(), 0, 8);
    k.launch(nullptr, p, static_cast<unsigned long long>(bytes / 4), out.get());
    uint64_t sum = 0;
    drv.download(&sum, out.get(), 8);
    unsigned char tail[4] = {0, 0, 0, 0};
    if (bytes % 4) drv.download(tail, p + bytes / 4 * 4, bytes % 4);
    return Hasher().add(sum).add(hash64(tail, sizeof tail)).add(uint64_t(bytes)).digest();
}

double ReplayResult::deviation() const {
    double worst = 0;
    for (const auto& o : outputs)
        if (o.differing) worst = std::max(worst, o.max_ref > 0 ? o.max_abs / o.max_ref : o.max_abs);
    return worst;
}

DeviceCapture::DeviceCapture(Runtime& rt, const Capture& c)
    : rt_(&rt), capture_(&c), def_(c.kernel_def()) {
    try {
        config_ = def_.space().config_from_json(c.config);
        captured_geometry_ = def_.geometry(config_, c.problem, rt.device());
    } catch (const std::exception& e) {
        throw CaptureError(fmt::format("capture of '{}': configuration {}: {}", def_.key(),
                                       c.config.dump(), e.what()));
    }
    // A capture loaded without verification may hold short data files.
    for (const CapturedArray& a : c.arrays) {
        if (a.device_before) continue; // in-process: sized when it was taken
        const bool written = a.has_data() && a.access != Access::in;
        if ((a.has_data() && a.before.size() != a.bytes()) ||
            (written && a.after.size() != a.bytes()))
            throw CaptureError(fmt::format("capture of '{}': array '{}' holds {} / {} bytes "
                                           "before / after, expected {}",
                                           def_.key(), a.name, a.before.size(), a.after.size(),
                                           a.bytes()));
    }
    const size_t n_arrays = c.arrays.size();
    buffers_.resize(n_arrays), pristine_.resize(n_arrays), reference_.resize(n_arrays);
    pointers_.assign(n_arrays, 0);
    partials_.assign(n_arrays, Partials::none);
    for (size_t n = 0; n < n_arrays; ++n) {
        const CapturedArray& a = c.arrays[n];
        partials_[n] = partials_of(def_.args(), a);
        if (a.null) continue;
        if (a.same_as >= 0) {
            pointers_[n] = buffers_[size_t(a.same_as)].get() + a.offset;
            continue;
        }
        // From the host, or copied on the device for an in-process capture.
        auto fill = [&](DeviceBuffer& b, const std::vector<char>& host,
                        const std::shared_ptr<DeviceBuffer>& device) {
            b = DeviceBuffer(a.bytes());
            if (device)
                Driver::get().copy_device(b.get(), device->get(), a.bytes());
            else
                b.upload(host.data());
        };
        fill(buffers_[n], a.before, a.device_before);
        pointers_[n] = buffers_[n].get() + a.offset;
        if (a.access == Access::in) continue;
        fill(pristine_[n], a.before, a.device_before);
        fill(reference_[n], a.after, a.device_after);
    }
    Driver::get().synchronize();
    for (const auto& s : c.structs) structs_.push_back(s.raw);
    for (size_t n = 0; n < n_arrays; ++n)
        if (c.arrays[n].member.parent >= 0)
            std::memcpy(structs_[size_t(c.arrays[n].member.parent)].data() +
                            c.arrays[n].member.offset,
                        &pointers_[n], sizeof(DevicePtr));
    for (auto [kind, idx] : c.order) {
        if (kind == ArgKind::scalar)
            params_.push_back(const_cast<char*>(c.scalars[idx].raw.data()));
        else if (kind == ArgKind::array)
            params_.push_back(&pointers_[idx]);
        else
            params_.push_back(structs_[idx].data());
    }
    result_ = DeviceBuffer(32);
}

uint64_t DeviceCapture::min_bytes() const {
    const auto& e = capture_->problem.extent;
    const uint64_t points = uint64_t(e[0]) * uint64_t(e[1]) * uint64_t(e[2]);
    uint64_t total = 0;
    for (const CapturedArray& a : capture_->arrays)
        if (a.has_data())
            total += std::min<uint64_t>(a.bytes(), points * dtype_size(a.dtype)) *
                     (a.access == Access::inout ? 2 : 1);
    return total;
}

void DeviceCapture::restore() {
    Driver& drv = Driver::get();
    for (size_t n = 0; n < pristine_.size(); ++n)
        if (pristine_[n].get())
            drv.copy_device(buffers_[n].get(), pristine_[n].get(), pristine_[n].size());
}

void DeviceCapture::launch(const KernelInstance& k, StreamHandle stream) {
    k.launch_args(stream, params_.data(), params_.size());
}

ReplayResult DeviceCapture::compare(const KernelInstance& k) {
    Driver& drv = Driver::get();
    ReplayResult result;
    for (size_t n = 0; n < capture_->arrays.size(); ++n) {
        const CapturedArray& a = capture_->arrays[n];
        if (!reference_[n].get()) continue;
        ReplayCheck r{a.name, a.count};
        r.partials = partials_[n];
        if (partials_[n] != Partials::none) {
            // Only the first grid-size entries are results, folded by the second pass.
            const uint64_t got_n = blocks(k.geometry()), ref_n = blocks(captured_geometry_);
            const size_t esize = dtype_size(a.dtype);
            if (a.offset + std::max(got_n, ref_n) * esize > a.bytes())
                throw CaptureError(fmt::format("capture of '{}': array '{}' holds fewer "
                                               "partial results than the grid has blocks",
                                               def_.key(), a.name));
            std::vector<char> got(got_n * esize);
            drv.download(got.data(), pointers_[n], got.size());
            const double x = fold_partials(got.data(), a.dtype, got_n, partials_[n]);
            const double y = fold_partials(a.after.data() + a.offset, a.dtype, ref_n, partials_[n]);
            r.count = 1;
            r.differing = std::memcmp(&x, &y, sizeof x) != 0;
            r.max_abs = std::isnan(x - y) ? INFINITY : std::abs(x - y);
            r.max_ref = std::abs(y);
            r.max_rel = y != 0 ? r.max_abs / std::abs(y) : r.max_abs;
            result.outputs.push_back(r);
            continue;
        }
        const bool real = a.dtype == DType::f32 || a.dtype == DType::f64;
        const KernelDef cdef = compare_def(a.dtype);
        const KernelInstance cmp =
            rt_->instantiate_candidate(cdef, ProblemSize(1), cdef.space().default_config());
        const unsigned long long count = real ? a.count : a.bytes();
        const DevicePtr got = buffers_[n].get(), want = reference_[n].get(), out = result_.get();
        drv.memset8(out, 0, 32);
        cmp.launch(nullptr, got, want, count, out);
        uint64_t h[4];
        drv.download(h, out, sizeof h);
        r.differing = h[0];
        r.max_abs = bits_to_double(h[1]) >= 1e300 ? INFINITY : bits_to_double(h[1]);
        r.max_ref = bits_to_double(h[2]);
        r.max_rel = bits_to_double(h[3]) >= 1e300 ? INFINITY : bits_to_double(h[3]);
        if (!real) r.max_abs = r.max_rel = r.max_ref = 0;
        result.outputs.push_back(r);
    }
    return result;
}

ReplayResult replay_capture(Runtime& rt, const Capture& c, const std::optional<Config>& config) {
    DeviceCapture dc(rt, c);
    const KernelInstance k =
        rt.instantiate(dc.def(), c.problem, config ? *config : dc.captured_config());
    dc.launch(k);
    Driver::get().synchronize();
    return dc.compare(k);
}

} // namespace squall::rt
