// Planted: bank_conflicts' tiled transpose (its 32 x 32 shared tile read down
// its columns: 32-way conflicts), captured from a stream into a CUDA graph
// and run by replaying the graph. explain counts it at the graph's second
// launch, where the profiler's counters are the hardware's (bank conflicts,
// wavefronts), and names it.
// Fixed: the same graph with the tile padded to 33 columns.
#include "example_common.cuh"

constexpr int kTile = 32;

template <int Pad> __global__ void transpose_in_graph(const float *in, float *out, int n) {
    __shared__ float tile[kTile][kTile + Pad];
    const int x = blockIdx.x * kTile + threadIdx.x;
    for (int j = threadIdx.y; j < kTile; j += blockDim.y)
        tile[j][threadIdx.x] = in[static_cast<long long>(blockIdx.y * kTile + j) * n + x];
    __syncthreads();
    const int tx = blockIdx.y * kTile + threadIdx.x;
    for (int j = threadIdx.y; j < kTile; j += blockDim.y)
        out[static_cast<long long>(blockIdx.x * kTile + j) * n + tx] = tile[threadIdx.x][j];
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const int n = 8192;
    float *in = nullptr, *out = nullptr;
    EX_CHECK(cudaMalloc(&in, sizeof(float) * n * n));
    EX_CHECK(cudaMalloc(&out, sizeof(float) * n * n));
    EX_CHECK(cudaMemset(in, 0, sizeof(float) * n * n));
    cudaStream_t stream;
    EX_CHECK(cudaStreamCreate(&stream));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    const dim3 grid(n / kTile, n / kTile), block(kTile, 8);
    EX_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    if (fixed) transpose_in_graph<1><<<grid, block, 0, stream>>>(in, out, n);
    else transpose_in_graph<0><<<grid, block, 0, stream>>>(in, out, n);
    EX_CHECK(cudaStreamEndCapture(stream, &graph));
    EX_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int rep = 0; rep < 10; ++rep) EX_CHECK(cudaGraphLaunch(exec, stream));
    EX_CHECK(cudaStreamSynchronize(stream));
    EX_CHECK(cudaGraphExecDestroy(exec));
    EX_CHECK(cudaGraphDestroy(graph));
    EX_CHECK(cudaStreamDestroy(stream));
    EX_CHECK(cudaFree(in));
    EX_CHECK(cudaFree(out));
    std::printf("graph_bank_conflicts (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
