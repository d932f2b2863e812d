// strided_access's pattern (each thread reads every 4th float) with its kernel
// captured into a CUDA graph and replayed: explain counts it at the graph's
// second launch and names the line that captured it, but a graph's profiler
// range carries no SASS byte counts, so the coalescing rule cannot judge it
// (docs/explain.md, "SASS byte counts"); --fixed reads contiguous data. Not in
// the confusion matrix: graph_bank_conflicts is the graph pair.
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
    run_as_graph([&](cudaStream_t stream) { scale_strided<<<n / 256, 256, 0, stream>>>(in, out, n, stride); }, 20);
    region.end();
    EX_CHECK(cudaFree(in));
    EX_CHECK(cudaFree(out));
    std::printf("graph_strided (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
