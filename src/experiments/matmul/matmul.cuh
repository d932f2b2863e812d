// The guide's shared-memory matrix products on float, with 32x32 tiles and
// 32x32-thread blocks: C (m x n) = A (m x k) B (k x n), and C (m x m) = A Aᵀ.
// The guide fixes k at the tile width (32); here k is any size, walked in tiles.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

enum class MatmulAB {
    Simple,      // A and B straight from global memory
    CoalescedA,  // a tile of A in shared memory, read back by the warp that loaded it
    SharedAB     // tiles of A and B in shared memory
};

enum class MatmulAAT {
    Simple,     // reads of A by columns: strided
    Coalesced,  // A tile and a transposed tile in shared memory: 32-way bank conflicts
    Padded      // the transposed tile padded to 33 columns
};

// Grid limits: n / 32 tiles in grid.x, m / 32 in grid.y.
constexpr std::size_t kMatmulMaxRows = 65535u * 32u;

cudaError_t launch_matmul_ab(MatmulAB v, const float *a, const float *b, float *c, int m, int n, int k,
                             cudaStream_t stream);
cudaError_t launch_matmul_aat(MatmulAAT v, const float *a, float *c, int m, int k, cudaStream_t stream);

}  // namespace gmlab::kernels
