#include "upload/document_shape.hpp"

#include <cmath>
#include <string_view>

#include <simdjson.h>

namespace gmserver {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

enum class Kind { String, Number, Bool, Object, Strings };

struct Field {
    std::string_view key;
    Kind kind;
};

// The device block as the schema types it (every field optional here: which
// are required is checked where they are read).
constexpr Field kDevice[] = {
    {"name", Kind::String}, {"uuid", Kind::String}, {"pci_bus_id", Kind::String}, {"compute_capability", Kind::String},
    {"driver_version", Kind::String}, {"driver_cuda_version", Kind::String}, {"runtime_version", Kind::String},
    {"ordinal", Kind::Number}, {"multiprocessors", Kind::Number}, {"warp_size", Kind::Number},
    {"sm_clock_mhz", Kind::Number}, {"memory_clock_mhz", Kind::Number}, {"memory_bus_width_bits", Kind::Number},
    {"theoretical_bandwidth_gbs", Kind::Number}, {"global_memory_bytes", Kind::Number}, {"free_memory_bytes", Kind::Number},
    {"l2_cache_bytes", Kind::Number}, {"persisting_l2_max_bytes", Kind::Number},
    {"access_policy_max_window_bytes", Kind::Number}, {"shared_memory_per_block_bytes", Kind::Number},
    {"shared_memory_per_block_optin_bytes", Kind::Number}, {"shared_memory_per_multiprocessor_bytes", Kind::Number},
    {"constant_memory_bytes", Kind::Number}, {"registers_per_block", Kind::Number},
    {"registers_per_multiprocessor", Kind::Number}, {"max_threads_per_block", Kind::Number},
    {"max_threads_per_multiprocessor", Kind::Number}, {"ecc_enabled", Kind::Bool}, {"integrated", Kind::Bool},
    {"host_link", Kind::Object}};
constexpr Field kHostLink[] = {{"type", Kind::String}, {"generation", Kind::Number}, {"width", Kind::Number},
                               {"current_generation", Kind::Number}, {"current_width", Kind::Number}, {"links", Kind::Number},
                               {"theoretical_gbs", Kind::Number}, {"source", Kind::String}, {"reason", Kind::String}};
constexpr Field kLibrary[] = {{"name", Kind::String}, {"version", Kind::String}, {"abi", Kind::Number}};
constexpr Field kResult[] = {{"experiment", Kind::Object}, {"applicable", Kind::Bool}, {"notes", Kind::Strings},
                             {"gpu_state", Kind::Object}, {"counters", Kind::Object}, {"published", Kind::Object},
                             {"started_at", Kind::String}, {"finished_at", Kind::String}, {"summary", Kind::Object}};
constexpr Field kExperiment[] = {{"name", Kind::String}, {"summary", Kind::String}, {"guide_section", Kind::String}};
constexpr Field kGpuState[] = {{"source", Kind::String}, {"before", Kind::Object}, {"after", Kind::Object},
                               {"warnings", Kind::Strings}, {"power_violation_ms", Kind::Number},
                               {"thermal_violation_ms", Kind::Number}};
constexpr Field kGpuReading[] = {{"sm_clock_mhz", Kind::Number}, {"sm_clock_max_mhz", Kind::Number},
                                 {"memory_clock_mhz", Kind::Number}, {"power_w", Kind::Number}, {"temperature_c", Kind::Number},
                                 {"pstate", Kind::Number}, {"clock_event_reasons", Kind::Strings},
                                 {"clock_event_reasons_mask", Kind::Number}, {"power_violation_ns", Kind::Number},
                                 {"thermal_violation_ns", Kind::Number}};
constexpr Field kCounters[] = {{"available", Kind::Bool}, {"mode", Kind::String}, {"reason", Kind::String},
                               {"errors", Kind::Strings}};
constexpr Field kPublished[] = {{"source", Kind::String}, {"figures", Kind::Object}};

const char *kind_text(Kind k) {
    switch (k) {
    case Kind::String: return "a string";
    case Kind::Number: return "a number within +-1e15";
    case Kind::Bool: return "true or false";
    case Kind::Object: return "an object";
    case Kind::Strings: return "an array of strings";
    }
    return "";
}

bool is_kind(element v, Kind k) {
    switch (k) {
    case Kind::String: return v.type() == element_type::STRING;
    case Kind::Bool: return v.type() == element_type::BOOL;
    case Kind::Object: return v.type() == element_type::OBJECT;
    case Kind::Number: {
        double d = 0;
        return v.get_double().get(d) == simdjson::SUCCESS && std::isfinite(d) && std::fabs(d) <= 1e15;
    }
    case Kind::Strings: {
        array a;
        if (v.get(a) != simdjson::SUCCESS) return false;
        for (element e : a)
            if (e.type() != element_type::STRING) return false;
        return true;
    }
    }
    return false;
}

// The first field of `fields` present in `obj` with another type: its message.
template <std::size_t N>
std::string check(element parent, const char *key, const std::string &where, const Field (&fields)[N]) {
    element v;
    if (parent.at_key(key).get(v) != simdjson::SUCCESS) return "";
    object obj;
    if (v.get(obj) != simdjson::SUCCESS) return where + ": must be an object";
    for (const Field &f : fields) {
        element member;
        if (obj.at_key(f.key).get(member) != simdjson::SUCCESS) continue;
        if (!is_kind(member, f.kind))
            return where + "." + std::string(f.key) + ": must be " + kind_text(f.kind) + " (the pages show it)";
    }
    return "";
}

std::string result_problem(element r, const std::string &where) {
    for (std::string problem : {check(r, "experiment", where + ".experiment", kExperiment),
                                check(r, "gpu_state", where + ".gpu_state", kGpuState),
                                check(r, "counters", where + ".counters", kCounters),
                                check(r, "published", where + ".published", kPublished)})
        if (!problem.empty()) return problem;
    element state;
    if (r.at_key("gpu_state").get(state) == simdjson::SUCCESS)
        for (const char *reading : {"before", "after"}) {
            const std::string problem = check(state, reading, where + ".gpu_state." + reading, kGpuReading);
            if (!problem.empty()) return problem;
        }
    return "";
}

}  // namespace

std::string shape_problem(const element &root) {
    const element wrapper = root;
    for (std::string problem : {check(wrapper, "device", "document.device", kDevice),
                                check(wrapper, "library", "document.library", kLibrary)})
        if (!problem.empty()) return problem;
    element device;
    if (root.at_key("device").get(device) == simdjson::SUCCESS) {
        const std::string problem = check(device, "host_link", "document.device.host_link", kHostLink);
        if (!problem.empty()) return problem;
    }
    array results;
    if (root.at_key("results").get(results) != simdjson::SUCCESS) return "";
    std::size_t i = 0;
    for (element r : results) {
        const std::string where = "document.results[" + std::to_string(i++) + "]";
        if (r.type() != element_type::OBJECT) continue;  // refused where results are read
        for (const Field &f : kResult) {
            element member;
            if (r.at_key(f.key).get(member) == simdjson::SUCCESS && !is_kind(member, f.kind))
                return where + "." + std::string(f.key) + ": must be " + kind_text(f.kind) + " (the pages show it)";
        }
        const std::string problem = result_problem(r, where);
        if (!problem.empty()) return problem;
    }
    return "";
}

}  // namespace gmserver
