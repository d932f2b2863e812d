// Pass 1's summary from records written as the injection library writes them.
#include <gtest/gtest.h>

#include "explain/trace_records.hpp"
#include "explain/trace_summary.hpp"

using namespace gmexplain;

namespace {
PassRecords records(const std::vector<std::string> &lines) {
    PassRecords r;
    for (const auto &l : lines) add_record(r, l, 42);
    return r;
}
std::string kernel(const char *name, long start, long end, int graph = 0) {
    return std::string("{\"type\":\"kernel\",\"name\":\"") + name + "\",\"device\":0,\"grid\":[8,1,1],\"block\":[128,1,1]," +
           "\"registers\":32,\"start\":" + std::to_string(start) + ",\"end\":" + std::to_string(end) +
           ",\"graph\":" + std::to_string(graph) + "}";
}
std::string copy(const char *kind, const char *src, const char *dst, long bytes, long start, long end) {
    return std::string("{\"type\":\"memcpy\",\"kind\":\"") + kind + "\",\"src\":\"" + src + "\",\"dst\":\"" + dst +
           "\",\"bytes\":" + std::to_string(bytes) + ",\"start\":" + std::to_string(start) + ",\"end\":" + std::to_string(end) + "}";
}
}  // namespace

TEST(ExplainTrace, KernelsAreGroupedDemangledAndRankedByTotalTime) {
    const auto r = records({kernel("_Z5shortv", 0, 1000), kernel("_Z4longPf", 2000, 12000), kernel("_Z5shortv", 20000, 21000),
                            kernel("_Z5graphv", 30000, 30500, 7)});
    const auto k = summarize_kernels(r);
    ASSERT_EQ(k.size(), 3u);
    EXPECT_EQ(k[0].name, "long(float*)");
    EXPECT_EQ(k[0].short_name, "long");
    EXPECT_DOUBLE_EQ(k[0].total_ms, 0.01);
    EXPECT_EQ(k[1].name, "short()");
    EXPECT_EQ(k[1].launches, 2u);
    EXPECT_DOUBLE_EQ(k[1].mean_us, 1.0);
    EXPECT_EQ(k[2].graph_launches, 1u);
    EXPECT_EQ(k[0].registers, 32);
    EXPECT_NEAR(k[0].share_of_gpu_time, 10.0 / 12.5, 1e-12);
}

TEST(ExplainTrace, PageableAndSmallCopiesAreCounted) {
    const auto f = run_figures(records({copy("HtoD", "pageable", "device", 64 << 20, 0, 5000000),
                                        copy("DtoH", "device", "pageable", 4096, 6000000, 6010000),
                                        copy("HtoD", "pinned", "device", 4096, 7000000, 7002000),
                                        copy("DtoD", "device", "device", 1 << 30, 8000000, 9000000)}));
    EXPECT_EQ(f.at("copies"), 3);
    EXPECT_EQ(f.at("pageable_copies"), 2);
    EXPECT_EQ(f.at("pageable_bytes"), (64 << 20) + 4096);
    EXPECT_EQ(f.at("small_copies"), 2);
    EXPECT_NEAR(f.at("copy_ms"), 5.0 + 0.01 + 0.002, 1e-9);
}

TEST(ExplainTrace, OverlapOfCopiesWithKernels) {
    // A 10 ms copy, half of it beside a kernel on another stream.
    const auto f = run_figures(records({copy("HtoD", "pinned", "device", 1 << 20, 1000000, 11000000),
                                        kernel("_Z1kv", 6000000, 16000000)}));
    EXPECT_NEAR(f.at("copy_kernel_overlap_share"), 0.5, 1e-12);
    EXPECT_NEAR(f.at("gpu_span_ms"), 15.0, 1e-9);
    EXPECT_NEAR(f.at("gpu_busy_ms"), 15.0, 1e-9);
}

TEST(ExplainTrace, ACountedLaunchTakesTheProfilersDuration) {
    // The single pass: the counted launch's kernel record has no time (start and
    // end 0); its time is gpu__time_duration of its counters, matched by correlation.
    auto r = records({R"({"type":"kernel","name":"_Z1kv","start":0,"end":0,"correlation":9})",
                      R"({"type":"kernel","name":"_Z1kv","start":5000,"end":7000,"correlation":10})",
                      R"({"type":"counters","name":"_Z1kv","launch":0,"correlation":9,"metrics":{"gpu__time_duration.sum":3000}})"});
    const auto k = summarize_kernels(r);
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].launches, 2u);
    EXPECT_NEAR(k[0].total_ms, 0.005, 1e-12);
    const auto f = run_figures(r);
    EXPECT_NEAR(f.at("kernel_ms"), 0.005, 1e-12);
    EXPECT_NEAR(f.at("gpu_span_ms"), 0.002, 1e-12);  // the untimed launch is not in the span
}

