#include "upload/quantities.hpp"

namespace gmserver {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// The experiments whose reference (fraction_of_theoretical) was the host link.
bool host_link_experiment(std::string_view e) {
    return e == "transfer" || e == "transfer_batching" || e == "zero_copy" || e == "copy_overlap" || e == "managed_memory";
}

}  // namespace

// The series of the 1.0-1.2 releases, by what they plotted and measured
// (src/experiments/*: the same choices the 1.3 library declares).
Quantity legacy_quantity(std::string_view experiment, std::string_view series, std::string_view y_field) {
    if (starts_with(y_field, "latency_")) return Quantity::Latency;
    if (experiment == "allocation" || y_field == "us_per_call" || y_field == "us_per_round_trip" ||
        y_field == "ns_per_warp_access" || y_field == "cycles_per_element")
        return Quantity::Time;
    if (y_field == "giga_updates_per_s" || y_field == "array_access_gbs") return Quantity::Rate;
    if (y_field == "max_abs_error") return Quantity::Ratio;
    if (y_field == "read_gbs") return Quantity::L1Bandwidth;
    if (experiment == "cluster_shared") return contains(series, "global memory") ? Quantity::L2Bandwidth : Quantity::L1Bandwidth;
    if (experiment == "l2_persist" || (experiment == "cache_hints" && y_field == "median_ms")) return Quantity::L2Bandwidth;
    if (experiment == "managed_memory") return starts_with(series, "read-mostly") ? Quantity::DramBandwidth : Quantity::LinkBandwidth;
    if (host_link_experiment(experiment) || experiment == "peer") return Quantity::LinkBandwidth;
    return Quantity::DramBandwidth;
}

DerivedFigures derived_figures(Quantity q) {
    DerivedFigures d;
    d.bandwidth = is_bandwidth(q);
    d.fraction_of_theoretical = q == Quantity::DramBandwidth || q == Quantity::LinkBandwidth;
    d.fraction_of_memcpy = q == Quantity::DramBandwidth;
    return d;
}

DerivedFigures legacy_derived_figures(Quantity q, std::string_view experiment) {
    DerivedFigures d = derived_figures(q);
    const bool link_reference = host_link_experiment(experiment);
    if (q == Quantity::DramBandwidth && link_reference) d.fraction_of_theoretical = false;
    if (q == Quantity::LinkBandwidth && !link_reference) d.fraction_of_theoretical = false;  // peer: it was DRAM's
    return d;
}

}  // namespace gmserver
