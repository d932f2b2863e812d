// What an upload's figures may be, judged from what the server knows rather
// than from what the uploader claims: a known model's device facts come from
// the server's table (known_models.hpp) and the device block must agree with
// them; an unknown model's facts are held to physical ranges and to each
// other (its DRAM bandwidth is its bus times its memory clock). The bounds on
// bandwidths, latencies and summary figures are derived from those facts.
// Pure functions: each returns "" when the figure is plausible, or the
// message of the refusal, which names the field.
#pragma once

#include <cmath>
#include <string>

#include "upload/quantities.hpp"

namespace gmserver {

// The device block as the upload gives it; NaN where a fact is absent.
struct ClaimedDevice {
    std::string name, compute_capability;
    double global_memory_bytes = NAN, bus_width_bits = NAN;
    double multiprocessors = NAN, l2_bytes = NAN, sm_clock_mhz = NAN, memory_clock_mhz = NAN;
    double theoretical_gbs = NAN, host_link_gbs = NAN;
};

// The facts the bounds are derived from.
struct DeviceFacts {
    bool known_model = false;   // taken from the table of known models
    double theoretical_gbs = 0; // DRAM bandwidth
    double l2_bytes = 0;        // 0: not known, so that every working set is judged as DRAM
    double multiprocessors = 0, sm_clock_mhz = 0;
    double host_link_gbs = 0;   // one direction; 0: not known
};

// The physical ranges an unknown model's facts must lie in (generous: about
// twice the largest GPUs of 2025), which also bound its figures when its
// device block leaves a fact out.
constexpr double kMaxMultiprocessors = 512, kMaxSmClockMhz = 4000, kMaxMemoryClockMhz = 40000;
constexpr double kMaxTheoreticalGbs = 20000, kMaxL2Bytes = 1024.0 * 1024 * 1024, kMaxHostLinkGbs = 1000;

// Judges the device block and, when it is plausible, fills *facts.
std::string judge_device(const ClaimedDevice &claimed, DeviceFacts *facts);

// The same model's facts as an earlier upload of it gave them: the chip's
// (multiprocessors, L2, DRAM bandwidth) must be the same.
std::string judge_against_earlier(const DeviceFacts &now, const DeviceFacts &earlier);

// The largest bandwidth, in GB/s, a figure of the quantity can have: DRAM by
// the bus (with margin; cache-resident working sets more), L1/shared and L2 by
// the multiprocessors' load paths, a link by the link.
double quantity_bound(Quantity q, const DeviceFacts &dev, double reference_gbs, double bytes);

// A latency in the unit its series plots: at least one clock cycle, and not
// absurdly long (above a tenth of a second, no single access).
std::string judge_latency(double value, const std::string &unit, const DeviceFacts &dev);

// The largest figures of a result's points, which its summary summarises.
struct ResultTops {
    double gbs = 0;     // any bandwidth (GB/s) of any point
    double cycles = 0;  // any plotted figure in cycles
};
// A summary figure, checked against the points: a bandwidth ("..._gbs") is not
// above the largest of the points (nor, for a theoretical one, above what the
// device can carry), a time in cycles ("..._cycles") not above the largest.
std::string judge_summary_figure(const std::string &key, double value, const ResultTops &tops, const DeviceFacts &dev);

}  // namespace gmserver
