// Planted: a tiled transpose whose 32 x 32 shared tile is read down its
// columns: the 32 threads of a warp hit one bank (32-way conflicts).
// Fixed: the tile padded to 33 columns (transpose's shared_padded kernel).
#include "example_common.cuh"
#include "tiled_transpose.cuh"

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const int n = 8192;
    float *in = nullptr, *out = nullptr;
    EX_CHECK(cudaMalloc(&in, sizeof(float) * n * n));
    EX_CHECK(cudaMalloc(&out, sizeof(float) * n * n));
    EX_CHECK(cudaMemset(in, 0, sizeof(float) * n * n));
    const dim3 grid(n / kTile, n / kTile), block(kTile, 8);
    TimedRegion region;
    for (int rep = 0; rep < 10; ++rep) {
        if (fixed) transpose_tiled<1><<<grid, block>>>(in, out, n);
        else transpose_tiled<0><<<grid, block>>>(in, out, n);
    }
    EX_CHECK(cudaGetLastError());
    EX_CHECK(cudaDeviceSynchronize());
    region.end();
    EX_CHECK(cudaFree(in));
    EX_CHECK(cudaFree(out));
    std::printf("bank_conflicts (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
