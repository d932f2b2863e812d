// Shared-memory load latency by instruction: one thread chases a ring of
// nodes in its block's shared memory with ld.shared (a 32-bit address in the
// shared window: LDS) and with a generic ld on the same shared address (LD,
// which first decides which space the address is in), each timed with
// clock64 over many dependent hops. The guide's "shared memory latency" is
// read against both.
//
//   nvcc -O3 -arch=sm_90 -o shared_latency_probe bench/shared_latency_probe.cu && ./shared_latency_probe
#include <cstdio>
#include <cstdlib>
#include <cstdint>

#include "probe_check.cuh"

constexpr unsigned kNodes = 1024;  // 4 KiB: one word per node, stride 33 words apart in a ring

__global__ void chase(unsigned hops, int generic, unsigned long long *cycles, unsigned *sink) {
    __shared__ unsigned ring[kNodes];
    // Node i points to node (i + 33) % kNodes: every bank in turn, no reuse in registers.
    for (unsigned i = threadIdx.x; i < kNodes; i += blockDim.x) ring[i] = (i + 33) % kNodes;
    __syncthreads();
    if (threadIdx.x != 0) return;
    const unsigned base32 = static_cast<unsigned>(__cvta_generic_to_shared(ring));
    unsigned j = 0;
    long long t0 = 0, t1 = 0;
    if (generic) {
        // Generic addresses of the same nodes: ld (no state space) on a shared address.
        const unsigned *p = ring;
        for (unsigned h = 0; h < 64; ++h) asm volatile("ld.u32 %0, [%1];" : "=r"(j) : "l"(p + j) : "memory");
        t0 = clock64();
        for (unsigned h = 0; h < hops; ++h) asm volatile("ld.u32 %0, [%1];" : "=r"(j) : "l"(p + j) : "memory");
        t1 = clock64();
    } else {
        for (unsigned h = 0; h < 64; ++h) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(j) : "r"(base32 + 4 * j) : "memory");
        t0 = clock64();
        for (unsigned h = 0; h < hops; ++h) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(j) : "r"(base32 + 4 * j) : "memory");
        t1 = clock64();
    }
    *cycles = static_cast<unsigned long long>(t1 - t0);
    *sink = j;
}

int main() {
    unsigned long long *cycles = nullptr;
    unsigned *sink = nullptr;
    CHECK(cudaMalloc(&cycles, sizeof *cycles));
    CHECK(cudaMalloc(&sink, sizeof *sink));
    const unsigned hops = 1 << 16;
    for (int rep = 0; rep < 3; ++rep)
        for (int generic : {0, 1}) {
            chase<<<1, 32>>>(hops, generic, cycles, sink);
            CHECK(cudaGetLastError());
            unsigned long long c = 0;
            CHECK(cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost));
            // Each hop is a load plus the address arithmetic (an add, and a
            // shift or multiply): the same in both forms.
            std::printf("%-34s %6.2f cycles per hop\n", generic ? "generic ld on a shared address" : "ld.shared (shared window)",
                        static_cast<double>(c) / hops);
        }
    return 0;
}
