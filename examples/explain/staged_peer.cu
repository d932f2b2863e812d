// Planted: 256 MiB moved from GPU 0 to GPU 1 through a pinned host buffer
// (copy to the host, then from the host), four times: every byte crosses the
// host link twice (peer's staged path).
// Fixed: cudaMemcpyPeer, device to device over NVLink or PCIe peer access.
// Needs two GPUs; with one it says so and exits 0 without copying.
#include "example_common.cuh"

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    int devices = 0;
    EX_CHECK(cudaGetDeviceCount(&devices));
    if (devices < 2) {
        std::printf("staged_peer: not applicable: needs two GPUs, this machine has %d\n", devices);
        return 0;
    }
    const size_t bytes = 256ull << 20;
    float *src = nullptr, *dst = nullptr, *host = nullptr;
    EX_CHECK(cudaSetDevice(0));
    EX_CHECK(cudaMalloc(&src, bytes));
    EX_CHECK(cudaMemset(src, 0, bytes));
    EX_CHECK(cudaSetDevice(1));
    EX_CHECK(cudaMalloc(&dst, bytes));
    EX_CHECK(cudaMemset(dst, 0xff, bytes));
    EX_CHECK(cudaMallocHost(&host, bytes));
    EX_CHECK(cudaSetDevice(0));
    TimedRegion region;
    for (int rep = 0; rep < 4; ++rep) {
        if (fixed) {
            EX_CHECK(cudaMemcpyPeer(dst, 1, src, 0, bytes));
        } else {
            EX_CHECK(cudaMemcpy(host, src, bytes, cudaMemcpyDeviceToHost));
            EX_CHECK(cudaSetDevice(1));
            EX_CHECK(cudaMemcpy(dst, host, bytes, cudaMemcpyHostToDevice));
            EX_CHECK(cudaSetDevice(0));
        }
    }
    EX_CHECK(cudaSetDevice(1));
    EX_CHECK(cudaDeviceSynchronize());
    EX_CHECK(cudaSetDevice(0));
    region.end();
    float last = 1;
    EX_CHECK(cudaMemcpy(&last, dst + bytes / sizeof(float) - 1, sizeof(float), cudaMemcpyDeviceToHost));
    expect_close(last, 0.0, "staged_peer result");
    EX_CHECK(cudaFreeHost(host));
    EX_CHECK(cudaFree(src));
    EX_CHECK(cudaSetDevice(1));
    EX_CHECK(cudaFree(dst));
    std::printf("staged_peer (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
