// strided_access's kernel, shared with graph_strided: each thread reads the
// stride-th float (stride 4: a warp's load touches 16 sectors where 4 hold
// its data; stride 1: coalesced).
#pragma once

__global__ void scale_strided(const float *in, float *out, int n, int stride) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[static_cast<long long>(i) * stride];
}
