// What gmlab check measures on one GPU, in a process of its own (the parent
// starts one per GPU, all at once): NVML health before and after, DRAM
// bandwidth (stream copy and triad, and a copy held over a quarter second,
// timed on the host, which falls when another process shares the GPU), L2
// bandwidth (stream on arrays that fit
// in L2, without flushing it), L2 hit latency (memory_spaces), pinned
// host<->device bandwidth (transfer; under a lock shared by the node's
// children, so that each link is measured alone and a narrow one shows), and
// a data-integrity pass. Everything goes through the C API with small
// parameters; each experiment verifies its own output as usual.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmcli::check {

// The GPU's block of the figures document (docs/check.md). Failures are kept
// in its "errors", never thrown. `host_lock`: a file the node's children
// flock around the host-link phase ("" : no lock).
nlohmann::json measure_gpu(int ordinal, const std::string &host_lock);

// The peer pairs of `ordinals` (two or more), copy-engine bandwidth per
// ordered pair, each with its link's theoretical figure from the GPUs' health
// blocks (`gpus`: the figures document's "gpus"). {"pairs": [...]} or {"error"}.
nlohmann::json measure_peer(const std::vector<int> &ordinals, const nlohmann::json &gpus);

// A pair's theoretical figure per direction, GB/s: NVLink (links between
// them, or through a switch the fewer active links of the two) x the link's
// rate; else the slower of the two host links (PCIe through the host). 0 when
// neither is known.
double pair_theoretical_gbs(const nlohmann::json &a, const nlohmann::json &b);

}  // namespace gmcli::check
