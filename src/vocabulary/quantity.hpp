// What a series measures, and the names documents give it: one table for the
// library that declares it (gmlab.result/1.3, docs/result-schema.md) and the
// server that judges it. Header-only, no CUDA, nothing else of the tree.
#pragma once

#include <string_view>

namespace gmvocab {

enum class Quantity {
    Undeclared,     // a series that forgot to say: refused when the result is written, never parsed
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

struct QuantityName {
    Quantity quantity;
    const char *name;   // written into documents: "dram_bandwidth"
    const char *label;  // axes and tables: "DRAM bandwidth"
};

inline constexpr QuantityName kQuantityNames[] = {
    {Quantity::Undeclared, "undeclared", "undeclared"},
    {Quantity::DramBandwidth, "dram_bandwidth", "DRAM bandwidth"},
    {Quantity::L2Bandwidth, "l2_bandwidth", "L2 bandwidth"},
    {Quantity::L1Bandwidth, "l1_shared_bandwidth", "L1 / shared-memory bandwidth"},
    {Quantity::LinkBandwidth, "link_bandwidth", "link bandwidth"},
    {Quantity::Latency, "latency", "latency"},
    {Quantity::Time, "time_per_call", "time per call"},
    {Quantity::Count, "count", "count"},
    {Quantity::Ratio, "ratio", "ratio"},
    {Quantity::Rate, "rate", "rate"},
};

inline const QuantityName &quantity_entry(Quantity q) {
    for (const QuantityName &e : kQuantityNames)
        if (e.quantity == q) return e;
    return kQuantityNames[0];
}

inline const char *quantity_name(Quantity q) { return quantity_entry(q).name; }
inline const char *quantity_label(Quantity q) { return quantity_entry(q).label; }

// quantity_name's text back; false for any other text, "undeclared" included.
inline bool parse_quantity(std::string_view name, Quantity *out) {
    for (const QuantityName &e : kQuantityNames)
        if (e.quantity != Quantity::Undeclared && name == e.name) {
            *out = e.quantity;
            return true;
        }
    return false;
}

// The four bandwidths: their points carry bytes and bandwidth_gbs.
inline bool is_bandwidth(Quantity q) {
    return q == Quantity::DramBandwidth || q == Quantity::L2Bandwidth || q == Quantity::L1Bandwidth ||
           q == Quantity::LinkBandwidth;
}

}  // namespace gmvocab
