#include "experiments/latency/latency.cuh"

#include "shared_kernels/device_clock.cuh"
#include "shared_kernels/kernel_catalogue.cuh"

namespace gmlab::kernels {

namespace {

constexpr int kChaseBlock = 512;

// The clocks (device_clock.cuh) keep the chase's loads between the two
// readings. The last hop's load is issued before the end reading but may not
// have returned: an error of at most one hop in `hops`.

// One dependent load with an explicit cache operator: .ca caches in L1 and
// L2 (the default for global loads), .cg in L2 only.
template <LoadPath P> __device__ __forceinline__ unsigned long long load_next(unsigned long long address) {
    unsigned long long v;
    if constexpr (P == LoadPath::Cached)
        asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(address) : "memory");
    else
        asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(address) : "memory");
    return v;
}

__global__ void build_ring(unsigned long long *ring, std::size_t stride_words, const std::uint32_t *next, std::size_t lines) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < lines;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        ring[i * stride_words] = reinterpret_cast<unsigned long long>(ring + next[i] * stride_words);
}

template <LoadPath P>
__global__ void __launch_bounds__(kChaseBlock) chase(const unsigned long long *ring, std::size_t stride_words,
                                                     std::size_t lines, std::size_t start, unsigned prewalk, unsigned hops,
                                                     bool warm, ChaseSample *out) {
    __shared__ unsigned long long sink;
    if (warm) {
        // Every line through the same path, by the whole block: fast, and it
        // leaves in this multiprocessor's L1 (for .ca) and in L2 what fits.
        unsigned long long acc = 0;
        for (std::size_t i = threadIdx.x; i < lines; i += blockDim.x)
            acc ^= load_next<P>(reinterpret_cast<unsigned long long>(ring + i * stride_words));
        // The addresses are multiples of 8, so acc never is 1; testing it makes
        // each thread wait for its loads before the timed chase starts.
        if (acc == 1) sink = acc;
        __syncthreads();
    }
    if (threadIdx.x != 0) return;
    const unsigned long long base = reinterpret_cast<unsigned long long>(ring);
    // The block's pass above fills L2, but on Hopper it does not leave the
    // lines in L1 for this thread's loads (measured: without this walk the
    // ld.ca latency rose with the ring as if every first visit missed L1).
    // Walking the ring itself first (`prewalk` untimed hops) does; the timed
    // hops continue from there.
    const unsigned long long p =
        walk_then_time([](unsigned long long a) { return load_next<P>(a); },
                       base + start * stride_words * sizeof(unsigned long long), prewalk, hops, out);
    out->last = (p - base) / (stride_words * sizeof(unsigned long long));
}

// ---- the other memory spaces ----

__constant__ std::uint32_t c_ring[kConstantNodes * kConstantStrideWords];

__global__ void chase_registers(std::uint32_t start, unsigned hops, ChaseSample *out) {
    // register_step in inline PTX, one multiply-add each: the compiler would
    // otherwise fold consecutive affine steps into one.
    std::uint32_t x = start;
    const std::uint32_t a = 2654435761u, c = 12345u;
    const unsigned long long t0 = ns_now();
    const long long c0 = clock_now();
#pragma unroll 16
    for (unsigned i = 0; i < hops; ++i) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(c));
    const long long c1 = clock_now();
    const unsigned long long t1 = ns_now();
    out->cycles = static_cast<unsigned long long>(c1 - c0);
    out->ns = t1 - t0;
    out->last = x;
}

// A ring of byte offsets inside `base`: the next node's offset is read at the
// current one, so each load's address is its predecessor's value (no arithmetic).
__device__ __forceinline__ std::uint32_t next_offset(const char *base, std::uint32_t off) {
    return *reinterpret_cast<const std::uint32_t *>(base + off);
}

// Walks the ring once untimed, then `hops` times timed, from node `start`;
// node k sits at origin + k x node_bytes (in the unit step takes).
template <class Step>
__device__ __forceinline__ void timed_walk(Step step, std::uint32_t origin, std::uint32_t start, unsigned nodes,
                                           unsigned hops, std::uint32_t node_bytes, ChaseSample *out) {
    const std::uint32_t off = walk_then_time(step, origin + start * node_bytes, nodes, hops, out);
    out->last = (off - origin) / node_bytes;
}

__global__ void chase_shared(const std::uint32_t *next_offsets, std::uint32_t start, unsigned hops, ChaseSample *out) {
    __shared__ std::uint32_t s[kSharedNodes];
    for (int k = threadIdx.x; k < kSharedNodes; k += blockDim.x) s[k] = next_offsets[k];
    __syncthreads();
    if (threadIdx.x != 0) return;
    const char *base = reinterpret_cast<const char *>(s);
    timed_walk([base](std::uint32_t off) { return next_offset(base, off); }, 0, start, kSharedNodes, hops, 4u, out);
}

__global__ void chase_constant(std::uint32_t start, unsigned hops, ChaseSample *out) {
    const char *base = reinterpret_cast<const char *>(c_ring);
    constexpr std::uint32_t node_bytes = kConstantStrideWords * 4;
    timed_walk([base](std::uint32_t off) { return next_offset(base, off); }, 0, start, kConstantNodes, hops, node_bytes,
               out);
}

__global__ void chase_texture(cudaTextureObject_t tex, std::uint32_t start, unsigned hops, ChaseSample *out) {
    // Word indices rather than bytes: tex1Dfetch takes an element index.
    timed_walk([tex](std::uint32_t idx) { return tex1Dfetch<std::uint32_t>(tex, static_cast<int>(idx)); },
               0, start, kTextureNodes, hops, kTextureStrideWords, out);
}

