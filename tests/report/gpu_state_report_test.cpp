// The GPU's state in the reports: each result's readings and warnings, and at
// the end of a run which results measured while a clock fell or the clocks
// were held down. Host only.
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "document.hpp"
#include "html_report.hpp"
#include "text_report.hpp"

using nlohmann::json;

namespace {

// The committed run without its results' gpu_state blocks: a document of a
// library that did not record them, to which the tests add their own.
const json &committed() {
    static const json run = [] {
        json r = gmreport::load_run(std::string(GM_SOURCE_DIR) + "/results/nvidia-h200-standard-suite.json");
        for (json &result : r["results"]) result.erase("gpu_state");
        return r;
    }();
    return run;
}

json state(double sm_after, const json &warnings) {
    return {{"source", "nvml"},
            {"before", {{"sm_clock_mhz", 1980}, {"memory_clock_mhz", 3201}, {"power_w", 120.4}, {"temperature_c", 35}, {"pstate", 0},
                        {"clock_event_reasons", {"gpu_idle"}}}},
            {"after", {{"sm_clock_mhz", sm_after}, {"memory_clock_mhz", 3201}, {"power_w", 655.0}, {"temperature_c", 61}, {"pstate", 0},
                       {"clock_event_reasons", json::array()}}},
            {"power_violation_ms", 0.0},
            {"thermal_violation_ms", 0.0},
            {"warnings", warnings}};
}

}  // namespace

TEST(GpuStateReport, EachResultShowsItsReadings) {
    json r = committed()["results"][0];
    EXPECT_EQ(gmreport::gpu_state_line(r), "");  // a document without the block
    r["gpu_state"] = state(1980, json::array());
    const std::string line = gmreport::gpu_state_line(r);
    EXPECT_NE(line.find("SM 1980 MHz"), std::string::npos) << line;
    EXPECT_NE(line.find("120 -> 655 W"), std::string::npos) << line;
    EXPECT_NE(line.find("35 -> 61 C"), std::string::npos) << line;
    EXPECT_NE(line.find("P-state 0"), std::string::npos) << line;
    std::ostringstream os;
    gmreport::write_result_text(os, r, false);
    EXPECT_NE(os.str().find(line), std::string::npos);
    EXPECT_EQ(os.str().find("GPU STATE:"), std::string::npos);
}

TEST(GpuStateReport, TheRunSaysWhichResultsMeasuredWhileAClockFell) {
    json run = committed();
    std::ostringstream none;
    gmreport::write_run_text(none, run, false);
    EXPECT_EQ(none.str().find("the state the GPU was in"), std::string::npos);  // no result carries the block
    for (json &r : run["results"]) r["gpu_state"] = state(1980, json::array());
    std::ostringstream quiet;
    gmreport::write_run_text(quiet, run, false);
    EXPECT_NE(quiet.str().find("In none of the " + std::to_string(run["results"].size()) + " results did a clock fall"), std::string::npos);
    run["results"][1]["gpu_state"] = state(1755, {"the SM clock fell from 1980 MHz to 1755 MHz while it measured"});
    std::ostringstream os;
    gmreport::write_run_text(os, run, false);
    const std::string t = os.str();
    EXPECT_NE(t.find("GPU STATE: the SM clock fell from 1980 MHz to 1755 MHz"), std::string::npos);
    const std::size_t at = t.find("== the state the GPU was in");
    ASSERT_NE(at, std::string::npos);
    EXPECT_NE(t.find("- " + run["results"][1]["experiment"]["name"].get<std::string>() + ": the SM clock fell", at), std::string::npos)
        << t.substr(at);
    if (gmreport::html_available()) EXPECT_NE(gmreport::html_report(run).find("<strong>GPU state:</strong> the SM clock fell"), std::string::npos);
}
