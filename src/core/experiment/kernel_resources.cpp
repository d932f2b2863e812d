#include "core/experiment/kernel_resources.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/registry.hpp"
#include "shared_kernels/kernel_catalogue.cuh"

namespace gmlab {

using nlohmann::json;

namespace {

void check_name(const std::string &experiment) {
    if (experiment.empty() || experiment == kSupportKernels) return;
    find_experiment(experiment);  // throws listing the known names
}

bool selected(const kernels::KernelEntry &k, const std::string &experiment) {
    return experiment.empty() || k.experiment == experiment;
}

// The catalogue in the standard suite's order of the experiments that run
// the kernels (the support kernels first), each experiment's kernels in the
// order its files register them: the listing does not depend on the order in
// which the build links the families' files.
std::vector<const kernels::KernelEntry *> in_suite_order() {
    std::map<std::string, std::size_t> rank;
    const std::vector<Experiment> &all = registry();
    for (std::size_t i = 0; i < all.size(); ++i) rank.emplace(all[i].name, i + 1);
    std::vector<const kernels::KernelEntry *> list;
    for (const auto &k : kernels::kernel_catalogue()) list.push_back(&k);
    auto rank_of = [&](const kernels::KernelEntry *k) {
        const auto it = rank.find(k->experiment);
        return it == rank.end() ? std::size_t{0} : it->second;
    };
    std::stable_sort(list.begin(), list.end(), [&](auto *a, auto *b) { return rank_of(a) < rank_of(b); });
    return list;
}

}  // namespace

json kernel_names(const std::string &experiment) {
    check_name(experiment);
    json names = json::array();
    for (const kernels::KernelEntry *k : in_suite_order())
        if (selected(*k, experiment)) names.push_back(k->name);
    return names;
}

json kernel_resources(ContextState &ctx, const std::string &experiment) {
    check_name(experiment);
    ctx.activate();
    json list = json::array();
    for (const kernels::KernelEntry *entry : in_suite_order()) {
        const kernels::KernelEntry &k = *entry;
        if (!selected(k, experiment)) continue;
        cudaFuncAttributes a{};
        GM_CUDA(cudaFuncGetAttributes(&a, k.func));
        list.push_back({{"name", k.name},
                        {"experiment", k.experiment},
                        {"registers", a.numRegs},
                        {"shared_static_bytes", a.sharedSizeBytes},
                        {"local_bytes", a.localSizeBytes},
                        {"constant_bytes", a.constSizeBytes},
                        {"max_threads_per_block", a.maxThreadsPerBlock},
                        {"ptx_version", a.ptxVersion},
                        {"binary_version", a.binaryVersion}});
    }
    const DeviceInfo &d = ctx.info();
    return {{"experiment", experiment.empty() ? json(nullptr) : json(experiment)},
            {"device", d.name},
            {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
            {"kernels", list}};
}

}  // namespace gmlab
