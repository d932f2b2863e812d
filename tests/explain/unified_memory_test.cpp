// Unified memory over a whole run and launches far slower than their counted
// one, from records written as the injection library writes them (hand-made
// here, each test says what it stands for), and the managed_loop fixtures
// (SYNTHETIC: fixtures/derive_managed_loop.py) explained end to end.
#include <gtest/gtest.h>

#include "explain/explain_document.hpp"
#include "explain/explain_session.hpp"
#include "explain/trace_records.hpp"
#include "explain/trace_summary.hpp"

using namespace gmexplain;

namespace {

PassRecords um_records(const std::vector<std::string> &lines) {
    PassRecords r;
    for (const auto &l : lines) add_record(r, l, 7);
    return r;
}

std::string um_launch(const char *name, long start, long end, int device = 0, int correlation = 0) {
    return std::string("{\"type\":\"kernel\",\"name\":\"") + name + "\",\"device\":" + std::to_string(device) +
           ",\"start\":" + std::to_string(start) + ",\"end\":" + std::to_string(end) +
           ",\"correlation\":" + std::to_string(correlation) + "}";
}

std::string um_line(const char *counter, long value, long start, long end, const char *cause = nullptr) {
    std::string l = std::string("{\"type\":\"um\",\"counter\":\"") + counter + "\",\"value\":" + std::to_string(value) +
                    ",\"start\":" + std::to_string(start) + ",\"end\":" + std::to_string(end) + ",\"device\":0";
    if (cause) l += std::string(",\"cause\":\"") + cause + "\"";
    return l + "}";
}

constexpr long kUmMs = 1000000;
constexpr long kUmMiB = 1 << 20;

nlohmann::json managed_loop_explained(const std::string &fixture) {
    Options o;
    o.from_records = GMX_SOURCE_DIR "/tests/explain/fixtures/" + fixture;
    o.lab_run = GMX_SOURCE_DIR "/results/nvidia-h200-standard-suite.json";
    const auto r = explain(o);
    EXPECT_EQ(check_explain_document(r.document), "") << r.message;
    return r.document;
}

const nlohmann::json *run_finding(const nlohmann::json &doc, const std::string &rule) {
    for (const auto &f : doc["run"]["findings"])
        if (f["rule"] == rule) return &f;
    return nullptr;
}

}  // namespace

TEST(ExplainUnifiedMemory, FaultsAreSummedOverEveryRoundOfALoop) {
    // Five launches of one kernel, each with its own faults: every round counts,
    // not only the first. A record is one faulting page; its value the fault
    // groups served for it (0 still says one).
    std::vector<std::string> lines;
    for (long r = 0; r < 5; ++r) {
        const long start = (r + 1) * 100 * kUmMs;
        lines.push_back(um_launch("_Z1kPf", start, start + 20 * kUmMs));
        lines.push_back(um_line("gpu_page_faults", r == 4 ? 0 : 10, start + kUmMs, start + 2 * kUmMs));
        lines.push_back(um_line("bytes_htod", 4 * kUmMiB, start + kUmMs, start + 3 * kUmMs, "coherence"));
    }
    const auto f = run_figures(um_records(lines));
    EXPECT_EQ(f.at("um_gpu_page_faults"), 5);
    EXPECT_EQ(f.at("um_gpu_fault_groups"), 41);
    EXPECT_EQ(f.at("um_bytes_htod_on_demand"), 20 * kUmMiB);
    EXPECT_EQ(f.at("um_bytes_htod_in_kernels"), 20 * kUmMiB);
    EXPECT_NEAR(f.at("fault_kernel_ms"), 100, 1e-9);
    EXPECT_NEAR(f.at("fault_excess_ms"), 100, 1e-9);  // no counted time: all of it
}

TEST(ExplainUnifiedMemory, ACpuFaultIsOneRecordNotItsInstructionAddress) {
    const auto f = run_figures(um_records({um_line("cpu_page_faults", 94414848413472, 10, 0), um_line("cpu_page_faults", 94414848413472, 20, 0),
                                        um_line("cpu_page_faults", 94414848413480, 30, 0)}));
    EXPECT_EQ(f.at("um_cpu_page_faults"), 3);
}

