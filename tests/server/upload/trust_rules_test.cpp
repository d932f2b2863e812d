// What the server trusts of an upload (issue 47, items 5, 6, 7 and 10): the
// device facts of known models from its own table, physical bounds for the
// others, latencies and summaries, the names that become keys, the run's
// identity, and the types of what the pages show.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "upload/known_models.hpp"
#include "upload/model_name.hpp"
#include "upload/plausibility.hpp"
#include "upload/run_identity.hpp"
#include "upload/validate.hpp"

using namespace gmserver;
using nlohmann::json;

namespace {

// The H200's device block as the library writes it (results/nvidia-h200*.json).
ClaimedDevice h200() {
    ClaimedDevice c;
    c.name = "NVIDIA H200";
    c.compute_capability = "9.0";
    c.global_memory_bytes = 150109880320.0;
    c.bus_width_bits = 6016;
    c.multiprocessors = 132;
    c.l2_bytes = 62914560;
    c.sm_clock_mhz = 1980;
    c.memory_clock_mhz = 3201;
    c.theoretical_gbs = 4814.304;
    c.host_link_gbs = 63.01538461538462;
    return c;
}

std::string judged(const ClaimedDevice &c, DeviceFacts *facts = nullptr) {
    DeviceFacts f;
    const std::string problem = judge_device(c, &f);
    if (facts) *facts = f;
    return problem;
}

}  // namespace

TEST(KnownModels, TheCommittedRunsDeviceBlocksAreTheTablesFacts) {
    DeviceFacts f;
    EXPECT_EQ(judged(h200(), &f), "");
    EXPECT_TRUE(f.known_model);
    EXPECT_NEAR(f.theoretical_gbs, 4814.304, 0.01);
    ClaimedDevice h100 = h200();
    h100.name = "NVIDIA H100 80GB HBM3";
    h100.global_memory_bytes = 85017493504.0;
    h100.bus_width_bits = 5120;
    h100.l2_bytes = 52428800;
    h100.memory_clock_mhz = 2619;
    h100.theoretical_gbs = 3352.32;
    EXPECT_EQ(judged(h100), "");
}

TEST(KnownModels, EveryRowIsAPlausibleGpu) {
    ASSERT_GE(known_models().size(), 10u);
    for (const KnownModel &m : known_models()) {
        EXPECT_EQ(find_known_model(m.name), &m) << m.name;  // names are unique
        EXPECT_GT(m.theoretical_gbs(), 800) << m.name;
        EXPECT_LT(m.theoretical_gbs(), 5000) << m.name;
        EXPECT_LE(m.multiprocessors, kMaxMultiprocessors) << m.name;
        EXPECT_EQ(name_problem(m.name), "") << m.name;
    }
    EXPECT_EQ(find_known_model("NVIDIA H200 "), nullptr);
}

TEST(Plausibility, AKnownModelsFactsComeFromTheTableNotTheBlock) {
    ClaimedDevice c = h200();
    c.multiprocessors = 100000;
    EXPECT_NE(judged(c).find("device.multiprocessors: 100000 is not the NVIDIA H200's 132"), std::string::npos) << judged(c);
    c = h200();
    c.l2_bytes = NAN;  // deleted: the table's is used
    DeviceFacts f;
    EXPECT_EQ(judged(c, &f), "");
    EXPECT_EQ(f.l2_bytes, 62914560);
    // A 30,000 GB/s DRAM copy of 1 GiB is above 1.5 x the H200's bus.
    EXPECT_LT(quantity_bound(Quantity::DramBandwidth, f, 0, 1 << 30), 7300);
    c = h200();
    c.theoretical_gbs = 30000;
    EXPECT_NE(judged(c).find("device.theoretical_bandwidth_gbs"), std::string::npos);
    c = h200();
    c.bus_width_bits = 8192;
    EXPECT_NE(judged(c).find("device.memory_bus_width_bits"), std::string::npos);
    c = h200();
    c.sm_clock_mhz = 2400;  // a factory-overclocked board: within 1.3 x
    EXPECT_EQ(judged(c), "");
    c.sm_clock_mhz = 9000;
    EXPECT_NE(judged(c).find("device.sm_clock_mhz"), std::string::npos);
    c = h200();
    c.host_link_gbs = 5000;
    EXPECT_NE(judged(c).find("device.host_link.theoretical_gbs"), std::string::npos);
}