__global__ void chase_local(const std::uint32_t *next_offsets, std::uint32_t start, unsigned hops, ChaseSample *out) {
    // Indexed at run time, so the array cannot live in registers: it is in
    // local memory. Its nodes hold local-window addresses, loaded with
    // ld.local in inline PTX, so that no add of the array's base sits between
    // two hops (the local base is a register, unlike shared's or constant's).
    std::uint32_t a[kLocalNodes];
    const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_local(a));
    for (int k = 0; k < kLocalNodes; ++k) a[k] = base + next_offsets[k];
    auto step = [](std::uint32_t address) {
        std::uint32_t v;
        asm volatile("ld.local.u32 %0, [%1];" : "=r"(v) : "r"(address) : "memory");
        return v;
    };
    timed_walk(step, base, start, kLocalNodes, hops, 4u, out);
}

template <LoadPath P> const void *chase_kernel() { return reinterpret_cast<const void *>(chase<P>); }

const void *space_kernel(Space s) {
    switch (s) {
    case Space::Registers: return reinterpret_cast<const void *>(chase_registers);
    case Space::Shared: return reinterpret_cast<const void *>(chase_shared);
    case Space::Constant: return reinterpret_cast<const void *>(chase_constant);
    case Space::Texture: return reinterpret_cast<const void *>(chase_texture);
    case Space::Local: return reinterpret_cast<const void *>(chase_local);
    }
    return nullptr;
}

GM_KERNEL("latency", "build_ring", build_ring);
GM_KERNEL("latency", "chase<ld.global.ca>", (chase<LoadPath::Cached>));
GM_KERNEL("latency", "chase<ld.global.cg>", (chase<LoadPath::Bypass>));
GM_KERNEL("memory_spaces", "build_ring", build_ring);
GM_KERNEL("memory_spaces", "chase<ld.global.ca>", (chase<LoadPath::Cached>));
GM_KERNEL("memory_spaces", "chase<ld.global.cg>", (chase<LoadPath::Bypass>));
GM_KERNEL("memory_spaces", "chase_registers", chase_registers);
GM_KERNEL("memory_spaces", "chase_shared", chase_shared);
GM_KERNEL("memory_spaces", "chase_constant", chase_constant);
GM_KERNEL("memory_spaces", "chase_texture", chase_texture);
GM_KERNEL("memory_spaces", "chase_local", chase_local);

}  // namespace

cudaError_t launch_build_ring(unsigned long long *ring, std::size_t stride_words, const std::uint32_t *next,
                              std::size_t lines, cudaStream_t stream) {
    if (lines == 0 || stride_words == 0) return cudaErrorInvalidValue;
    const std::size_t blocks = (lines + 255) / 256;
    build_ring<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(ring, stride_words, next, lines);
    return cudaGetLastError();
}

cudaError_t launch_chase(LoadPath path, const unsigned long long *ring, std::size_t stride_words, std::size_t lines,
                         std::size_t start, unsigned prewalk, unsigned hops, bool warm, ChaseSample *out, cudaStream_t stream) {
    if (lines == 0 || stride_words == 0 || start >= lines) return cudaErrorInvalidValue;
    const unsigned threads = warm ? kChaseBlock : 1;
    if (path == LoadPath::Cached)
        chase<LoadPath::Cached><<<1, threads, 0, stream>>>(ring, stride_words, lines, start, prewalk, hops, warm, out);
    else
        chase<LoadPath::Bypass><<<1, threads, 0, stream>>>(ring, stride_words, lines, start, prewalk, hops, warm, out);
    return cudaGetLastError();
}

cudaError_t prefer_l1_for_chase() {
    for (const void *k : {chase_kernel<LoadPath::Cached>(), chase_kernel<LoadPath::Bypass>(), space_kernel(Space::Local),
                          space_kernel(Space::Texture)}) {
        cudaError_t err = cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxL1);
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}

cudaError_t set_constant_ring(const std::uint32_t *words, cudaStream_t stream) {
    return cudaMemcpyToSymbolAsync(c_ring, words, sizeof(c_ring), 0, cudaMemcpyHostToDevice, stream);
}

cudaError_t launch_space_chase(Space space, const std::uint32_t *next_offsets, cudaTextureObject_t tex,
                               std::uint32_t start, unsigned hops, ChaseSample *out, cudaStream_t stream) {
    switch (space) {
    case Space::Registers: chase_registers<<<1, 1, 0, stream>>>(start, hops, out); break;
    case Space::Shared:
        if (start >= kSharedNodes) return cudaErrorInvalidValue;
        chase_shared<<<1, 256, 0, stream>>>(next_offsets, start, hops, out);
        break;
    case Space::Constant:
        if (start >= kConstantNodes) return cudaErrorInvalidValue;
        chase_constant<<<1, 1, 0, stream>>>(start, hops, out);
        break;
    case Space::Texture:
        if (start >= kTextureNodes) return cudaErrorInvalidValue;
        chase_texture<<<1, 1, 0, stream>>>(tex, start, hops, out);
        break;
    case Space::Local:
        if (start >= kLocalNodes) return cudaErrorInvalidValue;
        chase_local<<<1, 1, 0, stream>>>(next_offsets, start, hops, out);
        break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

cudaError_t space_chase_attributes(Space space, cudaFuncAttributes *out) {
    const void *k = space_kernel(space);
    return k ? cudaFuncGetAttributes(out, k) : cudaErrorInvalidValue;
}

}  // namespace gmlab::kernels
