#include "experiments/l2_partitions/l2_partitions.cuh"

#include "shared_kernels/device_clock.cuh"
#include "shared_kernels/kernel_catalogue.cuh"

namespace gmlab::kernels {

namespace {

constexpr unsigned kWordsPerLine = kChaseLineBytes / sizeof(unsigned long long);
constexpr long long kCensusStayCycles = 20000;  // about 10 us: long enough for the other blocks to be placed

__device__ __forceinline__ unsigned sm_id() {
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

__device__ __forceinline__ unsigned sm_id_bound() {
    unsigned s;
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(s));
    return s;
}

// A store into shared memory that cannot issue before `v` is back: what
// makes the reading after it wait for a load.
__device__ __forceinline__ void keep(unsigned long long v, unsigned shared_address) {
    asm volatile("st.volatile.shared.u64 [%0], %1;" ::"r"(shared_address), "l"(v) : "memory");
}

// L2 only: .cg leaves L1 out, so that every hop is served by L2.
__device__ __forceinline__ unsigned long long load_cg(unsigned long long address) {
    unsigned long long v;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(address) : "memory");
    return v;
}

__global__ void sm_census(unsigned *seen, unsigned *nsmid) {
    if (threadIdx.x != 0) return;
    const unsigned s = sm_id();
    if (s < kSmIdWords * 32) atomicOr(&seen[s / 32], 1u << (s % 32));
    if (blockIdx.x == 0) *nsmid = sm_id_bound();
    const long long until = clock_now() + kCensusStayCycles;
    while (clock_now() < until) {
    }
}

__global__ void write_lines(char *base, const unsigned long long *offsets, const std::uint32_t *next, unsigned n,
                            unsigned *writer_smid) {
    if (writer_smid && blockIdx.x == 0 && threadIdx.x == 0) *writer_smid = sm_id();
    // Sixteen consecutive threads write one line: each store instruction
    // covers two whole lines.
    const unsigned long long total = static_cast<unsigned long long>(n) * kWordsPerLine;
    for (unsigned long long k = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; k < total;
         k += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
        const unsigned line = static_cast<unsigned>(k / kWordsPerLine), word = static_cast<unsigned>(k % kWordsPerLine);
        const unsigned long long off = offsets ? offsets[line] : static_cast<unsigned long long>(line) * kChaseLineBytes;
        unsigned long long v = off + word;  // filler, never followed
        if (word == 0) {
            const unsigned long long to = offsets ? offsets[next[line]] : static_cast<unsigned long long>(next[line]) * kChaseLineBytes;
            v = reinterpret_cast<unsigned long long>(base + to);
        }
        reinterpret_cast<unsigned long long *>(base + off)[word] = v;
    }
}

__global__ void __launch_bounds__(kPinnedChaseThreads)
    pinned_chase(const char *base, unsigned target, unsigned long long start, unsigned hops, unsigned warm_pages,
                 unsigned long long block_warm_bytes, PinnedChaseHead *head, unsigned *cycles) {
    __shared__ unsigned times[kMaxTimedHops];
    __shared__ unsigned long long stash;
    __shared__ int won;
    // Blocks on other SMs leave at once; of those on the target SM the first
    // to claim the launch chases (the others leave too).
    const unsigned smid = sm_id();
    if (smid != target) return;
    if (threadIdx.x == 0) won = atomicCAS(&head->claim, 0u, 1u) == 0u;
    __syncthreads();
    if (!won) return;
    const unsigned long long b = reinterpret_cast<unsigned long long>(base);
    const unsigned stash_address = static_cast<unsigned>(__cvta_generic_to_shared(&stash));
    if (block_warm_bytes) {
        // Every line start through the same path, by the whole block: what
        // fits stays in L2, and this SM's address translation is warm.
        unsigned long long acc = 0;
#pragma unroll 8
        for (unsigned long long o = threadIdx.x * kChaseLineBytes; o < block_warm_bytes; o += blockDim.x * kChaseLineBytes)
            acc ^= load_cg(b + o);
        // Ring words are addresses (multiples of 8): acc is never 1, and
        // testing it makes each thread wait for its loads.
        if (acc == 1) keep(acc, stash_address);
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        // Iterations -warm_pages..-1 load page starts (never lines of a ring)
        // through the same code as the timed hops; then the ring from `start`.
        unsigned long long address = warm_pages ? b : b + start, sum = 0, t_first = 0;
        long long c_first = 0;
#pragma unroll 1
        for (int h = -static_cast<int>(warm_pages); h < static_cast<int>(hops); ++h) {
            if (h == 0) {
                t_first = ns_now();
                c_first = clock_now();
            }
            const long long c0 = clock_now();
            const unsigned long long v = load_cg(address);
            // The store cannot issue before the load's value is back, and the
            // second reading is issued after it: c1 - c0 is the load's latency
            // plus a few cycles of issue.
            keep(v, stash_address);
            const long long c1 = clock_now();
            if (h >= 0) {
                times[h] = static_cast<unsigned>(c1 - c0);
                sum += v - b;
            }
            const int n = h + 1;
            address = n < 0    ? b + static_cast<unsigned long long>(n + static_cast<int>(warm_pages)) * kChasePageBytes
                      : n == 0 ? b + start
                               : v;
        }
        const long long c_last = clock_now();
        const unsigned long long t_last = ns_now();
        head->smid = smid;
        head->last = address - b;
        head->sum = sum;
        head->cycles = static_cast<unsigned long long>(c_last - c_first);
        head->ns = t_last - t_first;
    }
    __syncthreads();
    if (cycles)
        for (unsigned h = threadIdx.x; h < hops; h += blockDim.x) cycles[h] = times[h];
}

GM_KERNEL("l2_partitions", "sm_census", sm_census);
GM_KERNEL("l2_partitions", "write_lines", write_lines);
GM_KERNEL("l2_partitions", "pinned_chase", pinned_chase);

}  // namespace

cudaError_t launch_sm_census(unsigned *seen, unsigned *nsmid, unsigned blocks, cudaStream_t stream) {
    if (!seen || !nsmid || blocks == 0) return cudaErrorInvalidValue;
    sm_census<<<blocks, 32, 0, stream>>>(seen, nsmid);
    return cudaGetLastError();
}

cudaError_t launch_write_lines(char *base, const unsigned long long *offsets, const std::uint32_t *next, unsigned n,
                               unsigned blocks, unsigned *writer_smid, cudaStream_t stream) {
    if (!base || !next || n == 0 || blocks == 0) return cudaErrorInvalidValue;
    write_lines<<<blocks, 512, 0, stream>>>(base, offsets, next, n, writer_smid);
    return cudaGetLastError();
}

cudaError_t launch_pinned_chase(const char *base, unsigned target_smid, unsigned long long start, unsigned hops,
                                unsigned warm_pages, unsigned long long block_warm_bytes, unsigned blocks,
                                PinnedChaseHead *head, unsigned *cycles, cudaStream_t stream) {
    if (!base || !head || hops == 0 || hops > kMaxTimedHops || blocks == 0 || start % 8 != 0) return cudaErrorInvalidValue;
    pinned_chase<<<blocks, kPinnedChaseThreads, 0, stream>>>(base, target_smid, start, hops, warm_pages, block_warm_bytes,
                                                             head, cycles);
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
