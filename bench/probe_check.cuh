// What the standalone probes in bench/ share: every CUDA call checked, the
// probe ended with the call and the error where one fails; the median time of
// a launch, timed with CUDA events.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

// The median over `reps` timed launches of `launch()` (ms), after `warmup`
// untimed-for-the-median ones; `before()` runs ahead of each, outside the timing
// (an L2 flush, say).
template <class Before, class Launch> float median_launch_ms(int warmup, int reps, Before before, Launch launch) {
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    std::vector<float> ms;
    for (int r = 0; r < warmup + reps; ++r) {
        before();
        CHECK(cudaEventRecord(t0));
        launch();
        CHECK(cudaEventRecord(t1));
        CHECK(cudaEventSynchronize(t1));
        float m = 0;
        CHECK(cudaEventElapsedTime(&m, t0, t1));
        if (r >= warmup) ms.push_back(m);
    }
    CHECK(cudaEventDestroy(t0));
    CHECK(cudaEventDestroy(t1));
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}
