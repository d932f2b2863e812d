// Planted: a 2D array of 1023-float rows packed back to back (cudaMalloc,
// rows 4092 bytes apart): every row but one in eight starts off a 32-byte
// sector boundary, so a warp's row segment touches an extra sector
// (pitch_2d's packed rows at width 1023).
// Fixed: the same rows allocated with cudaMallocPitch: each row starts at
// an aligned pitch and its warps read whole sectors.
#include "example_common.cuh"

__global__ void scale_rows(const float *in, size_t in_pitch, float *out, size_t out_pitch, int width, int height) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    const float *row = reinterpret_cast<const float *>(reinterpret_cast<const char *>(in) + y * in_pitch);
    float *dst = reinterpret_cast<float *>(reinterpret_cast<char *>(out) + y * out_pitch);
    dst[x] = 2.0f * row[x] + 1.0f;
}

int main(int argc, char **argv) {
    const bool fixed = fixed_variant(argc, argv);
    const int width = 1023, height = 32768;
    float *in = nullptr, *out = nullptr;
    size_t pitch = width * sizeof(float), out_pitch = pitch;
    if (fixed) {
        EX_CHECK(cudaMallocPitch(&in, &pitch, width * sizeof(float), height));
        EX_CHECK(cudaMallocPitch(&out, &out_pitch, width * sizeof(float), height));
    } else {
        EX_CHECK(cudaMalloc(&in, pitch * height));
        EX_CHECK(cudaMalloc(&out, pitch * height));
    }
    // The input from pinned memory, so that the setup copy is no pattern of its own.
    const size_t count = size_t(width) * height;
    float *host = nullptr;
    EX_CHECK(cudaMallocHost(&host, sizeof(float) * count));
    for (size_t i = 0; i < count; ++i) host[i] = float(i % 7);
    EX_CHECK(cudaMemcpy2D(in, pitch, host, width * sizeof(float), width * sizeof(float), height,
                          cudaMemcpyHostToDevice));
    const dim3 block(32, 8), grid((width + 31) / 32, (height + 7) / 8);
    TimedRegion region;
    for (int rep = 0; rep < 20; ++rep) scale_rows<<<grid, block>>>(in, pitch, out, out_pitch, width, height);
    EX_CHECK(cudaGetLastError());
    region.end();
    for (size_t i : {size_t(0), size_t(width + 3), count - 1}) {  // the checked elements alone come back
        float got = 0;
        const char *row = reinterpret_cast<const char *>(out) + (i / width) * out_pitch;
        EX_CHECK(cudaMemcpy(&got, reinterpret_cast<const float *>(row) + i % width, sizeof(float), cudaMemcpyDeviceToHost));
        expect_close(got, 2.0 * host[i] + 1.0, "unpitched_rows result");
    }
    EX_CHECK(cudaFreeHost(host));
    EX_CHECK(cudaFree(in));
    EX_CHECK(cudaFree(out));
    std::printf("unpitched_rows (%s): done\n", fixed ? "fixed" : "planted");
    return 0;
}
