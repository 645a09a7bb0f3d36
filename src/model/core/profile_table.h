#pragma once
// The SQUALL_PROFILE report of a run: time per kernel and per step, and its share of the
// time loop, from the GPU runtime's or the CPU backend's rows.
#include <string>
#include <vector>

#include "runtime/profile.h"

namespace squall {

// `rows` over `steps` steps of a loop that took `loop_seconds`; `device` names where they
// ran ("GPU" or "CPU"), `rest` what the untimed remainder holds.
std::string profile_table(const std::vector<rt::ProfileRow>& rows, double loop_seconds, long steps,
                          const std::string& device, const std::string& rest);

} // namespace squall
