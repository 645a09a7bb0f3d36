#pragma once
// One job at a time on a thread of its own, so that the time loop goes on while a sample
// reaches the disk (cross-sections: docs/output.md). run() waits for the job before it
// (rethrowing its failure), so a caller's buffers are free again once run() or wait()
// returns. Without a thread (`threaded` false, as when the HDF5 library is not
// thread-safe) run() does the job at once; its failure is still reported by the next
// run() or wait().
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace squall::io {

class BackgroundWriter {
public:
    explicit BackgroundWriter(bool threaded);
    ~BackgroundWriter(); // waits; a failure not yet reported is dropped
    BackgroundWriter(const BackgroundWriter&) = delete;
    BackgroundWriter& operator=(const BackgroundWriter&) = delete;

    // Waits for the job before (throwing its failure, if any), then starts `job`.
    void run(std::function<void()> job);
    // Waits for the job in flight; throws std::runtime_error with its failure's message.
    void wait();
    bool threaded() const { return threaded_; }

private:
    void loop();

    bool threaded_;
    std::mutex m_;
    std::condition_variable cv_;
    std::function<void()> job_;
    bool busy_ = false, stop_ = false;
    std::string error_; // the last job's failure, until wait() reports it
    std::thread thread_;
};

} // namespace squall::io
