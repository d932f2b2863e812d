// Planted: the launches differ from one run to the next. How often the kernel
// runs and its grid come from the clock, so two runs of the same command line
// launch different work: `gmlab explain --replay application` must refuse to
// join its runs (docs/explain.md, "Application replay") and count with kernel
// replay instead.
// Fixed: the same work every run; application replay joins the runs.
// The kernel adds to its data (it is not idempotent): each run checks that
// every launch ran exactly once, under either replay.
#include <chrono>

#include "example_common.cuh"

__global__ void accumulate(float *data, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += 1.0f;
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const auto ticks = static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
    const int launches = fixed ? 4 : 3 + static_cast<int>(ticks / 1000 % 4);
    const int blocks = fixed ? 4096 : 1024 * (1 + static_cast<int>(ticks / 7000 % 4));
    const int n = blocks * 256;
    float *data = nullptr;
    EX_CHECK(cudaMalloc(&data, sizeof(float) * n));
    EX_CHECK(cudaMemset(data, 0, sizeof(float) * n));
    for (int rep = 0; rep < launches; ++rep) accumulate<<<blocks, 256>>>(data, n);
    EX_CHECK(cudaGetLastError());
    float first = 0, last = 0;
    EX_CHECK(cudaMemcpy(&first, data, sizeof(float), cudaMemcpyDeviceToHost));
    EX_CHECK(cudaMemcpy(&last, data + n - 1, sizeof(float), cudaMemcpyDeviceToHost));
    expect_close(first, launches, "nondeterministic: first element");
    expect_close(last, launches, "nondeterministic: last element");
    EX_CHECK(cudaFree(data));
    std::printf("nondeterministic (%s): %d launches of %d blocks\n", fixed ? "fixed" : "planted", launches, blocks);
    return 0;
}
