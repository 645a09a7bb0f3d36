// Replay of a capture (capture.h): the launch it recorded, run again on this runtime's
// device from the saved inputs, its outputs compared with the saved ones. The tuner's
// unit of work, and the check that a capture holds everything its kernel touches.
#pragma once

#include "runtime/capture.h"
#include "runtime/runtime.h"

#include <optional>
#include <string>
#include <vector>

namespace squall::rt {

// One written array compared with the capture's "after" contents.
struct ReplayCheck {
    std::string name;
    uint64_t count = 0;     // elements compared
    uint64_t differing = 0; // elements whose bytes differ
    double max_abs = 0;     // floating types: largest |replayed - captured| (inf: a NaN)
    double max_rel = 0;     // ... relative to |captured| (absolute where it is 0)
    double max_ref = 0;     // largest |captured| (for a deviation relative to the array)
    Partials partials = Partials::none; // compared through their sum or maximum only
};

struct ReplayResult {
    std::vector<ReplayCheck> outputs;
    bool identical() const {
        for (const auto& o : outputs)
            if (o.differing) return false;
        return true;
    }
    // Largest max_abs / max_ref over the outputs (0 when identical).
    double deviation() const;
};

// A capture's arrays on the device, for launching its kernel again and again: the saved
// inputs (arrays saved once for two aliased arguments stay aliased; null stays null), a
// copy of every written array as it was before the launch, and the reference outputs,
// compared on the device.
class DeviceCapture {
public:
    // Throws CaptureError when the capture cannot be replayed (short data files, a
    // captured configuration invalid here) and NoDeviceError without a device.
    DeviceCapture(Runtime& rt, const Capture& c);

    const Capture& capture() const { return *capture_; }
    const KernelDef& def() const { return def_; }
    const Config& captured_config() const { return config_; }
    // An estimate of the bytes a launch must move: each saved array read or written once
    // (updated ones both) over the problem's points, or over the whole array when it is
    // smaller (a profile, a plane).
    uint64_t min_bytes() const;

    // Written arrays back to their contents before the launch.
    void restore();
    // Launches k (an instance of def() at the capture's problem) on the saved arguments.
    void launch(const KernelInstance& k, StreamHandle stream = nullptr);
    // Compares every written array with the reference, after launch(k) and a sync.
    ReplayResult compare(const KernelInstance& k);

private:
    Runtime* rt_;
    const Capture* capture_;
    KernelDef def_;
    Config config_;
    LaunchGeometry captured_geometry_;
    std::vector<DeviceBuffer> buffers_, pristine_, reference_;
    std::vector<DevicePtr> pointers_;
    std::vector<std::vector<char>> structs_;
    std::vector<void*> params_;
    std::vector<Partials> partials_;
    DeviceBuffer result_; // the compare kernel's four counters
};

// A 64-bit hash of `bytes` at p on rt's device, computed there (in-process captures'
// arrays; not hash64's value).
uint64_t device_hash(Runtime& rt, DevicePtr p, size_t bytes);

// Runs the capture's kernel once with `config` (default: the captured one) on a fresh
// DeviceCapture and compares every written array.
ReplayResult replay_capture(Runtime& rt, const Capture& c,
                            const std::optional<Config>& config = std::nullopt);

} // namespace squall::rt
