// Planted: a blur whose blocks walk their rows tile by tile, each tile loaded from
// global memory into registers and stored to shared memory before the block
// can compute: the loads' latency is exposed on every tile (async_copy's
// synchronous copy).
// Fixed: the next tile is copied global -> shared with cp.async
// (__pipeline_memcpy_async) while the block computes on the current one.
#include <cuda_pipeline.h>

#include "example_common.cuh"

constexpr int kThreads = 256;

__device__ __forceinline__ float blur(const float *t, int x) {
    float s = 0;
    for (int d = -4; d <= 4; ++d) s += t[(x + d) & (kThreads - 1)] * (1.0f / 9.0f);
    return s;
}

__global__ void blur_sync(const float *in, float *out, int tiles) {
    __shared__ float tile[kThreads];
    const long long base = static_cast<long long>(blockIdx.x) * tiles * kThreads;
    for (int t = 0; t < tiles; ++t) {
        tile[threadIdx.x] = in[base + t * kThreads + threadIdx.x];
        __syncthreads();
        out[base + t * kThreads + threadIdx.x] = blur(tile, threadIdx.x);
        __syncthreads();
    }
}

__global__ void blur_async(const float *in, float *out, int tiles) {
    __shared__ float tile[2][kThreads];
    const long long base = static_cast<long long>(blockIdx.x) * tiles * kThreads;
    __pipeline_memcpy_async(&tile[0][threadIdx.x], &in[base + threadIdx.x], sizeof(float));
    __pipeline_commit();
    for (int t = 0; t < tiles; ++t) {
        if (t + 1 < tiles)
            __pipeline_memcpy_async(&tile[(t + 1) & 1][threadIdx.x], &in[base + (t + 1) * kThreads + threadIdx.x], sizeof(float));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        out[base + t * kThreads + threadIdx.x] = blur(tile[t & 1], threadIdx.x);
        __syncthreads();
    }
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    // Two blocks an SM, each walking its share of the rows tile by tile (a
    // persistent kernel): too few warps to hide a load's latency behind others'.
    int sms = 0;
    EX_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int blocks = 2 * sms, tiles = 1024;
    const long long n = static_cast<long long>(blocks) * tiles * kThreads;
    // The input from pinned memory, so that the setup copy is no pattern of its own.
    float *host = nullptr;
    EX_CHECK(cudaMallocHost(&host, sizeof(float) * n));
    for (long long i = 0; i < n; ++i) host[i] = float(i % 13);
    float *in = nullptr, *out = nullptr;
    EX_CHECK(cudaMalloc(&in, sizeof(float) * n));
    EX_CHECK(cudaMalloc(&out, sizeof(float) * n));
    EX_CHECK(cudaMemcpy(in, host, sizeof(float) * n, cudaMemcpyHostToDevice));
    TimedRegion region;
    for (int rep = 0; rep < 10; ++rep) {
        if (fixed) blur_async<<<blocks, kThreads>>>(in, out, tiles);
        else blur_sync<<<blocks, kThreads>>>(in, out, tiles);
    }
    EX_CHECK(cudaGetLastError());
    region.end();
    for (long long i : {0ll, 300ll, n - 1}) {  // the checked elements alone come back
        const long long row = i / kThreads * kThreads;
        double want = 0;
        for (int d = -4; d <= 4; ++d) want += host[row + ((i - row + d) & (kThreads - 1))] / 9.0;
        float got = 0;
        EX_CHECK(cudaMemcpy(&got, out + i, sizeof(float), cudaMemcpyDeviceToHost));
        expect_close(got, want, "shared_through_registers result");
    }
    EX_CHECK(cudaFreeHost(host));
    EX_CHECK(cudaFree(in));
    EX_CHECK(cudaFree(out));
    std::printf("shared_through_registers (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
