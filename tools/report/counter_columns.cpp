#include "counter_columns.hpp"

#include <cmath>
#include <limits>
#include <map>

namespace gmreport {

namespace {

const std::map<std::string, std::string> &labels() {
    static const std::map<std::string, std::string> l = {
        {"sectors_per_request_ld", "ctr sectors/req ld"},
        {"sectors_per_request_st", "ctr sectors/req st"},
        {"dram__bytes_read.sum", "ctr DRAM read"},
        {"dram__bytes_write.sum", "ctr DRAM write"},
        {"lts__t_sector_hit_rate.pct", "ctr L2 hit %"},
        {"l2_hit_share", "ctr L2 hit share"},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "ctr shared ld conflicts"},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "ctr shared st conflicts"},
        {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "ctr shared ld wavefronts"},
        {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "ctr shared st wavefronts"},
        {"wavefronts_per_request_ld", "ctr wavefronts/req ld"},
        {"wavefronts_per_request_st", "ctr wavefronts/req st"},
        {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "ctr local ld sectors"},
        {"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", "ctr local st sectors"},
        {"local_sectors_per_request_ld", "ctr local sectors/req ld"},
        {"local_sectors_per_request_st", "ctr local sectors/req st"},
        {"global_loads_per_record", "ctr loads/record"},
        {"sm__warps_active.avg.pct_of_peak_sustained_active", "ctr occupancy %"}};
    return l;
}

}  // namespace

// Named ones, and every derived figure (their names have no "__", which every
// Nsight Compute metric name has).
bool shown_counter(const std::string &key) { return labels().count(key) || key.find("__") == std::string::npos; }

std::string counter_label(const std::string &key) {
    auto it = labels().find(key);
    return it != labels().end() ? it->second : "ctr " + key;
}

namespace {

bool ends_with(const std::string &s, const std::string &end) {
    return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

}  // namespace

bool counter_in_range(const std::string &key, double value) {
    const bool share = ends_with(key, "_share");
    const bool percent = ends_with(key, ".pct") || key.find(".pct_of_") != std::string::npos || ends_with(key, "_pct");
    const double top = share ? 1.0 : percent ? 100.0 : std::numeric_limits<double>::infinity();
    return std::isfinite(value) && value >= 0 && value <= top;
}

}  // namespace gmreport
