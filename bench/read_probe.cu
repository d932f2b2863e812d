// What a DRAM read alone needs to reach the card's limit. read_write's read
// kernel (four 16-byte loads in flight per thread, one block per 4 x 256
// vectors, a partial sum per block) ran below stream's copy and triad; this
// probe times, on the same arrays and each verified before it is timed,
// read kernels that change one thing at a time:
//   loads     16-byte vectors each thread requests before it adds any (4, 8, 16)
//   block     threads per block (256, 512, 1024)
//   grid      one pass (one block per block x loads vectors) or a persistent
//             grid of SMs x k blocks walking the array
//   hint      plain ld.global, ld.global.cs (evict first), or
//             ld.global.nc.L1::no_allocate.L2::256B (a 256-byte L2 fetch)
//   reduce    64-bit sum of every word with one partial per block, one
//             atomic per warp on one address, or a 32-bit xor
// beside the copy (one uint4 per thread, one pass: stream's default), triad
// (double2), a store-only kernel, cudaMemcpyAsync and cudaMemsetAsync, on
// 256 MiB (read_write's and stream's default on a 50 MB L2) and 1 GiB arrays.
// Before every timed launch the L2 is flushed the way the harness does it
// (`dirty`: a kernel reads and writes a buffer of twice the L2, so its last
// lines stay dirty in L2 and are written back during the timed launch) or
// flushed and then cleaned (`clean`: a read of the same buffer evicts those
// dirty lines before the timed launch). GB/s counts one direction for the
// reads, the stores and memset, bytes read plus written for copy, triad and
// cudaMemcpy (stream's convention). Median of 20 launches.
//
//   nvcc -O3 -arch=native -o read_probe bench/read_probe.cu && ./read_probe
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "probe_check.cuh"

namespace {

constexpr std::size_t kBig = std::size_t(1) << 30, kSmall = std::size_t(256) << 20;

__host__ __device__ inline std::uint32_t word(std::uint64_t i) {
    return static_cast<std::uint32_t>(i * 2654435761u) ^ 0x9e3779b9u;
}

enum Hint { kPlain = 0, kStreaming = 1, kL2Fetch256 = 2 };
enum Reduce { kBlockSum = 0, kWarpAtomic = 1, kXor = 2 };

template <int H> __device__ __forceinline__ uint4 load(const uint4 *p) {
    if constexpr (H == kStreaming) return __ldcs(p);
    if constexpr (H == kL2Fetch256) {
        uint4 v;
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(p));
        return v;
    }
    return *p;
}

// Each thread requests U vectors (block-strided: a warp's loads contiguous)
// before it adds any; a grid smaller than the array walks it. Guarded: every
// load behind its own bounds check (read_write's earlier kernel), which lets
// the compiler keep fewer of them in flight (28 registers at U = 4, 34 at
// U = 16 on sm_90, against 30 and 72 unguarded).
template <int U, int H, int R, bool Guarded = false>
__global__ void read_kernel(const uint4 *__restrict__ p, std::size_t n16, unsigned long long *partial) {
    const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x * U;
    unsigned long long s = 0;
    for (std::size_t chunk = blockIdx.x * static_cast<std::size_t>(blockDim.x) * U; chunk < n16; chunk += step) {
        uint4 v[U];
        if (!Guarded && chunk + static_cast<std::size_t>(blockDim.x) * U <= n16) {
#pragma unroll
            for (int k = 0; k < U; ++k) v[k] = load<H>(p + chunk + threadIdx.x + static_cast<std::size_t>(k) * blockDim.x);
        } else {
#pragma unroll
            for (int k = 0; k < U; ++k) {
                const std::size_t i = chunk + threadIdx.x + static_cast<std::size_t>(k) * blockDim.x;
                v[k] = i < n16 ? load<H>(p + i) : make_uint4(0, 0, 0, 0);
            }
        }
#pragma unroll
        for (int k = 0; k < U; ++k) {
            if constexpr (R == kXor) s ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
            else s += static_cast<unsigned long long>(v[k].x) + v[k].y + v[k].z + v[k].w;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        const unsigned long long t = __shfl_down_sync(0xffffffffu, s, o);
        s = R == kXor ? (s ^ t) : (s + t);
    }
    if constexpr (R == kWarpAtomic) {
        if ((threadIdx.x & 31) == 0) atomicAdd(partial, s);
        return;
    }
    __shared__ unsigned long long warp_sums[32];
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t = 0;
        for (unsigned w = 0; w < blockDim.x / 32; ++w) t = R == kXor ? (t ^ warp_sums[w]) : (t + warp_sums[w]);
        partial[blockIdx.x] = t;
    }
}

