#include "experiments/cluster_shared/cluster_shared.cuh"

#include <cooperative_groups.h>

#include "experiments/cluster_shared/cluster_plan.hpp"
#include "shared_kernels/device_clock.cuh"  // walk_then_time: the chase's loads between the clocks' readings
#include "shared_kernels/kernel_catalogue.cuh"

// Clusters exist from sm_90 on. The library is also built for older GPUs,
// where these kernels compile to nothing: the host never launches them there
// (the experiment is not applicable below compute capability 9.0).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define GM_HAS_CLUSTERS 1
#endif

namespace cg = cooperative_groups;

namespace gmlab::kernels {

namespace {

#ifdef GM_HAS_CLUSTERS
__device__ __forceinline__ std::uint32_t shared_address(const void *p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// The shared::cluster address of `cta_address` in block `rank` of the cluster.
__device__ __forceinline__ std::uint32_t cluster_address(std::uint32_t cta_address, std::uint32_t rank) {
    std::uint32_t r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(cta_address), "r"(rank));
    return r;
}

// One dependent load each: the loaded word is the next node's address.
struct LocalStep {
    __device__ std::uint32_t operator()(std::uint32_t a) const {
        std::uint32_t v;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
        return v;
    }
};
struct RemoteStep {
    __device__ std::uint32_t operator()(std::uint32_t a) const {
        std::uint32_t v;
        asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
        return v;
    }
};
// A generic load (no state space) of a 64-bit generic address that points
// into shared memory: the hardware first decides which space it is in.
struct GenericStep {
    __device__ unsigned long long operator()(unsigned long long a) const {
        unsigned long long v;
        asm volatile("ld.u64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
        return v;
    }
};
struct L2Step {
    __device__ unsigned long long operator()(unsigned long long a) const {
        unsigned long long v;
        asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
        return v;
    }
};

template <class Step, class T>
__device__ __forceinline__ void timed_walk(Step step, T base, T node_bytes, std::uint32_t start, unsigned prewalk,
                                           unsigned hops, ClusterChaseSample *out) {
    const T p = walk_then_time(step, base + static_cast<T>(start) * node_bytes, prewalk, hops, out);
    out->last = static_cast<unsigned long long>((p - base) / node_bytes);
}
#endif

__global__ void __launch_bounds__(kClusterChaseBlock)
    cluster_chase(int where, const std::uint32_t *next_offsets, const unsigned long long *global_ring, std::uint32_t start,
                  unsigned prewalk, unsigned hops, ClusterChaseSample *out) {
#ifdef GM_HAS_CLUSTERS
    __shared__ std::uint32_t ring[kClusterRingNodes];
    cg::cluster_group cluster = cg::this_cluster();
    const std::uint32_t rank = cluster.block_rank();
    const std::uint32_t base = shared_address(ring);
    const bool remote = where == static_cast<int>(ClusterChase::Remote);
    // Each node holds its successor's address: a shared::cluster address for
    // the remote chase (the window address every block computes for this
    // block's ring), a shared::cta address for the local one.
    const std::uint32_t own = remote ? cluster_address(base, rank) : base;
    for (int k = threadIdx.x; k < kClusterRingNodes; k += blockDim.x) ring[k] = own + next_offsets[k];
    cluster.sync();
    if (rank == 0 && threadIdx.x == 0) {
        if (where == static_cast<int>(ClusterChase::Local)) {
            timed_walk(LocalStep{}, base, 4u, start, prewalk, hops, out);
        } else if (remote) {
            const std::uint32_t target = cluster_address(base, cluster.num_blocks() - 1);
            timed_walk(RemoteStep{}, target, 4u, start, prewalk, hops, out);
        } else {
            timed_walk(L2Step{}, reinterpret_cast<unsigned long long>(global_ring), 128ull, start, prewalk, hops, out);
        }
    }
    // No block may exit while another still reads its shared memory.
    cluster.sync();
#endif
}

// The local ring again, as 8-byte nodes holding the generic address of their
// successor: the same walk as ld.shared's, through generic loads.
__global__ void __launch_bounds__(kClusterChaseBlock)
    shared_generic_chase(const std::uint32_t *next_offsets, std::uint32_t start, unsigned prewalk, unsigned hops,
                         ClusterChaseSample *out) {
#ifdef GM_HAS_CLUSTERS
    __shared__ unsigned long long ring[kClusterRingNodes];
    for (int k = threadIdx.x; k < kClusterRingNodes; k += blockDim.x)
        ring[k] = reinterpret_cast<unsigned long long>(ring + next_offsets[k] / 4);
    __syncthreads();
    if (threadIdx.x == 0) timed_walk(GenericStep{}, reinterpret_cast<unsigned long long>(ring), 8ull, start, prewalk, hops, out);
#endif
}

template <bool Dsm>
__global__ void __launch_bounds__(kExchangeBlock)
    exchange(uint4 *global_slots, std::uint32_t slice_vecs, unsigned rounds, unsigned long long *counts) {
#ifdef GM_HAS_CLUSTERS
    extern __shared__ __align__(16) uint4 slots[];
    cg::cluster_group cluster = cg::this_cluster();
    const std::uint32_t me = cluster.block_rank(), size = cluster.num_blocks();
    const std::uint32_t cid = blockIdx.x / size;
    unsigned long long bad = 0, checked = 0;
    // Every block of the cluster has started, so its shared memory exists,
    // before any block writes into it (the guide's rule for distributed shared
    // memory; racecheck names the hazard without it). Both paths pay it alike.
    cluster.sync();
    for (unsigned r = 0; r < rounds; ++r) {
        // To every other block, starting with the next rank so that the
        // blocks do not all write to the same one at once.
        for (std::uint32_t d = 1; d < size; ++d) {
            const std::uint32_t dst = (me + d) % size;
            uint4 *to = Dsm ? cluster.map_shared_rank(slots, static_cast<int>(dst)) + me * slice_vecs
                            : global_slots + (static_cast<std::size_t>(cid * size + dst) * size + me) * slice_vecs;
            for (std::uint32_t v = threadIdx.x; v < slice_vecs; v += blockDim.x) {
                const std::uint32_t w = v * 4;
                to[v] = make_uint4(exchange_word(r, cid, me, dst, w), exchange_word(r, cid, me, dst, w + 1),
                                   exchange_word(r, cid, me, dst, w + 2), exchange_word(r, cid, me, dst, w + 3));
            }
        }
        cluster.sync();
        for (std::uint32_t d = 1; d < size; ++d) {
            const std::uint32_t src = (me + d) % size;
            const uint4 *from = Dsm ? slots + src * slice_vecs
                                    : global_slots + (static_cast<std::size_t>(cid * size + me) * size + src) * slice_vecs;
            for (std::uint32_t v = threadIdx.x; v < slice_vecs; v += blockDim.x) {
                // Through global memory the slot was written by another
                // multiprocessor: read it from L2, past this one's L1.
                const uint4 x = Dsm ? from[v] : __ldcg(from + v);
                const std::uint32_t w = v * 4;
                bad += (x.x != exchange_word(r, cid, src, me, w)) + (x.y != exchange_word(r, cid, src, me, w + 1)) +
                       (x.z != exchange_word(r, cid, src, me, w + 2)) + (x.w != exchange_word(r, cid, src, me, w + 3));
                checked += 4;
            }
        }
        // Every block has read its slots before the next round overwrites them.
        cluster.sync();
    }
    for (int o = 16; o > 0; o /= 2) {
        bad += __shfl_down_sync(0xffffffffu, bad, o);
        checked += __shfl_down_sync(0xffffffffu, checked, o);
    }
    if ((threadIdx.x & 31) == 0) {
        if (bad) atomicAdd(counts, bad);
        if (checked) atomicAdd(counts + 1, checked);
    }
#endif
}

GM_KERNEL("cluster_shared", "cluster_chase (local, remote, L2)", cluster_chase);
GM_KERNEL("cluster_shared", "shared_generic_chase", shared_generic_chase);
GM_KERNEL("cluster_shared", "exchange<distributed shared memory>", exchange<true>);
GM_KERNEL("cluster_shared", "exchange<global memory>", exchange<false>);

const void *exchange_kernel(bool dsm) {
    return dsm ? reinterpret_cast<const void *>(exchange<true>) : reinterpret_cast<const void *>(exchange<false>);
}

cudaLaunchConfig_t config(int blocks, int threads, std::size_t smem, cudaStream_t stream, cudaLaunchAttribute *attr,
                          int cluster) {
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(static_cast<unsigned>(blocks), 1, 1);
    c.blockDim = dim3(static_cast<unsigned>(threads), 1, 1);
    c.dynamicSmemBytes = smem;
    c.stream = stream;
    if (cluster > 0) {
        attr->id = cudaLaunchAttributeClusterDimension;
        attr->val.clusterDim.x = static_cast<unsigned>(cluster);
        attr->val.clusterDim.y = 1;
        attr->val.clusterDim.z = 1;
        c.attrs = attr;
        c.numAttrs = 1;
    }
    return c;
}

}  // namespace

cudaError_t launch_cluster_chase(ClusterChase where, int cluster, const std::uint32_t *next_offsets,
                                 const unsigned long long *global_ring, std::uint32_t start, unsigned prewalk, unsigned hops,
                                 ClusterChaseSample *out, cudaStream_t stream) {
    if (cluster < 1 || (where == ClusterChase::Remote && cluster < 2) || (where == ClusterChase::L2 && !global_ring))
        return cudaErrorInvalidValue;
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t c = config(cluster, kClusterChaseBlock, 0, stream, &attr, cluster);
    return cudaLaunchKernelEx(&c, cluster_chase, static_cast<int>(where), next_offsets, global_ring, start, prewalk, hops, out);
}

cudaError_t launch_shared_generic_chase(const std::uint32_t *next_offsets, std::uint32_t start, unsigned prewalk,
                                        unsigned hops, ClusterChaseSample *out, cudaStream_t stream) {
    if (!next_offsets || !out || start >= static_cast<std::uint32_t>(kClusterRingNodes)) return cudaErrorInvalidValue;
    shared_generic_chase<<<1, kClusterChaseBlock, 0, stream>>>(next_offsets, start, prewalk, hops, out);
    return cudaGetLastError();
}

cudaError_t launch_exchange(bool dsm, int cluster, int clusters, std::size_t slice_bytes, unsigned rounds,
                            void *global_slots, unsigned long long *counts, cudaStream_t stream) {
    if (cluster < 2 || clusters < 1 || slice_bytes == 0 || slice_bytes % 16 || (!dsm && !global_slots)) return cudaErrorInvalidValue;
    cudaLaunchAttribute attr;
    const std::size_t smem = dsm ? exchange_shared_bytes(cluster, slice_bytes) : 0;
    const cudaLaunchConfig_t c = config(cluster * clusters, kExchangeBlock, smem, stream, &attr, cluster);
    const auto vecs = static_cast<std::uint32_t>(slice_bytes / 16);
    auto *slots = static_cast<uint4 *>(global_slots);
    return dsm ? cudaLaunchKernelEx(&c, exchange<true>, slots, vecs, rounds, counts)
               : cudaLaunchKernelEx(&c, exchange<false>, slots, vecs, rounds, counts);
}

cudaError_t prepare_cluster_kernels(std::size_t bytes, bool *nonportable) {
    cudaError_t err = cudaFuncSetAttribute(exchange_kernel(true), cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
    if (err != cudaSuccess) return err;
    bool ok = true;
    for (const void *k : {reinterpret_cast<const void *>(cluster_chase), exchange_kernel(true), exchange_kernel(false)})
        if (cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) {
            cudaGetLastError();  // refused: the device keeps the portable limit of 8
            ok = false;
        }
    if (nonportable) *nonportable = ok;
    return cudaSuccess;
}

cudaError_t max_cluster_size(bool exchange_kernel_wanted, std::size_t shared_bytes, int *out) {
    cudaLaunchAttribute attr;
    const int threads = exchange_kernel_wanted ? kExchangeBlock : kClusterChaseBlock;
    const cudaLaunchConfig_t c = config(32, threads, exchange_kernel_wanted ? shared_bytes : 0, nullptr, &attr, 0);
    return cudaOccupancyMaxPotentialClusterSize(
        out, exchange_kernel_wanted ? exchange_kernel(true) : reinterpret_cast<const void *>(cluster_chase), &c);
}

cudaError_t max_active_clusters(bool dsm, int cluster, std::size_t shared_bytes, int *out) {
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t c = config(cluster, kExchangeBlock, dsm ? shared_bytes : 0, nullptr, &attr, cluster);
    return cudaOccupancyMaxActiveClusters(out, exchange_kernel(dsm), &c);
}

cudaError_t cluster_kernel_attributes(int which, cudaFuncAttributes *out) {
    switch (which) {
    case 0: return cudaFuncGetAttributes(out, reinterpret_cast<const void *>(cluster_chase));
    case 1: return cudaFuncGetAttributes(out, exchange_kernel(true));
    case 2: return cudaFuncGetAttributes(out, exchange_kernel(false));
    default: return cudaErrorInvalidValue;
    }
}

}  // namespace gmlab::kernels
