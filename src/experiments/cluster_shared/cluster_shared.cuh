// Thread block clusters and distributed shared memory (sm_90): a pointer
// chase through another block's shared memory against local shared memory and
// an L2 hit, and an all-to-all exchange between the blocks of a cluster
// through distributed shared memory against the same exchange through global
// memory. Every launch sets its cluster size at run time
// (cudaLaunchKernelEx, cudaLaunchAttributeClusterDimension).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

// Where the chase's dependent loads go.
enum class ClusterChase {
    Local,   // the chasing block's own shared memory (ld.shared)
    Remote,  // the last block of the cluster's shared memory (ld.shared::cluster, address from mapa)
    L2,      // a global ring through L2, L1 bypassed (ld.global.cg)
};

constexpr int kClusterRingNodes = 2048;  // 4-byte nodes: 8 KiB of shared memory per block
constexpr int kClusterChaseBlock = 128;
constexpr int kExchangeBlock = 256;

// One chase: cycles and nanoseconds of the timed hops and the node it ended
// on, as the latency family's ChaseSample (three 64-bit words).
struct ClusterChaseSample {
    unsigned long long cycles = 0, ns = 0, last = 0;
};

// A grid of one cluster of `cluster` blocks. Every block fills its shared ring
// from next_offsets (kClusterRingNodes byte offsets of each node's successor);
// the cluster synchronises; thread 0 of block 0 walks the ring `prewalk` hops
// untimed and then `hops` hops timed from node `start` (Local, Remote: a shared
// ring; L2: `global_ring`, one 64-bit address per 128-byte line, `lines`
// lines), writes *out, and the cluster synchronises again before any block
// exits. Remote needs cluster >= 2.
cudaError_t launch_cluster_chase(ClusterChase where, int cluster, const std::uint32_t *next_offsets,
                                 const unsigned long long *global_ring, std::uint32_t start, unsigned prewalk, unsigned hops,
                                 ClusterChaseSample *out, cudaStream_t stream);

// The Local chase's ring walked by one block with generic loads: the same
// successors (next_offsets, byte offsets of 4-byte nodes), held as the
// generic addresses of 8-byte nodes in the block's shared memory, so that
// every hop is `ld` (no state space) of a shared address instead of
// ld.shared; thread 0 walks as launch_cluster_chase does (out->last: the node
// index it ended on).
cudaError_t launch_shared_generic_chase(const std::uint32_t *next_offsets, std::uint32_t start, unsigned prewalk,
                                        unsigned hops, ClusterChaseSample *out, cudaStream_t stream);

// The all-to-all exchange, `clusters` clusters of `cluster` blocks of
// kExchangeBlock threads: in each of `rounds` rounds every block writes a
// slice of slice_bytes (exchange_word, cluster_plan.hpp) to every other block
// of its cluster, through distributed shared memory (dsm: into the other
// block's shared slot for it) or through global memory (a slot of
// global_slots, clusters x cluster x cluster slices), synchronises the
// cluster, reads what it received and compares every word with what the
// sender wrote, and synchronises again. counts[0] += mismatching words,
// counts[1] += words compared.
cudaError_t launch_exchange(bool dsm, int cluster, int clusters, std::size_t slice_bytes, unsigned rounds,
                            void *global_slots, unsigned long long *counts, cudaStream_t stream);

// Lets the kernels use up to `bytes` of dynamic shared memory per block and
// cluster sizes above 8 (cudaFuncAttributeNonPortableClusterSizeAllowed);
// *nonportable says whether the device accepted the latter.
cudaError_t prepare_cluster_kernels(std::size_t bytes, bool *nonportable);

// The largest cluster cudaOccupancyMaxPotentialClusterSize allows for the
// chase (exchange = false, its static shared memory) or for the exchange with
// `shared_bytes` of dynamic shared memory.
cudaError_t max_cluster_size(bool exchange, std::size_t shared_bytes, int *out);

// cudaOccupancyMaxActiveClusters: clusters of `cluster` blocks of the
// exchange (with `shared_bytes`) that the device holds at once.
cudaError_t max_active_clusters(bool dsm, int cluster, std::size_t shared_bytes, int *out);

// Resources of a kernel: the chase, or the exchange (dsm or global).
cudaError_t cluster_kernel_attributes(int which, cudaFuncAttributes *out);  // 0 chase, 1 exchange dsm, 2 exchange global

}  // namespace gmlab::kernels
