// Planted: a table of half the L2 is read four times per launch beside a
// stream of twice the L2 read once (cache_hints' pattern); with plain loads
// the stream evicts the table between its reads, so each launch reads the
// table from DRAM again: DRAM reads about 1.6x the memory allocated, L2 hit
// rate near 0.
// Fixed: the stream is read with __ldcs (ld.global.cs, evict-first), the
// guide's fix, and the table stays in L2 between its reads.
#include "example_common.cuh"


__global__ void table_gather(const float *stream, const float *table, float *block_sums, long long n_stream,
                             long long n_table) {
    // The planted and the fixed variant differ only in how the stream is loaded:
    // a kernel argument would add a branch, so the sign of n_table chooses.
    const bool streaming = n_table < 0;
    const long long table_n = streaming ? -n_table : n_table;
    float sum = 0.0f;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n_stream;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const float s = streaming ? __ldcs(stream + i) : stream[i];
        sum += s * table[i % table_n];
    }
    __shared__ float warp_sums[8];
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) total += warp_sums[w];
        block_sums[blockIdx.x] = total;
    }
}

// 1.0 everywhere, written on the device: no host copy beside the kernel, so
// that the program's one pattern is the L2's.
__global__ void fill_ones(float *p, long long n) {
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        p[i] = 1.0f;
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    int device = 0, l2_bytes = 0, sms = 0;
    EX_CHECK(cudaGetDevice(&device));
    EX_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    EX_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const long long n_table = l2_bytes / 2 / static_cast<long long>(sizeof(float));
    const long long n_stream = 4 * n_table;  // twice the L2: the table is read four times per launch
    const int threads = 256, blocks = 8 * sms;
    float *stream = nullptr, *table = nullptr, *block_sums = nullptr;
    EX_CHECK(cudaMalloc(&table, sizeof(float) * n_table));
    EX_CHECK(cudaMalloc(&stream, sizeof(float) * n_stream));
    EX_CHECK(cudaMalloc(&block_sums, sizeof(float) * blocks));
    // 1.0 everywhere: each launch's sum is n_stream, checked below.
    fill_ones<<<blocks, threads>>>(stream, n_stream);
    fill_ones<<<blocks, threads>>>(table, n_table);
    TimedRegion region;
    for (int rep = 0; rep < 20; ++rep)
        table_gather<<<blocks, threads>>>(stream, table, block_sums, n_stream, fixed ? -n_table : n_table);
    EX_CHECK(cudaGetLastError());
    region.end();
    float *sums = nullptr;  // pinned: the one copy back is not a pageable transfer
    EX_CHECK(cudaMallocHost(&sums, sizeof(float) * blocks));
    EX_CHECK(cudaMemcpy(sums, block_sums, sizeof(float) * blocks, cudaMemcpyDeviceToHost));
    double total = 0;
    for (int b = 0; b < blocks; ++b) total += sums[b];
    EX_CHECK(cudaFreeHost(sums));
    expect_close(total, static_cast<double>(n_stream), "table_gather sum");
    EX_CHECK(cudaFree(stream));
    EX_CHECK(cudaFree(table));
    EX_CHECK(cudaFree(block_sums));
    std::printf("l2_eviction (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
