// Robustness of gmlab explain: a program that launches kernels and then
// exits with status 3, or with --crash dies of SIGSEGV. explain keeps what
// was collected, says so, and passes the status through.
#include <csignal>

#include "example_common.cuh"

__global__ void fill(float *d, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = 1.0f;
}

int main(int argc, char **argv) {
    bool crash = false;
    for (int i = 1; i < argc; ++i) crash = crash || std::strcmp(argv[i], "--crash") == 0;
    const int n = 1 << 20;
    float *d = nullptr;
    EX_CHECK(cudaMalloc(&d, sizeof(float) * n));
    for (int rep = 0; rep < 3; ++rep) fill<<<n / 256, 256>>>(d, n);
    EX_CHECK(cudaDeviceSynchronize());
    std::printf("exit_status: %s\n", crash ? "crashing" : "exiting with 3");
    std::fflush(stdout);
    if (crash) std::raise(SIGSEGV);
    return 3;
}
