#include "shared_kernels/kernel_catalogue.cuh"

namespace gmlab::kernels {

namespace {

// Built during static initialisation, before main; read-only afterwards.
std::vector<KernelEntry> &entries() {
    static std::vector<KernelEntry> v;
    return v;
}

}  // namespace

int register_kernel(const std::string &experiment, const std::string &name, const void *func) {
    entries().push_back({experiment, name, func});
    return static_cast<int>(entries().size()) - 1;
}

const std::vector<KernelEntry> &kernel_catalogue() { return entries(); }

}  // namespace gmlab::kernels
