#include "counter_columns.hpp"

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

}  // namespace gmreport
