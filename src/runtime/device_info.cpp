#include "runtime/device_info.h"

#include <fmt/format.h>

#include <stdexcept>

namespace squall::rt {

DeviceInfo DeviceInfo::for_arch(const std::string& arch) {
    DeviceInfo d;
    int cc = 0;
    if (arch.rfind("sm_", 0) != 0 && arch.rfind("compute_", 0) != 0)
        throw std::invalid_argument("architecture must look like sm_90, got '" + arch + "'");
    cc = std::stoi(arch.substr(arch.find('_') + 1));
    d.name = "none (" + arch + ")";
    d.cc_major = cc / 10;
    d.cc_minor = cc % 10;
    if (cc < 90) { // pre-Hopper defaults
        d.max_shared_memory_per_block_optin = cc >= 80 ? 163 * 1024 : 96 * 1024;
        d.multiprocessor_count = 108;
        d.max_threads_per_multiprocessor = cc == 86 || cc == 89 ? 1536 : 2048;
        d.max_blocks_per_multiprocessor = cc >= 80 ? 32 : 16;
        d.l2_cache_size = 40 * 1024 * 1024;
    }
    return d;
}

const std::array<const char*, DeviceInfo::num_attributes>& DeviceInfo::attribute_names() {
    static const std::array<const char*, num_attributes> names = {
        "device.compute_capability",
        "device.max_threads_per_block",
        "device.max_shared_memory_per_block",
        "device.max_shared_memory_per_block_optin",
        "device.multiprocessor_count",
        "device.max_threads_per_multiprocessor",
        "device.max_blocks_per_multiprocessor",
        "device.max_registers_per_block",
        "device.warp_size",
        "device.l2_cache_size",
        "device.driver_version",
    };
    return names;
}

std::array<int64_t, DeviceInfo::num_attributes> DeviceInfo::attribute_values() const {
    return {compute_capability(),
            max_threads_per_block,
            max_shared_memory_per_block,
            max_shared_memory_per_block_optin,
            multiprocessor_count,
            max_threads_per_multiprocessor,
            max_blocks_per_multiprocessor,
            max_registers_per_block,
            warp_size,
            l2_cache_size,
            driver_version};
}

std::string ProblemSize::to_string() const {
    return fmt::format("{}x{}x{}", extent[0], extent[1], extent[2]);
}

} // namespace squall::rt
