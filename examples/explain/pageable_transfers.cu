// Planted: 256 MiB copied to and from the device out of malloc'd (pageable)
// host memory: the driver stages every copy through its own pinned buffer.
// Fixed: the host buffer is pinned (cudaMallocHost), the copy goes straight
// over the link (transfer's pinned series).
#include <vector>

#include "example_common.cuh"

__global__ void touch(float *d, long long n) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) d[i] += 1.0f;
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const long long n = (256ll << 20) / sizeof(float);
    float *host = nullptr, *dev = nullptr;
    if (fixed) EX_CHECK(cudaMallocHost(&host, sizeof(float) * n));
    else host = static_cast<float *>(std::malloc(sizeof(float) * n));
    if (!host) return 1;
    std::memset(host, 0, sizeof(float) * n);
    EX_CHECK(cudaMalloc(&dev, sizeof(float) * n));
    TimedRegion region;
    for (int rep = 0; rep < 4; ++rep) {
        EX_CHECK(cudaMemcpy(dev, host, sizeof(float) * n, cudaMemcpyHostToDevice));
        touch<<<static_cast<unsigned>((n + 255) / 256), 256>>>(dev, n);
        EX_CHECK(cudaGetLastError());
        EX_CHECK(cudaMemcpy(host, dev, sizeof(float) * n, cudaMemcpyDeviceToHost));
    }
    region.end();
    expect_close(host[n - 1], 4.0, "pageable_transfers result");
    EX_CHECK(cudaFree(dev));
    if (fixed) EX_CHECK(cudaFreeHost(host));
    else std::free(host);
    std::printf("pageable_transfers (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
