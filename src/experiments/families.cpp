// The experiment families, in the order of the standard suite. Each family
// declares its experiments in its own folder (name, guide section,
// parameters with bounds and units, quick parameters, headline figures, run
// function) in add_<name>_experiments; adding one means its folder, one line
// here and its section of docs/experiments.md (docs/architecture.md has the
// checklist).
#include <vector>

#include "core/experiment/registry.hpp"

// One line per family: FAMILY(x) stands for add_x_experiments, defined in
// src/experiments/<family>/.
#define GM_EVERY_FAMILY(FAMILY) \
    FAMILY(stream)            \
    FAMILY(read_write)        \
    FAMILY(global_copy)       \
    FAMILY(l2_persist)        \
    FAMILY(bank_conflicts)    \
    FAMILY(matmul)            \
    FAMILY(transpose)         \
    FAMILY(shared_alloc)      \
    FAMILY(async_copy)        \
    FAMILY(tma_copy)          \
    FAMILY(cluster_shared)    \
    FAMILY(constant_memory)   \
    FAMILY(texture)           \
    FAMILY(transfers)         \
    FAMILY(latency)           \
    FAMILY(local_memory)      \
    FAMILY(register_pressure) \
    FAMILY(alignment)         \
    FAMILY(pitch_2d)          \
    FAMILY(managed_memory)    \
    FAMILY(allocation)        \
    FAMILY(compressible)      \
    FAMILY(l2_partitions)     \
    FAMILY(cache_hints)       \
    FAMILY(carveout)          \
    /* the list ends here */

namespace gmlab {

#define GM_DECLARE_FAMILY(x) void add_##x##_experiments(std::vector<Experiment> &out);
GM_EVERY_FAMILY(GM_DECLARE_FAMILY)
#undef GM_DECLARE_FAMILY

void add_every_family(std::vector<Experiment> &out) {
#define GM_ADD_FAMILY(x) add_##x##_experiments(out);
    GM_EVERY_FAMILY(GM_ADD_FAMILY)
#undef GM_ADD_FAMILY
}

}  // namespace gmlab
