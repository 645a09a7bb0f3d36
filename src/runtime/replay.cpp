#include "runtime/replay.h"

#include "runtime/driver.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

namespace squall::rt {

namespace {

template <class T>
void compare_values(const char* got, const char* want, uint64_t n, ReplayCheck& r) {
    for (uint64_t i = 0; i < n; ++i) {
        T a, b;
        std::memcpy(&a, got + i * sizeof(T), sizeof(T));
        std::memcpy(&b, want + i * sizeof(T), sizeof(T));
        if (std::memcmp(&a, &b, sizeof(T)) == 0) continue;
        ++r.differing;
        const double d = std::abs(double(a) - double(b));
        r.max_abs = std::max(r.max_abs, d);
        r.max_rel = std::max(r.max_rel, b != T(0) ? d / std::abs(double(b)) : d);
    }
}

ReplayCheck compare(const CapturedArray& a, const std::vector<char>& got) {
    ReplayCheck r{a.name, a.count};
    if (a.dtype == DType::f64)
        compare_values<double>(got.data(), a.after.data(), a.count, r);
    else if (a.dtype == DType::f32)
        compare_values<float>(got.data(), a.after.data(), a.count, r);
    else
        for (uint64_t i = 0; i < a.count; ++i)
            r.differing +=
                std::memcmp(got.data() + i * dtype_size(a.dtype),
                            a.after.data() + i * dtype_size(a.dtype), dtype_size(a.dtype)) != 0;
    if (std::isnan(r.max_abs)) r.max_abs = r.max_rel = INFINITY;
    return r;
}

} // namespace

ReplayResult replay_capture(Runtime& rt, const Capture& c, const std::optional<Config>& config) {
    const KernelDef def = c.kernel_def();
    Config cfg;
    try {
        cfg = config ? *config : def.space().config_from_json(c.config);
    } catch (const std::exception& e) {
        throw CaptureError(fmt::format("capture of '{}': configuration {}: {}", def.key(),
                                       c.config.dump(), e.what()));
    }
    // A capture loaded without verification may hold short data files.
    for (const CapturedArray& a : c.arrays) {
        const bool written = a.has_data() && a.access != Access::in;
        if ((a.has_data() && a.before.size() != a.bytes()) ||
            (written && a.after.size() != a.bytes()))
            throw CaptureError(fmt::format("capture of '{}': array '{}' holds {} / {} bytes "
                                           "before / after, expected {}",
                                           def.key(), a.name, a.before.size(), a.after.size(),
                                           a.bytes()));
    }
    KernelInstance k = rt.instantiate(def, c.problem, cfg);

    // Device copies of the saved arrays; pointer values as the kernel gets them.
    std::vector<DeviceBuffer> buffers(c.arrays.size());
    std::vector<DevicePtr> pointers(c.arrays.size(), 0);
    for (size_t n = 0; n < c.arrays.size(); ++n) {
        const CapturedArray& a = c.arrays[n];
        if (a.null) continue;
        if (a.same_as >= 0) {
            pointers[n] = buffers[size_t(a.same_as)].get() + a.offset;
            continue;
        }
        buffers[n] = DeviceBuffer(a.bytes());
        buffers[n].upload(a.before.data());
        pointers[n] = buffers[n].get() + a.offset;
    }
    std::vector<std::vector<char>> structs;
    for (const auto& s : c.structs) structs.push_back(s.raw);
    for (size_t n = 0; n < c.arrays.size(); ++n)
        if (c.arrays[n].member.parent >= 0)
            std::memcpy(structs[size_t(c.arrays[n].member.parent)].data() +
                            c.arrays[n].member.offset,
                        &pointers[n], sizeof(DevicePtr));
    std::vector<void*> params;
    for (auto [kind, idx] : c.order) {
        if (kind == ArgKind::scalar)
            params.push_back(const_cast<char*>(c.scalars[idx].raw.data()));
        else if (kind == ArgKind::array)
            params.push_back(&pointers[idx]);
        else
            params.push_back(structs[idx].data());
    }
    k.launch_args(nullptr, params.data(), params.size());
    Driver::get().synchronize();

    ReplayResult result;
    for (size_t n = 0; n < c.arrays.size(); ++n) {
        const CapturedArray& a = c.arrays[n];
        if (!a.has_data() || a.access == Access::in) continue;
        std::vector<char> got(a.bytes());
        buffers[n].download(got.data());
        result.outputs.push_back(compare(a, got));
    }
    return result;
}

} // namespace squall::rt
