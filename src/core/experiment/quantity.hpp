// What a series measures. Every series declares one, and the declaration
// decides which figures the core derives for its points: a bandwidth (bytes /
// median time) only where bytes really move through a memory or a link, the
// fractions of the theoretical DRAM bandwidth and of cudaMemcpy only where
// they move through DRAM. A latency, a call's cost, a count or a ratio carries
// its own figure and nothing derived from bytes (gmlab.result/1.3,
// docs/result-schema.md).
#pragma once

#include <string>

namespace gmlab {

enum class Quantity {
    Undeclared,     // a series that forgot to say: refused when the result is written
    DramBandwidth,  // device memory (DRAM) read and written, GB/s
    L2Bandwidth,    // global accesses served by L2 (a working set that fits it), GB/s
    L1Bandwidth,    // L1 / shared memory (and distributed shared memory), GB/s
    LinkBandwidth,  // a link: PCIe, NVLink-C2C or NVLink between GPUs, GB/s
    Latency,        // one dependent access, in cycles or time
    Time,           // the cost of one call or operation
    Count,          // events counted (faults, bytes migrated, ...)
    Ratio,          // a dimensionless ratio (speed-up, error, share)
    Rate,           // operations per second that are not bytes
};

// The name written into documents ("dram_bandwidth", ...) and a label for
// axes and tables ("DRAM bandwidth").
const char *quantity_name(Quantity q);
const char *quantity_label(Quantity q);
// Parses quantity_name's text; false for an unknown name.
bool quantity_from_name(const std::string &name, Quantity *out);

// True for the four bandwidths: their points carry bytes and bandwidth_gbs.
bool is_bandwidth(Quantity q);

}  // namespace gmlab
