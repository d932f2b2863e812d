// The catalogue of experiment families: every family adds its experiments
// here, in the order of the standard suite, with the parameters of
// `gmlab run --quick`. Adding a family means one line in each list below
// (docs/architecture.md has the whole checklist).
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/experiment/registry.hpp"

namespace gmlab {

using nlohmann::json;

// One function per family, defined in src/experiments/<family>/.
void add_stream_experiments(std::vector<Experiment> &out);
void add_global_copy_experiments(std::vector<Experiment> &out);
void add_l2_experiments(std::vector<Experiment> &out);
void add_bank_experiments(std::vector<Experiment> &out);
void add_matmul_experiments(std::vector<Experiment> &out);
void add_transpose_experiments(std::vector<Experiment> &out);
void add_shared_alloc_experiments(std::vector<Experiment> &out);
void add_async_copy_experiments(std::vector<Experiment> &out);
void add_tma_copy_experiments(std::vector<Experiment> &out);
void add_cluster_shared_experiments(std::vector<Experiment> &out);
void add_constant_experiments(std::vector<Experiment> &out);
void add_texture_experiments(std::vector<Experiment> &out);
void add_transfer_experiments(std::vector<Experiment> &out);
void add_zero_copy_experiments(std::vector<Experiment> &out);
void add_copy_overlap_experiments(std::vector<Experiment> &out);
void add_peer_experiments(std::vector<Experiment> &out);
void add_latency_experiments(std::vector<Experiment> &out);
void add_memory_spaces_experiments(std::vector<Experiment> &out);
void add_local_memory_experiments(std::vector<Experiment> &out);
void add_register_pressure_experiments(std::vector<Experiment> &out);
void add_alignment_experiments(std::vector<Experiment> &out);
void add_pitch_experiments(std::vector<Experiment> &out);
void add_managed_memory_experiments(std::vector<Experiment> &out);
void add_allocation_experiments(std::vector<Experiment> &out);
void add_compressible_experiments(std::vector<Experiment> &out);
void add_l2_partitions_experiments(std::vector<Experiment> &out);
void add_cache_hints_experiments(std::vector<Experiment> &out);
void add_carveout_experiments(std::vector<Experiment> &out);

namespace {

constexpr long long kMiB = 1024 * 1024;

// The parameters of `gmlab run --quick`, in one table: small sweeps (the ends
// and one point between) and small working sets, every kernel and variant
// still run and checked.
json quick_parameters(const std::string &name) {
    static const std::map<std::string, json> table = {
        {"stream", {{"array_bytes", 64 * kMiB}}},
        {"offset_copy", {{"offsets", {0, 1, 32}}, {"elements", 4 * kMiB}}},
        {"stride_copy", {{"strides", {1, 2, 32}}, {"elements", kMiB}}},
        {"l2_persist", {{"sweep_points", 2}, {"streaming_bytes", 128 * kMiB}}},
        {"bank_conflicts", {{"strides", {0, 1, 2, 32}}, {"iterations", 256}}},
        {"matmul_ab", {{"m", 1024}, {"n", 1024}}},
        {"matmul_aat", {{"m", 1024}}},
        {"transpose", {{"rows", 1024}, {"cols", 1024}}},
        {"shared_alloc", {{"elements", 4 * kMiB}}},
        {"async_copy", {{"copy_counts", {1, 4, 7}}}},
        {"tma_copy", {{"array_bytes", 64 * kMiB}, {"sizes", {1024, 16384}}, {"stages", {1, 3}}}},
        {"cluster_shared", {{"cluster_sizes", {1, 2, 8}}, {"hops", 256}, {"rounds", 16}}},
        {"constant_broadcast", {{"k", {1, 2, 32}}, {"iterations", 256}}},
        {"stencil", {{"elements", 4 * kMiB}}},
        {"texture", {{"width", 1024}, {"height", 1024}}},
        {"transfer", {{"min_size", 64 * 1024}, {"max_size", 4 * kMiB}, {"points_per_octave", 1}}},
        {"transfer_batching", {{"counts", {1, 16}}, {"chunk_sizes", {4096}}}},
        {"zero_copy", {{"bytes", 4 * kMiB}}},
        {"copy_overlap", {{"bytes", 16 * kMiB}, {"streams", {1, 2}}}},
        {"peer", {{"bytes", kMiB}, {"latency_copies", 10}}},
        {"latency", {{"points_per_octave", 1}, {"hops", 512}}},
        {"memory_spaces", {{"hops", 256}}},
        {"local_memory", {{"rounds", 4}}},
        {"register_pressure", {{"caps", {255, 32}}, {"iterations", 4}}},
        {"alignment", {{"records", kMiB}}},
        {"pitch_2d", {{"widths", {1000, 1025}}, {"height", 1024}}},
        {"managed_memory", {{"max_size", kMiB}, {"pingpong_pages", {1, 16}}}},
        {"allocation", {{"max_size", 16 * kMiB}, {"host_max_size", kMiB}}},
        {"compressible", {{"bytes", 16 * kMiB}}},
        {"l2_partitions", {{"lines", 64}, {"sm_step", 16}, {"sweep_points", 1}, {"sweep_hops", 256}}},
        {"cache_hints", {{"stream_over_l2", 1.0}, {"strided_bytes", 16 * kMiB}, {"strides", {256}}}},
        {"carveout", {{"carveouts", {0, 100}}, {"working_sets_kib", {16, 48, 320}}, {"reads_per_sm", 8 << 20}}},
    };
    const auto it = table.find(name);
    return it == table.end() ? json::object() : it->second;
}

}  // namespace

const std::vector<Experiment> &registry() {
    static const std::vector<Experiment> all = [] {
        std::vector<Experiment> v;
        add_stream_experiments(v);
        add_global_copy_experiments(v);
        add_l2_experiments(v);
        add_bank_experiments(v);
        add_matmul_experiments(v);
        add_transpose_experiments(v);
        add_shared_alloc_experiments(v);
        add_async_copy_experiments(v);
        add_tma_copy_experiments(v);
        add_cluster_shared_experiments(v);
        add_constant_experiments(v);
        add_texture_experiments(v);
        add_transfer_experiments(v);
        add_zero_copy_experiments(v);
        add_copy_overlap_experiments(v);
        add_peer_experiments(v);
        add_latency_experiments(v);
        add_memory_spaces_experiments(v);
        add_local_memory_experiments(v);
        add_register_pressure_experiments(v);
        add_alignment_experiments(v);
        add_pitch_experiments(v);
        add_managed_memory_experiments(v);
        add_allocation_experiments(v);
        add_compressible_experiments(v);
        add_l2_partitions_experiments(v);
        add_cache_hints_experiments(v);
        add_carveout_experiments(v);
        for (Experiment &e : v) e.quick = quick_parameters(e.name);
        return v;
    }();
    return all;
}

}  // namespace gmlab
