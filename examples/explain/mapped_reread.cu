// Planted: a kernel reads 64 MiB of mapped pinned host memory
// (cudaHostAllocMapped) on each of 8 launches: every launch pulls the same
// bytes over the host link again (zero_copy's mapped series).
// Fixed: the data copied to the device once (cudaMemcpy from the same pinned
// buffer), and the 8 launches read device memory.
#include "example_common.cuh"

__global__ void sum_rows(const float *in, float *out, long long n) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) out[i] += in[i];
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const long long n = (64ll << 20) / sizeof(float);
    const int reps = 8;
    float *host = nullptr, *mapped = nullptr, *dev_in = nullptr, *out = nullptr;
    EX_CHECK(cudaHostAlloc(&host, sizeof(float) * n, cudaHostAllocMapped));
    for (long long i = 0; i < n; ++i) host[i] = float(i % 5);
    EX_CHECK(cudaHostGetDevicePointer(&mapped, host, 0));
    EX_CHECK(cudaMalloc(&out, sizeof(float) * n));
    EX_CHECK(cudaMemset(out, 0, sizeof(float) * n));
    if (fixed) EX_CHECK(cudaMalloc(&dev_in, sizeof(float) * n));
    const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
    TimedRegion region;
    if (fixed) EX_CHECK(cudaMemcpy(dev_in, host, sizeof(float) * n, cudaMemcpyHostToDevice));
    for (int rep = 0; rep < reps; ++rep) sum_rows<<<blocks, 256>>>(fixed ? dev_in : mapped, out, n);
    EX_CHECK(cudaGetLastError());
    region.end();
    float last = 0;
    EX_CHECK(cudaMemcpy(&last, out + n - 1, sizeof(float), cudaMemcpyDeviceToHost));
    expect_close(last, reps * float((n - 1) % 5), "mapped_reread result");
    EX_CHECK(cudaFree(out));
    if (fixed) EX_CHECK(cudaFree(dev_in));
    EX_CHECK(cudaFreeHost(host));
    std::printf("mapped_reread (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
