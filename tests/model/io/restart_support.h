#pragma once
// Shared by the restart and checkpoint tests: a scratch directory for the process group,
// sub-communicators of the first n ranks, rank 0 of MPI_COMM_WORLD, and checkpoint writes
// made to fail.
#include <gtest/gtest.h>
#include <mpi.h>
#include <stdlib.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "model/io/checkpoint.h"
#include "tests/support/model_run.h"

namespace squall::test {

// A shared scratch directory for the checkpoints and statistics of this process group.
inline std::string scratch_dir() {
    static std::string dir;
    if (dir.empty()) {
        char name[64] = {};
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0) {
            std::snprintf(name, sizeof name, "/tmp/squall_restart_XXXXXX");
            if (!mkdtemp(name)) name[0] = 0;
        }
        MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
        dir = name;
    }
    return dir;
}

// The first nranks ranks of MPI_COMM_WORLD (collective; MPI_COMM_NULL on the others).
inline MPI_Comm sub_comm(int nranks) {
    scratch_dir(); // collective on first use: every rank passes here
    return first_ranks(nranks);
}

inline bool rank0() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank == 0;
}

inline std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct FailedWrites {
    int failures = 0;
    bool written = false;
};

// Makes model.write_checkpoint() fail at every `stride`-th checked HDF5 call in turn (as a
// full disk would) until the calls run out and a write succeeds. Every failed write must
// throw an error naming `good` and, where `compare` (ranks that read the file), leave `good`
// as `before`; after_attempt() runs after each write.
template <typename Model, typename AfterAttempt>
FailedWrites fail_writes_in_turn(Model& model, long stride, const std::string& good,
                                 const std::string& before, bool compare,
                                 AfterAttempt&& after_attempt) {
    FailedWrites r;
    for (long n = 1; n < 1000 && !r.written; n += stride) {
        io::fail_hdf5_call_for_testing(n);
        try {
            model.write_checkpoint();
            r.written = true;
        } catch (const io::CheckpointError& e) {
            ++r.failures;
            EXPECT_NE(std::string(e.what()).find(good), std::string::npos) << e.what();
        }
        io::fail_hdf5_call_for_testing(0);
        if (compare && !r.written) {
            EXPECT_EQ(read_bytes(good), before)
                << "a write failing at call " << n << " changed " << good;
        }
        after_attempt();
    }
    return r;
}

} // namespace squall::test
