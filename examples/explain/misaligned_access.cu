// Planted: the copy starts one float past an aligned base (offset_copy's
// pattern): every warp's 128 bytes straddle five 32-byte sectors instead of four.
// Fixed: the same copy from an aligned base.
#include "example_common.cuh"

__global__ void copy_offset(const float *in, float *out, int n, int offset) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i + offset];
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const int n = 1 << 25, offset = fixed ? 0 : 1;
    float *in = nullptr, *out = nullptr;
    EX_CHECK(cudaMalloc(&in, sizeof(float) * (n + 32)));
    EX_CHECK(cudaMalloc(&out, sizeof(float) * n));
    EX_CHECK(cudaMemset(in, 0, sizeof(float) * (n + 32)));
    TimedRegion region;
    for (int rep = 0; rep < 20; ++rep) copy_offset<<<n / 256, 256>>>(in, out, n, offset);
    EX_CHECK(cudaGetLastError());
    EX_CHECK(cudaDeviceSynchronize());
    region.end();
    EX_CHECK(cudaFree(in));
    EX_CHECK(cudaFree(out));
    std::printf("misaligned_access (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
