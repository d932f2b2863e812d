#include "shared_kernels/stream_ops.cuh"

#include "shared_kernels/kernel_catalogue.cuh"
#include "shared_kernels/pattern.hpp"
#include "shared_kernels/word_types.cuh"

namespace gmlab::kernels {

namespace {

struct CopyF {
    static constexpr bool kTwoInputs = false;
    __device__ static double2 apply(double2 x, double2, double) { return x; }
};
struct ScaleF {
    static constexpr bool kTwoInputs = false;
    __device__ static double2 apply(double2 x, double2, double s) { return make_double2(s * x.x, s * x.y); }
};
struct AddF {
    static constexpr bool kTwoInputs = true;
    __device__ static double2 apply(double2 x, double2 y, double) { return make_double2(x.x + y.x, x.y + y.y); }
};
struct TriadF {
    static constexpr bool kTwoInputs = true;
    __device__ static double2 apply(double2 x, double2 y, double s) {
        return make_double2(x.x + s * y.x, x.y + s * y.y);
    }
};

template <bool Streaming> __device__ __forceinline__ double2 load(const double2 *p) {
    if constexpr (Streaming) return __ldcs(p);
    else return *p;
}

template <bool Streaming> __device__ __forceinline__ void store(double2 *p, double2 v) {
    if constexpr (Streaming) __stcs(p, v);
    else *p = v;
}

// Each thread handles U double2 vectors, block-strided so that every warp
// access is one contiguous 512-byte run; all loads are issued before the stores.
template <class Op, int U, bool Streaming>
__global__ void stream_kernel(const double2 *__restrict__ x, const double2 *__restrict__ y, double2 *__restrict__ out,
                              double s, std::size_t n2) {
    // A grid smaller than the array walks it in grid-sized steps.
    const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x * U;
    for (std::size_t chunk = blockIdx.x * static_cast<std::size_t>(blockDim.x) * U; chunk < n2; chunk += step) {
    const std::size_t base = chunk + threadIdx.x;
    double2 vx[U], vy[U];
#pragma unroll
    for (int k = 0; k < U; ++k) {
        const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
        if (i < n2) {
            vx[k] = load<Streaming>(x + i);
            if constexpr (Op::kTwoInputs) vy[k] = load<Streaming>(y + i);
        }
    }
#pragma unroll
    for (int k = 0; k < U; ++k) {
        const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
        if (i < n2) {
            if constexpr (Op::kTwoInputs) store<Streaming>(out + i, Op::apply(vx[k], vy[k], s));
            else store<Streaming>(out + i, Op::apply(vx[k], vx[k], s));
        }
    }
    }
}

template <class Op, bool Streaming> const void *kernel_for(int unroll) {
    switch (unroll) {
    case 1: return reinterpret_cast<const void *>(stream_kernel<Op, 1, Streaming>);
    case 2: return reinterpret_cast<const void *>(stream_kernel<Op, 2, Streaming>);
    case 4: return reinterpret_cast<const void *>(stream_kernel<Op, 4, Streaming>);
    case 8: return reinterpret_cast<const void *>(stream_kernel<Op, 8, Streaming>);
    default: return nullptr;
    }
}

template <class Op, bool Streaming>
cudaError_t launch_op(int unroll, int block, int persistent_blocks, const double *x, const double *y, double *out,
                      double s, std::size_t n, cudaStream_t stream) {
    const std::size_t n2 = n / 2;
    const auto *x2 = reinterpret_cast<const double2 *>(x);
    const auto *y2 = reinterpret_cast<const double2 *>(y);
    auto *o2 = reinterpret_cast<double2 *>(out);
    const std::size_t per_block = static_cast<std::size_t>(block) * unroll;
    std::size_t needed = (n2 + per_block - 1) / per_block;
    if (persistent_blocks > 0 && static_cast<std::size_t>(persistent_blocks) < needed) needed = persistent_blocks;
    const unsigned blocks = static_cast<unsigned>(needed);
    switch (unroll) {
    case 1: stream_kernel<Op, 1, Streaming><<<blocks, block, 0, stream>>>(x2, y2, o2, s, n2); break;
    case 2: stream_kernel<Op, 2, Streaming><<<blocks, block, 0, stream>>>(x2, y2, o2, s, n2); break;
    case 4: stream_kernel<Op, 4, Streaming><<<blocks, block, 0, stream>>>(x2, y2, o2, s, n2); break;
    case 8: stream_kernel<Op, 8, Streaming><<<blocks, block, 0, stream>>>(x2, y2, o2, s, n2); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

__global__ void fill_doubles_kernel(double *p, std::size_t n, std::uint32_t seed) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        p[i] = pattern_double(i, seed);
}


template <bool Streaming>
cudaError_t launch_hinted(StreamOp op, int unroll, int block, int persistent, const double *x, const double *y,
                          double *out, double s, std::size_t n, cudaStream_t stream) {
    switch (op) {
    case StreamOp::Copy: return launch_op<CopyF, Streaming>(unroll, block, persistent, x, y, out, s, n, stream);
    case StreamOp::Scale: return launch_op<ScaleF, Streaming>(unroll, block, persistent, x, y, out, s, n, stream);
    case StreamOp::Add: return launch_op<AddF, Streaming>(unroll, block, persistent, x, y, out, s, n, stream);
    case StreamOp::Triad: return launch_op<TriadF, Streaming>(unroll, block, persistent, x, y, out, s, n, stream);
    }
    return cudaErrorInvalidValue;
}

template <bool Streaming> const void *kernel_of(StreamOp op, int unroll) {
    switch (op) {
    case StreamOp::Copy: return kernel_for<CopyF, Streaming>(unroll);
    case StreamOp::Scale: return kernel_for<ScaleF, Streaming>(unroll);
    case StreamOp::Add: return kernel_for<AddF, Streaming>(unroll);
    case StreamOp::Triad: return kernel_for<TriadF, Streaming>(unroll);
    }
    return nullptr;
}

// Every instance the stream experiment can launch: 4 operations x 4 unrolls x 2 cache hints.
int register_stream_kernels() {
    const char *ops[] = {"copy", "scale", "add", "triad"};
    const StreamOp codes[] = {StreamOp::Copy, StreamOp::Scale, StreamOp::Add, StreamOp::Triad};
    for (int o = 0; o < 4; ++o)
        for (bool streaming : {false, true})
            for (int u : {1, 2, 4, 8})
                register_kernel("stream", std::string("stream_kernel<") + ops[o] + ", unroll " + std::to_string(u) +
                                              (streaming ? ", streaming hint>" : ">"),
                                streaming ? kernel_of<true>(codes[o], u) : kernel_of<false>(codes[o], u));
    return 0;
}
[[maybe_unused]] const int kStreamRegistered = register_stream_kernels();
GM_KERNEL("support", "fill_doubles_kernel (stream input)", fill_doubles_kernel);

}  // namespace

cudaError_t launch_stream(StreamOp op, int unroll, bool streaming, int block, int persistent_blocks, const double *x,
                          const double *y, double *out, double s, std::size_t n, cudaStream_t stream) {
    if (n % 2 != 0) return cudaErrorInvalidValue;
    return streaming ? launch_hinted<true>(op, unroll, block, persistent_blocks, x, y, out, s, n, stream)
                     : launch_hinted<false>(op, unroll, block, persistent_blocks, x, y, out, s, n, stream);
}

cudaError_t stream_resident_blocks(StreamOp op, int unroll, bool streaming, int block, int multiprocessors, int *out) {
    const void *k = streaming ? kernel_of<true>(op, unroll) : kernel_of<false>(op, unroll);
    if (!k) return cudaErrorInvalidValue;
    int per_sm = 0;
    cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, block, 0);
    *out = per_sm * multiprocessors;
    return err;
}


cudaError_t launch_fill_doubles(double *p, std::size_t n, std::uint32_t seed, cudaStream_t stream) {
    fill_doubles_kernel<<<1024, 256, 0, stream>>>(p, n, seed);
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
