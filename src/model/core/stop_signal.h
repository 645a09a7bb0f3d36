#pragma once
// SIGTERM and SIGINT during a run: the first one only sets a flag that the time loop reads
// at the end of a step (it then writes a checkpoint and stops); the handlers are reset to
// the default at once, so a second signal ends the process immediately.
namespace squall {

void install_stop_handlers();           // SIGTERM and SIGINT
void remove_stop_handlers();            // back to the default actions; clears the flag
int stop_signal();                      // the signal received (0: none)
const char* stop_signal_name(int sig);  // "SIGTERM", "SIGINT"
void request_stop_for_testing(int sig); // as if sig had arrived

} // namespace squall
