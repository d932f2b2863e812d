// Which GPUs a run measures: --device N, --devices all|LIST, or, when neither
// is given, the one a cluster launcher meant for this task. Host logic only:
// the caller supplies the number of visible devices and the environment.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace gmcli {

// Reads an environment variable: nullptr when it is not set.
using EnvLookup = std::function<const char *(const char *)>;

struct DeviceSelection {
    std::vector<int> ordinals;  // in the order they are measured
    std::string why;            // how they were chosen, for the log ("" for the plain default)
    std::string error;          // set when the selection is impossible; ordinals is empty then
    bool no_such_device = false;  // the error names a GPU that does not exist (not a syntax error)
};

// `spec`: "" (not given: the launcher's choice, else device 0), "all", or a
// comma-separated list of ordinals ("0,2"; duplicates are refused).
// `visible`: how many devices this process sees (after CUDA_VISIBLE_DEVICES).
//
// Launchers: with more than one visible device and no spec, the task's local
// rank picks its GPU: OMPI_COMM_WORLD_LOCAL_RANK (Open MPI's mpirun), then
// SLURM_LOCALID (srun). A local rank past the last visible device is an error
// (two tasks would measure one GPU at the same time). With one visible device
// (srun --gpus-per-task=1 binds one through CUDA_VISIBLE_DEVICES) it is device 0.
DeviceSelection select_devices(const std::string &spec, int visible, const EnvLookup &env);

// `pattern` with every "{device}" replaced by the ordinal.
std::string expand_device_placeholder(const std::string &pattern, int ordinal);
bool has_device_placeholder(const std::string &pattern);

}  // namespace gmcli
