#include "experiments/matmul/matmul.cuh"

#include "shared_kernels/kernel_catalogue.cuh"

namespace gmlab::kernels {

namespace {

constexpr int kTile = 32;

// The simple kernels' sum: row `row` of A (m x k, row-major) times the column
// that `column(i, j)` reads element i + j of, whole tiles unrolled as the
// guide's loop over TILE_DIM is, then the rest. The tile's start i and the
// offset j stay apart, as in the guide's index, so that the addresses are
// formed as the guide's kernels form them.
template <class Column>
__device__ __forceinline__ float row_times_column(const float *a, int row, int k, Column column) {
    float sum = 0.0f;
    int i = 0;
    for (; i + kTile <= k; i += kTile) {
#pragma unroll
        for (int j = 0; j < kTile; ++j) sum += a[row * k + i + j] * column(i, j);
    }
    for (; i < k; ++i) sum += a[row * k + i] * column(i, 0);
    return sum;
}

// Row-major: A is m x k, B is k x n, C is m x n. The guide's kernels use int
// indices; so does this file, with the bounds checked by the launcher.
template <MatmulAB V>
__global__ void matmul_ab_kernel(const float *a, const float *b, float *c, int m, int n, int k) {
    const int row = blockIdx.y * kTile + threadIdx.y;
    const int col = blockIdx.x * kTile + threadIdx.x;
    float sum = 0.0f;
    if constexpr (V == MatmulAB::Simple) {
        if (row < m && col < n) sum = row_times_column(a, row, k, [=](int i, int j) { return b[(i + j) * n + col]; });
    } else {
        __shared__ float aTile[kTile][kTile];
        __shared__ float bTile[kTile][kTile];
        for (int t0 = 0; t0 < k; t0 += kTile) {
            aTile[threadIdx.y][threadIdx.x] = (row < m && t0 + threadIdx.x < k) ? a[row * k + t0 + threadIdx.x] : 0.0f;
            if constexpr (V == MatmulAB::SharedAB) {
                bTile[threadIdx.y][threadIdx.x] =
                    (t0 + threadIdx.y < k && col < n) ? b[(t0 + threadIdx.y) * n + col] : 0.0f;
                __syncthreads();
            } else {
                // Row threadIdx.y of the tile is written and read by one warp.
                __syncwarp();
            }
            // The tile's zero padding makes a partial tile safe to walk whole,
            // except for reads of B from global memory in coalesced_a.
            if constexpr (V == MatmulAB::SharedAB) {
#pragma unroll
                for (int i = 0; i < kTile; ++i) sum += aTile[threadIdx.y][i] * bTile[i][threadIdx.x];
            } else if (t0 + kTile <= k && col < n) {
#pragma unroll
                for (int i = 0; i < kTile; ++i) sum += aTile[threadIdx.y][i] * b[(t0 + i) * n + col];
            } else {
                const int width = min(kTile, k - t0);
                for (int i = 0; i < width; ++i) sum += aTile[threadIdx.y][i] * (col < n ? b[(t0 + i) * n + col] : 0.0f);
            }
            if constexpr (V == MatmulAB::SharedAB)
                __syncthreads();
            else
                __syncwarp();
        }
    }
    if (row < m && col < n) c[row * n + col] = sum;
}

// C = A Aᵀ: A is m x k, C is m x m.
template <MatmulAAT V>
__global__ void matmul_aat_kernel(const float *a, float *c, int m, int k) {
    const int row = blockIdx.y * kTile + threadIdx.y;
    const int col = blockIdx.x * kTile + threadIdx.x;
    float sum = 0.0f;
    if constexpr (V == MatmulAAT::Simple) {
        // Column col of Aᵀ is row col of A.
        if (row < m && col < m) sum = row_times_column(a, row, k, [=](int i, int j) { return a[col * k + i + j]; });
    } else {
        constexpr int kPad = V == MatmulAAT::Padded ? 1 : 0;
        __shared__ float aTile[kTile][kTile];
        __shared__ float transposedTile[kTile][kTile + kPad];
        const int trow = blockIdx.x * kTile + threadIdx.y;  // row of A that becomes a column of the tile
        for (int t0 = 0; t0 < k; t0 += kTile) {
            aTile[threadIdx.y][threadIdx.x] = (row < m && t0 + threadIdx.x < k) ? a[row * k + t0 + threadIdx.x] : 0.0f;
            transposedTile[threadIdx.x][threadIdx.y] =
                (trow < m && t0 + threadIdx.x < k) ? a[trow * k + t0 + threadIdx.x] : 0.0f;
            __syncthreads();
#pragma unroll
            for (int i = 0; i < kTile; ++i) sum += aTile[threadIdx.y][i] * transposedTile[i][threadIdx.x];
            __syncthreads();
        }
    }
    if (row < m && col < m) c[row * m + col] = sum;
}

dim3 grid_for(int rows, int cols) {
    return dim3(static_cast<unsigned>((cols + kTile - 1) / kTile), static_cast<unsigned>((rows + kTile - 1) / kTile));
}

// The kernels index with int, as the guide's do: every matrix must hold fewer
// than 2^31 elements.
bool fits_int(long long rows, long long cols) { return rows * cols < (1LL << 31); }

GM_KERNEL("matmul_ab", "matmul_ab_kernel<simple>", (matmul_ab_kernel<MatmulAB::Simple>));
GM_KERNEL("matmul_ab", "matmul_ab_kernel<coalesced_a>", (matmul_ab_kernel<MatmulAB::CoalescedA>));
GM_KERNEL("matmul_ab", "matmul_ab_kernel<shared_ab>", (matmul_ab_kernel<MatmulAB::SharedAB>));
GM_KERNEL("matmul_aat", "matmul_aat_kernel<simple>", (matmul_aat_kernel<MatmulAAT::Simple>));
GM_KERNEL("matmul_aat", "matmul_aat_kernel<coalesced>", (matmul_aat_kernel<MatmulAAT::Coalesced>));
GM_KERNEL("matmul_aat", "matmul_aat_kernel<padded>", (matmul_aat_kernel<MatmulAAT::Padded>));

}  // namespace

cudaError_t launch_matmul_ab(MatmulAB v, const float *a, const float *b, float *c, int m, int n, int k,
                             cudaStream_t stream) {
    if (m <= 0 || n <= 0 || k <= 0 || static_cast<std::size_t>(m) > kMatmulMaxRows) return cudaErrorInvalidValue;
    if (!fits_int(m, k) || !fits_int(k, n) || !fits_int(m, n)) return cudaErrorInvalidValue;
    const dim3 block(kTile, kTile);
    switch (v) {
    case MatmulAB::Simple: matmul_ab_kernel<MatmulAB::Simple><<<grid_for(m, n), block, 0, stream>>>(a, b, c, m, n, k); break;
    case MatmulAB::CoalescedA: matmul_ab_kernel<MatmulAB::CoalescedA><<<grid_for(m, n), block, 0, stream>>>(a, b, c, m, n, k); break;
    case MatmulAB::SharedAB: matmul_ab_kernel<MatmulAB::SharedAB><<<grid_for(m, n), block, 0, stream>>>(a, b, c, m, n, k); break;
    }
    return cudaGetLastError();
}

cudaError_t launch_matmul_aat(MatmulAAT v, const float *a, float *c, int m, int k, cudaStream_t stream) {
    if (m <= 0 || k <= 0 || static_cast<std::size_t>(m) > kMatmulMaxRows) return cudaErrorInvalidValue;
    if (!fits_int(m, k) || !fits_int(m, m)) return cudaErrorInvalidValue;
    const dim3 block(kTile, kTile);
    switch (v) {
    case MatmulAAT::Simple: matmul_aat_kernel<MatmulAAT::Simple><<<grid_for(m, m), block, 0, stream>>>(a, c, m, k); break;
    case MatmulAAT::Coalesced: matmul_aat_kernel<MatmulAAT::Coalesced><<<grid_for(m, m), block, 0, stream>>>(a, c, m, k); break;
    case MatmulAAT::Padded: matmul_aat_kernel<MatmulAAT::Padded><<<grid_for(m, m), block, 0, stream>>>(a, c, m, k); break;
    }
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