__global__ void copy_kernel(const uint4 *__restrict__ in, uint4 *__restrict__ out, std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = in[i];
}
__global__ void triad_kernel(double2 *__restrict__ a, const double2 *__restrict__ b, const double2 *__restrict__ c,
                             std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) {
        const double2 x = b[i], y = c[i];
        a[i] = make_double2(x.x + 0.4 * y.x, x.y + 0.4 * y.y);
    }
}
__global__ void store_kernel(uint4 *p, std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) p[i] = make_uint4(word(4 * i), word(4 * i + 1), word(4 * i + 2), word(4 * i + 3));
}
__global__ void fill(std::uint32_t *p, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        p[i] = word(i);
}
// The harness's flush (read and write every vector) and clean (read only).
__global__ void flush_kernel(uint4 *b, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        uint4 v = b[i];
        v.x += 1u;
        b[i] = v;
    }
}
__global__ void clean_kernel(uint4 *b, std::size_t n) {
    unsigned acc = 0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        const uint4 v = b[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u && n == 0) b[0].y = acc;
}
// Mismatches of a[i] against `want` (word(i), or the memset byte where fill_byte >= 0).
__global__ void count_bad(const std::uint32_t *a, std::size_t n, int fill_byte, unsigned long long *bad) {
    unsigned long long local = 0;
    const std::uint32_t b = static_cast<std::uint32_t>(fill_byte & 0xff) * 0x01010101u;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        local += a[i] != (fill_byte >= 0 ? b : word(i));
    if (local) atomicAdd(bad, local);
}

struct Device {
    int sms = 0;
    uint4 *flush = nullptr;
    std::size_t flush_n16 = 0;
    unsigned long long *bad = nullptr;
};

enum Prep { kDirty = 0, kClean = 1 };
const char *prep_name(Prep p) { return p == kDirty ? "dirty" : "clean"; }

template <class Launch> double median_ms(const Device &d, Prep prep, Launch launch) {
    // Two warm-up launches, then 20 timed, each after the flush (and, clean, the write-back pass).
    return median_launch_ms(2, 20, [&] {
        flush_kernel<<<d.sms * 4, 512>>>(d.flush, d.flush_n16);
        if (prep == kClean) clean_kernel<<<d.sms * 4, 512>>>(d.flush, d.flush_n16);
    }, launch);
}

unsigned long long device_bad(const Device &d, const void *p, std::size_t bytes, int fill_byte) {
    CHECK(cudaMemset(d.bad, 0, sizeof *d.bad));
    count_bad<<<d.sms * 8, 256>>>(static_cast<const std::uint32_t *>(p), bytes / 4, fill_byte, d.bad);
    unsigned long long bad = 0;
    CHECK(cudaMemcpy(&bad, d.bad, sizeof bad, cudaMemcpyDeviceToHost));
    return bad;
}

struct ReadVariant {
    int loads, block, grid_per_sm;  // grid_per_sm 0: one pass
    Hint hint;
    Reduce reduce;
    bool guarded = false;
};

using ReadFn = void (*)(const uint4 *, std::size_t, unsigned long long *);
template <int U> ReadFn pick_u(Hint h, Reduce r, bool guarded) {
    if (guarded) return read_kernel<U, kPlain, kBlockSum, true>;
    if (r == kWarpAtomic) return read_kernel<U, kPlain, kWarpAtomic>;
    if (r == kXor) return read_kernel<U, kPlain, kXor>;
    if (h == kStreaming) return read_kernel<U, kStreaming, kBlockSum>;
    if (h == kL2Fetch256) return read_kernel<U, kL2Fetch256, kBlockSum>;
    return read_kernel<U, kPlain, kBlockSum>;
}
ReadFn pick(const ReadVariant &v) {
    switch (v.loads) {
    case 4: return pick_u<4>(v.hint, v.reduce, v.guarded);
    case 8: return pick_u<8>(v.hint, v.reduce, v.guarded);
    default: return pick_u<16>(v.hint, v.reduce, v.guarded);
    }
}

