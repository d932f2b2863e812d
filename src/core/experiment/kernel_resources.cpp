#include "core/experiment/kernel_resources.hpp"

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

}  // namespace

json kernel_names(const std::string &experiment) {
    check_name(experiment);
    json names = json::array();
    for (const auto &k : kernels::kernel_catalogue())
        if (selected(k, experiment)) names.push_back(k.name);
    return names;
}

json kernel_resources(ContextState &ctx, const std::string &experiment) {
    check_name(experiment);
    ctx.activate();
    json list = json::array();
    for (const auto &k : kernels::kernel_catalogue()) {
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
