// Where the wide transpose's last percent against the copy go. transpose's
// wide kernel (a 64x64 tile of 4-byte words, 16x16 threads, 16-byte loads
// and stores, an XOR-swizzled tile) reached 0.969 of the copy kernel on an
// H100 and 0.919 on an H200. Its loads are whole rows of the input, its
// stores whole rows of the output, so what is left is which tiles run at
// once: blocks in row-major order read a band of input rows but write to
// every output row. This probe times, on the experiment's 8192 x 8192 matrix
// (256 MiB) and each verified on the device before it is timed, the same
// kernel with the tiles handed out
//   row-major     the experiment's order (tile column fastest)
//   column-major  tile row fastest (writes a band of output rows)
//   grouped G     G tile rows at a time, column by column, so that the tiles
//                 in flight cover about a square of the matrix
// each with plain stores and with evict-first stores (st.global.cs), beside
// the copy kernel (one uint4 per thread, one pass) on the same bytes. Before
// each timed launch L2 is flushed the way the harness does it. Median of 20
// launches; GB/s of bytes read plus written.
//
//   nvcc -O3 -arch=native -o transpose_probe bench/transpose_probe.cu && ./transpose_probe
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "probe_check.cuh"

namespace {

constexpr int kN = 8192, kWide = 64;
constexpr std::size_t kBytes = std::size_t(kN) * kN * 4;

__device__ __forceinline__ int swizzle(int r) { return ((r >> 2) & 15) << 1; }

// Tile (tr, tc) of block b for each order; tiles = kN / kWide a side.
__device__ __forceinline__ void tile_of(int order, int group, unsigned b, int tiles, int &tr, int &tc) {
    if (order == 0) {
        tr = b / tiles;
        tc = b % tiles;
    } else if (order == 1) {
        tc = b / tiles;
        tr = b % tiles;
    } else {
        const unsigned per_group = static_cast<unsigned>(group) * tiles;
        const unsigned g = b / per_group, in = b % per_group;
        tr = static_cast<int>(g) * group + static_cast<int>(in % group);
        tc = static_cast<int>(in / group);
    }
}

template <bool Streaming>
__global__ void transpose_wide(const uint4 *__restrict__ in, uint4 *__restrict__ out, int order, int group) {
    __shared__ unsigned tile[kWide][kWide];
    const int tx = threadIdx.x, ty = threadIdx.y, tiles = kN / kWide;
    int tr, tc;
    tile_of(order, group, blockIdx.x, tiles, tr, tc);
    const std::size_t r0 = std::size_t(tr) * kWide, c0 = std::size_t(tc) * kWide, n4 = kN / 4;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int r = ty + 16 * k;
        uint4 v = in[(r0 + r) * n4 + c0 / 4 + tx];
        const int s = swizzle(r);
        if (s & 2) v = make_uint4(v.z, v.w, v.x, v.y);
        *reinterpret_cast<uint4 *>(&tile[r][4 * (tx ^ (s >> 2))]) = v;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int j = ty + 16 * k;
        const int s = swizzle(4 * tx);
        const uint4 v = make_uint4(tile[4 * tx][j ^ s], tile[4 * tx + 1][j ^ s], tile[4 * tx + 2][j ^ s], tile[4 * tx + 3][j ^ s]);
        uint4 *dst = out + (c0 + j) * n4 + r0 / 4 + tx;
        if constexpr (Streaming) __stcs(dst, v);
        else *dst = v;
    }
}

__global__ void copy_kernel(const uint4 *__restrict__ in, uint4 *__restrict__ out, std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = in[i];
}
__device__ __forceinline__ std::uint32_t word(std::uint64_t i) { return static_cast<std::uint32_t>(i * 2654435761u) ^ 0x51u; }
__global__ void fill(std::uint32_t *p, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        p[i] = word(i);
}
// out[c][r] must be in[r][c] = word(r N + c); transposed = false: out[i] = word(i).
__global__ void count_bad(const std::uint32_t *out, bool transposed, unsigned long long *bad) {
    unsigned long long local = 0;
    const std::size_t n = std::size_t(kN) * kN;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        const std::size_t want = transposed ? (i % kN) * kN + i / kN : i;
        local += out[i] != word(want);
    }
    if (local) atomicAdd(bad, local);
}
__global__ void flush_kernel(uint4 *b, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        uint4 v = b[i];
        v.x += 1u;
        b[i] = v;
    }
}

