#include "core/experiment/quantity.hpp"

namespace gmlab {
namespace {

struct Entry {
    Quantity quantity;
    const char *name, *label;
};

constexpr Entry kQuantities[] = {
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

const Entry &entry(Quantity q) {
    for (const Entry &e : kQuantities)
        if (e.quantity == q) return e;
    return kQuantities[0];
}

}  // namespace

const char *quantity_name(Quantity q) { return entry(q).name; }
const char *quantity_label(Quantity q) { return entry(q).label; }

bool quantity_from_name(const std::string &name, Quantity *out) {
    for (const Entry &e : kQuantities)
        if (e.quantity != Quantity::Undeclared && name == e.name) {
            *out = e.quantity;
            return true;
        }
    return false;
}

bool is_bandwidth(Quantity q) {
    return q == Quantity::DramBandwidth || q == Quantity::L2Bandwidth || q == Quantity::L1Bandwidth ||
           q == Quantity::LinkBandwidth;
}

}  // namespace gmlab
