// A competing load for gmlab check's fault test: streams memory on one GPU
// (a copy between two large device arrays, over and over) for a given number
// of seconds, from a process of its own. It changes none of the GPU's
// settings, clocks or MIG mode: it only takes DRAM bandwidth and SM time, as
// another user's job on the same GPU would.
//
//   nvcc -O2 -arch=native -o gpu_load bench/gpu_load.cu
//   ./gpu_load DEVICE SECONDS [MiB per array, default 1024]
//
// Prints "load on device D: ready" once it streams (a script waits for that
// line), and at the end the bandwidth it took, GB/s.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "probe_check.cuh"

__global__ void stream_copy(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n) {
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
        dst[i] = src[i];
}

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s DEVICE SECONDS [MiB per array]\n", argv[0]);
        return 2;
    }
    const int device = std::atoi(argv[1]);
    const double seconds = std::atof(argv[2]);
    const size_t mib = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1024;
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    if (device < 0 || device >= count || !(seconds > 0) || mib < 1) {
        std::fprintf(stderr, "gpu_load: DEVICE must be 0..%d, SECONDS > 0 and MiB >= 1\n", count - 1);
        return 2;
    }
    CHECK(cudaSetDevice(device));
    const size_t bytes = mib << 20, n = bytes / sizeof(float4);
    float4 *a = nullptr, *b = nullptr;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMemset(a, 1, bytes));
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    std::printf("load on device %d: ready\n", device);
    std::fflush(stdout);
    const auto start = std::chrono::steady_clock::now();
    double elapsed = 0;
    size_t copies = 0;
    while (elapsed < seconds) {
        for (int i = 0; i < 20; ++i, ++copies) {  // a batch between clock readings
            stream_copy<<<sms * 8, 512>>>(copies % 2 ? b : a, copies % 2 ? a : b, n);
            CHECK(cudaGetLastError());
        }
        CHECK(cudaDeviceSynchronize());
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    std::printf("load on device %d: %zu copies of %zu MiB in %.1f s, %.0f GB/s\n", device, copies, mib, elapsed,
                2.0 * bytes * copies / elapsed / 1e9);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    return 0;
}
