// A compile worker for the tests (squall's own is `squall compile-worker`).
#include "runtime/compile_workers.h"

int main() {
    return squall::rt::compile_worker_main(3);
}
