// What experiments declare: counter sets, derived figures, and the check of
// each declared figure against the model's prediction.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/counters/counters.hpp"

namespace gmlab {

CounterSet &CounterSet::operator+=(const CounterSet &o) {
    for (const auto &m : o.metrics)
        if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) metrics.push_back(m);
    derived.insert(derived.end(), o.derived.begin(), o.derived.end());
    agreements.insert(agreements.end(), o.agreements.begin(), o.agreements.end());
    return *this;
}

CounterSet CounterSet::agree(const std::string &counter, const std::string &predicted, double tolerance) const {
    CounterSet s = *this;
    s.agreements.push_back({counter, predicted, tolerance});
    return s;
}

namespace counter_sets {

CounterSet global_sectors() {
    CounterSet s;
    s.metrics = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                 "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"};
    s.derived = {{"sectors_per_request_ld", s.metrics[0], s.metrics[1]},
                 {"sectors_per_request_st", s.metrics[2], s.metrics[3]}};
    return s;
}

CounterSet dram() {
    CounterSet s;
    // The L2 hit rate as hits / (hits + misses) of the same lookups. CUPTI's
    // own ratio, lts__t_sector_hit_rate.pct, read here before, came out above
    // 100 % over ranges with few L2 lookups (130 % and 167 % for latency's
    // chases at 4 KiB and 161 MiB on an H200, 257.5 % in another run).
    s.metrics = {"dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sectors_lookup_hit.sum",
                 "lts__t_sectors_lookup_miss.sum"};
    DerivedCounter hit_share;
    hit_share.name = "l2_hit_share";
    hit_share.numerator = s.metrics[2];
    hit_share.rest = s.metrics[3];
    s.derived = {hit_share};
    return s;
}

CounterSet shared_banks() {
    CounterSet s;
    s.metrics = {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                 "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                 "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                 "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                 "smsp__inst_executed_op_shared_ld.sum",
                 "smsp__inst_executed_op_shared_st.sum"};
    // Wavefronts per warp-level shared load or store instruction: the guide's
    // n-way conflict is n wavefronts for one request.
    s.derived = {{"wavefronts_per_request_ld", s.metrics[2], s.metrics[4]},
                 {"wavefronts_per_request_st", s.metrics[3], s.metrics[5]}};
    return s;
}

CounterSet local_sectors() {
    CounterSet s;
    s.metrics = {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
                 "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum"};
    s.derived = {{"local_sectors_per_request_ld", s.metrics[0], s.metrics[2]},
                 {"local_sectors_per_request_st", s.metrics[1], s.metrics[3]}};
    return s;
}

CounterSet global_load_instructions() {
    CounterSet s;
    // The hardware counter of warp-level global load instructions; Nsight
    // Compute's smsp__sass_inst_executed_op_global_ld counts the same
    // instructions by patching the code, which the range profiler does not do.
    s.metrics = {"smsp__inst_executed_op_global_ld.sum"};
    return s;
}

CounterSet occupancy() {
    CounterSet s;
    s.metrics = {"sm__warps_active.avg.pct_of_peak_sustained_active"};
    return s;
}

CounterSet l2_fabric() {
    CounterSet s;
    // Where the L2 is split in partitions joined by a fabric (GA100, GH100),
    // a load served by the far partition reaches it over the fabric. Chips
    // without the fabric have no such metric, and the count fails with a reason.
    s.metrics = {"lts__t_sectors_srcunit_ltcfabric.sum", "lts__t_requests_srcunit_ltcfabric.sum"};
    return s;
}

CounterSet l2_read_hits() {
    CounterSet s;
    s.metrics = {"lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"};
    s.derived = {{"l2_read_hit_share", s.metrics[1], s.metrics[0]}};
    return s;
}

CounterSet l1_global_hits() {
    CounterSet s;
    s.metrics = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
                 "l1tex__t_sector_hit_rate.pct"};
    s.derived = {{"l1_global_hit_share", s.metrics[1], s.metrics[0]}};
    return s;
}

}  // namespace counter_sets

const char *counter_mode_name(CounterMode m) {
    switch (m) {
    case CounterMode::Off: return "off";
    case CounterMode::On: return "on";
    case CounterMode::Auto: return "auto";
    }
    return "auto";
}

std::string counters_off_reason() { return "counters are switched off (setting counters = off, gmlab run --counters off)"; }

namespace {

bool ends_with(const std::string &s, const std::string &end) {
    return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

std::string number_text(double v) {
    std::ostringstream o;
    o << v;
    return o.str();
}

// Names `figure` in errors once: its first value outside the range is the one kept.
void note_once(std::vector<std::string> &errors, const std::string &figure, const std::string &why) {
    const std::string head = figure + " left out";
    for (const auto &e : errors)
        if (e.compare(0, head.size(), head) == 0) return;
    errors.push_back(head + ": " + why);
}

}  // namespace

bool counter_in_range(const std::string &name, double value, std::string *why) {
    const bool share = ends_with(name, "_share");
    const bool percent = ends_with(name, ".pct") || name.find(".pct_of_") != std::string::npos || ends_with(name, "_pct");
    const double top = share ? 1.0 : percent ? 100.0 : std::numeric_limits<double>::infinity();
    if (std::isfinite(value) && value >= 0 && value <= top) return true;
    if (why) {
        const std::string range = share ? "a share lies in 0..1" : percent ? "a percentage lies in 0..100" : "a count is never negative";
        *why = range + ", got " + number_text(value) + (std::isfinite(value) ? "" : " (not a number)");
    }
    return false;
}

std::vector<AgreementCheck> evaluate_counter_set(const CounterSet &set, std::map<std::string, double> &values,
                                                 const std::map<std::string, double> &predicted,
                                                 std::vector<std::string> *errors) {
    for (const auto &d : set.derived) {
        auto n = values.find(d.numerator);
        if (n == values.end()) continue;
        if (!d.rest.empty()) {
            auto r = values.find(d.rest);
            if (r != values.end() && n->second + r->second > 0) values[d.name] = n->second / (n->second + r->second);
            continue;
        }
        if (d.denominator.empty()) {
            if (d.divisor > 0) values[d.name] = n->second / d.divisor;
            continue;
        }
        auto q = values.find(d.denominator);
        if (q != values.end() && q->second > 0) values[d.name] = n->second / q->second;
    }
    // A figure outside its range is no measurement to show or compare: it is
    // left out of the point, and the result says why.
    for (auto it = values.begin(); it != values.end();) {
        std::string why;
        if (counter_in_range(it->first, it->second, &why)) {
            ++it;
            continue;
        }
        if (errors) note_once(*errors, it->first, why);
        it = values.erase(it);
    }
    std::vector<AgreementCheck> checks;
    for (const auto &a : set.agreements) {
        auto m = values.find(a.counter);
        auto p = predicted.find(a.predicted);
        if (m == values.end() || p == predicted.end()) continue;
        AgreementCheck c;
        c.counter = a.counter;
        c.predicted = a.predicted;
        c.tolerance = a.tolerance;
        c.measured = m->second;
        c.model = p->second;
        // "Exactly" allows for the rounding of the counters' evaluation in doubles.
        const double allowed = std::max(a.tolerance, 1e-9) * std::fabs(c.model) + 1e-12;
        c.agrees = std::fabs(c.measured - c.model) <= allowed;
        checks.push_back(c);
    }
    return checks;
}

}  // namespace gmlab
