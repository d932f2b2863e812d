// Planted: a streaming kernel whose blocks of 128 threads each ask for
// 100 KiB of dynamic shared memory, of which they use 512 bytes: two blocks
// fit on an SM, 8 warps of the 64 it could run, too few loads in flight to
// keep DRAM busy (shared_alloc's resources, register_pressure's occupancy).
// Fixed: the same kernel launched with the 512 bytes it uses.
#include "example_common.cuh"

__global__ void stage_and_scale(const float4 *in, float4 *out, long long n) {
    extern __shared__ float4 stage[];
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += stride) {
        stage[threadIdx.x] = in[i];
        const float4 v = stage[threadIdx.x];
        out[i] = make_float4(2.0f * v.x, 2.0f * v.y, 2.0f * v.z, 2.0f * v.w);
    }
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const long long n = (256ll << 20) / sizeof(float4);
    const int threads = 128;
    const size_t used = threads * sizeof(float4), asked = fixed ? used : 100 * 1024;
    EX_CHECK(cudaFuncSetAttribute(stage_and_scale, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
    int sms = 0, per_sm = 0;
    EX_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    EX_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stage_and_scale, threads, asked));
    float4 *in = nullptr, *out = nullptr;
    EX_CHECK(cudaMalloc(&in, sizeof(float4) * n));
    EX_CHECK(cudaMalloc(&out, sizeof(float4) * n));
    // The input from pinned memory, so that the setup copy is no pattern of its own.
    float4 *host = nullptr;
    EX_CHECK(cudaMallocHost(&host, sizeof(float4) * n));
    for (long long i = 0; i < n; ++i) host[i] = make_float4(float(i % 3), 1.0f, 0.0f, float(i % 11));
    EX_CHECK(cudaMemcpy(in, host, sizeof(float4) * n, cudaMemcpyHostToDevice));
    EX_CHECK(cudaFreeHost(host));
    // One wave of blocks, as many as fit at once: a grid-stride loop sized from the SM count.
    const unsigned blocks = static_cast<unsigned>(sms * per_sm);
    TimedRegion region;
    for (int rep = 0; rep < 10; ++rep) stage_and_scale<<<blocks, threads, asked>>>(in, out, n);
    EX_CHECK(cudaGetLastError());
    region.end();
    float4 last{};
    EX_CHECK(cudaMemcpy(&last, out + n - 1, sizeof(float4), cudaMemcpyDeviceToHost));
    expect_close(last.w, 2.0 * float((n - 1) % 11), "occupancy_limited result");
    EX_CHECK(cudaFree(in));
    EX_CHECK(cudaFree(out));
    std::printf("occupancy_limited (%s): %d blocks per SM, done\n", fixed ? "fixed" : "planted", per_sm);
    return 0;
}