TEST(ExplainTrace, AllocationsBetweenKernelsAreInTheLoop) {
    const auto f = run_figures(records({
        R"({"type":"memory","op":"alloc","memory":"device","bytes":1024,"time":10})",
        kernel("_Z1kv", 100, 200),
        R"({"type":"memory","op":"alloc","memory":"device","bytes":2048,"time":300})",
        R"({"type":"memory","op":"free","memory":"device","bytes":2048,"time":400})",
        kernel("_Z1kv", 500, 600),
        R"({"type":"memory","op":"alloc","memory":"device","bytes":4096,"time":700,"pool":1})",
    }));
    EXPECT_EQ(f.at("device_allocs"), 2);  // the pool's is stream-ordered, not counted
    EXPECT_EQ(f.at("allocs_between_kernels"), 1);
    EXPECT_EQ(f.at("frees_between_kernels"), 1);
    EXPECT_EQ(f.at("mean_alloc_bytes"), 1536);
}

TEST(ExplainTrace, UnifiedMemoryFaultsAndTheKernelsThatWaited) {
    const auto f = run_figures(records({
        kernel("_Z1kv", 1000, 3000000),
        R"({"type":"um","counter":"gpu_page_faults","value":40,"start":2000,"end":9000})",
        R"({"type":"um","counter":"bytes_htod","value":67108864,"start":2000,"end":9000})",
        kernel("_Z1jv", 4000000, 5000000),
    }));
    EXPECT_EQ(f.at("um_gpu_page_faults"), 1);   // one record: one faulting page
    EXPECT_EQ(f.at("um_gpu_fault_groups"), 40);  // the groups it reports
    EXPECT_EQ(f.at("um_bytes_htod"), 67108864);
    EXPECT_NEAR(f.at("fault_kernel_ms"), 2.999, 1e-9);
}

TEST(ExplainTrace, ProcessesSignalsAndRefusalsAreKept) {
    const auto r = records({R"({"type":"process","pid":42})", R"({"type":"signal","signal":11})",
                            R"({"type":"counters_unavailable","reason":"ERR_NVGPUCTRPERM: no"})",
                            R"({"type":"dropped","count":3})"});
    EXPECT_EQ(r.pids.size(), 1u);
    EXPECT_EQ(r.signals, std::vector<int>{11});
    EXPECT_EQ(r.counters_unavailable, "ERR_NVGPUCTRPERM: no");
    EXPECT_EQ(r.dropped, 3u);
    EXPECT_THROW(add_record(const_cast<PassRecords &>(r), "{half a line", 1), std::exception);
}

TEST(ExplainTrace, OverlapCanRemoveAtMostWhatTheEnginesDoNotShare) {
    // A one-time upload of 40 ms before any kernel, then 50 ms of kernels and a
    // 2 ms download: the upload cannot run beside the kernels that need it,
    // so overlapping removes at most the download.
    const auto r = records({copy("HtoD", "pinned", "device", 1 << 30, 0, 40000000), kernel("_Z1kv", 41000000, 91000000),
                            copy("DtoH", "device", "pinned", 1 << 20, 92000000, 94000000)});
    const auto f = run_figures(r);
    EXPECT_DOUBLE_EQ(f.at("copy_before_kernels_ms"), 40.0);
    EXPECT_NEAR(f.at("removable_busy_ms"), 2.0, 1e-9);
    // Copies to and from the device between kernels: busy time can fall to the longest engine's work.
    const auto loop = records({kernel("_Z1kv", 1000000, 2000000), copy("HtoD", "pinned", "device", 1 << 20, 2000000, 6000000),
                               copy("DtoH", "device", "pinned", 1 << 20, 6000000, 9000000), kernel("_Z1kv", 9000000, 10000000)});
    EXPECT_NEAR(run_figures(loop).at("removable_busy_ms"), 9.0 - 4.0, 1e-9);
}

