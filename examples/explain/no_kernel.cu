// Bad input for gmlab explain: a CUDA program that initialises the device
// and allocates, but never launches a kernel (explain exits 24).
#include "example_common.cuh"

int main() {
    float *d = nullptr;
    EX_CHECK(cudaMalloc(&d, 1 << 20));
    EX_CHECK(cudaMemset(d, 0, 1 << 20));
    EX_CHECK(cudaDeviceSynchronize());
    EX_CHECK(cudaFree(d));
    std::printf("no_kernel: done\n");
    return 0;
}