TEST(Plausibility, AnUnknownModelIsHeldToPhysicalRangesAndItsOwnBus) {
    ClaimedDevice c = h200();
    c.name = "Some Future GPU";
    DeviceFacts f;
    EXPECT_EQ(judged(c, &f), "");
    EXPECT_FALSE(f.known_model);
    c.multiprocessors = 100000;
    EXPECT_NE(judged(c).find("device.multiprocessors: 100000 is outside 1..512"), std::string::npos) << judged(c);
    c = h200();
    c.name = "Some Future GPU";
    c.theoretical_gbs = 2 * 4814.304;  // not what 6016 bits at 3201 MHz carry
    EXPECT_NE(judged(c).find("is not what the bus carries"), std::string::npos) << judged(c);
    c = h200();
    c.name = "Some Future GPU";
    c.l2_bytes = NAN;  // without L2 every working set is judged as DRAM
    EXPECT_EQ(judged(c, &f), "");
    EXPECT_LT(quantity_bound(Quantity::DramBandwidth, f, 0, 1024), 7300);
    c.multiprocessors = NAN;
    c.sm_clock_mhz = NAN;  // left out: bounded by the ranges, not unbounded
    EXPECT_EQ(judged(c, &f), "");
    EXPECT_LT(quantity_bound(Quantity::L1Bandwidth, f, 0, 0), 1e6);
}

TEST(Plausibility, AnUnknownModelsLaterUploadsMatchItsEarlierOnes) {
    ClaimedDevice c = h200();
    c.name = "Some Future GPU";
    DeviceFacts earlier, now;
    ASSERT_EQ(judged(c, &earlier), "");
    ASSERT_EQ(judged(c, &now), "");
    EXPECT_EQ(judge_against_earlier(now, earlier), "");
    c.multiprocessors = 264;
    ASSERT_EQ(judged(c, &now), "");
    EXPECT_NE(judge_against_earlier(now, earlier).find("earlier uploads"), std::string::npos);
}

TEST(Plausibility, LatenciesAreAtLeastOneCycleAndNotAbsurd) {
    DeviceFacts f;
    ASSERT_EQ(judged(h200(), &f), "");
    EXPECT_EQ(judge_latency(4.7, "cycles", f), "");    // registers, the smallest committed
    EXPECT_EQ(judge_latency(683.7, "cycles", f), "");  // DRAM
    EXPECT_NE(judge_latency(1e-12, "cycles", f).find("below one clock cycle"), std::string::npos);
    EXPECT_NE(judge_latency(1e14, "cycles", f).find("above"), std::string::npos);
    EXPECT_EQ(judge_latency(2.0, "us", f), "");
    EXPECT_NE(judge_latency(1e-9, "us", f), "");
    EXPECT_NE(judge_latency(0.1, "ns", f), "");  // 0.1 ns is a fifth of a 1980 MHz cycle
    EXPECT_EQ(judge_latency(1e-9, "things", f), "");  // not a time: not judged
}

TEST(Plausibility, SummariesAreCheckedAgainstTheirPoints) {
    DeviceFacts f;
    ASSERT_EQ(judged(h200(), &f), "");
    const ResultTops tops{4534.77, 683.7};
    EXPECT_EQ(judge_summary_figure("copy_gbs", 4500, tops, f), "");
    EXPECT_NE(judge_summary_figure("copy_gbs", 1e6, tops, f).find("copy_gbs: 1000000 GB/s is above"), std::string::npos);
    EXPECT_EQ(judge_summary_figure("host_link_theoretical_gbs", 126.03, ResultTops{50, 0}, f), "");
    EXPECT_NE(judge_summary_figure("host_link_theoretical_gbs", 1e5, ResultTops{50, 0}, f), "");
    EXPECT_EQ(judge_summary_figure("dram_cycles", 679, tops, f), "");
    EXPECT_NE(judge_summary_figure("dram_cycles", 1e9, tops, f), "");
    EXPECT_EQ(judge_summary_figure("w4_count1_async_over_sync_cycles", 1e9, tops, f), "");  // a ratio
    EXPECT_EQ(judge_summary_figure("write_over_read", 1e9, tops, f), "");                   // not judged
}

