// DeviceExchange on the GPU (label gpu, several ranks): the halo round (two neighbours,
// the same one when there are two ranks) and the transpose round (every rank) deliver
// every byte to its place, several rounds in a row, over the transport `auto` picks and
// over each explicit one, on the default stream and on the exchange's own. The blocks
// reach the send buffer by a device copy on the default stream just before begin(), so
// transfers that do not wait for it send stale bytes. SQUALL_GPU_TRANSPORT=nccl where ranks share a
// GPU must fail on every rank with the reason. Skips without a GPU (fails with
// SQUALL_REQUIRE_GPU=1).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <vector>

#include "model/comm/device_exchange.h"
#include "model/comm/nccl_library.h"
#include "runtime/driver.h"
#include "tests/support/gpu_required.h"

using squall::DeviceExchange;
using squall::GpuTransport;
namespace rt = squall::rt;

namespace {

int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}
int world_size() {
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

// The value at i of block b that rank r sends in round k: distinct for every tuple.
uint32_t value(int r, int b, int k, std::size_t i) {
    return uint32_t(r) << 24 ^ uint32_t(b) << 16 ^ uint32_t(k) << 12 ^ uint32_t(i);
}

// Opens this rank's GPU as the model does (ranks of a node on consecutive devices);
// false when there is none.
bool open_gpu(std::string& why) {
    rt::Driver& drv = rt::Driver::get();
    if (!drv.available()) {
        why = drv.error();
        return false;
    }
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int local = 0;
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    drv.open_device(local % drv.device_count());
    return true;
}

// Whether every rank has a GPU of its own (all on one node here).
bool one_gpu_per_rank() {
    return rt::Driver::get().device_count() >= world_size();
}

class ScopedTransport {
public:
    explicit ScopedTransport(const char* v) { setenv("SQUALL_GPU_TRANSPORT", v, 1); }
    ~ScopedTransport() { unsetenv("SQUALL_GPU_TRANSPORT"); }
};

constexpr std::size_t n = 1000; // values per block: not a multiple of any packet size

// Halo round: my high block to hi (its low half), my low block to lo (its high half).
void halo_rounds(const DeviceExchange& ex, rt::DevicePtr recv) {
    const int me = world_rank(), np = world_size();
    const int lo = (me + np - 1) % np, hi = (me + 1) % np;
    const std::size_t bytes = n * sizeof(uint32_t);
    rt::DeviceBuffer send(2 * bytes), staged(2 * bytes);
    for (int k = 0; k < 3; ++k) {
        std::vector<uint32_t> s(2 * n), r(2 * n, 0);
        for (std::size_t i = 0; i < n; ++i)
            s[i] = value(me, 0, k, i), s[n + i] = value(me, 1, k, i);
        staged.upload(s.data());
        rt::Driver::get().copy_device(send.get(), staged.get(), 2 * bytes);
        ex.begin();
        ex.put(hi, send.get() + bytes, 0, bytes);
        ex.put(lo, send.get(), bytes, bytes);
        ex.get(lo, 0, bytes);
        ex.get(hi, bytes, bytes);
        ex.flush(); // as Halo::start does (the transpose rounds leave it to end())
        ex.end();
        rt::Driver::get().download(r.data(), recv, 2 * bytes);
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(r[i], value(lo, 1, k, i)) << "low half from rank " << lo << ", round " << k;
            ASSERT_EQ(r[n + i], value(hi, 0, k, i)) << "high half from rank " << hi;
        }
    }
}

// Transpose round: block q of my send buffer to rank q, block q of recv from rank q.
void transpose_rounds(const DeviceExchange& ex, rt::DevicePtr recv) {
    const int me = world_rank(), np = world_size();
    const std::size_t blk = n * sizeof(uint32_t);
    rt::DeviceBuffer send(np * blk), staged(np * blk);
    for (int k = 0; k < 3; ++k) {
        std::vector<uint32_t> s(np * n), r(np * n, 0);
        for (int q = 0; q < np; ++q)
            for (std::size_t i = 0; i < n; ++i) s[q * n + i] = value(me, q, k, i);
        staged.upload(s.data());
        rt::Driver::get().copy_device(send.get(), staged.get(), np * blk);
        ex.begin();
        for (int q = 0; q < np; ++q)
            if (q != me) {
                ex.put(q, send.get() + q * blk, me * blk, blk);
                ex.get(q, q * blk, blk);
            }
        ex.end();
        rt::Driver::get().download(r.data(), recv, np * blk);
        for (int q = 0; q < np; ++q)
            for (std::size_t i = 0; i < n && q != me; ++i)
                ASSERT_EQ(r[q * n + i], value(q, me, k, i)) << "block from rank " << q;
    }
}

void check_transport(const char* setting, GpuTransport expected) {
    const ScopedTransport env(setting);
    const std::size_t bytes = std::size_t(world_size()) * n * sizeof(uint32_t);
    rt::DeviceBuffer recv(bytes);
    const DeviceExchange ex(MPI_COMM_WORLD, recv.get());
    std::cout << "rank " << world_rank() << ", SQUALL_GPU_TRANSPORT=" << setting << ": "
              << ex.reason() << "\n";
    ASSERT_EQ(ex.transport(), expected) << ex.reason();
    halo_rounds(ex, recv.get());
    transpose_rounds(ex, recv.get());
    const DeviceExchange own(MPI_COMM_WORLD, recv.get(), DeviceExchange::OwnStream{});
    ASSERT_EQ(own.transport(), expected) << own.reason();
    halo_rounds(own, recv.get());
    transpose_rounds(own, recv.get());
}

} // namespace

TEST(DeviceExchangeGpu, EveryTransportDeliversEveryBlock) {
    std::string why;
    SQUALL_NEED_GPU(open_gpu(why), why);
    const bool own = one_gpu_per_rank();
    const bool nccl = own && squall::nccl::Library::get().available();
    check_transport("auto", nccl ? GpuTransport::nccl : GpuTransport::ipc);
    check_transport("ipc", GpuTransport::ipc);
    if (nccl) check_transport("nccl", GpuTransport::nccl);
}

TEST(DeviceExchangeGpu, ExplicitNcclOnASharedGpuFailsOnEveryRank) {
    std::string why;
    SQUALL_NEED_GPU(open_gpu(why), why);
    if (one_gpu_per_rank()) GTEST_SKIP() << "every rank has a GPU of its own";
    const ScopedTransport env("nccl");
    rt::DeviceBuffer recv(n * sizeof(uint32_t));
    try {
        const DeviceExchange ex(MPI_COMM_WORLD, recv.get());
        ADD_FAILURE() << "NCCL accepted ranks sharing a GPU: " << ex.reason();
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("share GPU"), std::string::npos) << e.what();
    }
}
