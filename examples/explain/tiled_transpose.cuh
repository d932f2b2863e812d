// bank_conflicts' kernel, shared with graph_bank_conflicts: a tiled transpose
// whose 32 x 32 shared tile is read down its columns; Pad 0 gives 32-way bank
// conflicts, Pad 1 (33 columns) none.
#pragma once

constexpr int kTile = 32;

template <int Pad> __global__ void transpose_tiled(const float *in, float *out, int n) {
    __shared__ float tile[kTile][kTile + Pad];
    const int x = blockIdx.x * kTile + threadIdx.x;
    for (int j = threadIdx.y; j < kTile; j += blockDim.y)
        tile[j][threadIdx.x] = in[static_cast<long long>(blockIdx.y * kTile + j) * n + x];
    __syncthreads();
    const int tx = blockIdx.y * kTile + threadIdx.x;
    for (int j = threadIdx.y; j < kTile; j += blockDim.y)
        out[static_cast<long long>(blockIdx.x * kTile + j) * n + tx] = tile[threadIdx.x][j];
}
