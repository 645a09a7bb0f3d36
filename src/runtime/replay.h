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
    double max_abs = 0;     // floating types: largest |replayed - captured|
    double max_rel = 0;     // ... relative to |captured| (absolute where it is 0)
};

struct ReplayResult {
    std::vector<ReplayCheck> outputs;
    bool identical() const {
        for (const auto& o : outputs)
            if (o.differing) return false;
        return true;
    }
};

// Uploads the capture's arrays into fresh buffers (arrays saved once for two aliased
// arguments stay aliased; null stays null), builds its struct arguments with the new
// pointers, launches the kernel once with `config` (default: the captured one) and
// compares every written array. Throws CaptureError when the capture cannot be
// replayed (a configuration invalid here) and NoDeviceError without a device.
ReplayResult replay_capture(Runtime& rt, const Capture& c,
                            const std::optional<Config>& config = std::nullopt);

} // namespace squall::rt
