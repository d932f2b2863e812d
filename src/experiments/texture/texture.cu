#include "experiments/texture/texture.cuh"

#include "shared_kernels/kernel_catalogue.cuh"

namespace gmlab::kernels {

namespace {

template <RotateRead How>
__global__ void rotate(const float *in, cudaTextureObject_t tex, float *out, int width, int height) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float v;
    if constexpr (How == RotateRead::Texture) {
        // The same integer source pixel; the texture's border gives 0 outside.
        const int cx = width / 2, cy = height / 2, dx = x - cx, dy = y - cy;
        const int ix = cx + (4 * dx - 3 * dy) / 5, iy = cy + (3 * dx + 4 * dy) / 5;
        v = tex2D<float>(tex, ix + 0.5f, iy + 0.5f);
    } else {
        const long long src = rotate_source(x, y, width, height);
        if (How == RotateRead::Ldg)
            v = src < 0 ? 0.0f : __ldg(in + src);
        else
            v = src < 0 ? 0.0f : in[src];
    }
    out[static_cast<std::size_t>(y) * width + x] = v;
}

__global__ void sample(cudaTextureObject_t tex, const float *coords, float *out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(tex, coords[2 * i], coords[2 * i + 1]);
}

GM_KERNEL("texture", "rotate<global loads>", (rotate<RotateRead::Global>));
GM_KERNEL("texture", "rotate<__ldg>", (rotate<RotateRead::Ldg>));
GM_KERNEL("texture", "rotate<texture object>", (rotate<RotateRead::Texture>));
GM_KERNEL("texture", "sample (capability checks)", sample);

}  // namespace

cudaError_t launch_rotate(RotateRead how, const float *in, cudaTextureObject_t tex, float *out, int width, int height,
                          cudaStream_t stream) {
    const dim3 block(32, 8), grid((width + 31) / 32, (height + 7) / 8);
    switch (how) {
    case RotateRead::Global: rotate<RotateRead::Global><<<grid, block, 0, stream>>>(in, tex, out, width, height); break;
    case RotateRead::Ldg: rotate<RotateRead::Ldg><<<grid, block, 0, stream>>>(in, tex, out, width, height); break;
    case RotateRead::Texture: rotate<RotateRead::Texture><<<grid, block, 0, stream>>>(in, tex, out, width, height); break;
    }
    return cudaGetLastError();
}

cudaError_t launch_sample(cudaTextureObject_t tex, const float *coords, float *out, int n, cudaStream_t stream) {
    sample<<<(n + 255) / 256, 256, 0, stream>>>(tex, coords, out, n);
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
