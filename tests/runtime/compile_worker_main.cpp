// A compile worker for the tests (squall's own is `squall compile-worker`); with
// SQUALL_TEST_WORKER_REQUESTS=N it exits after answering N requests.
#include "runtime/compile_workers.h"

#include <cstdlib>

int main() {
    const char* n = std::getenv("SQUALL_TEST_WORKER_REQUESTS");
    return squall::rt::compile_worker_main(3, n ? std::atol(n) : -1);
}
