// How lines are put into L2 decides what a first visit from an SM sees. 256
// lines at random places of a 32 MiB region (it fits L2) hold a ring; they
// are written (a) by one block of a kernel, (b) by the copy engine from pinned
// host memory, one 128-byte copy a line, (c) by the copy engine from device
// memory; then one thread on a chosen SM walks the ring once, timing every
// load (ld.global.cg). Per SM: the share of loads at the slower L2 level
// (above `threshold` cycles) and beyond it (DRAM).
//
//   nvcc -O3 -arch=sm_90 -o l2_prime_probe bench/l2_prime_probe.cu && ./l2_prime_probe [threshold]
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "probe_check.cuh"

constexpr unsigned kLines = 256;

__device__ unsigned smid() {
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

__global__ void write_lines(char *base, const unsigned long long *offsets, const unsigned *next, unsigned *writer) {
    if (threadIdx.x == 0) *writer = smid();
    for (unsigned k = threadIdx.x; k < kLines * 16; k += blockDim.x) {
        const unsigned line = k / 16, word = k % 16;
        unsigned long long v = offsets[line] + word;
        if (word == 0) v = reinterpret_cast<unsigned long long>(base + offsets[next[line]]);
        reinterpret_cast<unsigned long long *>(base + offsets[line])[word] = v;
    }
}

__global__ void chase(const char *base, unsigned long long start, unsigned target, unsigned *claim, unsigned *times,
                      unsigned long long *last) {
    __shared__ unsigned long long stash;
    if (smid() != target || threadIdx.x != 0) return;
    if (atomicCAS(claim, 0u, 1u) != 0u) return;
    unsigned long long a = reinterpret_cast<unsigned long long>(base) + start;
    for (unsigned h = 0; h < kLines; ++h) {
        const long long c0 = clock64();
        unsigned long long v;
        asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
        // A shared store of the value cannot issue before it is back.
        asm volatile("st.shared.u64 [%0], %1;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(&stash))), "l"(v) : "memory");
        const long long c1 = clock64();
        times[h] = static_cast<unsigned>(c1 - c0);
        a = v;
    }
    *last = a;
}

int main(int argc, char **argv) {
    const unsigned threshold = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 369;
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const size_t region = 32u << 20;
    std::mt19937_64 rng(11);
    std::vector<unsigned long long> offsets(kLines);
    std::vector<unsigned> next(kLines), order(kLines);
    for (unsigned i = 0; i < kLines; ++i) {
        offsets[i] = (rng() % (region / 128)) * 128;  // a repeat is harmless: 256 of 262144 lines
        order[i] = i;
    }
    std::shuffle(order.begin(), order.end(), rng);
    for (unsigned i = 0; i < kLines; ++i) next[order[i]] = order[(i + 1) % kLines];
    char *base = nullptr, *staging = nullptr, *host = nullptr, *scratch = nullptr;
    const size_t scratch_bytes = 256u << 20;  // several times L2
    CHECK(cudaMalloc(&scratch, scratch_bytes));
    unsigned long long *offsets_d = nullptr, *last = nullptr;
    unsigned *next_d = nullptr, *claim = nullptr, *times = nullptr, *writer = nullptr;
    CHECK(cudaMalloc(&base, region));
    CHECK(cudaMalloc(&staging, region));
    CHECK(cudaMallocHost(&host, region));
    CHECK(cudaMalloc(&offsets_d, kLines * 8));
    CHECK(cudaMalloc(&next_d, kLines * 4));
    CHECK(cudaMalloc(&claim, 4));
    CHECK(cudaMalloc(&times, kLines * 4));
    CHECK(cudaMalloc(&last, 8));
    CHECK(cudaMalloc(&writer, 4));
    CHECK(cudaMemcpy(offsets_d, offsets.data(), kLines * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(next_d, next.data(), kLines * 4, cudaMemcpyHostToDevice));
    // The lines' content as the kernel writes it, in host and staging memory.
    for (unsigned i = 0; i < kLines; ++i)
        for (unsigned w = 0; w < 16; ++w)
            reinterpret_cast<unsigned long long *>(host + offsets[i])[w] =
                w == 0 ? reinterpret_cast<unsigned long long>(base + offsets[next[i]]) : offsets[i] + w;
    CHECK(cudaMemcpy(staging, host, region, cudaMemcpyHostToDevice));
    const char *names[] = {"kernel, one block", "copy engine from pinned host", "copy engine from device memory"};
    std::printf("threshold %u cycles; per SM: share of first visits above it (and above 1.6x it: DRAM)\n", threshold);
    for (int method = 0; method < 3; ++method) {
        std::printf("%-32s", names[method]);
        unsigned writer_sm = 0;
        for (int sm = 0; sm < sms; sm += 11) {
            // Evict the ring from L2: write several times L2 elsewhere.
            CHECK(cudaMemset(scratch, sm, scratch_bytes));
            if (method == 0) {
                write_lines<<<1, 256>>>(base, offsets_d, next_d, writer);
                CHECK(cudaGetLastError());
                CHECK(cudaMemcpy(&writer_sm, writer, 4, cudaMemcpyDeviceToHost));
            } else {
                for (unsigned i = 0; i < kLines; ++i)
                    CHECK(cudaMemcpyAsync(base + offsets[i], (method == 1 ? host : staging) + offsets[i], 128,
                                          method == 1 ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice));
            }
            CHECK(cudaMemset(claim, 0, 4));
            chase<<<sms * 4, 32>>>(base, offsets[0], static_cast<unsigned>(sm), claim, times, last);
            CHECK(cudaGetLastError());
            std::vector<unsigned> t(kLines);
            unsigned long long end = 0;
            CHECK(cudaMemcpy(t.data(), times, kLines * 4, cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(&end, last, 8, cudaMemcpyDeviceToHost));
            if (end != reinterpret_cast<unsigned long long>(base + offsets[0])) {
                std::printf(" [ring broken]");
                continue;
            }
            unsigned far = 0, dram = 0;
            for (unsigned v : t) {
                far += v > threshold && v <= 1.6 * threshold;
                dram += v > 1.6 * threshold;
            }
            std::printf(" %3d:%.2f/%.2f", sm, far / double(kLines), dram / double(kLines));
        }
        if (method == 0) std::printf("  (written from SM %u)", writer_sm);
        std::printf("\n");
    }
    return 0;
}
