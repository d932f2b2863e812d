#include "experiments/tma_copy/tma_copy.cuh"

#include <cstring>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_pipeline_primitives.h>

#include "shared_kernels/kernel_catalogue.cuh"
#include "shared_kernels/pattern.hpp"

// The Tensor Memory Accelerator's instructions exist from sm_90 on. The
// library is also built for older GPUs, where these helpers compile to
// nothing: the host never launches the TMA kernels there (the experiment is
// not applicable below compute capability 9.0).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define GM_NO_TMA 1
#endif

namespace gmlab::kernels {

namespace {

static_assert(sizeof(CUtensorMap) == sizeof(TensorMapBytes), "CUtensorMap is 128 bytes");

// ---- PTX: mbarriers and bulk copies (PTX ISA 8.0, sm_90) ----

__device__ __forceinline__ std::uint32_t shared_address(const void *p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// An mbarrier that completes a phase when one thread has arrived and every
// byte announced with expect_tx has landed.
__device__ __forceinline__ void barrier_init(std::uint32_t bar) {
#ifndef GM_NO_TMA
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
#endif
}

// Makes the initialised barriers visible to the copy engine (the async proxy).
__device__ __forceinline__ void fence_barrier_init() {
#ifndef GM_NO_TMA
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

// Arrives on the barrier and announces `bytes` still to land in this phase.
__device__ __forceinline__ void barrier_expect_bytes(std::uint32_t bar, std::uint32_t bytes) {
#ifndef GM_NO_TMA
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
#endif
}

// Waits until the phase of the given parity has completed.
__device__ __forceinline__ void barrier_wait(std::uint32_t bar, std::uint32_t parity) {
#ifndef GM_NO_TMA
    std::uint32_t done = 0;
    do {
        asm volatile(
            "{\n\t.reg .pred p;\n\t"
            "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
            "selp.u32 %0, 1, 0, p;\n\t}"
            : "=r"(done)
            : "r"(bar), "r"(parity)
            : "memory");
    } while (!done);
#endif
}

// Global -> shared, completing `bytes` on the barrier.
__device__ __forceinline__ void bulk_load(std::uint32_t dst, const void *src, std::uint32_t bytes, std::uint32_t bar) {
#ifndef GM_NO_TMA
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(dst), "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
#endif
}

// Shared -> global, in the current bulk async-group.
__device__ __forceinline__ void bulk_store(void *dst, std::uint32_t src, std::uint32_t bytes) {
#ifndef GM_NO_TMA
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "r"(bytes) : "memory");
#endif
}

// The 2D tile at element (x, y) of the tensor map, global -> shared.
__device__ __forceinline__ void tensor_load(std::uint32_t dst, const CUtensorMap *map, std::uint32_t x, std::uint32_t y,
                                            std::uint32_t bar) {
#ifndef GM_NO_TMA
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(dst), "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y), "r"(bar)
                 : "memory");
#endif
}

// The 2D tile at element (x, y) of the tensor map, shared -> global.
__device__ __forceinline__ void tensor_store(const CUtensorMap *map, std::uint32_t src, std::uint32_t x, std::uint32_t y) {
#ifndef GM_NO_TMA
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
                 ::"l"(reinterpret_cast<std::uint64_t>(map)), "r"(src), "r"(x), "r"(y)
                 : "memory");
#endif
}

__device__ __forceinline__ void bulk_commit() {
#ifndef GM_NO_TMA
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}

// Waits until at most N bulk groups still read shared memory.
template <int N> __device__ __forceinline__ void bulk_wait_read() {
#ifndef GM_NO_TMA
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
#endif
}

// Waits until every bulk group has completed (its writes done).
__device__ __forceinline__ void bulk_wait_all() {
#ifndef GM_NO_TMA
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}

// ---- the TMA ring ----

// Chunk i of a 1D copy: `chunk` bytes at i x chunk (the last may be shorter).
struct BulkChunks {
    const char *in;
    char *out;
    std::size_t bytes;
    std::uint32_t chunk;

