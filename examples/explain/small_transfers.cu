// Planted: 4096 rows of 4 KiB copied to the device one cudaMemcpyAsync each
// (transfer_batching's pattern): each copy pays the fixed cost of a transfer.
// Fixed: the rows are contiguous on the host and go in one copy.
#include "example_common.cuh"

// One block per row; neighbouring threads read neighbouring words.
__global__ void sum_rows(const float *d, float *out, int row_floats) {
    float s = 0;
    for (int k = threadIdx.x; k < row_floats; k += blockDim.x) s += d[static_cast<long long>(blockIdx.x) * row_floats + k];
    atomicAdd(&out[blockIdx.x], s);
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const int rows = 4096, row_floats = 1024;
    const size_t bytes = sizeof(float) * rows * row_floats;
    float *host = nullptr, *dev = nullptr, *out = nullptr;
    EX_CHECK(cudaMallocHost(&host, bytes));
    for (long long i = 0; i < static_cast<long long>(rows) * row_floats; ++i) host[i] = 1.0f;
    EX_CHECK(cudaMalloc(&dev, bytes));
    EX_CHECK(cudaMalloc(&out, sizeof(float) * rows));
    TimedRegion region;
    for (int rep = 0; rep < 3; ++rep) {
        if (fixed) {
            EX_CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice));
        } else {
            for (int r = 0; r < rows; ++r)
                EX_CHECK(cudaMemcpyAsync(dev + static_cast<long long>(r) * row_floats, host + static_cast<long long>(r) * row_floats,
                                         sizeof(float) * row_floats, cudaMemcpyHostToDevice));
        }
        EX_CHECK(cudaMemsetAsync(out, 0, sizeof(float) * rows));
        sum_rows<<<rows, 256>>>(dev, out, row_floats);
        EX_CHECK(cudaGetLastError());
    }
    region.end();
    float first = 0;
    EX_CHECK(cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost));
    expect_close(first, row_floats, "small_transfers result");
    EX_CHECK(cudaFree(dev));
    EX_CHECK(cudaFree(out));
    EX_CHECK(cudaFreeHost(host));
    std::printf("small_transfers (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