// The idle gaps between kernels that allocations fall in: the median gap
// times their number, so that one stretched gap does not count.
TEST(ExplainTrace, AllocationGapsAreTheIdleTimeBetweenKernels) {
    std::vector<std::string> lines;
    long t = 1000;  // a start of 0 marks a launch the trace did not time
    for (int i = 0; i < 5; ++i) {
        lines.push_back(kernel("_Z1kv", t, t + 100));
        const long gap = i == 2 ? 1000000 : 50000;  // one gap a counted launch's replays stretched
        lines.push_back(R"({"type":"memory","op":"free","memory":"device","bytes":64,"time":)" + std::to_string(t + 200) + "}");
        t += 100 + gap;
    }
    lines.push_back(kernel("_Z1kv", t, t + 100));
    lines.push_back(kernel("_Z1kv", t + 150, t + 250));  // a gap with no allocation in it: not counted
    const auto f = run_figures(records(lines));
    EXPECT_NEAR(f.at("alloc_gap_ms"), 5 * 0.05, 1e-9);
}

// GPU 0 to the host, then the same bytes from the host to GPU 1: a move
// staged through the host. A copy back to the GPU it came from is a round
// trip, not a move between GPUs.
TEST(ExplainTrace, CopiesBetweenGpusThroughTheHostArePaired) {
    auto on = [](std::string line, int device) { return line.insert(line.size() - 1, ",\"device\":" + std::to_string(device)); };
    const auto f = run_figures(records({
        on(copy("DtoH", "device", "pinned", 1 << 20, 0, 1000), 0),
        on(copy("HtoD", "pinned", "device", 1 << 20, 2000, 3000), 1),
        on(copy("DtoH", "device", "pinned", 1 << 20, 4000, 5000), 0),
        on(copy("HtoD", "pinned", "device", 1 << 20, 6000, 7000), 0),
        on(copy("HtoD", "pinned", "device", 4096, 8000, 8500), 1),
    }));
    EXPECT_EQ(f.at("staged_peer_copies"), 1);
    EXPECT_EQ(f.at("staged_peer_bytes"), 1 << 20);
    EXPECT_NEAR(f.at("staged_peer_ms"), 0.002, 1e-12);
}

// The occupancy calculator's arithmetic on an H100's SM (64 warps, 32
// blocks, 65536 registers, 228 KiB of shared memory).
TEST(ExplainTrace, TheoreticalOccupancyNamesWhatLimitsIt) {
    const std::string device = R"({"type":"device","id":0,"name":"H100","compute_capability":90,"max_warps_per_sm":64,)"
                               R"("max_blocks_per_sm":32,"registers_per_sm":65536,"shared_per_sm":233472})";
    auto launch = [](int threads, int registers, int shared) {
        return "{\"type\":\"kernel\",\"name\":\"_Z1kv\",\"device\":0,\"grid\":[1024,1,1],\"block\":[" + std::to_string(threads) +
               ",1,1],\"registers\":" + std::to_string(registers) + ",\"dynamic_shared\":" + std::to_string(shared) +
               ",\"start\":10,\"end\":20}";
    };
    auto figures = [&](int threads, int registers, int shared) {
        const auto r = records({device, launch(threads, registers, shared)});
        return kernel_occupancy_figures(r, summarize_kernels(r)[0]);
    };
    const auto by_shared = figures(128, 32, 100 * 1024);  // 2 blocks of 101 KiB with the reserved 1 KiB
    EXPECT_EQ(by_shared.at("blocks_per_sm"), 2);
    EXPECT_DOUBLE_EQ(by_shared.at("theoretical_occupancy"), 8.0 / 64);
    EXPECT_EQ(by_shared.at("occupancy_limited_by_shared"), 1);
    EXPECT_EQ(by_shared.at("occupancy_limited_by_registers"), 0);
    const auto by_registers = figures(256, 255, 0);  // 8 warps of 8192 registers: one block
    EXPECT_EQ(by_registers.at("blocks_per_sm"), 1);
    EXPECT_EQ(by_registers.at("occupancy_limited_by_registers"), 1);
    const auto full = figures(256, 32, 512);  // the warps limit: 8 blocks, every warp
    EXPECT_DOUBLE_EQ(full.at("theoretical_occupancy"), 1.0);
    EXPECT_EQ(full.at("occupancy_limited_by_registers") + full.at("occupancy_limited_by_shared"), 0);
    const auto old = records({R"({"type":"device","id":0,"name":"H100","compute_capability":90})", launch(128, 32, 0)});
    EXPECT_TRUE(kernel_occupancy_figures(old, summarize_kernels(old)[0]).count("theoretical_occupancy") == 0);
}
