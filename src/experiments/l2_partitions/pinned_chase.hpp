// Batches of chases pinned to one SM each (l2_partitions.cuh): enqueued
// together, relaunched where no block of a launch ran on its SM, and checked
// against the host's walk of the same ring.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/device/context.hpp"
#include "core/experiment/result.hpp"
#include "core/measurement/harness.hpp"
#include "experiments/l2_partitions/l2_partitions.cuh"

namespace gmlab {

// One chase: from SM `sm`, `hops` hops from byte offset `start`; where it must
// stop and the sum of the byte offsets it must load, from the host's walk.
struct PinnedJob {
    unsigned sm = 0;
    std::uint64_t start = 0;
    unsigned hops = 0;
    std::uint64_t expected_last = 0, expected_sum = 0;
    // What came back: reached is false when no block ran on the SM.
    bool reached = false;
    kernels::PinnedChaseHead head{};
    std::vector<unsigned> cycles;  // per hop
};

// What every job of a batch shares: the ring's memory, the untimed loads
// before the timed hops (see launch_pinned_chase), and work enqueued before
// each chase (rewriting the lines; may be empty).
struct PinnedSetup {
    const char *base = nullptr;
    unsigned warm_pages = 0;
    std::uint64_t block_warm_bytes = 0;
    Launch before;
};

// Runs every job (each after setup.before) on the context's stream, relaunches
// with more blocks those whose SM no block reached (three more rounds at most),
// and checks each chase that ran: GM_ERROR_VERIFICATION_FAILED naming `what`
// where it stopped elsewhere or loaded other lines. Jobs never reached keep
// reached = false.
void run_pinned(ContextState &ctx, const PinnedSetup &setup, std::vector<PinnedJob> &jobs, const std::string &what,
                Result &out);

}  // namespace gmlab
