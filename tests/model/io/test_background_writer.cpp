// io::BackgroundWriter: a job runs while the caller goes on, run() and wait() return only
// once the job before is done, and a job's failure is reported once, by the next run() or
// wait(), without a thread as with one.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "model/io/background_writer.h"

using squall::io::BackgroundWriter;

TEST(BackgroundWriter, TheJobRunsWhileTheCallerGoesOn) {
    BackgroundWriter w(true);
    std::atomic<bool> release{false}, done{false};
    w.run([&] {
        // At most 2 s: a run() that did the job itself would come back with it done.
        for (int n = 0; n < 2000 && !release; ++n)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        done = true;
    });
    // run() returned with the job still waiting for the caller.
    EXPECT_FALSE(done);
    release = true;
    w.wait();
    EXPECT_TRUE(done);
}

TEST(BackgroundWriter, RunWaitsForTheJobBefore) {
    BackgroundWriter w(true);
    std::atomic<int> order{0};
    int first = -1, second = -1;
    w.run([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        first = order++;
    });
    w.run([&] { second = order++; });
    w.wait();
    EXPECT_EQ(first, 0);
    EXPECT_EQ(second, 1);
}

void failure_is_reported_once(bool threaded) {
    BackgroundWriter w(threaded);
    w.run([] { throw std::runtime_error("disk full"); });
    try {
        w.wait();
        ADD_FAILURE() << "no failure reported";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "disk full");
    }
    EXPECT_NO_THROW(w.wait()); // reported once
    // A failure not yet reported stops the next job from starting.
    bool ran = false;
    w.run([] { throw std::runtime_error("again"); });
    EXPECT_THROW(w.run([&] { ran = true; }), std::runtime_error);
    EXPECT_FALSE(ran);
}

TEST(BackgroundWriter, FailureIsReportedOnceWithAThread) {
    failure_is_reported_once(true);
}

TEST(BackgroundWriter, FailureIsReportedOnceWithoutAThread) {
    failure_is_reported_once(false);
}

TEST(BackgroundWriter, WithoutAThreadTheJobIsDoneAtOnce) {
    BackgroundWriter w(false);
    bool done = false;
    w.run([&] { done = true; });
    EXPECT_TRUE(done);
    EXPECT_FALSE(w.threaded());
}
