// A plain reference for gmlab's pinned transfer figures: a loop of synchronous
// cudaMemcpy between a pinned host buffer and a device buffer, each call timed
// on the host with a steady clock; prints the median bandwidth per size and
// direction. Built by bench/transfers.sh with nvcc; independent of libgmlab.
//   transfer_reference SIZE_BYTES... (default 268435456 1073741824)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                                             \
    do {                                                                                        \
        cudaError_t e_ = (call);                                                                \
        if (e_ != cudaSuccess) {                                                                \
            std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));            \
            std::exit(1);                                                                       \
        }                                                                                       \
    } while (0)

static double median_ms(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv) {
    std::vector<size_t> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
    if (sizes.empty()) sizes = {size_t(256) << 20, size_t(1) << 30};
    const size_t max_bytes = *std::max_element(sizes.begin(), sizes.end());
    void *host = nullptr, *dev = nullptr;
    CHECK(cudaHostAlloc(&host, max_bytes, cudaHostAllocDefault));
    CHECK(cudaMalloc(&dev, max_bytes));
    std::memset(host, 0x3c, max_bytes);
    for (size_t bytes : sizes) {
        for (int h2d = 1; h2d >= 0; --h2d) {
            auto copy = [&] {
                if (h2d)
                    CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
                else
                    CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
            };
            for (int i = 0; i < 2; ++i) copy();  // warm-up
            std::vector<double> ms;
            double total = 0;
            while (ms.size() < 10 || (total < 500 && ms.size() < 1000)) {
                const auto t0 = std::chrono::steady_clock::now();
                copy();
                const auto t1 = std::chrono::steady_clock::now();
                ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
                total += ms.back();
            }
            const double m = median_ms(ms);
            std::printf("%s %zu %.3f\n", h2d ? "h2d" : "d2h", bytes, bytes / (m * 1e-3) / 1e9);
        }
    }
    CHECK(cudaFreeHost(host));
    CHECK(cudaFree(dev));
    return 0;
}
