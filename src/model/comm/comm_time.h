#pragma once
// Wall time this rank spends moving data to other ranks, by kind: the halo exchanges'
// transfers and the pressure transposes' block exchanges. A transfer is the part between
// packing and unpacking: host staging copies, MPI calls and their waits, or the device to
// device copies and barriers of DeviceExchange. Local copies (one rank along a direction)
// and the pack/unpack kernels are not transfers. On the GPU the caller drains the device
// work queued before a transfer first, so that kernels still running are not counted.
// The totals only read a clock; they change no result. Model::run resets them at the
// start of its loop and prints them per step at the end.
#include <array>
#include <chrono>

namespace squall {

enum class CommKind { halo = 0, transpose = 1 };

class CommTime {
public:
    static void reset() { seconds_ = {0, 0}; }
    static double seconds(CommKind k) { return seconds_[std::size_t(k)]; }

    // Adds the wall time from construction to destruction to kind k.
    class Scope {
    public:
        explicit Scope(CommKind k) : kind_(k), start_(clock::now()) {}
        ~Scope() {
            seconds_[std::size_t(kind_)] +=
                std::chrono::duration<double>(clock::now() - start_).count();
        }
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        using clock = std::chrono::steady_clock;
        CommKind kind_;
        clock::time_point start_;
    };

private:
    // One process is one rank, so process-wide totals are this rank's.
    static inline std::array<double, 2> seconds_{0, 0};
};

} // namespace squall
