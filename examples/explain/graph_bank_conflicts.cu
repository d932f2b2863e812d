// Planted: bank_conflicts' tiled transpose (its 32 x 32 shared tile read down
// its columns: 32-way conflicts), captured from a stream into a CUDA graph
// and run by replaying the graph. explain counts it at the graph's second
// launch, where the profiler's counters are the hardware's (bank conflicts,
// wavefronts), and names it.
// Fixed: the same graph with the tile padded to 33 columns.
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
    run_as_graph(
        [&](cudaStream_t stream) {
            if (fixed) transpose_tiled<1><<<grid, block, 0, stream>>>(in, out, n);
            else transpose_tiled<0><<<grid, block, 0, stream>>>(in, out, n);
        },
        10);
    region.end();
    EX_CHECK(cudaFree(in));
    EX_CHECK(cudaFree(out));
    std::printf("graph_bank_conflicts (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
