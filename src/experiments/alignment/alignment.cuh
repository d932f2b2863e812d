// Records of 8, 12 and 16 bytes copied one per thread: plain structs of floats
// (4-byte alignment), the same with __align__, explicit float2/float4 loads,
// and records at a deliberately misaligned base copied with narrower words.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

// One compiled copy kernel. `stride` is the distance between records in the
// arrays (12-byte records with __align__(16) sit 16 bytes apart), `data` the
// bytes of each record that are copied and checked. Loads and stores per
// record are the global load (LDG) and store (STG) instructions the sm_90
// SASS of the kernel issues for one record; tests/experiments/alignment/check_load_table.py
// re-reads them from the build (cuobjdump -sass where it exists, otherwise
// the PTX, where ld.global/st.global map one to one onto LDG/STG).
struct AlignmentKernel {
    const char *kernel;   // function name in the module
    const char *variant;  // packed, aligned, vector, misaligned
    int data;             // record bytes copied
    int stride;           // bytes from one record to the next
    int load_bytes;       // width of each load
    int loads_per_record;
    int stores_per_record;
};

// clang-format off
// The load table (check_load_table.py reads these lines; keep one entry per line).
inline constexpr AlignmentKernel kAlignmentKernels[] = {
    {"alignment_packed8", "packed", 8, 8, 4, 2, 2},
    {"alignment_aligned8", "aligned", 8, 8, 8, 1, 1},
    {"alignment_vector8", "vector", 8, 8, 8, 1, 1},
    {"alignment_packed12", "packed", 12, 12, 4, 3, 3},
    {"alignment_aligned12", "aligned", 12, 16, 16, 1, 1},
    {"alignment_vector12", "vector", 12, 16, 16, 1, 1},
    {"alignment_packed16", "packed", 16, 16, 4, 4, 4},
    {"alignment_aligned16", "aligned", 16, 16, 16, 1, 1},
    {"alignment_vector16", "vector", 16, 16, 16, 1, 1},
    {"alignment_misaligned_r8_w1", "misaligned", 8, 8, 1, 8, 8},
    {"alignment_misaligned_r8_w2", "misaligned", 8, 8, 2, 4, 4},
    {"alignment_misaligned_r8_w4", "misaligned", 8, 8, 4, 2, 2},
    {"alignment_misaligned_r8_w8", "misaligned", 8, 8, 8, 1, 1},
    {"alignment_misaligned_r16_w1", "misaligned", 16, 16, 1, 16, 16},
    {"alignment_misaligned_r16_w2", "misaligned", 16, 16, 2, 8, 8},
    {"alignment_misaligned_r16_w4", "misaligned", 16, 16, 4, 4, 4},
    {"alignment_misaligned_r16_w8", "misaligned", 16, 16, 8, 2, 2},
};
// clang-format on
inline constexpr int kAlignmentKernelCount = static_cast<int>(sizeof kAlignmentKernels / sizeof kAlignmentKernels[0]);

// The index in kAlignmentKernels of a struct kernel (variant packed, aligned or
// vector; data 8, 12 or 16), or of the misaligned copy of `data`-byte records
// (8 or 16) with loads of load_bytes; -1 if there is none.
int alignment_kernel_index(const char *variant, int data, int load_bytes);

// Copies n records: out + i * stride gets the `data` bytes of in + i * stride.
// For the misaligned kernels in and out need only the alignment of load_bytes.
cudaError_t launch_alignment_copy(int kernel, const void *in, void *out, std::size_t n, int block, cudaStream_t stream);

}  // namespace gmlab::kernels
