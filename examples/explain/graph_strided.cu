// Planted: strided_access's pattern (each thread reads every 4th float), its
// kernel captured from a stream into a CUDA graph and run by replaying the
// graph, as an inference server or a CUDA-graph training loop runs its
// kernels: explain counts it at the graph's second launch and names the line
// that captured it.
// Fixed: the same graph over contiguous data.
#include "example_common.cuh"

__global__ void scale_in_graph(const float *in, float *out, int n, int stride) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[static_cast<long long>(i) * stride];
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const int n = 1 << 24, stride = fixed ? 1 : 4;
    float *in = nullptr, *out = nullptr;
    EX_CHECK(cudaMalloc(&in, sizeof(float) * n * 4));
    EX_CHECK(cudaMalloc(&out, sizeof(float) * n));
    EX_CHECK(cudaMemset(in, 0, sizeof(float) * n * 4));
    cudaStream_t stream;
    EX_CHECK(cudaStreamCreate(&stream));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    EX_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    scale_in_graph<<<n / 256, 256, 0, stream>>>(in, out, n, stride);
    EX_CHECK(cudaStreamEndCapture(stream, &graph));
    EX_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int rep = 0; rep < 20; ++rep) EX_CHECK(cudaGraphLaunch(exec, stream));
    EX_CHECK(cudaStreamSynchronize(stream));
    EX_CHECK(cudaGraphExecDestroy(exec));
    EX_CHECK(cudaGraphDestroy(graph));
    EX_CHECK(cudaStreamDestroy(stream));
    EX_CHECK(cudaFree(in));
    EX_CHECK(cudaFree(out));
    std::printf("graph_strided (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
