// The stop flag and its signal handler (async-signal-safe: one sig_atomic_t store and
// signal() calls only).
#include "model/core/stop_signal.h"

#include <csignal>

namespace squall {

namespace {
volatile std::sig_atomic_t received = 0;

extern "C" void on_stop_signal(int sig) {
    received = sig;
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGINT, SIG_DFL);
}
} // namespace

void install_stop_handlers() {
    received = 0;
    std::signal(SIGTERM, on_stop_signal);
    std::signal(SIGINT, on_stop_signal);
}

void remove_stop_handlers() {
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGINT, SIG_DFL);
    received = 0;
}

int stop_signal() {
    return received;
}

const char* stop_signal_name(int sig) {
    return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "signal";
}

void request_stop_for_testing(int sig) {
    received = sig;
}

} // namespace squall
