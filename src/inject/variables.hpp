// The variables through which gmlab explain's front end tells the injection
// library what to do (injection.cpp describes each): one name, written once,
// for both sides.
#pragma once

namespace gmexplain::vars {

constexpr const char *kOut = "GMLAB_EXPLAIN_OUT";
constexpr const char *kPass = "GMLAB_EXPLAIN_PASS";
constexpr const char *kKernelRegex = "GMLAB_EXPLAIN_KERNEL_REGEX";
constexpr const char *kMaxKernels = "GMLAB_EXPLAIN_MAX_KERNELS";
constexpr const char *kCountTop = "GMLAB_EXPLAIN_COUNT_TOP";
constexpr const char *kKernels = "GMLAB_EXPLAIN_KERNELS";
constexpr const char *kMetrics = "GMLAB_EXPLAIN_METRICS";
constexpr const char *kLaunchSkip = "GMLAB_EXPLAIN_LAUNCH_SKIP";
constexpr const char *kLaunchCount = "GMLAB_EXPLAIN_LAUNCH_COUNT";
constexpr const char *kReplay = "GMLAB_EXPLAIN_REPLAY";
constexpr const char *kGroup = "GMLAB_EXPLAIN_GROUP";
constexpr const char *kCallSites = "GMLAB_EXPLAIN_CALLSITES";
constexpr const char *kGraphs = "GMLAB_EXPLAIN_GRAPHS";  // "0": CUDA graph launches are not counted (the user's)
constexpr const char *kInjection = "GMLAB_EXPLAIN_INJECTION";  // the front end's: where the library is
// Read by the Python start-up hook (python/sitecustomize.py), which cannot include this.
constexpr const char *kTorchOps = "GMLAB_EXPLAIN_TORCH_OPS";

}  // namespace gmexplain::vars
