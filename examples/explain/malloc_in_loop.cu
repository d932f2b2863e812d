// Planted: every step allocates its scratch buffer with cudaMalloc and frees it
// with cudaFree (allocation's pattern): each pair synchronises the device
// and costs microseconds to milliseconds.
// Fixed: the scratch buffer is allocated once, before the loop.
#include "example_common.cuh"

__global__ void step(float *scratch, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) scratch[i] = i * 0.5f;
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const int n = 1 << 20, steps = 200;
    float *scratch = nullptr;
    if (fixed) EX_CHECK(cudaMalloc(&scratch, sizeof(float) * n));
    TimedRegion region;
    for (int s = 0; s < steps; ++s) {
        if (!fixed) EX_CHECK(cudaMalloc(&scratch, sizeof(float) * n));
        step<<<n / 256, 256>>>(scratch, n);
        EX_CHECK(cudaGetLastError());
        if (!fixed) EX_CHECK(cudaFree(scratch));
    }
    if (fixed) EX_CHECK(cudaFree(scratch));
    EX_CHECK(cudaDeviceSynchronize());
    region.end();
    std::printf("malloc_in_loop (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
