// What one timed pointer chase leaves behind, written by every chase kernel
// (latency's, l2_partitions', cluster_shared's) and read by the host's chase
// runner (experiments/common/chase.hpp).
#pragma once

namespace gmlab::kernels {

// The measured hops' SM cycles and nanoseconds, and where the chase ended
// (checked against the host's walk).
struct ChaseSample {
    unsigned long long cycles = 0, ns = 0, last = 0;
};

}  // namespace gmlab::kernels
