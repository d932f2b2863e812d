#include "experiments/alignment/alignment.cuh"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "shared_kernels/kernel_catalogue.cuh"
#include "shared_kernels/word_types.cuh"

namespace gmlab::kernels {

namespace {

// Plain structs of floats have the alignment of a float (4 bytes): the compiler
// may only use 4-byte accesses. __align__ lets it use one wide access; for the
// 12-byte record that costs 4 bytes of padding per record, and on sm_90 the
// struct copy then moves all 16 bytes with one 16-byte load and store (PTX
// ld.global.nc.v4.u32), exactly what the explicit float4 copy does.
struct Packed8 { float x, y; };
struct __align__(8) Aligned8 { float x, y; };
struct Packed12 { float x, y, z; };
struct __align__(16) Aligned12 { float x, y, z; };
struct Packed16 { float x, y, z, w; };
struct __align__(16) Aligned16 { float x, y, z, w; };
static_assert(sizeof(Packed12) == 12 && alignof(Packed12) == 4, "Packed12 is 12 bytes, aligned to 4");
static_assert(sizeof(Aligned12) == 16 && alignof(Aligned12) == 16, "Aligned12 is padded to 16 bytes");

template <class T> __device__ __forceinline__ void copy_records(const void *in, void *out, std::size_t n) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) static_cast<T *>(out)[i] = static_cast<const T *>(in)[i];
}

// A record of R bytes at an address aligned only to W: R / W words of W bytes,
// the widest access that is legal there (a misaligned vector access faults).
template <int R, int W> __device__ __forceinline__ void copy_misaligned(const void *in, void *out, std::size_t n) {
    using Word = std::conditional_t<W == 1, std::uint8_t,
                 std::conditional_t<W == 2, std::uint16_t, std::conditional_t<W == 4, std::uint32_t, uint2>>>;
    static_assert(sizeof(Word) == W && R % W == 0, "R must be a multiple of W");
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const Word *src = reinterpret_cast<const Word *>(static_cast<const unsigned char *>(in) + i * R);
    Word *dst = reinterpret_cast<Word *>(static_cast<unsigned char *>(out) + i * R);
    Word v[R / W];
#pragma unroll
    for (int k = 0; k < R / W; ++k) v[k] = src[k];
#pragma unroll
    for (int k = 0; k < R / W; ++k) dst[k] = v[k];
}

// Distinct, untemplated kernel names: the load table and its check find them by name.
#define GM_ALIGN_KERNEL(name, ...) \
    __global__ void name(const void *__restrict__ in, void *__restrict__ out, std::size_t n) { __VA_ARGS__(in, out, n); }

GM_ALIGN_KERNEL(alignment_packed8, copy_records<Packed8>)
GM_ALIGN_KERNEL(alignment_aligned8, copy_records<Aligned8>)
GM_ALIGN_KERNEL(alignment_vector8, copy_records<float2>)
GM_ALIGN_KERNEL(alignment_packed12, copy_records<Packed12>)
GM_ALIGN_KERNEL(alignment_aligned12, copy_records<Aligned12>)
GM_ALIGN_KERNEL(alignment_vector12, copy_records<float4>)  // the 16-byte slot, padding included
GM_ALIGN_KERNEL(alignment_packed16, copy_records<Packed16>)
GM_ALIGN_KERNEL(alignment_aligned16, copy_records<Aligned16>)
GM_ALIGN_KERNEL(alignment_vector16, copy_records<float4>)
GM_ALIGN_KERNEL(alignment_misaligned_r8_w1, copy_misaligned<8, 1>)
GM_ALIGN_KERNEL(alignment_misaligned_r8_w2, copy_misaligned<8, 2>)
GM_ALIGN_KERNEL(alignment_misaligned_r8_w4, copy_misaligned<8, 4>)
GM_ALIGN_KERNEL(alignment_misaligned_r8_w8, copy_misaligned<8, 8>)
GM_ALIGN_KERNEL(alignment_misaligned_r16_w1, copy_misaligned<16, 1>)
GM_ALIGN_KERNEL(alignment_misaligned_r16_w2, copy_misaligned<16, 2>)
GM_ALIGN_KERNEL(alignment_misaligned_r16_w4, copy_misaligned<16, 4>)
GM_ALIGN_KERNEL(alignment_misaligned_r16_w8, copy_misaligned<16, 8>)

using CopyKernel = void (*)(const void *, void *, std::size_t);
// In the order of kAlignmentKernels.
const CopyKernel kKernels[] = {
    alignment_packed8,           alignment_aligned8,          alignment_vector8,
    alignment_packed12,          alignment_aligned12,         alignment_vector12,
    alignment_packed16,          alignment_aligned16,         alignment_vector16,
    alignment_misaligned_r8_w1,  alignment_misaligned_r8_w2,  alignment_misaligned_r8_w4,
    alignment_misaligned_r8_w8,  alignment_misaligned_r16_w1, alignment_misaligned_r16_w2,
    alignment_misaligned_r16_w4, alignment_misaligned_r16_w8,
};
static_assert(sizeof kKernels / sizeof kKernels[0] == kAlignmentKernelCount, "one kernel per table entry");

// Every kernel of the table in the catalogue, under its function name.
const int kRegistered = [] {
    for (int k = 0; k < kAlignmentKernelCount; ++k)
        register_kernel("alignment", kAlignmentKernels[k].kernel, reinterpret_cast<const void *>(kKernels[k]));
    return 0;
}();

}  // namespace

int alignment_kernel_index(const char *variant, int data, int load_bytes) {
    for (int k = 0; k < kAlignmentKernelCount; ++k) {
        const AlignmentKernel &a = kAlignmentKernels[k];
        if (std::strcmp(a.variant, variant) != 0 || a.data != data) continue;
        if (std::strcmp(variant, "misaligned") == 0 && a.load_bytes != load_bytes) continue;
        return k;
    }
    return -1;
}

cudaError_t launch_alignment_copy(int kernel, const void *in, void *out, std::size_t n, int block, cudaStream_t stream) {
    if (kernel < 0 || kernel >= kAlignmentKernelCount || n == 0 || block <= 0) return cudaErrorInvalidValue;
    kKernels[kernel]<<<blocks_for(n, block), block, 0, stream>>>(in, out, n);
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
