// What every example program shares: a checked CUDA call and the --fixed
// switch. Each program plants one memory pattern gmlab explain should name;
// run with --fixed it does the same work the way the guide recommends, and
// explain should name nothing.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#define EX_CHECK(call)                                                                                   \
    do {                                                                                                 \
        cudaError_t err_ = (call);                                                                       \
        if (err_ != cudaSuccess) {                                                                       \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
            std::exit(1);                                                                                \
        }                                                                                                \
    } while (0)

// Times the part of the program that holds its pattern, on the host clock with
// the device idle at both ends, and prints it as "region_ms: X". The planted
// program's region less its fixed twin's is the gain the fix realised, which
// scripts/explain-gpu.sh sets beside the gain explain estimated.
class TimedRegion {
  public:
    TimedRegion() {
        EX_CHECK(cudaDeviceSynchronize());
        start_ = std::chrono::steady_clock::now();
    }
    void end() {
        EX_CHECK(cudaDeviceSynchronize());
        const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start_;
        std::printf("region_ms: %.4f\n", ms.count());
    }

  private:
    std::chrono::steady_clock::time_point start_;
};

inline bool fixed_variant(int argc, char **argv) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--fixed") == 0) return true;
    return false;
}

// Captures what `launch` launches on a stream into a CUDA graph and replays
// the graph `reps` times, as an inference server or a CUDA-graph training
// loop runs its kernels.
template <class Launch> void run_as_graph(Launch launch, int reps) {
    cudaStream_t stream;
    EX_CHECK(cudaStreamCreate(&stream));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    EX_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    launch(stream);
    EX_CHECK(cudaStreamEndCapture(stream, &graph));
    EX_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int rep = 0; rep < reps; ++rep) EX_CHECK(cudaGraphLaunch(exec, stream));
    EX_CHECK(cudaStreamSynchronize(stream));
    EX_CHECK(cudaGraphExecDestroy(exec));
    EX_CHECK(cudaGraphDestroy(graph));
    EX_CHECK(cudaStreamDestroy(stream));
}

// Checks the sum of n floats on the host against the expected value, so that
// each example verifies its own result.
inline void expect_close(double got, double want, const char *what) {
    const double tolerance = 1e-3 * (want < 0 ? -want : want) + 1e-3;
    if ((got - want > tolerance) || (want - got > tolerance)) {
        std::fprintf(stderr, "%s: got %.6g, expected %.6g\n", what, got, want);
        std::exit(1);
    }
}