TEST(ExplainUnifiedMemory, PrefetchesAreNotOnDemandEvenBesideAKernel) {
    const auto f = run_figures(um_records({um_launch("_Z1kPf", 10 * kUmMs, 20 * kUmMs),
                                        um_line("bytes_htod", 64 * kUmMiB, 12 * kUmMs, 14 * kUmMs, "user"),
                                        um_line("bytes_dtoh", 64 * kUmMiB, 30 * kUmMs, 32 * kUmMs, "user")}));
    EXPECT_EQ(f.at("um_bytes_htod"), 64 * kUmMiB);
    EXPECT_EQ(f.at("um_bytes_htod_on_demand"), 0);
    EXPECT_EQ(f.at("um_bytes_htod_in_kernels"), 0);
    EXPECT_EQ(f.at("fault_kernel_ms"), 0);
    EXPECT_EQ(f.at("um_bytes_dtoh"), 64 * kUmMiB);
}

TEST(ExplainUnifiedMemory, OnDemandTransfersBesideKernelsWithoutAnyFaultRecord) {
    // The issue's trace: no GPU fault record at all, transfers without a cause
    // (records written before it was kept). One transfer beside two concurrent
    // kernels counts once.
    const auto f = run_figures(um_records({um_launch("_Z1kPf", 10 * kUmMs, 20 * kUmMs), um_launch("_Z1jPf", 12 * kUmMs, 18 * kUmMs),
                                        um_line("bytes_htod", 8 * kUmMiB, 13 * kUmMs, 14 * kUmMs),
                                        um_line("bytes_htod", 8 * kUmMiB, 40 * kUmMs, 41 * kUmMs)}));
    EXPECT_EQ(f.at("um_gpu_page_faults"), 0);
    EXPECT_EQ(f.at("um_bytes_htod_on_demand"), 16 * kUmMiB);
    EXPECT_EQ(f.at("um_bytes_htod_in_kernels"), 8 * kUmMiB);
    EXPECT_NEAR(f.at("fault_kernel_ms"), 16, 1e-9);
}

TEST(ExplainUnifiedMemory, ExcessIsTheTimeAboveTheCountedLaunch) {
    // The single pass: launch 0 counted (no traced time, 0.25 ms by the
    // profiler), launch 1 traced at 10 ms with faults beside it.
    const auto r = um_records({um_launch("_Z1kPf", 0, 0, 0, 4), um_launch("_Z1kPf", 10 * kUmMs, 20 * kUmMs, 0, 5),
                            um_line("gpu_page_faults", 30, 11 * kUmMs, 12 * kUmMs),
                            R"({"type":"counters","name":"_Z1kPf","launch":0,"correlation":4,"metrics":{"gpu__time_duration.sum":250000}})"});
    const auto f = run_figures(r);
    EXPECT_NEAR(f.at("fault_kernel_ms"), 10, 1e-9);
    EXPECT_NEAR(f.at("fault_excess_ms"), 9.75, 1e-9);
    // --passes 2: the counted time comes from the counting run.
    EXPECT_NEAR(run_figures(r, {{"_Z1kPf", 1000.0}}).at("fault_excess_ms"), 9.0, 1e-9);
}

TEST(ExplainUnifiedMemory, NoRecordAtAllButManagedMemoryAndSlowLaunches) {
    // The driver lost every unified-memory record: launch 1 is 40x its counted
    // time while 256 MiB of managed memory is allocated, and nothing else ran.
    const std::string counted = R"({"type":"counters","name":"_Z1kPf","launch":0,"correlation":4,"metrics":{"gpu__time_duration.sum":250000}})";
    const std::string alloc = R"({"type":"memory","op":"alloc","memory":"managed","bytes":268435456,"time":1000,"address":77})";
    const auto r = um_records({alloc, counted, um_launch("_Z1kPf", 0, 0, 0, 4), um_launch("_Z1kPf", 10 * kUmMs, 20 * kUmMs, 0, 5),
                            R"({"type":"memory","op":"free","memory":"managed","bytes":268435456,"time":30000000,"address":77})"});
    const auto f = run_figures(r);
    EXPECT_EQ(f.at("um_managed_bytes"), 256 * kUmMiB);
    EXPECT_NEAR(f.at("unrecorded_wait_ms"), 10, 1e-9);
    EXPECT_NEAR(f.at("fault_excess_ms"), 9.75, 1e-9);
    EXPECT_EQ(kernel_slowdown(r, "_Z1kPf", 250).cause, "managed_memory");
    // Without managed memory the same launch is not put down to unified memory.
    const auto plain = um_records({counted, um_launch("_Z1kPf", 0, 0, 0, 4), um_launch("_Z1kPf", 10 * kUmMs, 20 * kUmMs, 0, 5)});
    EXPECT_EQ(run_figures(plain).at("unrecorded_wait_ms"), 0);
    EXPECT_EQ(kernel_slowdown(plain, "_Z1kPf", 250).cause, "unexplained");
    // Freed before the launch: not live.
    const auto freed = um_records({alloc, R"({"type":"memory","op":"free","memory":"managed","bytes":268435456,"time":2000,"address":77})",
                                counted, um_launch("_Z1kPf", 10 * kUmMs, 20 * kUmMs, 0, 5)});
    EXPECT_EQ(run_figures(freed).at("unrecorded_wait_ms"), 0);
}

