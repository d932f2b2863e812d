// Texture memory: a rotation (reads with 2D locality) through a texture
// object, plain global loads and __ldg; and a sampling kernel for checking the
// texture unit's capabilities against host models.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

enum class RotateRead { Global, Ldg, Texture };

// out[y][x] = in[iy][ix], (ix, iy) = (x, y) rotated by atan(3/4) about the
// centre in integer arithmetic ((4dx - 3dy) / 5, (3dx + 4dy) / 5, truncated);
// 0 where that falls outside the image. For Texture, tex is a point-filtered,
// unnormalized, border-addressed float texture of the same image.
cudaError_t launch_rotate(RotateRead how, const float *in, cudaTextureObject_t tex, float *out, int width, int height,
                          cudaStream_t stream);

// out[i] = tex2D<float>(tex, coords[2i], coords[2i+1]).
cudaError_t launch_sample(cudaTextureObject_t tex, const float *coords, float *out, int n, cudaStream_t stream);

// The source pixel of (x, y) for launch_rotate, or -1 when outside (host and device).
__host__ __device__ inline long long rotate_source(int x, int y, int width, int height) {
    const int cx = width / 2, cy = height / 2, dx = x - cx, dy = y - cy;
    const long long ix = cx + (4LL * dx - 3LL * dy) / 5, iy = cy + (3LL * dx + 4LL * dy) / 5;
    if (ix < 0 || iy < 0 || ix >= width || iy >= height) return -1;
    return iy * width + ix;
}

}  // namespace gmlab::kernels
