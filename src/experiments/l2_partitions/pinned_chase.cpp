#include "experiments/l2_partitions/pinned_chase.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/measurement/verify.hpp"

namespace gmlab {

namespace {

constexpr int kRounds = 4;              // the first launch and three relaunches
constexpr unsigned kBlocksPerSm = 4;    // in the first round: as many as one SM holds of the chase's blocks

}  // namespace

void run_pinned(ContextState &ctx, const PinnedSetup &setup, std::vector<PinnedJob> &jobs, const std::string &what,
                Result &out) {
    if (jobs.empty()) return;
    cudaStream_t st = ctx.stream();
    std::vector<std::size_t> first_hop(jobs.size());
    std::size_t total_hops = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        first_hop[i] = total_hops;
        total_hops += jobs[i].hops;
    }
    DeviceArray heads_d(ctx, jobs.size() * sizeof(kernels::PinnedChaseHead)), cycles_d(ctx, total_hops * sizeof(unsigned));
    auto *heads = heads_d.as<kernels::PinnedChaseHead>();
    auto *cycles = cycles_d.as<unsigned>();
    // A head stays zero (claim 0) until a block on its SM takes the launch.
    GM_CUDA(cudaMemsetAsync(heads, 0, heads_d.bytes(), st));
    std::vector<kernels::PinnedChaseHead> back(jobs.size());
    std::vector<std::size_t> pending(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) pending[i] = i;
    unsigned blocks = kBlocksPerSm * static_cast<unsigned>(std::max(1, ctx.info().multiprocessors));
    for (int round = 0; round < kRounds && !pending.empty(); ++round, blocks *= 2) {
        for (std::size_t i : pending) {
            const PinnedJob &j = jobs[i];
            if (setup.before) GM_CUDA(setup.before(st));
            GM_CUDA(kernels::launch_pinned_chase(setup.base, j.sm, j.start, j.hops, setup.warm_pages, setup.block_warm_bytes,
                                                 blocks, heads + i, cycles + first_hop[i], st));
        }
        GM_CUDA(cudaMemcpyAsync(back.data(), heads, back.size() * sizeof(back[0]), cudaMemcpyDeviceToHost, st));
        GM_CUDA(cudaStreamSynchronize(st));
        std::vector<std::size_t> still;
        for (std::size_t i : pending)
            if (back[i].claim == 0) still.push_back(i);
        pending.swap(still);
    }
    std::vector<unsigned> all(total_hops);
    GM_CUDA(cudaMemcpyAsync(all.data(), cycles, total_hops * sizeof(unsigned), cudaMemcpyDeviceToHost, st));
    GM_CUDA(cudaStreamSynchronize(st));
    std::uint64_t checked = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        PinnedJob &j = jobs[i];
        j.head = back[i];
        j.reached = back[i].claim != 0;
        if (!j.reached) continue;
        const std::string where = what + " from SM " + std::to_string(j.sm);
        if (j.head.smid != j.sm)
            fail(GM_ERROR_INTERNAL, where + " ran on SM " + std::to_string(j.head.smid));
        if (j.head.last != j.expected_last)
            verification_failed(where + " (line it stopped at, byte offset)", i, std::to_string(j.expected_last),
                                std::to_string(j.head.last));
        if (j.head.sum != j.expected_sum)
            verification_failed(where + " (sum of the byte offsets loaded)", i, std::to_string(j.expected_sum),
                                std::to_string(j.head.sum));
        j.cycles.assign(all.begin() + static_cast<std::ptrdiff_t>(first_hop[i]),
                        all.begin() + static_cast<std::ptrdiff_t>(first_hop[i] + j.hops));
        ++checked;
    }
    if (checked)
        out.verified(checked, "every pinned chase's last line and the sum of the lines it loaded compared with the host's "
                              "walk of the same ring");
}

}  // namespace gmlab