TEST(ExplainUnifiedMemory, TheDriversThrashingEventsAreCounted) {
    const auto f = run_figures(um_records({um_launch("_Z1kPf", 10 * kUmMs, 20 * kUmMs), um_line("thrashing", 2 * kUmMiB, 11 * kUmMs, 0),
                                        um_line("throttling", 0, 12 * kUmMs, 13 * kUmMs), um_line("remote_map", 2 * kUmMiB, 14 * kUmMs, 0)}));
    EXPECT_EQ(f.at("um_thrashing"), 1);
    EXPECT_EQ(f.at("um_throttling"), 1);
    EXPECT_EQ(f.at("um_remote_map"), 1);
    EXPECT_NEAR(f.at("fault_kernel_ms"), 10, 1e-9);
}

TEST(ExplainSlowdown, SlowLaunchesBesideFaultsBlameUnifiedMemory) {
    const auto r = um_records({um_launch("_Z1kPf", 10 * kUmMs, 20 * kUmMs), um_launch("_Z1kPf", 30 * kUmMs, 40 * kUmMs),
                            um_line("gpu_page_faults", 12, 11 * kUmMs, 12 * kUmMs), um_line("gpu_page_faults", 4, 31 * kUmMs, 32 * kUmMs),
                            um_line("bytes_htod", 2 * kUmMiB, 33 * kUmMs, 34 * kUmMs, "coherence"),
                            um_line("bytes_htod", 2 * kUmMiB, 35 * kUmMs, 36 * kUmMs, "user")});
    const Slowdown s = kernel_slowdown(r, "_Z1kPf", 250);
    EXPECT_EQ(s.traced_launches, 2u);
    EXPECT_EQ(s.slow_launches, 2u);
    EXPECT_NEAR(s.traced_mean_us, 10000, 1e-9);
    EXPECT_NEAR(s.excess_ms, 2 * 9.75, 1e-9);
    EXPECT_EQ(s.gpu_page_faults, 2);
    EXPECT_EQ(s.gpu_fault_groups, 16);
    EXPECT_EQ(s.migrated_bytes, 2 * kUmMiB);  // the prefetch is not on demand
    EXPECT_EQ(s.cause, "unified_memory");
    const auto j = slowdown_json(s, 0);
    EXPECT_NE(j["cause_text"].get<std::string>().find("faults: 2 GPU page faults (16 fault groups) and 2 MiB migrated to the device during its launches"),
              std::string::npos) << j["cause_text"];
    EXPECT_NE(j["text"].get<std::string>().find("40x the counted launch's 250 us"), std::string::npos) << j["text"];
}

TEST(ExplainSlowdown, OtherKernelsBesideItOnTheSameDevice) {
    const auto r = um_records({um_launch("_Z1kPf", 10 * kUmMs, 20 * kUmMs), um_launch("_Z1jPf", 9 * kUmMs, 19 * kUmMs),
                            um_launch("_Z1hPf", 10 * kUmMs, 20 * kUmMs, 1)});  // device 1: not contention
    const Slowdown s = kernel_slowdown(r, "_Z1kPf", 1000);
    EXPECT_EQ(s.cause, "concurrent_kernels");
    EXPECT_NEAR(s.concurrent_ms, 9, 1e-9);
}

TEST(ExplainSlowdown, OnlyTheFirstLaunchSlowAndUnexplained) {
    const auto first = um_records({um_launch("_Z1kPf", 10 * kUmMs, 15 * kUmMs), um_launch("_Z1kPf", 20 * kUmMs, 20 * kUmMs + 1000),
                                um_launch("_Z1kPf", 30 * kUmMs, 30 * kUmMs + 1000)});
    EXPECT_EQ(kernel_slowdown(first, "_Z1kPf", 1).cause, "first_launch");
    const auto later = um_records({um_launch("_Z1kPf", 10 * kUmMs, 10 * kUmMs + 1000), um_launch("_Z1kPf", 20 * kUmMs, 25 * kUmMs)});
    const Slowdown s = kernel_slowdown(later, "_Z1kPf", 1);
    EXPECT_EQ(s.cause, "unexplained");
    EXPECT_NE(slowdown_json(s, 0)["cause_text"].get<std::string>().find("unexplained"), std::string::npos);
}

