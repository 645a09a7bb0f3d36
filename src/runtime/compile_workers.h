// NVRTC in worker processes. Many compile threads of one process may scale worse than
// the same compiles in separate processes (they share one address space, whose mappings
// NVRTC's large allocations change all the time); CompileWorkers runs each compile in a
// child process instead, one request at a time per child, over a socket pair.
//
// A worker is any executable that calls compile_worker_main(3) when started with the
// arguments given (squall: `squall compile-worker`). Each request carries the spec; the
// headers (SourceSet) go to a worker once and are then named by their hash. A worker found
// gone is started again and the request sent once more.
#pragma once

#include "runtime/compiler.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace squall::rt {

// A worker that could not be started or stopped answering: not a verdict on the program
// (a CompileError is), so a tune stops (and resumes later) rather than record a failure.
class CompileWorkerError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class CompileWorkers {
public:
    // `count` workers of `command` (argv; command[0] a path), started on first use.
    CompileWorkers(std::vector<std::string> command, unsigned count);
    ~CompileWorkers();
    CompileWorkers(const CompileWorkers&) = delete;
    CompileWorkers& operator=(const CompileWorkers&) = delete;

    // What nvrtc_compile(spec) returns, compiled in an idle worker (waits for one). A
    // worker found gone is started again and asked once more. Throws CompileError for the
    // program, CompileWorkerError for the worker. Destroy only when no call is running
    // (compile_now holds the installed set while it uses it).
    CompiledKernel compile(const CompileSpec& spec);

private:
    struct Worker;
    std::vector<std::string> command_;
    std::vector<std::unique_ptr<Worker>> workers_;
    std::vector<Worker*> idle_;
    std::mutex mutex_;
    std::condition_variable freed_;
    void start(Worker& w);
    std::optional<CompiledKernel> exchange(Worker& w, const CompileSpec& spec);
};

// The worker's side: answers requests on socket `fd` until it is closed (or after
// max_requests, for tests); returns 0 then.
int compile_worker_main(int fd, long max_requests = -1);

// The compiler behind every KernelCache of this process: nvrtc_compile, or the workers
// installed here (nullptr: back to nvrtc_compile).
void use_compile_workers(std::shared_ptr<CompileWorkers> workers);
CompiledKernel compile_now(const CompileSpec& spec);

} // namespace squall::rt
