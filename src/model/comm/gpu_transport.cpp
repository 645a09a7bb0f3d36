#include "model/comm/gpu_transport.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>

#include "model/comm/nccl_library.h"
#include "runtime/log.h"

namespace squall {

const char* transport_name(GpuTransport t) {
    switch (t) {
    case GpuTransport::nccl:
        return "NCCL";
    case GpuTransport::ipc:
        return "CUDA IPC";
    case GpuTransport::staged:
        break;
    }
    return "staged MPI";
}

TransportSetting parse_transport_setting(std::string_view text) {
    if (text.empty() || text == "auto") return TransportSetting::automatic;
    if (text == "nccl") return TransportSetting::nccl;
    if (text == "ipc") return TransportSetting::ipc;
    if (text == "staged") return TransportSetting::staged;
    throw std::invalid_argument(fmt::format(
        "SQUALL_GPU_TRANSPORT={}: expected auto, nccl, ipc or staged", std::string(text)));
}

namespace {

// Why NCCL cannot be used; empty when it can.
std::string nccl_problem(const TransportInputs& in) {
    if (!in.nccl_loaded) return in.nccl_missing.empty() ? "NCCL not found" : in.nccl_missing;
    const std::vector<std::string>& ids = in.device_ids;
    for (std::size_t a = 0; a < ids.size(); ++a) {
        if (ids[a].empty()) return fmt::format("NCCL: the GPU of rank {} is unknown", a);
        for (std::size_t b = 0; b < a; ++b)
            if (ids[a] == ids[b])
                return fmt::format("NCCL: ranks {} and {} share GPU {} (NCCL needs one GPU per "
                                   "rank)",
                                   b, a, ids[a]);
    }
    return "";
}

// Why CUDA IPC cannot be used; empty when it can.
std::string ipc_problem(const TransportInputs& in) {
    if (in.nodes > 1) return fmt::format("CUDA IPC: ranks on {} nodes", in.nodes);
    if (!in.ipc_failure.empty()) return "CUDA IPC failed: " + in.ipc_failure;
    return "";
}

std::string nccl_line(const TransportInputs& in) {
    return fmt::format("GPU transport: NCCL {} ({} ranks on {} node{})", in.nccl_version,
                       in.device_ids.size(), in.nodes, in.nodes == 1 ? "" : "s");
}

} // namespace

TransportChoice choose_gpu_transport(const TransportInputs& in) {
    const std::string no_nccl = nccl_problem(in), no_ipc = ipc_problem(in);
    switch (in.setting) {
    case TransportSetting::staged:
        return {GpuTransport::staged,
                "GPU transport: staged MPI through host memory (SQUALL_GPU_TRANSPORT=staged)"};
    case TransportSetting::nccl:
        if (!no_nccl.empty())
            throw std::runtime_error("SQUALL_GPU_TRANSPORT=nccl, but NCCL cannot be used: " +
                                     no_nccl);
        return {GpuTransport::nccl, nccl_line(in)};
    case TransportSetting::ipc:
        if (!no_ipc.empty()) throw std::runtime_error("SQUALL_GPU_TRANSPORT=ipc, but " + no_ipc);
        return {GpuTransport::ipc, "GPU transport: CUDA IPC (SQUALL_GPU_TRANSPORT=ipc)"};
    case TransportSetting::automatic:
        break;
    }
    if (in.gpu_direct_off)
        return {GpuTransport::staged,
                "GPU transport: staged MPI through host memory (SQUALL_GPU_DIRECT=0)"};
    if (no_nccl.empty()) return {GpuTransport::nccl, nccl_line(in)};
    if (no_ipc.empty()) return {GpuTransport::ipc, "GPU transport: CUDA IPC (" + no_nccl + ")"};
    return {GpuTransport::staged,
            "GPU transport: staged MPI through host memory (" + no_nccl + "; " + no_ipc + ")"};
}

namespace {

// The UUID of the current context's device, through the driver the runtime has already
// loaded (RTLD_NOLOAD: no second copy); "" when unknown. The runtime's Driver does not
// expose the device's identity, hence the two symbols looked up here.
std::string current_device_uuid() {
    const char* override_path = std::getenv("SQUALL_CUDA_DRIVER");
    const char* path = override_path && *override_path ? override_path : "libcuda.so.1";
    void* h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (!h) return "";
    // CUresult cuCtxGetDevice(CUdevice*); CUresult cuDeviceGetUuid_v2(CUuuid*, CUdevice):
    // CUresult is an int-sized enum, CUdevice an int, CUuuid 16 bytes.
    using GetDevice = int (*)(int*);
    using GetUuid = int (*)(unsigned char*, int);
    auto get_device = reinterpret_cast<GetDevice>(dlsym(h, "cuCtxGetDevice"));
    auto get_uuid = reinterpret_cast<GetUuid>(dlsym(h, "cuDeviceGetUuid_v2"));
    if (!get_uuid) get_uuid = reinterpret_cast<GetUuid>(dlsym(h, "cuDeviceGetUuid"));
    std::string id;
    int dev = 0;
    unsigned char uuid[16] = {};
    if (get_device && get_uuid && get_device(&dev) == 0 && get_uuid(uuid, dev) == 0)
        for (unsigned char c : uuid) id += fmt::format("{:02x}", c);
    dlclose(h); // drops only the reference taken above
    return id;
}

} // namespace

TransportInputs gather_transport_inputs(MPI_Comm comm) {
    int nranks = 1;
    MPI_Comm_size(comm, &nranks);
    TransportInputs in;

    // The setting: every rank must read the same one (codes 0-3, -1 for an invalid one).
    const char* env = std::getenv("SQUALL_GPU_TRANSPORT");
    int code = -1;
    std::string parse_error;
    try {
        in.setting = parse_transport_setting(env ? env : "");
        code = int(in.setting);
    } catch (const std::invalid_argument& e) {
        parse_error = e.what();
    }
    int lo = 0, hi = 0;
    MPI_Allreduce(&code, &lo, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&code, &hi, 1, MPI_INT, MPI_MAX, comm);
    if (!parse_error.empty()) throw std::runtime_error(parse_error);
    if (lo < 0) throw std::runtime_error("SQUALL_GPU_TRANSPORT is invalid on another rank");
    if (lo != hi) throw std::runtime_error("SQUALL_GPU_TRANSPORT differs between the ranks");

    const char* direct = std::getenv("SQUALL_GPU_DIRECT");
    int off = direct && std::strcmp(direct, "0") == 0 ? 1 : 0, any_off = 0;
    MPI_Allreduce(&off, &any_off, 1, MPI_INT, MPI_MAX, comm);
    in.gpu_direct_off = any_off == 1;

    // NCCL is loaded (a large library) only when it may be chosen.
    const bool may_use_nccl = in.setting == TransportSetting::nccl ||
                              (in.setting == TransportSetting::automatic && !in.gpu_direct_off);
    int loaded = 0, all_loaded = 0;
    if (may_use_nccl) {
        const nccl::Library& lib = nccl::Library::get();
        loaded = lib.available() ? 1 : 0;
        in.nccl_missing = lib.available() ? "NCCL not found on another rank" : lib.error();
        in.nccl_version = lib.version_string();
    } else {
        in.nccl_missing = "NCCL not tried";
    }
    MPI_Allreduce(&loaded, &all_loaded, 1, MPI_INT, MPI_MIN, comm);
    in.nccl_loaded = all_loaded == 1;

    std::array<char, 40> mine{};
    const std::string uuid = current_device_uuid();
    std::strncpy(mine.data(), uuid.c_str(), mine.size() - 1);
    std::vector<std::array<char, 40>> all(static_cast<std::size_t>(nranks));
    MPI_Allgather(mine.data(), int(mine.size()), MPI_CHAR, all.data(), int(mine.size()), MPI_CHAR,
                  comm);
    for (const auto& a : all) in.device_ids.emplace_back(a.data());

    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int node_rank = 0, leaders = 0;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_free(&node);
    const int leader = node_rank == 0 ? 1 : 0;
    MPI_Allreduce(&leader, &leaders, 1, MPI_INT, MPI_SUM, comm);
    in.nodes = leaders;
    return in;
}

void log_transport_choice(const TransportChoice& c, bool failed) {
    int world_rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    if (world_rank != 0) return;
    static std::mutex m;
    static std::set<std::string> logged;
    const std::lock_guard<std::mutex> lock(m);
    if (!logged.insert(c.line).second) return;
    if (failed)
        rt::log_warn("{}", c.line);
    else
        rt::log_info("{}", c.line);
}

} // namespace squall
