// Planted: 256 MiB of managed memory shared by the host and a kernel in a
// loop. Each of 5 rounds the host writes one float of every 16th page, then a
// kernel adds 1 to every element: the host's writes fault the pages back to
// the host, and the kernel faults them back to the device (managed_memory's
// on-demand series, once per round). The kernel's counted launch (the first)
// looks normal; its later launches wait on the faults.
// Fixed: the same work, with cudaMemPrefetchAsync moving the array to the
// host before the host writes and to the device before each launch.
#include "example_common.cuh"

constexpr long long kBytes = 256ll << 20;
constexpr long long kFloats = kBytes / sizeof(float);
constexpr long long kPageFloats = 4096 / sizeof(float);
constexpr long long kStrideFloats = 16 * kPageFloats;  // the host touches every 16th page
constexpr int kRounds = 5;

// Adds 1 to every element. The loop leaves y equal to x (x/2 + x/2 is exact)
// and gives the kernel enough instructions per byte that explain's DRAM rule
// does not take it for a bare copy, whatever time its counted launch shows.
__global__ void add_one(float *d, long long n) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const float x = d[i];
    float y = x;
#pragma unroll
    for (int k = 0; k < 16; ++k) y = fmaf(y, 0.5f, x * 0.5f);
    d[i] = y + 1.0f;
}

void prefetch(float *data, cudaMemLocationType type) {
    cudaMemLocation where{};
    where.type = type;
    where.id = 0;
    EX_CHECK(cudaMemPrefetchAsync(data, kBytes, where, 0, 0));
    EX_CHECK(cudaStreamSynchronize(0));
}

// Every 16th page's first float had a host write and a kernel's add each
// round; the float half-way along each stride only the kernel's.
void check(const float *data) {
    for (long long i = 0; i < kFloats; i += kStrideFloats) {
        expect_close(data[i], 2.0 * kRounds, "managed_loop: a page the host wrote");
        expect_close(data[i + kStrideFloats / 2], kRounds, "managed_loop: a page only the kernel wrote");
    }
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    float *data = nullptr;
    EX_CHECK(cudaMallocManaged(&data, kBytes));
    for (long long i = 0; i < kFloats; ++i) data[i] = 0.0f;
    TimedRegion region;
    for (int round = 0; round < kRounds; ++round) {
        if (fixed) prefetch(data, cudaMemLocationTypeHost);
        for (long long i = 0; i < kFloats; i += kStrideFloats) data[i] += 1.0f;
        if (fixed) prefetch(data, cudaMemLocationTypeDevice);
        add_one<<<static_cast<unsigned>(kFloats / 256), 256>>>(data, kFloats);
        EX_CHECK(cudaGetLastError());
        EX_CHECK(cudaDeviceSynchronize());
    }
    region.end();
    if (fixed) prefetch(data, cudaMemLocationTypeHost);
    check(data);
    EX_CHECK(cudaFree(data));
    std::printf("managed_loop (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
