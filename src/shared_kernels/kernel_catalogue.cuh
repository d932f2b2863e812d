// The kernel catalogue: every .cu file registers the kernels it launches, with
// the experiment that runs them and a readable name, so that their resources
// (registers, shared, local and constant bytes) can be read from the loaded
// module at run time (gm_kernel_resources_json, gmlab describe).
#pragma once

#include <string>
#include <vector>

namespace gmlab::kernels {

struct KernelEntry {
    std::string experiment;  // registry name of the experiment that runs it, or "support"
    std::string name;        // readable: the kernel and its template arguments
    const void *func;        // the host stub, as cudaFuncGetAttributes takes it
};

// Adds one kernel; returns its index (so that registration can initialise a static).
int register_kernel(const std::string &experiment, const std::string &name, const void *func);

// Every registered kernel, in registration order.
const std::vector<KernelEntry> &kernel_catalogue();

}  // namespace gmlab::kernels

#define GM_KERNEL_CAT2(a, b) a##b
#define GM_KERNEL_CAT(a, b) GM_KERNEL_CAT2(a, b)
// GM_KERNEL("experiment", "readable name", kernel) at namespace scope, after the
// kernel's definition; the kernel may be a template instance in parentheses.
#define GM_KERNEL(experiment, name, ...)                                                                        \
    [[maybe_unused]] static const int GM_KERNEL_CAT(gm_kernel_entry_, __COUNTER__) =                              \
        ::gmlab::kernels::register_kernel(experiment, name, reinterpret_cast<const void *>(__VA_ARGS__))