std::string describe(const ReadVariant &v) {
    static const char *hints[] = {"ld", "ld.cs", "ld.nc.L2::256B"};
    static const char *reduces[] = {"block sum", "warp atomic", "xor"};
    char b[128];
    std::snprintf(b, sizeof b, "read %2d loads x %4d, %s, %s, %s%s", v.loads, v.block,
                  v.grid_per_sm ? ("grid " + std::to_string(v.grid_per_sm) + "/SM").c_str() : "one pass", hints[v.hint],
                  reduces[v.reduce], v.guarded ? ", guarded" : "");
    return b;
}

// The host's 64-bit sum and xor of word(0..words).
struct HostSums {
    unsigned long long sum, x;
};
HostSums host_sums(std::size_t words) {
    HostSums h{0, 0};
    for (std::size_t i = 0; i < words; ++i) {
        h.sum += word(i);
        h.x ^= word(i);
    }
    return h;
}

double gbs(double bytes, double ms) { return bytes / (ms * 1e-3) / 1e9; }

void one_size(const Device &d, std::size_t bytes, uint4 *a, uint4 *b, uint4 *c, unsigned long long *partial) {
    const std::size_t n16 = bytes / 16;
    const HostSums want = host_sums(bytes / 4);
    std::printf("\n== %zu MiB arrays\n", bytes >> 20);
    std::vector<ReadVariant> reads;
    for (int u : {4, 8, 16})
        for (int blk : {256, 512, 1024}) reads.push_back({u, blk, 0, kPlain, kBlockSum});
    for (int g : {4, 8, 16}) reads.push_back({8, 256, g, kPlain, kBlockSum});
    for (int g : {1, 2}) reads.push_back({8, 1024, g, kPlain, kBlockSum});
    for (Hint h : {kStreaming, kL2Fetch256}) {
        reads.push_back({4, 256, 0, h, kBlockSum});
        reads.push_back({8, 256, 0, h, kBlockSum});
        reads.push_back({8, 1024, 0, h, kBlockSum});
    }
    reads.push_back({8, 256, 0, kPlain, kWarpAtomic});
    reads.push_back({8, 256, 0, kPlain, kXor});
    reads.push_back({4, 256, 0, kPlain, kBlockSum, true});
    reads.push_back({8, 256, 0, kPlain, kBlockSum, true});
    std::vector<unsigned long long> got;
    double best_read[2] = {0, 0};
    for (const ReadVariant &v : reads) {
        const std::size_t per_block = std::size_t(v.block) * v.loads, one_pass = (n16 + per_block - 1) / per_block;
        const std::size_t grid = v.grid_per_sm ? std::min<std::size_t>(one_pass, std::size_t(d.sms) * v.grid_per_sm) : one_pass;
        const ReadFn k = pick(v);
        cudaFuncAttributes attr{};
        CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void *>(k)));
        if (attr.maxThreadsPerBlock < v.block) {
            std::printf("%-62s does not fit: %d registers, at most %d threads\n", describe(v).c_str(), attr.numRegs,
                        attr.maxThreadsPerBlock);
            continue;
        }
        auto launch = [&] { k<<<static_cast<unsigned>(grid), v.block>>>(a, n16, partial); };
        CHECK(cudaMemset(partial, 0xA5, grid * sizeof *partial));
        if (v.reduce == kWarpAtomic) CHECK(cudaMemset(partial, 0, sizeof *partial));
        launch();
        CHECK(cudaGetLastError());
        const std::size_t n_partials = v.reduce == kWarpAtomic ? 1 : grid;
        got.resize(n_partials);
        CHECK(cudaMemcpy(got.data(), partial, n_partials * sizeof *partial, cudaMemcpyDeviceToHost));
        unsigned long long total = 0;
        for (unsigned long long g : got) total = v.reduce == kXor ? (total ^ g) : (total + g);
        const unsigned long long expect = v.reduce == kXor ? want.x : want.sum;
        const std::string name = describe(v) + " (" + std::to_string(attr.numRegs) + " regs)";
        if (total != expect) {
            std::printf("%-62s WRONG: %llu, want %llu\n", name.c_str(), total, expect);
            continue;
        }
        std::printf("%-62s", name.c_str());
        for (Prep p : {kDirty, kClean}) {
            const double g = gbs(double(bytes), median_ms(d, p, launch));
            best_read[p] = std::max(best_read[p], g);
            std::printf("  %s %7.1f", prep_name(p), g);
        }
        std::printf("\n");
    }
    const unsigned blocks = static_cast<unsigned>((n16 + 255) / 256);
    struct Ref {
        const char *name;
        double moved;
        std::function<void()> launch;
        const void *out;
        int fill_byte;
    };
    const Ref refs[] = {
        {"copy (uint4, one per thread, one pass)", 2.0, [&] { copy_kernel<<<blocks, 256>>>(a, b, n16); }, b, -1},
        {"cudaMemcpyAsync", 2.0, [&] { CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); }, b, -1},
        {"store only (uint4, one per thread)", 1.0, [&] { store_kernel<<<blocks, 256>>>(b, n16); }, b, -1},
        {"cudaMemsetAsync", 1.0, [&] { CHECK(cudaMemsetAsync(b, 0x5a, bytes)); }, b, 0x5a},
        {"triad (double2, one per thread)", 3.0,
         [&] {
             triad_kernel<<<blocks, 256>>>(reinterpret_cast<double2 *>(c), reinterpret_cast<const double2 *>(a),
                                           reinterpret_cast<const double2 *>(b), n16);
         },
         nullptr, -1},
    };
    for (const Ref &r : refs) {
        CHECK(cudaMemset(b, 0xA5, bytes));
        if (r.out) {
            r.launch();
            CHECK(cudaGetLastError());
            const unsigned long long bad = device_bad(d, r.out, bytes, r.fill_byte);
            if (bad) {
                std::printf("%-62s WRONG: %llu words differ\n", r.name, bad);
                continue;
            }
        } else {
            // Triad: c = a + 0.4 b on the words seen as doubles, b from the memset; checked on a sample.
            r.launch();
            CHECK(cudaDeviceSynchronize());
            const std::size_t n = 1 << 16;
            std::vector<double> ha(n), hb(n), hc(n);
            CHECK(cudaMemcpy(ha.data(), a, n * 8, cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(hb.data(), b, n * 8, cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(hc.data(), c, n * 8, cudaMemcpyDeviceToHost));
            std::size_t wrong = 0;
            for (std::size_t i = 0; i < n; ++i) {
                const double want_c = ha[i] + 0.4 * hb[i];
                if (!(hc[i] == want_c || std::abs(hc[i] - want_c) <= 1e-15 * std::abs(want_c)) && want_c == want_c) ++wrong;
            }
            if (wrong) {
                std::printf("%-62s WRONG: %zu of %zu sampled\n", r.name, wrong, n);
                continue;
            }
        }
        std::printf("%-62s", r.name);
        for (Prep p : {kDirty, kClean}) std::printf("  %s %7.1f", prep_name(p), gbs(r.moved * double(bytes), median_ms(d, p, r.launch)));
        std::printf("\n");
    }
    std::printf("best read: dirty %.1f clean %.1f GB/s\n", best_read[0], best_read[1]);
}

}  // namespace