TEST(ModelNames, SpoofedFormsAreRefusedNamingTheCharacter) {
    EXPECT_EQ(name_problem("NVIDIA H200"), "");
    EXPECT_EQ(name_problem("NVIDIA GeForce RTX 4090"), "");
    EXPECT_EQ(name_problem("Tesla V100-SXM2-16GB"), "");
    EXPECT_EQ(name_problem("Ünïcode GPU"), "");  // one script, composed: fine
    EXPECT_EQ(name_problem("NVIDIA H200 日本モデル"), "");  // Latin beside Han and Katakana
    EXPECT_NE(name_problem("NVIDIA H200 α"), "");  // Latin beside Greek
    const std::vector<std::pair<std::string, std::string>> spoofs = {
        {"NVIDIA H2\u200b00", "U+200B"}, {"NVIDIA H2\u206000", "U+2060"}, {"NVIDIA H\u00ad200", "U+00AD"},
        {"\ufeffNVIDIA H200", "U+FEFF"}, {"NVIDIA H200\u3164", "U+3164"}, {"NVIDIA H200\U000e0041", "U+E0041"},
        {"NVIDIA \u041d200", "Cyrillic"}, {"NVIDIA \uff28200", "NFKC"}, {"NVIDIA H\u00b2", "NFKC"}};
    for (const auto &[name, what] : spoofs) {
        const std::string problem = name_problem(name);
        EXPECT_NE(problem.find(what), std::string::npos) << what << ": " << problem;
    }
    EXPECT_EQ(invisible_character("plain ascii"), "");
    EXPECT_EQ(invisible_character("C = AA\u1d40, M\u00b7N"), "");  // what committed runs hold
    EXPECT_EQ(invisible_character("a\u200bb"), "U+200B");
}

TEST(RunIdentity, TheSameMeasurementsAreOneRunWhateverElseDiffers) {
    const std::vector<PointRow> points = {{"", "stream", "copy", "bandwidth_gbs", 1024, 3000.5},
                                          {"", "stream", "copy", "bandwidth_gbs", 2048, 3100.25}};
    const std::string id = run_identity("nvidia-h200-cc9.0-140gib-6016bit", "2026-11-23T17:08:07Z", points);
    EXPECT_EQ(id.size(), 64u);
    EXPECT_EQ(id, run_identity("nvidia-h200-cc9.0-140gib-6016bit", "2026-11-23T17:08:07Z", points));
    EXPECT_NE(id, run_identity("nvidia-h200-cc9.0-140gib-6016bit", "2026-11-23T17:08:08Z", points));
    EXPECT_NE(id, run_identity("nvidia-h100-cc9.0-79gib-5120bit", "2026-11-23T17:08:07Z", points));
    std::vector<PointRow> edited = points;
    edited[1].value = 3100.26;
    EXPECT_NE(id, run_identity("nvidia-h200-cc9.0-140gib-6016bit", "2026-11-23T17:08:07Z", edited));
    edited = points;
    edited[1].series = "copy2";
    EXPECT_NE(id, run_identity("nvidia-h200-cc9.0-140gib-6016bit", "2026-11-23T17:08:07Z", edited));
    // A summary figure is part of it: no document with other key figures takes the run's place.
    const std::vector<PointRow> summary = {{"", "stream", "#summary", "copy_gbs", 0, 3100.25}};
    const std::string with_summary = run_identity("nvidia-h200-cc9.0-140gib-6016bit", "2026-11-23T17:08:07Z", points, summary);
    EXPECT_NE(id, with_summary);
    std::vector<PointRow> other_summary = summary;
    other_summary[0].value = 9000;
    EXPECT_NE(with_summary, run_identity("nvidia-h200-cc9.0-140gib-6016bit", "2026-11-23T17:08:07Z", points, other_summary));
}

