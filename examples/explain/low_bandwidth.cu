// Planted: a coalesced copy of 512 MiB launched on 16 blocks: the kernel only
// moves memory, yet reaches a small share of the DRAM bandwidth stream
// measures on this GPU (too few loads in flight).
// Fixed: a grid-stride copy on enough blocks to fill every SM.
#include "example_common.cuh"

__global__ void copy_grid_stride(const float4 *in, float4 *out, long long n) {
    for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<long long>(gridDim.x) * blockDim.x)
        out[i] = in[i];
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const long long n = (256ll << 20) / sizeof(float4);
    float4 *in = nullptr, *out = nullptr;
    EX_CHECK(cudaMalloc(&in, sizeof(float4) * n));
    EX_CHECK(cudaMalloc(&out, sizeof(float4) * n));
    EX_CHECK(cudaMemset(in, 0, sizeof(float4) * n));
    int sms = 0;
    EX_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int blocks = fixed ? sms * 8 : 16;
    TimedRegion region;
    for (int rep = 0; rep < 5; ++rep) copy_grid_stride<<<blocks, 256>>>(in, out, n);
    EX_CHECK(cudaGetLastError());
    EX_CHECK(cudaDeviceSynchronize());
    region.end();
    EX_CHECK(cudaFree(in));
    EX_CHECK(cudaFree(out));
    std::printf("low_bandwidth (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
