// What L1 a shared-memory carveout preference really leaves, found two ways
// for the same kernels: the read bandwidth of one block per SM re-reading a
// working set (as the carveout experiment does) and a one-thread dependent
// chase over the same working set (cycles per load). Each kernel gets its own
// preference (cudaFuncSetAttribute); the variants differ in block size and in
// the order the preferences are set, to find what makes a kernel run with a
// configuration other than the one its preference asks for.
//
//   nvcc -O3 -arch=sm_90 -o carveout_probe bench/carveout_probe.cu && ./carveout_probe
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#include "probe_check.cuh"

__device__ __forceinline__ unsigned long long load_ca_sum(const uint4 *p) {
    unsigned x, y, z, w;
    asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "l"(p));
    return static_cast<unsigned long long>(x) + y + z + w;
}

// The experiment's kernel, with the block size a template parameter.
template <unsigned Threads>
__global__ void __launch_bounds__(Threads) reads(const uint4 *data, unsigned n_vec, unsigned passes, unsigned long long *sums) {
    __shared__ unsigned long long part[Threads / 32];
    unsigned long long s = 0;
    for (unsigned p = 0; p < passes; ++p) {
#pragma unroll 4
        for (unsigned i = threadIdx.x; i < n_vec; i += blockDim.x) s += load_ca_sum(data + i);
    }
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t = 0;
        for (unsigned w = 0; w < blockDim.x / 32; ++w) t += part[w];
        sums[blockIdx.x] = t;
    }
}

// The same reads with no shared memory of the kernel's own: the block's sum
// goes to global memory with an atomic instead of through shared memory.
template <unsigned Threads>
__global__ void __launch_bounds__(Threads) reads_no_shared(const uint4 *data, unsigned n_vec, unsigned passes,
                                                           unsigned long long *sums) {
    unsigned long long s = 0;
    for (unsigned p = 0; p < passes; ++p) {
#pragma unroll 4
        for (unsigned i = threadIdx.x; i < n_vec; i += blockDim.x) s += load_ca_sum(data + i);
    }
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0) atomicAdd(sums + blockIdx.x, s);
}

// One thread: a dependent chase through next[] (indices of 32-bit words, one
// node per 128-byte line), once to warm L1, then timed.
__global__ void chase(const unsigned *next, unsigned hops, unsigned long long *cycles, unsigned *sink) {
    unsigned j = 0;
    for (unsigned h = 0; h < hops; ++h) asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(j) : "l"(next + j));
    const long long t0 = clock64();
    for (unsigned h = 0; h < hops; ++h) asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(j) : "l"(next + j));
    const long long t1 = clock64();
    *cycles = static_cast<unsigned long long>(t1 - t0);
    *sink = j;
}

// The chase with 256 bytes of static shared memory, as the reads kernel has.
__global__ void chase_with_shared(const unsigned *next, unsigned hops, unsigned long long *cycles, unsigned *sink) {
    __shared__ unsigned long long part[32];
    unsigned j = 0;
    for (unsigned h = 0; h < hops; ++h) asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(j) : "l"(next + j));
    const long long t0 = clock64();
    for (unsigned h = 0; h < hops; ++h) asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(j) : "l"(next + j));
    const long long t1 = clock64();
    part[threadIdx.x % 32] = j;
    __syncthreads();
    *cycles = static_cast<unsigned long long>(t1 - t0);
    *sink = static_cast<unsigned>(part[0]);
}

struct Setup {
    int sms = 0;
    uint4 *data = nullptr;
    unsigned *next = nullptr;
    unsigned long long *sums = nullptr, *cycles = nullptr;
    unsigned *sink = nullptr;
    cudaEvent_t a, b;
};

template <unsigned Threads, bool Shared = true>
double read_gbs(Setup &s, size_t ws, int carveout, bool set) {
    auto kernel = Shared ? reads<Threads> : reads_no_shared<Threads>;
    if (set) CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
    const unsigned n_vec = static_cast<unsigned>(ws / 16);
    const unsigned passes = static_cast<unsigned>((64u << 20) / ws);
    kernel<<<s.sms, Threads>>>(s.data, n_vec, passes, s.sums);
    CHECK(cudaGetLastError());
    float best = 1e30f;
    for (int r = 0; r < 5; ++r) {
        CHECK(cudaEventRecord(s.a));
        kernel<<<s.sms, Threads>>>(s.data, n_vec, passes, s.sums);
        CHECK(cudaEventRecord(s.b));
        CHECK(cudaEventSynchronize(s.b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, s.a, s.b));
        if (ms < best) best = ms;
    }
    return static_cast<double>(s.sms) * passes * ws / (best * 1e6);
}

