// The host side of the cluster_shared experiment that needs no device: which
// cluster sizes a device accepts, the shared memory the exchange needs, and
// the bytes an exchange moves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "shared_kernels/pattern.hpp"  // GM_HOST_DEVICE

namespace gmlab {

// The cluster sizes the experiment asks for: powers of two up to 16 (8 is
// the portable limit; 16 needs cudaFuncAttributeNonPortableClusterSizeAllowed).
inline const std::vector<long long> &cluster_size_choices() {
    static const std::vector<long long> v = {1, 2, 4, 8, 16};
    return v;
}
inline constexpr int kPortableClusterLimit = 8;

// The sizes of cluster_size_choices() that a device allows: at most
// max_cluster, the largest cluster cudaOccupancyMaxPotentialClusterSize
// allows for the kernels (with the non-portable attribute set where
// nonportable is true; without it the limit is 8).
std::vector<long long> allowed_cluster_sizes(int max_cluster, bool nonportable);

// Throws Error(GM_ERROR_INVALID_ARGUMENT) naming cluster_sizes and the values
// allowed here when `size` is not a power of two in 1..16, is above 8 without
// the non-portable attribute, or above what the occupancy API allows (`why`
// says which kernel or query refused it, may be empty).
void check_cluster_size(long long size, int max_cluster, bool nonportable, const std::string &why = "");

// The exchange's shared memory per block: one slot of slice_bytes for each
// block of the cluster (its own slot unused, so that slot = source rank).
std::size_t exchange_shared_bytes(int cluster, std::size_t slice_bytes);
// Throws Error(GM_ERROR_INVALID_ARGUMENT) naming slice_bytes and its allowed
// range at this cluster size when the slots do not fit `shared_limit`, or
// when slice_bytes is not a multiple of 16.
void check_slice(std::size_t slice_bytes, int cluster, std::size_t shared_limit);

// Bytes the exchange moves between blocks: every block of every cluster
// writes one slice into each of the other cluster - 1 blocks, `rounds` times.
double exchanged_bytes(int cluster, std::size_t slice_bytes, std::uint64_t rounds, std::uint64_t clusters);

// The word that block `src` of cluster `cluster_id` sends to block `dst` in
// `round`, at 4-byte index `word` of its slice: the kernels write it and
// check it on receipt; the host tests compute it the same way.
GM_HOST_DEVICE inline std::uint32_t exchange_word(std::uint32_t round, std::uint32_t cluster_id, std::uint32_t src, std::uint32_t dst,
                                   std::uint32_t word) {
    return ((round * 0x9E3779B1u) ^ (cluster_id * 0x27D4EB2Fu) ^ (src * 0x85EBCA77u) ^ (dst * 0xC2B2AE3Du)) + word;
}

}  // namespace gmlab
