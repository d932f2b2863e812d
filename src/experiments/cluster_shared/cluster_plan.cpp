#include "experiments/cluster_shared/cluster_plan.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace gmlab {

namespace {

std::string join(const std::vector<long long> &v) {
    std::string s;
    for (long long x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
    return s;
}

}  // namespace

std::vector<long long> allowed_cluster_sizes(int max_cluster, bool nonportable) {
    const int limit = nonportable ? max_cluster : std::min(max_cluster, kPortableClusterLimit);
    std::vector<long long> out;
    for (long long c : cluster_size_choices())
        if (c <= limit) out.push_back(c);
    return out;
}

void check_cluster_size(long long size, int max_cluster, bool nonportable, const std::string &why) {
    const std::vector<long long> allowed = allowed_cluster_sizes(max_cluster, nonportable);
    const std::string here = "cluster_sizes must be one of " + join(allowed) + " on this device";
    bool choice = false;
    for (long long c : cluster_size_choices()) choice |= c == size;
    if (!choice)
        invalid("cluster_sizes must be powers of two in 1..16 (1, 2, 4, 8, 16), got " + std::to_string(size) +
                (allowed.empty() ? "" : "; " + here));
    if (size > kPortableClusterLimit && !nonportable)
        invalid("cluster_sizes: " + std::to_string(size) + " is above the portable limit of " +
                std::to_string(kPortableClusterLimit) + " and this device does not allow non-portable cluster sizes; " + here);
    if (size > max_cluster)
        invalid("cluster_sizes: " + std::to_string(size) + " is more than this device allows (" +
                (why.empty() ? "cudaOccupancyMaxPotentialClusterSize" : why) + ": " + std::to_string(max_cluster) + "); " + here);
}

std::size_t exchange_shared_bytes(int cluster, std::size_t slice_bytes) {
    return static_cast<std::size_t>(cluster) * slice_bytes;
}

void check_slice(std::size_t slice_bytes, int cluster, std::size_t shared_limit) {
    const std::size_t most = cluster > 0 ? shared_limit / static_cast<std::size_t>(cluster) / 16 * 16 : 0;
    if (slice_bytes < 16 || slice_bytes % 16 != 0)
        invalid("slice_bytes must be a multiple of 16 (16-byte vectors), got " + std::to_string(slice_bytes));
    if (exchange_shared_bytes(cluster, slice_bytes) > shared_limit)
        invalid("slice_bytes: " + std::to_string(cluster) + " slots of " + std::to_string(slice_bytes) + " bytes need " +
                std::to_string(exchange_shared_bytes(cluster, slice_bytes)) + " bytes of shared memory per block, this device allows " +
                std::to_string(shared_limit) + ": at cluster size " + std::to_string(cluster) + " slice_bytes must be in 16.." +
                std::to_string(most));
}

double exchanged_bytes(int cluster, std::size_t slice_bytes, std::uint64_t rounds, std::uint64_t clusters) {
    return static_cast<double>(clusters) * cluster * (cluster - 1) * static_cast<double>(slice_bytes) * static_cast<double>(rounds);
}

}  // namespace gmlab