    __device__ std::uint32_t size(std::size_t i) const {
        const std::size_t left = bytes - i * chunk;
        return left < chunk ? static_cast<std::uint32_t>(left) : chunk;
    }
    __device__ void load(std::size_t i, std::uint32_t dst, std::uint32_t bar) const {
        const std::uint32_t n = size(i);
        barrier_expect_bytes(bar, n);
        bulk_load(dst, in + i * chunk, n, bar);
    }
    __device__ void store(std::size_t i, std::uint32_t src) const { bulk_store(out + i * chunk, src, size(i)); }
};

// Tile i of a 2D copy, row-major over tiles_x tiles per row of tiles.
struct TensorTiles {
    const CUtensorMap *in, *out;
    std::uint32_t tiles_x, box_cols, box_rows, tile_bytes;

    __device__ void origin(std::size_t i, std::uint32_t &x, std::uint32_t &y) const {
        x = static_cast<std::uint32_t>(i % tiles_x) * box_cols;
        y = static_cast<std::uint32_t>(i / tiles_x) * box_rows;
    }
    __device__ void load(std::size_t i, std::uint32_t dst, std::uint32_t bar) const {
        std::uint32_t x, y;
        origin(i, x, y);
        barrier_expect_bytes(bar, tile_bytes);
        tensor_load(dst, in, x, y, bar);
    }
    __device__ void store(std::size_t i, std::uint32_t src) const {
        std::uint32_t x, y;
        origin(i, x, y);
        tensor_store(out, src, x, y);
    }
};

// One thread drives the copy engine through a ring of Stages buffers: it
// starts the first Stages loads; then for each of its chunks it waits for the
// chunk's barrier, starts the copy out of that buffer, and refills the buffer
// whose copy out has finished reading shared memory (the previous one with
// two or more stages, this one with a single stage) with the chunk Stages on.
// per_block 0: a persistent grid, block b taking chunks b, b + grid, ...;
// else one pass: block b takes the per_block (at most Stages) consecutive
// chunks from b x per_block, so that blocks start and retire in address
// order, and leaves once its copies out have read shared memory.
template <int Stages, class Chunks>
__device__ __forceinline__ void tma_ring(const Chunks &c, std::size_t chunks, std::uint32_t stride, std::uint32_t per_block) {
    extern __shared__ __align__(128) unsigned char smem[];
    if (threadIdx.x != 0) return;
    const std::uint32_t base = shared_address(smem);
    const std::uint32_t bars = base + Stages * stride;
#pragma unroll
    for (int s = 0; s < Stages; ++s) barrier_init(bars + 8 * s);
    fence_barrier_init();
    const bool one_pass = per_block != 0;
    const std::size_t first = one_pass ? static_cast<std::size_t>(blockIdx.x) * per_block : blockIdx.x;
    const std::size_t step = one_pass ? 1 : gridDim.x;
    std::size_t mine = first < chunks ? (chunks - first + step - 1) / step : 0;
    if (one_pass && mine > per_block) mine = per_block;
#pragma unroll
    for (int s = 0; s < Stages; ++s)
        if (static_cast<std::size_t>(s) < mine) c.load(first + s * step, base + s * stride, bars + 8 * s);
    for (std::size_t k = 0; k < mine; ++k) {
        const std::uint32_t s = static_cast<std::uint32_t>(k % Stages);
        barrier_wait(bars + 8 * s, static_cast<std::uint32_t>(k / Stages) & 1u);
        c.store(first + k * step, base + s * stride);
        bulk_commit();
        if constexpr (Stages == 1) {
            bulk_wait_read<0>();
            if (k + 1 < mine) c.load(first + (k + 1) * step, base, bars);
        } else {
            bulk_wait_read<1>();
            if (k >= 1 && k - 1 + Stages < mine) {
                const std::uint32_t r = static_cast<std::uint32_t>((k - 1) % Stages);
                c.load(first + (k - 1 + Stages) * step, base + r * stride, bars + 8 * r);
            }
        }
    }
    // A one-pass block's last stores need only have read shared memory before
    // it leaves (the kernel's end completes their writes).
    if (one_pass) bulk_wait_read<0>();
    else bulk_wait_all();
}

template <int Stages>
__global__ void __launch_bounds__(kTmaBlock)
    bulk_copy(const char *in, char *out, std::size_t bytes, std::uint32_t chunk, std::uint32_t stride, std::uint32_t per_block) {
    const std::size_t chunks = (bytes + chunk - 1) / chunk;
    tma_ring<Stages>(BulkChunks{in, out, bytes, chunk}, chunks, stride, per_block);
}

template <int Stages>
__global__ void __launch_bounds__(kTmaBlock)
    tensor_copy(const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap out_map,
                std::uint32_t tiles_x, std::uint32_t tiles_y, std::uint32_t box_cols, std::uint32_t box_rows,
                std::uint32_t stride, std::uint32_t per_block) {
    const TensorTiles t{&in_map, &out_map, tiles_x, box_cols, box_rows, box_cols * box_rows * 4u};
    tma_ring<Stages>(t, static_cast<std::size_t>(tiles_x) * tiles_y, stride, per_block);
}

// ---- the per-thread paths ----

// Async: cp.async of 16 bytes per lane into a ring of Stages buffers, one
// commit group per stage; each chunk, once its group has landed and the block
// has synchronised, is stored from shared memory by every lane. Registers
// (Stages 1): each lane loads its vectors and stores them to shared memory,
// the block synchronises, and the lanes store them out.
template <bool Async, int Stages>
__global__ void __launch_bounds__(kThreadCopyBlock)
    thread_copy(const uint4 *in, uint4 *out, std::size_t bytes, std::uint32_t chunk, std::uint32_t stride) {
    extern __shared__ __align__(128) unsigned char smem[];
    const std::size_t chunks = (bytes + chunk - 1) / chunk;
    const std::size_t first = blockIdx.x, step = gridDim.x;
    const std::size_t mine = first < chunks ? (chunks - first + step - 1) / step : 0;
    const std::size_t chunk_vecs = chunk / 16;
    auto vecs = [&](std::size_t i) {
        const std::size_t left = bytes - i * chunk;
        return static_cast<std::uint32_t>((left < chunk ? left : chunk) / 16);
    };
    auto buffer = [&](std::uint32_t s) { return reinterpret_cast<uint4 *>(smem + s * stride); };
    auto store_out = [&](std::size_t i, const uint4 *src) {
        uint4 *dst = out + i * chunk_vecs;
        const std::uint32_t n = vecs(i);
#pragma unroll 4
        for (std::uint32_t v = threadIdx.x; v < n; v += blockDim.x) dst[v] = src[v];
    };
    if constexpr (Async) {
        auto issue = [&](std::size_t k, std::uint32_t s) {
            const std::size_t i = first + k * step;
            const uint4 *src = in + i * chunk_vecs;
            uint4 *dst = buffer(s);
            const std::uint32_t n = vecs(i);
#pragma unroll 4
            for (std::uint32_t v = threadIdx.x; v < n; v += blockDim.x) __pipeline_memcpy_async(dst + v, src + v, 16);
        };
#pragma unroll
        for (int s = 0; s < Stages; ++s) {
            if (static_cast<std::size_t>(s) < mine) issue(s, s);
            __pipeline_commit();
        }
        for (std::size_t k = 0; k < mine; ++k) {
            const std::uint32_t s = static_cast<std::uint32_t>(k % Stages);
            __pipeline_wait_prior(Stages - 1);
            __syncthreads();
            store_out(first + k * step, buffer(s));
            __syncthreads();
            if (k + Stages < mine) issue(k + Stages, s);
            __pipeline_commit();
        }
    } else {
        uint4 *buf = buffer(0);
        for (std::size_t k = 0; k < mine; ++k) {
            const std::size_t i = first + k * step;
            const uint4 *src = in + i * chunk_vecs;
            const std::uint32_t n = vecs(i);
#pragma unroll 4
            for (std::uint32_t v = threadIdx.x; v < n; v += blockDim.x) buf[v] = src[v];
            __syncthreads();
            store_out(i, buf);
            __syncthreads();
        }
    }
}

// ---- verification ----

__global__ void count_mismatches(const uint4 *p, std::size_t n_vecs, std::uint32_t seed, unsigned long long *result) {
    unsigned long long bad = 0, first = ~0ull;
    for (std::size_t v = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; v < n_vecs;
         v += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const uint4 w = p[v];
        const std::uint32_t got[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const std::size_t i = v * 4 + j;
            if (got[j] != pattern_word(i, seed)) {
                ++bad;
                if (i < first) first = i;
            }
        }
    }
    for (int o = 16; o > 0; o /= 2) {
        bad += __shfl_down_sync(0xffffffffu, bad, o);
        const unsigned long long f = __shfl_down_sync(0xffffffffu, first, o);
        first = f < first ? f : first;
    }
    if ((threadIdx.x & 31) == 0 && bad) {
        atomicAdd(result, bad);
        atomicMin(result + 1, first);
    }
}

// ---- which kernel ----

template <int S> const void *tma_kernel_for(TmaKernel path) {
    switch (path) {
    case TmaKernel::Bulk: return reinterpret_cast<const void *>(bulk_copy<S>);
    case TmaKernel::Tensor: return reinterpret_cast<const void *>(tensor_copy<S>);
    case TmaKernel::CpAsync: return reinterpret_cast<const void *>(thread_copy<true, S>);
    case TmaKernel::Registers: return S == 1 ? reinterpret_cast<const void *>(thread_copy<false, 1>) : nullptr;
    }
    return nullptr;
}

const void *kernel_for(TmaKernel path, int stages) {
    switch (stages) {
    case 1: return tma_kernel_for<1>(path);
    case 2: return tma_kernel_for<2>(path);
    case 3: return tma_kernel_for<3>(path);
    case 4: return tma_kernel_for<4>(path);
    default: return nullptr;
    }
}

int register_tma_kernels() {
    const char *names[] = {"bulk_copy", "tensor_copy", "thread_copy<cp.async>", "thread_copy<registers>"};
    for (int p = 0; p < 4; ++p)
        for (int s = 1; s <= 4; ++s)
            if (const void *k = kernel_for(static_cast<TmaKernel>(p), s))
                register_kernel("tma_copy", std::string(names[p]) + "<" + std::to_string(s) + (s == 1 ? " stage>" : " stages>"), k);
    return 0;
}
[[maybe_unused]] const int kTmaRegistered = register_tma_kernels();
GM_KERNEL("tma_copy", "count_mismatches (device-side verification)", count_mismatches);

std::uint32_t stride_of(std::size_t chunk) { return static_cast<std::uint32_t>((chunk + 127) / 128 * 128); }

template <int S>
cudaError_t launch_bulk_s(const void *in, void *out, std::size_t bytes, std::uint32_t chunk, int blocks, std::uint32_t per_block,
                          std::size_t smem, cudaStream_t st) {
    bulk_copy<S><<<blocks, kTmaBlock, smem, st>>>(static_cast<const char *>(in), static_cast<char *>(out), bytes, chunk,
                                                  stride_of(chunk), per_block);
    return cudaGetLastError();
}

template <int S>
cudaError_t launch_tensor_s(const CUtensorMap &in, const CUtensorMap &out, std::uint32_t tx, std::uint32_t ty,
                            std::uint32_t bc, std::uint32_t br, int blocks, std::uint32_t per_block, std::size_t smem,
                            cudaStream_t st) {
    tensor_copy<S><<<blocks, kTmaBlock, smem, st>>>(in, out, tx, ty, bc, br, stride_of(std::size_t(bc) * br * 4), per_block);
    return cudaGetLastError();
}

template <int S>
cudaError_t launch_async_s(const void *in, void *out, std::size_t bytes, std::uint32_t chunk, int blocks, std::size_t smem,
                           cudaStream_t st) {
    thread_copy<true, S><<<blocks, kThreadCopyBlock, smem, st>>>(static_cast<const uint4 *>(in), static_cast<uint4 *>(out),
                                                                 bytes, chunk, stride_of(chunk));
    return cudaGetLastError();
}

// The tensor-map encoder, asked for once.
struct Encoder {
    PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
    const char *why = nullptr;
};

const Encoder &encoder() {
    static const Encoder e = [] {
        Encoder r;
        void *fn = nullptr;
        cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
        const cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &status);
#else
        const cudaError_t err = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &status);
#endif
        if (err != cudaSuccess) {
            cudaGetLastError();
            r.why = "cudaGetDriverEntryPoint failed for cuTensorMapEncodeTiled";
        } else if (status != cudaDriverEntryPointSuccess || fn == nullptr) {
            r.why = status == cudaDriverEntryPointVersionNotSufficent
                        ? "the driver is too old for cuTensorMapEncodeTiled (CUDA 12.0 drivers and newer have it)"
                        : "the driver has no cuTensorMapEncodeTiled entry point";
        } else {
            r.fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
        }
        return r;
    }();
    return e;
}

}  // namespace

