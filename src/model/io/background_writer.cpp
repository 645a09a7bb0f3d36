#include "model/io/background_writer.h"

#include <stdexcept>

namespace squall::io {

BackgroundWriter::BackgroundWriter(bool threaded) : threaded_(threaded) {
    if (threaded_) thread_ = std::thread([this] { loop(); });
}

BackgroundWriter::~BackgroundWriter() {
    if (!threaded_) return;
    {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return !busy_; });
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void BackgroundWriter::run(std::function<void()> job) {
    wait();
    if (!threaded_) { // at once, its failure reported as a background one would be
        try {
            job();
        } catch (const std::exception& e) {
            std::lock_guard lock(m_);
            error_ = e.what();
        }
        return;
    }
    {
        std::lock_guard lock(m_);
        job_ = std::move(job);
        busy_ = true;
    }
    cv_.notify_all();
}

void BackgroundWriter::wait() {
    std::string error;
    {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return !busy_; });
        error.swap(error_);
    }
    if (!error.empty()) throw std::runtime_error(error);
}

void BackgroundWriter::loop() {
    std::unique_lock lock(m_);
    for (;;) {
        cv_.wait(lock, [&] { return busy_ || stop_; });
        if (!busy_) return; // stopped with nothing left to do
        std::function<void()> job = std::move(job_);
        lock.unlock();
        std::string error;
        try {
            job();
        } catch (const std::exception& e) {
            error = e.what();
        }
        lock.lock();
        error_ = std::move(error);
        busy_ = false;
        cv_.notify_all();
    }
}

} // namespace squall::io