int main() {
    Device d;
    CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    const std::size_t flush_bytes = std::max<std::size_t>(2 * std::size_t(prop.l2CacheSize), 4 << 20) / 16 * 16;
    d.flush_n16 = flush_bytes / 16;
    uint4 *a, *b, *c;
    unsigned long long *partial;
    CHECK(cudaMalloc(&a, kBig));
    CHECK(cudaMalloc(&b, kBig));
    CHECK(cudaMalloc(&c, kBig));
    CHECK(cudaMalloc(&d.flush, flush_bytes));
    CHECK(cudaMalloc(&d.bad, sizeof *d.bad));
    CHECK(cudaMalloc(&partial, (kBig / 16 / 256 + 1) * sizeof *partial));
    CHECK(cudaMemset(d.flush, 0, flush_bytes));
    fill<<<d.sms * 8, 256>>>(reinterpret_cast<std::uint32_t *>(a), kBig / 4);
    CHECK(cudaGetLastError());
    int mem_khz = 0, bus_bits = 0;
    CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0));
    CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
    std::printf("%s, %d SMs, L2 %d MiB, theoretical %.0f GB/s; GB/s after a dirty flush | after flush + clean\n", prop.name,
                d.sms, prop.l2CacheSize >> 20, 2.0 * mem_khz * 1e3 * (bus_bits / 8) / 1e9);
    one_size(d, kSmall, a, b, c, partial);
    one_size(d, kBig, a, b, c, partial);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    CHECK(cudaFree(d.flush));
    CHECK(cudaFree(d.bad));
    CHECK(cudaFree(partial));
    return 0;
}
