// Where the last few percent of a TMA copy go. tma_copy's best bulk copy of
// 1 GiB reaches about 0.95 of our copy kernel and of cudaMemcpy; this probe
// times, on the same two 1 GiB arrays, variants of its ring that each change
// one thing:
//   grid      persistent grid of 1, 2, 4 or 8 blocks per SM (chunk x stages
//             sized to fit), against the occupancy the experiment takes
//   partition chunks interleaved over the grid (the experiment: block b takes
//             b, b + grid, ...) or one contiguous range per block
//   store     the copy out by the copy engine (cp.async.bulk) or by the
//             block's threads (st.global.v4 from shared memory)
//   prefetch  cp.async.bulk.prefetch.L2 of the chunk `stages` ahead of the
//             load in flight
//   evict     the copy out with an L2 evict_first policy (written lines are
//             not read again)
//   one pass  no ring: block b copies chunks b m .. b m + m - 1 once, and the
//             grid covers the array (blocks start and retire in address order)
// beside the copy kernel (uint4 grid-stride loop, and one pass) and
// cudaMemcpyAsync. Every
// variant's output is poisoned, copied once and compared word for word with
// the input on the device before it is timed (median of 20 launches).
//
//   nvcc -O3 -arch=sm_90a -o tma_variants_probe bench/tma_variants_probe.cu && ./tma_variants_probe
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "probe_check.cuh"

