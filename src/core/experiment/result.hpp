// One experiment's measurements, built by the experiment and serialised to the
// gmlab.result/1.3 schema (docs/result-schema.md).
#pragma once

#include <cstdint>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/counters/counters.hpp"
#include "core/experiment/figure.hpp"
#include "core/experiment/quantity.hpp"
#include "core/measurement/statistics.hpp"

namespace gmlab {

// The versions written (1.3: 1.2 plus each series' declared quantity, with
// bandwidths and DRAM fractions only where bytes move); the readers also take
// every earlier /1 minor version.
inline constexpr const char *kResultSchema = "gmlab.result/1.3";
inline constexpr const char *kRunSchema = "gmlab.run/1.3";
bool is_result_schema(const std::string &schema);  // "gmlab.result/1", "/1.1", "/1.2" or "/1.3"
bool is_run_schema(const std::string &schema);     // "gmlab.run/1", "/1.1", "/1.2" or "/1.3"

struct Point {
    double x = 0;
    double bytes = 0;  // bytes moved per launch; written only for a series whose quantity is a bandwidth
    Stats time_ms;
    std::map<std::string, double> values;     // further measured figures
    std::map<std::string, double> predicted;  // what the guide's model predicts
    std::map<std::string, double> counters;   // hardware counters of one more launch, and figures from them
    std::vector<AgreementCheck> counter_checks;  // each declared figure against its prediction
};

struct Series {
    std::string name;
    std::string variant;  // which kernel: "guide" is the guide's own
    std::string x_name, x_unit;
    std::string y_field = "bandwidth_gbs", y_name = "effective bandwidth", y_unit = "GB/s";
    // What the points measure; every series declares it (quantity.hpp). The
    // unit of a quantity that is not a bandwidth is quantity_unit, or y_unit
    // where that is empty (the series plots the quantity's own figure).
    Quantity quantity = Quantity::Undeclared;
    std::string quantity_unit;
    nlohmann::json attributes = nlohmann::json::object();
    std::vector<Point> points;
};

struct Verification {
    bool passed = false;
    std::string method;
    std::uint64_t elements_checked = 0;
    double max_abs_error = 0;
};

struct Result {
    std::string experiment, guide_section, summary;
    nlohmann::json device = nlohmann::json::object();
    nlohmann::json settings = nlohmann::json::object();
    nlohmann::json parameters = nlohmann::json::object();
    std::vector<Series> series;
    std::map<std::string, double> summary_values;
    Verification verification;
    std::vector<std::string> notes;
    // Figures the guide or well-known study notes published for this
    // experiment on their hardware, to read beside ours as ratios.
    std::string published_source;
    std::map<std::string, double> published;
    // The reference block: theoretical_gbs is the device's DRAM bandwidth, or
    // the host link's for the host<->device experiments (use_host_link_reference).
    double theoretical_gbs = 0, memcpy_gbs = 0;
    // What fractions divide by: a DRAM bandwidth by the device's theoretical
    // DRAM bandwidth and cudaMemcpy's, a link bandwidth by the link's.
    double dram_theoretical_gbs = 0, link_theoretical_gbs = 0;
    std::uint64_t device_bytes_allocated = 0, memory_budget_bytes = 0;
    std::string started_at, finished_at;
    // False when the experiment cannot apply to this machine (peer with one
    // GPU): no series, nothing verified, a note saying why; not an error.
    bool applicable = true;
    // Hardware counters: the mode asked for, whether they were read and, if
    // not, why; failures of single counts; the most passes one count needed.
    std::string counters_mode = "off";
    bool counters_available = false;
    std::string counters_reason, counters_chip;
    std::vector<std::string> counter_errors;
    int counter_passes = 0;
    double counter_seconds = 0, counter_launch_seconds = 0;
    // counters = auto counts within a time budget (harness.hpp): when the
    // experiment began, the session's counting time then, the points left
    // uncounted for the budget.
    std::chrono::steady_clock::time_point measuring_since{};
    double counter_seconds_before = 0;
    int counter_points_skipped = 0;
    // The GPU's clocks, power and throttling before and after it measured
    // (core/device/nvml_state.hpp); null where NVML is absent.
    nlohmann::json gpu_state;

    // Writes a declared headline figure into the summary, at the given values
    // of the axes its name has in braces.
    void record(const Figure &figure, double value, const FigureAt &at = {}) {
        summary_values[figure_key(figure, at)] = value;
    }
    // Records that n more elements matched their host reference.
    void verified(std::uint64_t n, const std::string &method, double max_abs_error = 0);
    // Marks the result not applicable, with the reason as a note.
    void not_applicable(const std::string &why);
};

nlohmann::json library_json();
// The document of a result. A point's time_ms keeps the statistics and the
// deciles; SampleForm::All adds every raw sample.
nlohmann::json to_json(const Result &r, SampleForm form = SampleForm::Summary);

// Rewrites every point of a result document (or of each result of a run
// document) to the given sample form; see set_sample_form.
void set_sample_form_of_document(nlohmann::json &doc, SampleForm form);

// The version a result document read in is written as: the current one, or
// "gmlab.result/1.2" where a series declares no quantity (an older document).
const char *schema_to_write(const nlohmann::json &doc);

// Checks that a document has the structure the accessors rely on (throws
// Error(GM_ERROR_INVALID_ARGUMENT) saying what is missing).
void check_result_document(const nlohmann::json &doc);

// Looks up one number of a point of a result document (see gm_result_point_value).
double point_value(const nlohmann::json &doc, std::size_t series, std::size_t point,
                   const std::string &field);

// Current UTC time as ISO 8601 ("2026-11-22T00:00:00Z").
std::string utc_now();

}  // namespace gmlab
