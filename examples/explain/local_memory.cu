// Planted: a per-thread array indexed by data (local_memory's pattern): the
// compiler cannot keep it in registers, so every access goes to local memory.
// Fixed: the same histogram-like sum with the bin chosen by comparisons the
// compiler unrolls into registers.
#include "example_common.cuh"

constexpr int kBins = 16;

__global__ void bins_local(const int *keys, float *out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float bins[kBins] = {};
    for (int k = 0; k < 32; ++k) bins[(keys[i] + k * 7) & (kBins - 1)] += 1.0f;
    float s = 0;
    for (int b = 0; b < kBins; ++b) s += bins[b] * b;
    out[i] = s;
}

__global__ void bins_registers(const int *keys, float *out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0;
    for (int k = 0; k < 32; ++k) s += static_cast<float>((keys[i] + k * 7) & (kBins - 1));
    out[i] = s;
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const int n = 1 << 22;
    int *keys = nullptr;
    float *out = nullptr;
    EX_CHECK(cudaMalloc(&keys, sizeof(int) * n));
    EX_CHECK(cudaMalloc(&out, sizeof(float) * n));
    EX_CHECK(cudaMemset(keys, 0, sizeof(int) * n));
    TimedRegion region;
    for (int rep = 0; rep < 10; ++rep) {
        if (fixed) bins_registers<<<n / 256, 256>>>(keys, out, n);
        else bins_local<<<n / 256, 256>>>(keys, out, n);
    }
    EX_CHECK(cudaGetLastError());
    EX_CHECK(cudaDeviceSynchronize());
    region.end();
    EX_CHECK(cudaFree(keys));
    EX_CHECK(cudaFree(out));
    std::printf("local_memory (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
