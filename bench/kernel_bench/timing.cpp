// The non-template part of timing.h, compiled once.
#include "bench/kernel_bench/timing.h"

#include <algorithm>
#include <vector>

namespace squall::kernel_bench {

double median_ms(const std::function<void()>& launch, int reps) {
    auto& drv = rt::Driver::get();
    for (int w = 0; w < 3; ++w) launch();
    void* e0 = drv.event_create();
    void* e1 = drv.event_create();
    std::vector<double> t;
    for (int n = 0; n < reps; ++n) {
        drv.event_record(e0, nullptr);
        launch();
        drv.event_record(e1, nullptr);
        drv.event_synchronize(e1);
        t.push_back(drv.event_elapsed_ms(e0, e1));
    }
    drv.event_destroy(e0);
    drv.event_destroy(e1);
    std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
    return t[size_t(reps / 2)];
}

} // namespace squall::kernel_bench