struct Bench {
    int sms;
    uint4 *in, *out, *flush;
    std::size_t flush_n16;
    unsigned long long *bad;

    template <class Launch> double gbs(Launch launch, bool transposed, const char *name) {
        CHECK(cudaMemset(out, 0xA5, kBytes));
        launch();
        CHECK(cudaGetLastError());
        CHECK(cudaMemset(bad, 0, sizeof *bad));
        count_bad<<<sms * 8, 256>>>(reinterpret_cast<const std::uint32_t *>(out), transposed, bad);
        unsigned long long b = 0;
        CHECK(cudaMemcpy(&b, bad, sizeof b, cudaMemcpyDeviceToHost));
        if (b) {
            std::printf("%-36s WRONG: %llu words\n", name, b);
            return 0;
        }
        const float ms = median_launch_ms(2, 20, [&] { flush_kernel<<<sms * 4, 512>>>(flush, flush_n16); }, launch);
        return 2.0 * kBytes / (ms * 1e-3) / 1e9;
    }
};

}  // namespace

int main() {
    Bench b{};
    CHECK(cudaDeviceGetAttribute(&b.sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    const std::size_t flush_bytes = std::max<std::size_t>(2 * std::size_t(prop.l2CacheSize), 4 << 20) / 16 * 16;
    b.flush_n16 = flush_bytes / 16;
    CHECK(cudaMalloc(&b.in, kBytes));
    CHECK(cudaMalloc(&b.out, kBytes));
    CHECK(cudaMalloc(&b.flush, flush_bytes));
    CHECK(cudaMalloc(&b.bad, sizeof *b.bad));
    CHECK(cudaMemset(b.flush, 0, flush_bytes));
    fill<<<b.sms * 8, 256>>>(reinterpret_cast<std::uint32_t *>(b.in), std::size_t(kN) * kN);
    CHECK(cudaGetLastError());
    std::printf("%s, %d SMs: %d x %d 4-byte matrix (GB/s: bytes read + written)\n", prop.name, b.sms, kN, kN);
    const double copy = b.gbs([&] { copy_kernel<<<unsigned(kBytes / 16 / 256), 256>>>(b.in, b.out, kBytes / 16); }, false, "copy");
    std::printf("%-36s %8.1f\n", "copy (uint4, one per thread)", copy);
    const unsigned tiles = (kN / kWide) * (kN / kWide);
    struct Order {
        const char *name;
        int order, group;
    };
    const Order orders[] = {{"row-major", 0, 0},  {"column-major", 1, 0}, {"grouped 4", 2, 4},
                            {"grouped 8", 2, 8}, {"grouped 16", 2, 16},  {"grouped 32", 2, 32}};
    for (const Order &o : orders)
        for (bool streaming : {false, true}) {
            char name[64];
            std::snprintf(name, sizeof name, "wide, %s%s", o.name, streaming ? ", st.cs" : "");
            const double g = b.gbs(
                [&] {
                    if (streaming) transpose_wide<true><<<tiles, dim3(16, 16)>>>(b.in, b.out, o.order, o.group);
                    else transpose_wide<false><<<tiles, dim3(16, 16)>>>(b.in, b.out, o.order, o.group);
                },
                true, name);
            if (g > 0) std::printf("%-36s %8.1f  %.3f of the copy\n", name, g, g / copy);
        }
    CHECK(cudaFree(b.in));
    CHECK(cudaFree(b.out));
    CHECK(cudaFree(b.flush));
    CHECK(cudaFree(b.bad));
    return 0;
}
