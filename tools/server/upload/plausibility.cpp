#include "upload/plausibility.hpp"

#include <algorithm>
#include <cstdio>

#include "upload/known_models.hpp"

namespace gmserver {
namespace {

bool present(double v) { return !std::isnan(v); }

std::string num(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}

bool within(double v, double expected, double share) { return std::fabs(v - expected) <= share * expected; }

// A known model's device block against the table: what defines the chip
// (compute capability, multiprocessors, L2, bus width) exactly; memory and
// clocks within a margin (boards differ a little; factory-overclocked ones
// run their SM clock up to 30 % faster); the DRAM bandwidth as the table's
// bus and memory clock give it. A fact the block leaves out is the table's.
std::string judge_known(const KnownModel &m, const ClaimedDevice &c, DeviceFacts *f) {
    const std::string of = " is not the " + std::string(m.name) + "'s ";
    const std::string why = " (the server's table of known models)";
    if (c.compute_capability != m.compute_capability)
        return "device.compute_capability: " + c.compute_capability + of + std::string(m.compute_capability) + why;
    if (present(c.multiprocessors) && c.multiprocessors != m.multiprocessors)
        return "device.multiprocessors: " + num(c.multiprocessors) + of + std::to_string(m.multiprocessors) + why;
    if (present(c.l2_bytes) && c.l2_bytes != m.l2_bytes)
        return "device.l2_cache_bytes: " + num(c.l2_bytes) + of + num(m.l2_bytes) + why;
    if (c.bus_width_bits != m.bus_width_bits)
        return "device.memory_bus_width_bits: " + num(c.bus_width_bits) + of + std::to_string(m.bus_width_bits) + why;
    const double gib = 1024.0 * 1024 * 1024;
    if (!within(c.global_memory_bytes / gib, m.memory_gib, 0.1))
        return "device.global_memory_bytes: " + num(c.global_memory_bytes) + " is not within 10 % of the " + std::string(m.name) +
               "'s " + num(m.memory_gib) + " GiB" + why;
    if (present(c.memory_clock_mhz) && !within(c.memory_clock_mhz, m.memory_clock_mhz, 0.1))
        return "device.memory_clock_mhz: " + num(c.memory_clock_mhz) + " MHz is not within 10 % of the " + std::string(m.name) +
               "'s " + num(m.memory_clock_mhz) + " MHz" + why;
    if (present(c.sm_clock_mhz) && (c.sm_clock_mhz < 0.5 * m.sm_clock_mhz || c.sm_clock_mhz > 1.3 * m.sm_clock_mhz))
        return "device.sm_clock_mhz: " + num(c.sm_clock_mhz) + " MHz is not within 0.5..1.3 x the " + std::string(m.name) +
               "'s " + num(m.sm_clock_mhz) + " MHz" + why;
    if (!within(c.theoretical_gbs, m.theoretical_gbs(), 0.1))
        return "device.theoretical_bandwidth_gbs: " + num(c.theoretical_gbs) + " GB/s is not within 10 % of the " +
               std::string(m.name) + "'s " + num(m.theoretical_gbs()) + " GB/s" + why;
    f->known_model = true;
    f->theoretical_gbs = m.theoretical_gbs();
    f->l2_bytes = m.l2_bytes;
    f->multiprocessors = m.multiprocessors;
    f->sm_clock_mhz = present(c.sm_clock_mhz) ? std::max(c.sm_clock_mhz, m.sm_clock_mhz) : m.sm_clock_mhz;
    return "";
}

std::string range(const char *field, double v, double lo, double hi) {
    if (present(v) && (v < lo || v > hi))
        return std::string("device.") + field + ": " + num(v) + " is outside " + num(lo) + ".." + num(hi) +
               " (no GPU has such a figure)";
    return "";
}

// An unknown model's device block: each fact within what a GPU can have, and
// the DRAM bandwidth what its bus and memory clock carry. A fact left out
// bounds the figures as loosely as the range allows, except L2: without it,
// every working set is judged as DRAM (a run of the library always gives it).
std::string judge_unknown(const ClaimedDevice &c, DeviceFacts *f) {
    for (const std::string &problem :
         {range("multiprocessors", c.multiprocessors, 1, kMaxMultiprocessors), range("l2_cache_bytes", c.l2_bytes, 0, kMaxL2Bytes),
          range("sm_clock_mhz", c.sm_clock_mhz, 1, kMaxSmClockMhz), range("memory_clock_mhz", c.memory_clock_mhz, 1, kMaxMemoryClockMhz),
          range("theoretical_bandwidth_gbs", c.theoretical_gbs, 0, kMaxTheoreticalGbs)})
        if (!problem.empty()) return problem;
    if (present(c.memory_clock_mhz) && c.bus_width_bits > 0 && c.theoretical_gbs > 0) {
        const double carried = 2.0 * c.memory_clock_mhz * 1e6 * c.bus_width_bits / 8 / 1e9;
        if (!within(c.theoretical_gbs, carried, 0.1))
            return "device.theoretical_bandwidth_gbs: " + num(c.theoretical_gbs) +
                   " GB/s is not what the bus carries (2 x memory_clock_mhz x memory_bus_width_bits / 8 = " + num(carried) +
                   " GB/s)";
    }
    f->known_model = false;
    f->theoretical_gbs = c.theoretical_gbs > 0 ? c.theoretical_gbs : kMaxTheoreticalGbs;
    f->l2_bytes = present(c.l2_bytes) ? c.l2_bytes : 0;
    f->multiprocessors = present(c.multiprocessors) ? c.multiprocessors : kMaxMultiprocessors;
    f->sm_clock_mhz = present(c.sm_clock_mhz) && c.sm_clock_mhz > 0 ? c.sm_clock_mhz : kMaxSmClockMhz;
    return "";
}

// Bandwidth above this is not a measurement. Data that cannot sit in L2
// (bytes moved per launch at least twice the L2 size) comes from DRAM, so 1.5x
// the theoretical DRAM bandwidth is generous; cache-resident working sets
// (l2_persist, small arrays, shared-memory kernels) legitimately exceed DRAM
// bandwidth, so they get 10x. Where L2 is not known, everything is DRAM.
double bandwidth_bound(const DeviceFacts &dev, double bytes) {
    const bool dram = dev.l2_bytes <= 0 || bytes >= 2 * dev.l2_bytes;
    return (dram ? 1.5 : 10.0) * dev.theoretical_gbs + 50.0;
}

// L1, shared memory and L2 deliver at most 128 bytes per clock to each
// multiprocessor, so nothing on chip outruns multiprocessors x clock x 128 B;
// half as much again covers clocks above the one the facts name.
double on_chip_bound(const DeviceFacts &dev) { return 1.5 * dev.multiprocessors * dev.sm_clock_mhz * 1e6 * 128 / 1e9; }

// A link against the link: the result's reference (the host link, both ways
// where its points count both; itself at most twice the fastest link) or
// twice the device block's host link; where neither is known, a link is no
// faster than the device's own memory.
double link_bound(const DeviceFacts &dev, double reference_gbs, double bytes) {
    const double known = std::max(std::min(reference_gbs, 2 * kMaxHostLinkGbs), 2 * dev.host_link_gbs);
    return known > 0 ? 1.5 * known + 1.0 : bandwidth_bound(dev, bytes);
}

// One clock cycle, and a tenth of a second, in a latency's unit; false for a
// unit that is not a time.
bool latency_range(const std::string &unit, double clock_mhz, double *lo, double *hi) {
    const double cycle_ns = 1000.0 / clock_mhz;
    if (unit == "cycles") *lo = 1, *hi = 1e8;
    else if (unit == "ns") *lo = cycle_ns, *hi = 1e8;
    else if (unit == "us") *lo = cycle_ns / 1e3, *hi = 1e5;
    else if (unit == "ms") *lo = cycle_ns / 1e6, *hi = 1e2;
    else if (unit == "s") *lo = cycle_ns / 1e9, *hi = 0.1;
    else return false;
    return true;
}

bool ends_with(const std::string &s, const std::string &tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::string judge_device(const ClaimedDevice &c, DeviceFacts *facts) {
    DeviceFacts f;
    const KnownModel *known = find_known_model(c.name);
    const std::string problem = known ? judge_known(*known, c, &f) : judge_unknown(c, &f);
    if (!problem.empty()) return problem;
    if (present(c.host_link_gbs)) {
        if (c.host_link_gbs <= 0 || c.host_link_gbs > kMaxHostLinkGbs)
            return "device.host_link.theoretical_gbs: " + num(c.host_link_gbs) + " is outside 0.." + num(kMaxHostLinkGbs) +
                   " GB/s (no host link carries more)";
        f.host_link_gbs = c.host_link_gbs;
    }
    *facts = f;
    return "";
}

std::string judge_against_earlier(const DeviceFacts &now, const DeviceFacts &earlier) {
    const std::string why = " as this model's earlier uploads give it";
    if (now.multiprocessors != earlier.multiprocessors)
        return "device.multiprocessors: " + num(now.multiprocessors) + " is not " + num(earlier.multiprocessors) + why;
    if (now.l2_bytes != earlier.l2_bytes)
        return "device.l2_cache_bytes: " + num(now.l2_bytes) + " is not " + num(earlier.l2_bytes) + why;
    if (!within(now.theoretical_gbs, earlier.theoretical_gbs, 0.1))
        return "device.theoretical_bandwidth_gbs: " + num(now.theoretical_gbs) + " GB/s is not within 10 % of " +
               num(earlier.theoretical_gbs) + " GB/s" + why;
    if (now.sm_clock_mhz > 1.3 * earlier.sm_clock_mhz || now.sm_clock_mhz < 0.5 * earlier.sm_clock_mhz)
        return "device.sm_clock_mhz: " + num(now.sm_clock_mhz) + " MHz is not within 0.5..1.3 x " + num(earlier.sm_clock_mhz) +
               " MHz" + why;
    return "";
}

double quantity_bound(Quantity q, const DeviceFacts &dev, double reference_gbs, double bytes) {
    switch (q) {
    case Quantity::DramBandwidth: return bandwidth_bound(dev, bytes);
    case Quantity::L2Bandwidth:
    case Quantity::L1Bandwidth: return on_chip_bound(dev);
    case Quantity::LinkBandwidth: return link_bound(dev, reference_gbs, bytes);
    default: return 1e15;
    }
}

std::string judge_latency(double value, const std::string &unit, const DeviceFacts &dev) {
    double lo = 0, hi = 0;
    if (!latency_range(unit, std::max(dev.sm_clock_mhz, 1.0), &lo, &hi)) return "";
    if (value < lo * (1 - 1e-9))
        return "a latency of " + num(value) + " " + unit + " is below one clock cycle (" + num(lo) + " " + unit + ")";
    if (value > hi) return "a latency of " + num(value) + " " + unit + " is above " + num(hi) + " " + unit + " (a tenth of a second)";
    return "";
}

std::string judge_summary_figure(const std::string &key, double value, const ResultTops &tops, const DeviceFacts &dev) {
    if (ends_with(key, "_gbs")) {
        double bound = 0;
        std::string of;
        if (key.find("theoretical") != std::string::npos) {
            bound = 1.1 * std::max({dev.theoretical_gbs, 2 * dev.host_link_gbs, tops.gbs}) + 1;
            of = "what the device carries";
        } else if (tops.gbs > 0) {
            bound = 1.1 * tops.gbs;
            of = "the largest bandwidth of the result's points";
        } else {
            bound = std::max({on_chip_bound(dev), bandwidth_bound(dev, 0), 2 * kMaxHostLinkGbs});
            of = "the device's bound";
        }
        if (value > bound)
            return key + ": " + num(value) + " GB/s is above " + of + " (" + num(bound) + " GB/s): a summary summarises its points";
    }
    if (ends_with(key, "_cycles") && key.find("_over_") == std::string::npos && tops.cycles > 0 && value > 1.1 * tops.cycles)
        return key + ": " + num(value) + " cycles is above the largest of the result's points (" + num(tops.cycles) +
               " cycles): a summary summarises its points";
    return "";
}

}  // namespace gmserver