cudaError_t launch_bulk_copy(const void *in, void *out, std::size_t bytes, std::size_t chunk, int stages, int blocks,
                             int per_block, std::size_t shared_bytes, cudaStream_t stream) {
    if (bytes == 0 || bytes % 16 || chunk == 0 || chunk % 16 || blocks < 1 || chunk > 0xFFFFFFF0u) return cudaErrorInvalidValue;
    if (per_block < 0 || per_block > stages) return cudaErrorInvalidValue;
    const auto c = static_cast<std::uint32_t>(chunk);
    const auto pb = static_cast<std::uint32_t>(per_block);
    switch (stages) {
    case 1: return launch_bulk_s<1>(in, out, bytes, c, blocks, pb, shared_bytes, stream);
    case 2: return launch_bulk_s<2>(in, out, bytes, c, blocks, pb, shared_bytes, stream);
    case 3: return launch_bulk_s<3>(in, out, bytes, c, blocks, pb, shared_bytes, stream);
    case 4: return launch_bulk_s<4>(in, out, bytes, c, blocks, pb, shared_bytes, stream);
    default: return cudaErrorInvalidValue;
    }
}

cudaError_t tensor_maps_available(const char **why) {
    const Encoder &e = encoder();
    if (why) *why = e.why;
    return e.fn ? cudaSuccess : cudaErrorNotSupported;
}

