// Planted: chunks are copied in, processed and copied out on one stream, so
// the link and the SMs take turns (copy_overlap with one stream).
// Fixed: the chunks go round four streams from pinned memory, so one chunk's
// copies overlap another's kernel (copy_overlap with four streams).
#include "example_common.cuh"

__global__ void work(float *d, int n, int rounds) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = d[i];
    for (int r = 0; r < rounds; ++r) v = v * 0.999f + 0.001f;
    d[i] = v;
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const int chunks = 16, chunk = 4 << 20, streams = fixed ? 4 : 1;
    float *host = nullptr, *dev = nullptr;
    EX_CHECK(cudaMallocHost(&host, sizeof(float) * chunk * chunks));
    std::memset(host, 0, sizeof(float) * chunk * chunks);
    EX_CHECK(cudaMalloc(&dev, sizeof(float) * chunk * chunks));
    cudaStream_t s[4];
    for (int k = 0; k < streams; ++k) EX_CHECK(cudaStreamCreate(&s[k]));
    TimedRegion region;
    for (int c = 0; c < chunks; ++c) {
        cudaStream_t st = s[c % streams];
        float *h = host + static_cast<long long>(c) * chunk, *d = dev + static_cast<long long>(c) * chunk;
        EX_CHECK(cudaMemcpyAsync(d, h, sizeof(float) * chunk, cudaMemcpyHostToDevice, st));
        work<<<chunk / 256, 256, 0, st>>>(d, chunk, 400);
        EX_CHECK(cudaGetLastError());
        EX_CHECK(cudaMemcpyAsync(h, d, sizeof(float) * chunk, cudaMemcpyDeviceToHost, st));
    }
    EX_CHECK(cudaDeviceSynchronize());
    region.end();
    for (int k = 0; k < streams; ++k) EX_CHECK(cudaStreamDestroy(s[k]));
    EX_CHECK(cudaFree(dev));
    EX_CHECK(cudaFreeHost(host));
    std::printf("serial_copies (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