double chase_cycles(Setup &s, size_t ws, int carveout, bool with_shared = false) {
    auto kernel = with_shared ? chase_with_shared : chase;
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
    const unsigned lines = static_cast<unsigned>(ws / 128);
    std::vector<unsigned> order(lines), next(ws / 4, 0);
    for (unsigned i = 0; i < lines; ++i) order[i] = i;
    srand(7);
    for (unsigned i = lines - 1; i > 0; --i) std::swap(order[i], order[rand() % (i + 1)]);
    for (unsigned i = 0; i < lines; ++i) next[order[i] * 32] = order[(i + 1) % lines] * 32;
    CHECK(cudaMemcpy(s.next, next.data(), ws, cudaMemcpyHostToDevice));
    const unsigned hops = lines * 4;
    kernel<<<1, 1>>>(s.next, hops, s.cycles, s.sink);
    CHECK(cudaGetLastError());
    unsigned long long c = 0;
    CHECK(cudaMemcpy(&c, s.cycles, sizeof c, cudaMemcpyDeviceToHost));
    return static_cast<double>(c) / hops;
}

int main() {
    Setup s;
    CHECK(cudaDeviceGetAttribute(&s.sms, cudaDevAttrMultiProcessorCount, 0));
    const size_t largest = 320 << 10;
    CHECK(cudaMalloc(&s.data, largest));
    CHECK(cudaMemset(s.data, 1, largest));
    CHECK(cudaMalloc(&s.next, largest));
    CHECK(cudaMalloc(&s.sums, s.sms * sizeof(unsigned long long)));
    CHECK(cudaMalloc(&s.cycles, sizeof(unsigned long long)));
    CHECK(cudaMalloc(&s.sink, sizeof(unsigned)));
    CHECK(cudaEventCreate(&s.a));
    CHECK(cudaEventCreate(&s.b));
    const size_t kib[] = {16, 24, 32, 48, 64, 96, 112, 128, 160, 200, 224, 256, 320};
    std::printf("variant carveout | working set KiB: read GB/s (1 block/SM) or chase cycles/load\n%-26s", "");
    for (size_t k : kib) std::printf("%7zu", k);
    std::printf("\n");
    // The order the experiment uses (0, 50, 100), then 50 again after 100,
    // then 50 first in a kernel never launched with another preference.
    const int order[] = {0, 50, 100, 50};
    for (int c : order) {
        std::printf("reads<1024> %3d%%          ", c);
        for (size_t k : kib) std::printf("%7.0f", read_gbs<1024>(s, k << 10, c, true));
        std::printf("\n");
    }
    for (int c : {50, 0, 100}) {
        std::printf("reads<256>  %3d%% (fresh)  ", c);
        for (size_t k : kib) std::printf("%7.0f", read_gbs<256>(s, k << 10, c, true));
        std::printf("\n");
    }
    for (int c : {50, 100}) {
        std::printf("reads<512>  %3d%% (fresh)  ", c);
        for (size_t k : kib) std::printf("%7.0f", read_gbs<512>(s, k << 10, c, true));
        std::printf("\n");
    }
    for (int c : {25, 50, 75, 90}) {
        std::printf("reads<1024> %3d%% (again)  ", c);
        for (size_t k : kib) std::printf("%7.0f", read_gbs<1024>(s, k << 10, c, true));
        std::printf("\n");
    }
    for (int c : {25, 50, 75, 100}) {
        std::printf("no_shared<1024> %3d%%      ", c);
        for (size_t k : kib) std::printf("%7.0f", read_gbs<1024, false>(s, k << 10, c, true));
        std::printf("\n");
    }
    for (int c : {0, 25, 50, 75, 100}) {
        std::printf("chase<1>    %3d%%          ", c);
        for (size_t k : kib) std::printf("%7.1f", chase_cycles(s, k << 10, c));
        std::printf("\n");
    }
    for (int c : {0, 25, 50, 75, 100}) {
        std::printf("chase+shared %3d%%         ", c);
        for (size_t k : kib) std::printf("%7.1f", chase_cycles(s, k << 10, c, true));
        std::printf("\n");
    }
    // The attributes the kernels report.
    cudaFuncAttributes fa{};
    CHECK(cudaFuncGetAttributes(&fa, reads<1024>));
    std::printf("reads<1024>: %d registers, %zu B static shared, preferred carveout now %d, max threads %d\n", fa.numRegs,
                fa.sharedSizeBytes, fa.preferredShmemCarveout, fa.maxThreadsPerBlock);
    int max_shared = 0, reserved = 0;
    CHECK(cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
    CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, 0));
    std::printf("max shared per SM %d B, reserved per block %d B, %d SMs\n", max_shared, reserved, s.sms);
    return 0;
}