cudaError_t encode_tensor_maps(const void *in, void *out, std::uint64_t rows, std::uint64_t cols, std::uint32_t box_cols,
                               std::uint32_t box_rows, TensorMapBytes *in_map, TensorMapBytes *out_map, int *driver_status) {
    if (driver_status) *driver_status = 0;
    const Encoder &e = encoder();
    if (!e.fn) return cudaErrorNotSupported;
    const cuuint64_t dims[2] = {cols, rows};
    const cuuint64_t strides[1] = {cols * 4};  // bytes between rows
    const cuuint32_t box[2] = {box_cols, box_rows};
    const cuuint32_t element_strides[2] = {1, 1};
    const void *addresses[2] = {in, out};
    TensorMapBytes *maps[2] = {in_map, out_map};
    for (int k = 0; k < 2; ++k) {
        CUtensorMap map;
        const CUresult r = e.fn(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, const_cast<void *>(addresses[k]), dims, strides, box,
                                element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (r != CUDA_SUCCESS) {
            if (driver_status) *driver_status = static_cast<int>(r);
            return cudaErrorInvalidValue;
        }
        std::memcpy(maps[k]->bytes, &map, sizeof map);
    }
    return cudaSuccess;
}

cudaError_t launch_tensor_copy(const TensorMapBytes &in_map, const TensorMapBytes &out_map, std::uint32_t tiles_x,
                               std::uint32_t tiles_y, std::uint32_t box_cols, std::uint32_t box_rows, int stages,
                               int blocks, int per_block, std::size_t shared_bytes, cudaStream_t stream) {
    if (tiles_x == 0 || tiles_y == 0 || box_cols == 0 || box_rows == 0 || blocks < 1) return cudaErrorInvalidValue;
    if (per_block < 0 || per_block > stages) return cudaErrorInvalidValue;
    const auto pb = static_cast<std::uint32_t>(per_block);
    CUtensorMap in, out;
    std::memcpy(&in, in_map.bytes, sizeof in);
    std::memcpy(&out, out_map.bytes, sizeof out);
    switch (stages) {
    case 1: return launch_tensor_s<1>(in, out, tiles_x, tiles_y, box_cols, box_rows, blocks, pb, shared_bytes, stream);
    case 2: return launch_tensor_s<2>(in, out, tiles_x, tiles_y, box_cols, box_rows, blocks, pb, shared_bytes, stream);
    case 3: return launch_tensor_s<3>(in, out, tiles_x, tiles_y, box_cols, box_rows, blocks, pb, shared_bytes, stream);
    case 4: return launch_tensor_s<4>(in, out, tiles_x, tiles_y, box_cols, box_rows, blocks, pb, shared_bytes, stream);
    default: return cudaErrorInvalidValue;
    }
}

cudaError_t launch_thread_copy(bool async, const void *in, void *out, std::size_t bytes, std::size_t chunk, int stages,
                               int blocks, std::size_t shared_bytes, cudaStream_t stream) {
    if (bytes == 0 || bytes % 16 || chunk == 0 || chunk % 16 || blocks < 1 || chunk > 0xFFFFFFF0u) return cudaErrorInvalidValue;
    const auto c = static_cast<std::uint32_t>(chunk);
    if (!async) {
        if (stages != 1) return cudaErrorInvalidValue;
        thread_copy<false, 1><<<blocks, kThreadCopyBlock, shared_bytes, stream>>>(
            static_cast<const uint4 *>(in), static_cast<uint4 *>(out), bytes, c, stride_of(chunk));
        return cudaGetLastError();
    }
    switch (stages) {
    case 1: return launch_async_s<1>(in, out, bytes, c, blocks, shared_bytes, stream);
    case 2: return launch_async_s<2>(in, out, bytes, c, blocks, shared_bytes, stream);
    case 3: return launch_async_s<3>(in, out, bytes, c, blocks, shared_bytes, stream);
    case 4: return launch_async_s<4>(in, out, bytes, c, blocks, shared_bytes, stream);
    default: return cudaErrorInvalidValue;
    }
}

cudaError_t allow_tma_shared(std::size_t bytes) {
    for (int p = 0; p < 4; ++p)
        for (int s = 1; s <= 4; ++s)
            if (const void *k = kernel_for(static_cast<TmaKernel>(p), s)) {
                const cudaError_t err = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
                if (err != cudaSuccess) return err;
            }
    return cudaSuccess;
}

cudaError_t tma_resident_blocks(TmaKernel path, int stages, std::size_t shared_bytes, int *blocks_per_sm) {
    const void *k = kernel_for(path, stages);
    if (!k || !blocks_per_sm) return cudaErrorInvalidValue;
    const int threads = path == TmaKernel::Bulk || path == TmaKernel::Tensor ? kTmaBlock : kThreadCopyBlock;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, k, threads, shared_bytes);
}

cudaError_t tma_kernel_attributes(TmaKernel path, int stages, cudaFuncAttributes *out) {
    const void *k = kernel_for(path, stages);
    return k ? cudaFuncGetAttributes(out, k) : cudaErrorInvalidValue;
}

cudaError_t launch_count_mismatches(const std::uint32_t *p, std::size_t n_words, std::uint32_t seed,
                                    unsigned long long *result, cudaStream_t stream) {
    if (n_words % 4 != 0) return cudaErrorInvalidValue;
    count_mismatches<<<2048, 256, 0, stream>>>(reinterpret_cast<const uint4 *>(p), n_words / 4, seed, result);
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
