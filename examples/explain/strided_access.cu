// Planted: each thread reads every 4th float (stride_copy's pattern): a warp's
// load touches 16 sectors where 4 would hold its data.
// Fixed: the data the kernel needs is stored contiguously; every warp reads
// 32 neighbouring floats.
#include "example_common.cuh"
#include "strided_scale.cuh"

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const int n = 1 << 24, stride = fixed ? 1 : 4;
    float *in = nullptr, *out = nullptr;
    EX_CHECK(cudaMalloc(&in, sizeof(float) * n * 4));
    EX_CHECK(cudaMalloc(&out, sizeof(float) * n));
    EX_CHECK(cudaMemset(in, 0, sizeof(float) * n * 4));
    TimedRegion region;
    for (int rep = 0; rep < 20; ++rep) scale_strided<<<n / 256, 256>>>(in, out, n, stride);
    EX_CHECK(cudaGetLastError());
    EX_CHECK(cudaDeviceSynchronize());
    region.end();
    EX_CHECK(cudaFree(in));
    EX_CHECK(cudaFree(out));
    std::printf("strided_access (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
