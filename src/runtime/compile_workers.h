// NVRTC in worker processes. Many compile threads of one process may scale worse than
// the same compiles in separate processes (they share one address space, whose mappings
// NVRTC's large allocations change all the time); CompileWorkers runs each compile in a
// child process instead, one request at a time per child, over a socket pair.
//
// A worker is any executable that calls compile_worker_main(3) when started with the
// arguments given (squall: `squall compile-worker`). Each request carries the spec; the
// headers (SourceSet) go to a worker once and are then named by their hash. A worker that
// dies fails its request with a CompileError and is started again for the next one.
#pragma once

#include "runtime/compiler.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace squall::rt {

class CompileWorkers {
public:
    // `count` workers of `command` (argv; command[0] a path), started on first use.
    CompileWorkers(std::vector<std::string> command, unsigned count);
    ~CompileWorkers();
    CompileWorkers(const CompileWorkers&) = delete;
    CompileWorkers& operator=(const CompileWorkers&) = delete;

    // What nvrtc_compile(spec) returns, compiled in an idle worker (waits for one).
    CompiledKernel compile(const CompileSpec& spec);
    unsigned count() const { return unsigned(workers_.size()); }

private:
    struct Worker;
    std::vector<std::string> command_;
    std::vector<std::unique_ptr<Worker>> workers_;
    std::vector<Worker*> idle_;
    std::mutex mutex_;
    std::condition_variable freed_;
    void start(Worker& w);
};

// The worker's side: answers requests on socket `fd` until it is closed; returns 0 then.
int compile_worker_main(int fd);

// The compiler behind every KernelCache of this process: nvrtc_compile, or the workers
// installed here (nullptr: back to nvrtc_compile).
void use_compile_workers(std::shared_ptr<CompileWorkers> workers);
CompiledKernel compile_now(const CompileSpec& spec);

} // namespace squall::rt