TEST(ExplainSlowdown, WithinThreeTimesOrTenMicrosecondsIsNotSlow) {
    const auto r = um_records({um_launch("_Z1kPf", 10 * kUmMs, 10 * kUmMs + 290000), um_launch("_Z1tPf", 20 * kUmMs, 20 * kUmMs + 9000)});
    EXPECT_EQ(kernel_slowdown(r, "_Z1kPf", 100).slow_launches, 0u);  // 2.9x
    EXPECT_EQ(kernel_slowdown(r, "_Z1tPf", 1).slow_launches, 0u);    // 9x, but 8 us more
    EXPECT_EQ(kernel_slowdown(r, "_Z1kPf", 0).traced_launches, 0u);  // not counted: nothing to compare
}

TEST(ExplainUnifiedMemory, RecordsKeepTheirDeviceAndCause) {
    const auto r = um_records({R"({"type":"um","counter":"bytes_htod","value":4096,"start":1,"end":2,"device":3,"src":0,"dst":3,"cause":"user"})"});
    ASSERT_EQ(r.unified_memory.size(), 1u);
    EXPECT_EQ(r.unified_memory[0].device, 3);
    EXPECT_EQ(r.unified_memory[0].cause, "user");
}

TEST(ExplainManagedLoop, PlantedLoopIsNamedWithFaultsOfEveryRound) {
    const auto doc = managed_loop_explained("managed_loop-planted");
    const auto &rf = doc["run"]["figures"];
    EXPECT_EQ(rf["um_gpu_page_faults"], 96);     // 32 in the counted launch's replay, 16 in each of 4 later rounds
    EXPECT_EQ(rf["um_gpu_fault_groups"], 384);
    EXPECT_EQ(rf["um_bytes_htod_in_kernels"], 64 * kUmMiB);
    EXPECT_EQ(rf["um_cpu_page_faults"], 96);
    const auto *f = run_finding(doc, "unified_memory_faults");
    ASSERT_NE(f, nullptr);
    ASSERT_FALSE((*f)["gain_ms"].is_null());
    EXPECT_GT((*f)["gain_ms"].get<double>(), 1);
    EXPECT_LE((*f)["gain_ms"].get<double>(), rf["fault_excess_ms"].get<double>());
    const auto &k = doc["kernels"][0];
    ASSERT_TRUE(k.contains("traced_vs_counted"));
    EXPECT_EQ(k["traced_vs_counted"]["slow_launches"], 4);
    EXPECT_EQ(k["traced_vs_counted"]["cause"], "unified_memory");
    EXPECT_TRUE(k["findings"].empty());  // its counted launch looked normal, and is still judged so
    const std::string text = explanation_text(doc);
    EXPECT_NE(text.find("likely cause: faults: 64 GPU page faults (256 fault groups) and 64 MiB migrated to the device during its launches"),
              std::string::npos) << text;
    EXPECT_NE(text.find("unified memory: 96 GPU faults"), std::string::npos) << text;
}

TEST(ExplainManagedLoop, WithoutFaultRecordsTheTransfersBesideKernelsStillNameIt) {
    const auto doc = managed_loop_explained("managed_loop-planted-no-fault-records");
    EXPECT_EQ(doc["run"]["figures"]["um_gpu_page_faults"], 0);
    EXPECT_NE(run_finding(doc, "unified_memory_faults"), nullptr);
    EXPECT_EQ(doc["kernels"][0]["traced_vs_counted"]["cause"], "unified_memory");
}

TEST(ExplainManagedLoop, FixedTwinNamesNothing) {
    const auto doc = managed_loop_explained("managed_loop-fixed");
    EXPECT_TRUE(doc["run"]["findings"].empty());
    EXPECT_EQ(doc["run"]["figures"]["um_bytes_htod_on_demand"], 0);
    const auto &k = doc["kernels"][0];
    EXPECT_TRUE(k["findings"].empty());
    EXPECT_EQ(k["traced_vs_counted"]["slow_launches"], 0);
    EXPECT_EQ(explanation_text(doc).find("likely cause"), std::string::npos);
}
