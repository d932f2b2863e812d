// Planted: 64 MiB of managed memory written on the host, then read by a
// kernel: every page migrates on a GPU page fault (managed_memory's on-demand
// series).
// Fixed: cudaMemPrefetchAsync moves the pages to the device before the kernel.
#include "example_common.cuh"

__global__ void sum(const float *d, long long n, float *out) {
    float s = 0;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        s += d[i];
    atomicAdd(out, s);
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const long long n = (64ll << 20) / sizeof(float);
    float *data = nullptr, *out = nullptr;
    EX_CHECK(cudaMallocManaged(&data, sizeof(float) * n));
    EX_CHECK(cudaMalloc(&out, sizeof(float)));
    EX_CHECK(cudaMemset(out, 0, sizeof(float)));
    for (long long i = 0; i < n; ++i) data[i] = 1.0f / 1024;
    TimedRegion region;
    if (fixed) {
        cudaMemLocation where{};
        where.type = cudaMemLocationTypeDevice;
        where.id = 0;
        EX_CHECK(cudaMemPrefetchAsync(data, sizeof(float) * n, where, 0));
    }
    sum<<<1024, 256>>>(data, n, out);
    EX_CHECK(cudaGetLastError());
    region.end();
    float total = 0;
    EX_CHECK(cudaMemcpy(&total, out, sizeof(float), cudaMemcpyDeviceToHost));
    expect_close(total, n / 1024.0, "managed_faults result");
    EX_CHECK(cudaFree(data));
    EX_CHECK(cudaFree(out));
    std::printf("managed_faults (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