namespace {

json small_run() {
    json point = {{"x", 1024},
                  {"time_ms", {{"median", 0.1}, {"min", 0.1}, {"max", 0.1}, {"mean", 0.1}, {"stddev", 0.0}, {"n", 5}}},
                  {"values", {{"latency_cycles", 30.0}}}};
    json series = {{"name", "chase"}, {"y", {{"field", "latency_cycles"}, {"unit", "cycles"}}},
                   {"quantity", {{"name", "latency"}}}, {"points", json::array({point})}};
    json device = {{"name", "NVIDIA H200"}, {"compute_capability", "9.0"}, {"global_memory_bytes", 150109880320.0},
                   {"memory_bus_width_bits", 6016}, {"theoretical_bandwidth_gbs", 4814.304}, {"l2_cache_bytes", 62914560},
                   {"multiprocessors", 132}, {"sm_clock_mhz", 1980}, {"memory_clock_mhz", 3201.0}};
    json result = {{"schema", "gmlab.result/1.3"}, {"experiment", {{"name", "latency"}}}, {"series", json::array({series})}};
    return {{"schema", "gmlab.run/1.3"}, {"library", {{"name", "gmlab"}}}, {"command", "gmlab run"},
            {"created_at", "2026-11-26T00:00:00Z"}, {"settings", json::object()}, {"device", device},
            {"results", json::array({result})}};
}

}  // namespace

TEST(ValidateTrust, AnUploadCarriesItsIdentityAndTheFactsItWasJudgedBy) {
    json doc = small_run();
    const ValidatedUpload v = validate_upload(doc.dump());
    ASSERT_TRUE(v.ok) << v.error_message;
    EXPECT_TRUE(v.facts.known_model);
    doc["submission_id"] = "another-id";
    doc["command"] = "gmlab run --again";
    const ValidatedUpload w = validate_upload(doc.dump());
    ASSERT_TRUE(w.ok) << w.error_message;
    EXPECT_EQ(v.run_identity, w.run_identity);
    const std::optional<DeviceFacts> stored = stored_device_facts(doc.dump());
    ASSERT_TRUE(stored.has_value());
    EXPECT_EQ(stored->multiprocessors, 132);
}

TEST(ValidateTrust, WhatThePagesShowMustHaveItsType) {
    json doc = small_run();
    doc["device"]["memory_clock_mhz"] = "fast";
    ValidatedUpload v = validate_upload(doc.dump());
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.error_message.find("document.device.memory_clock_mhz: must be a number"), std::string::npos) << v.error_message;
    doc = small_run();
    doc["results"][0]["gpu_state"] = {{"source", "nvml"}, {"warnings", json::array({1})}, {"before", json::object()}};
    v = validate_upload(doc.dump());
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.error_message.find("results[0].gpu_state.warnings: must be an array of strings"), std::string::npos)
        << v.error_message;
    doc = small_run();
    doc["device"]["host_link"] = {{"type", "pcie"}, {"theoretical_gbs", "fast"}};
    v = validate_upload(doc.dump());
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.error_message.find("device.host_link.theoretical_gbs"), std::string::npos) << v.error_message;
}

TEST(ValidateTrust, SpoofedNamesAndLatenciesAreRefusedNamingTheField) {
    json doc = small_run();
    doc["device"]["name"] = "NVIDIA \u041d200";
    ValidatedUpload v = validate_upload(doc.dump());
    EXPECT_EQ(v.error_code, "invalid_name");
    EXPECT_NE(v.error_message.find("device.name: mixes scripts"), std::string::npos) << v.error_message;
    doc = small_run();
    doc["device"]["name"] = "NVIDIA H2\u200b00";
    v = validate_upload(doc.dump());
    EXPECT_NE(v.error_message.find("device.name: holds U+200B"), std::string::npos) << v.error_message;
    for (double latency : {1e-12, 1e14}) {
        doc = small_run();
        doc["results"][0]["series"][0]["points"][0]["values"]["latency_cycles"] = latency;
        v = validate_upload(doc.dump());
        EXPECT_EQ(v.error_code, "implausible") << latency;
        EXPECT_NE(v.error_message.find("a latency of"), std::string::npos) << v.error_message;
    }
}
