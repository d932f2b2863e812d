// Planted: each lane of a warp reads a different word of a __constant__ table
// (constant_broadcast at 32 distinct addresses): the constant cache serves a
// warp's addresses one after another.
// Fixed: each block copies the table into shared memory once and reads it
// there: 32 distinct words in 32 different banks are served in one request.
#include <vector>

#include "example_common.cuh"

constexpr int kTable = 1024, kReads = 64;
__constant__ float c_table[kTable];

__device__ __forceinline__ int entry(int key, int k) { return (key * 33 + k * 7) & (kTable - 1); }

__global__ void lookup_constant(const int *keys, float *out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int key = keys[i];
    float s = 0;
    for (int k = 0; k < kReads; ++k) s += c_table[entry(key, k)];
    out[i] = s;
}

// The lanes' words are 33 apart (entry), so they fall in 32 different banks.
__global__ void lookup_shared(const float *table, const int *keys, float *out, int n) {
    __shared__ float t[kTable];
    for (int j = threadIdx.x; j < kTable; j += blockDim.x) t[j] = table[j];
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int key = keys[i];
    float s = 0;
    for (int k = 0; k < kReads; ++k) s += t[entry(key, k)];
    out[i] = s;
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const int n = 1 << 22;
    std::vector<float> table(kTable);
    for (int j = 0; j < kTable; ++j) table[j] = float(j % 17);
    // Inputs from pinned memory, so that the setup copies are no pattern of their own.
    int *keys = nullptr;
    EX_CHECK(cudaMallocHost(&keys, sizeof(int) * n));
    for (int i = 0; i < n; ++i) keys[i] = i;
    int *d_keys = nullptr;
    float *d_table = nullptr, *d_out = nullptr;
    EX_CHECK(cudaMalloc(&d_keys, sizeof(int) * n));
    EX_CHECK(cudaMalloc(&d_out, sizeof(float) * n));
    EX_CHECK(cudaMalloc(&d_table, sizeof(float) * kTable));
    EX_CHECK(cudaMemcpy(d_keys, keys, sizeof(int) * n, cudaMemcpyHostToDevice));
    EX_CHECK(cudaMemcpy(d_table, table.data(), sizeof(float) * kTable, cudaMemcpyHostToDevice));
    EX_CHECK(cudaMemcpyToSymbol(c_table, table.data(), sizeof(float) * kTable));
    TimedRegion region;
    for (int rep = 0; rep < 10; ++rep) {
        if (fixed) lookup_shared<<<n / 256, 256>>>(d_table, d_keys, d_out, n);
        else lookup_constant<<<n / 256, 256>>>(d_keys, d_out, n);
    }
    EX_CHECK(cudaGetLastError());
    region.end();
    for (int i : {0, 1, 31, 4097, n - 1}) {  // the checked words alone come back
        float got = 0, want = 0;
        EX_CHECK(cudaMemcpy(&got, d_out + i, sizeof(float), cudaMemcpyDeviceToHost));
        for (int k = 0; k < kReads; ++k) want += table[(i * 33 + k * 7) & (kTable - 1)];
        expect_close(got, want, "constant_divergent result");
    }
    EX_CHECK(cudaFreeHost(keys));
    EX_CHECK(cudaFree(d_keys));
    EX_CHECK(cudaFree(d_out));
    EX_CHECK(cudaFree(d_table));
    std::printf("constant_divergent (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