namespace {

constexpr std::size_t kBytes = std::size_t(1) << 30;

__device__ __forceinline__ std::uint32_t smem_addr(const void *p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void bar_init(std::uint32_t bar) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void bar_expect(std::uint32_t bar, std::uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bar_wait(std::uint32_t bar, std::uint32_t parity) {
    std::uint32_t done = 0;
    do {
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}
__device__ __forceinline__ void load_chunk(std::uint32_t dst, const void *src, std::uint32_t n, std::uint32_t bar) {
    bar_expect(bar, n);
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(src), "r"(n), "r"(bar)
                 : "memory");
}
__device__ __forceinline__ void prefetch_chunk(const void *src, std::uint32_t n) {
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src), "r"(n) : "memory");
}
__device__ __forceinline__ void store_chunk(void *dst, std::uint32_t src, std::uint32_t n, bool evict_first, std::uint64_t policy) {
    if (evict_first)
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;" ::"l"(dst), "r"(src),
                     "r"(n), "l"(policy)
                     : "memory");
    else
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "r"(n) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

struct Variant {
    std::string name;
    int blocks_per_sm, stages;
    std::uint32_t chunk;
    bool contiguous, thread_store, prefetch, evict_first;
};

// Chunk k of this block: interleaved (b + k grid) or from its own range.
__device__ __forceinline__ std::size_t chunk_index(std::size_t k, std::size_t chunks, bool contiguous) {
    if (!contiguous) return blockIdx.x + k * gridDim.x;
    const std::size_t per = (chunks + gridDim.x - 1) / gridDim.x;
    return blockIdx.x * per + k;
}
__device__ __forceinline__ std::size_t my_chunks(std::size_t chunks, bool contiguous) {
    if (!contiguous) return blockIdx.x < chunks ? (chunks - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
    const std::size_t per = (chunks + gridDim.x - 1) / gridDim.x, begin = blockIdx.x * per;
    return begin < chunks ? (per < chunks - begin ? per : chunks - begin) : 0;
}

// One thread drives loads into a ring of `stages` buffers; the copy out is
// bulk (the same thread) or by every thread of the block from shared memory.
__global__ void ring_copy(const char *in, char *out, std::size_t bytes, std::uint32_t chunk, int stages, bool contiguous,
                          bool thread_store, bool prefetch, bool evict_first) {
    extern __shared__ __align__(128) unsigned char smem[];
    __shared__ __align__(8) unsigned long long bars[8];
    const std::size_t chunks = bytes / chunk, mine = my_chunks(chunks, contiguous);
    const std::uint32_t base = smem_addr(smem), bar0 = smem_addr(bars);
    std::uint64_t policy = 0;
    if (evict_first) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    if (threadIdx.x == 0) {
        for (int s = 0; s < stages; ++s) bar_init(bar0 + 8 * s);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        for (int s = 0; s < stages && std::size_t(s) < mine; ++s)
            load_chunk(base + s * chunk, in + chunk_index(s, chunks, contiguous) * chunk, chunk, bar0 + 8 * s);
    }
    __syncthreads();
    for (std::size_t k = 0; k < mine; ++k) {
        const int s = static_cast<int>(k % stages);
        const std::size_t i = chunk_index(k, chunks, contiguous);
        if (thread_store) {
            bar_wait(bar0 + 8 * s, static_cast<std::uint32_t>(k / stages) & 1u);
            const uint4 *src = reinterpret_cast<const uint4 *>(smem + s * chunk);
            uint4 *dst = reinterpret_cast<uint4 *>(out + i * chunk);
            for (std::uint32_t v = threadIdx.x; v < chunk / 16; v += blockDim.x) dst[v] = src[v];
            __syncthreads();
            if (threadIdx.x == 0 && k + stages < mine) {
                // The threads' reads of the buffer (generic proxy) before the copy engine refills it (async proxy).
                asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
                const std::size_t next = chunk_index(k + stages, chunks, contiguous);
                load_chunk(base + s * chunk, in + next * chunk, chunk, bar0 + 8 * s);
                if (prefetch && k + 2 * stages < mine) prefetch_chunk(in + chunk_index(k + 2 * stages, chunks, contiguous) * chunk, chunk);
            }
            continue;
        }
        if (threadIdx.x != 0) break;
        bar_wait(bar0 + 8 * s, static_cast<std::uint32_t>(k / stages) & 1u);
        store_chunk(out + i * chunk, base + s * chunk, chunk, evict_first, policy);
        asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
        if (k >= 1 && k - 1 + stages < mine) {
            const int r = static_cast<int>((k - 1) % stages);
            load_chunk(base + r * chunk, in + chunk_index(k - 1 + stages, chunks, contiguous) * chunk, chunk, bar0 + 8 * r);
            if (prefetch && k - 1 + 2 * stages < mine)
                prefetch_chunk(in + chunk_index(k - 1 + 2 * stages, chunks, contiguous) * chunk, chunk);
        }
    }
    if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// One pass: block b copies chunks b m .. b m + m - 1 once, all m loads in
// flight at the start, each stored as its barrier completes; the grid covers
// the array, so blocks retire and start in address order (as stream's
// one-pass copy kernel does) instead of a persistent grid walking it.
__global__ void one_pass_copy(const char *in, char *out, std::size_t bytes, std::uint32_t chunk, int m) {
    extern __shared__ __align__(128) unsigned char smem[];
    __shared__ __align__(8) unsigned long long bars[8];
    if (threadIdx.x != 0) return;
    const std::size_t chunks = bytes / chunk, first = std::size_t(blockIdx.x) * m;
    const int mine = static_cast<int>(first >= chunks ? 0 : (chunks - first < std::size_t(m) ? chunks - first : m));
    const std::uint32_t base = smem_addr(smem), bar0 = smem_addr(bars);
    for (int s = 0; s < mine; ++s) bar_init(bar0 + 8 * s);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    for (int s = 0; s < mine; ++s) load_chunk(base + s * chunk, in + (first + s) * chunk, chunk, bar0 + 8 * s);
    for (int s = 0; s < mine; ++s) {
        bar_wait(bar0 + 8 * s, 0);
        store_chunk(out + (first + s) * chunk, base + s * chunk, chunk, false, 0);
    }
    // Shared memory must outlive the copies out's reads of it; the kernel's end completes their writes.
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

__global__ void copy_kernel(const uint4 *in, uint4 *out, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = in[i];
}
__global__ void fill(std::uint32_t *p, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        p[i] = static_cast<std::uint32_t>(i * 2654435761u) ^ 0x9e3779b9u;
}
__global__ void count_diff(const std::uint32_t *a, const std::uint32_t *b, std::size_t n, unsigned long long *bad) {
    unsigned long long local = 0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        local += a[i] != b[i];
    if (local) atomicAdd(bad, local);
}

struct Arrays {
    char *in, *out;
    unsigned long long *bad;
    int sms;
};

template <class Launch>
double median_gbs(const Arrays &a, Launch launch, const char *name) {
    CHECK(cudaMemset(a.out, 0xA5, kBytes));
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaMemset(a.bad, 0, sizeof *a.bad));
    count_diff<<<a.sms * 8, 256>>>(reinterpret_cast<const std::uint32_t *>(a.in), reinterpret_cast<const std::uint32_t *>(a.out),
                                   kBytes / 4, a.bad);
    unsigned long long bad = 0;
    CHECK(cudaMemcpy(&bad, a.bad, sizeof bad, cudaMemcpyDeviceToHost));
    if (bad) {
        std::printf("%-44s WRONG: %llu words differ\n", name, bad);
        return 0;
    }
    return 2.0 * kBytes / (median_launch_ms(0, 20, [] {}, launch) * 1e-3) / 1e9;
}

}  // namespace

int main() {
    Arrays a{};
    CHECK(cudaDeviceGetAttribute(&a.sms, cudaDevAttrMultiProcessorCount, 0));
    int smem_optin = 0;
    CHECK(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    CHECK(cudaMalloc(&a.in, kBytes));
    CHECK(cudaMalloc(&a.out, kBytes));
    CHECK(cudaMalloc(&a.bad, sizeof *a.bad));
    fill<<<a.sms * 8, 256>>>(reinterpret_cast<std::uint32_t *>(a.in), kBytes / 4);
    CHECK(cudaGetLastError());
    cudaFuncAttributes attr{};
    CHECK(cudaFuncGetAttributes(&attr, ring_copy));
    CHECK(cudaFuncSetAttribute(ring_copy, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_optin - int(attr.sharedSizeBytes)));
    std::printf("%s, %d SMs, 1 GiB copied (GB/s: bytes read + written)\n", prop.name, a.sms);

    const double kernel = median_gbs(a, [&] { copy_kernel<<<a.sms * 8, 256>>>(reinterpret_cast<const uint4 *>(a.in),
                                                                           reinterpret_cast<uint4 *>(a.out), kBytes / 16); },
                                     "copy kernel");
    const double memcpy = median_gbs(a, [&] { CHECK(cudaMemcpyAsync(a.out, a.in, kBytes, cudaMemcpyDeviceToDevice)); }, "cudaMemcpy");
    std::printf("%-44s %8.1f\n%-44s %8.1f\n", "copy kernel (uint4, 8 x 256 per SM)", kernel, "cudaMemcpyAsync", memcpy);

    std::vector<Variant> variants;
    for (int bps : {1, 2, 4, 8})
        for (std::uint32_t chunk : {16384u, 32768u})
            for (int stages : {2, 3, 4}) {
                if (std::size_t(bps) * stages * chunk > std::size_t(prop.sharedMemPerMultiprocessor) - bps * 2048) continue;
                variants.push_back({"bulk", bps, stages, chunk, false, false, false, false});
            }
    const std::vector<Variant> base = variants;
    for (const Variant &v : base)
        if (v.blocks_per_sm <= 2 && v.chunk == 32768) {
            Variant c = v;
            c.contiguous = true;
            variants.push_back(c);
            c = v;
            c.prefetch = true;
            variants.push_back(c);
            c = v;
            c.evict_first = true;
            variants.push_back(c);
            c = v;
            c.thread_store = true;
            variants.push_back(c);
        }
    for (const Variant &v : variants) {
        const int threads = v.thread_store ? 256 : 32;
        const std::size_t shared = std::size_t(v.stages) * v.chunk;
        char name[96];
        std::snprintf(name, sizeof name, "%d/SM %2u KiB x %d%s%s%s%s", v.blocks_per_sm, v.chunk / 1024, v.stages,
                      v.contiguous ? " contiguous" : "", v.thread_store ? " st.global" : "", v.prefetch ? " prefetch" : "",
                      v.evict_first ? " evict_first" : "");
        int fit = 0;
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, ring_copy, threads, shared));
        if (fit < v.blocks_per_sm) continue;
        const double g = median_gbs(a, [&] { ring_copy<<<a.sms * v.blocks_per_sm, threads, shared>>>(
                                                 a.in, a.out, kBytes, v.chunk, v.stages, v.contiguous, v.thread_store, v.prefetch,
                                                 v.evict_first); },
                                    name);
        if (g > 0) std::printf("%-44s %8.1f  %.3f of the kernel  %.3f of cudaMemcpy\n", name, g, g / kernel, g / memcpy);
    }
    // The one-pass grid: as many blocks as the array has groups of m chunks.
    CHECK(cudaFuncSetAttribute(one_pass_copy, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_optin - 2048));
    const double one_pass_kernel = median_gbs(a, [&] { copy_kernel<<<unsigned(kBytes / 16 / 256), 256>>>(
                                                    reinterpret_cast<const uint4 *>(a.in), reinterpret_cast<uint4 *>(a.out), kBytes / 16); },
                                              "copy kernel, one pass");
    std::printf("%-44s %8.1f  %.3f of cudaMemcpy\n", "copy kernel (uint4, one per thread, one pass)", one_pass_kernel,
                one_pass_kernel / memcpy);
    for (std::uint32_t chunk : {8192u, 16384u, 32768u})
        for (int m : {1, 2, 3, 4, 6}) {
            const std::size_t shared = std::size_t(m) * chunk;
            if (shared > std::size_t(smem_optin) - 2048) continue;
            const unsigned grid = unsigned((kBytes / chunk + m - 1) / m);
            char name[96];
            std::snprintf(name, sizeof name, "one pass %2u KiB x %d per block", chunk / 1024, m);
            const double g = median_gbs(a, [&] { one_pass_copy<<<grid, 32, shared>>>(a.in, a.out, kBytes, chunk, m); }, name);
            if (g > 0) std::printf("%-44s %8.1f  %.3f of the kernel  %.3f of cudaMemcpy\n", name, g, g / kernel, g / memcpy);
        }
    CHECK(cudaFree(a.in));
    CHECK(cudaFree(a.out));
    CHECK(cudaFree(a.bad));
    return 0;
}
