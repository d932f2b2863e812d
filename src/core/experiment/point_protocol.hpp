// The point protocol: how every point of an experiment is measured (poisoned
// outputs, one checked run, timing through the harness, counters), filling
// the result's Point and Result: the experiment layer's use of the harness.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include <cuda_runtime_api.h>

#include "core/counters/counters.hpp"
#include "core/device/context.hpp"
#include "core/experiment/result.hpp"
#include "core/measurement/harness.hpp"

namespace gmlab {

// counters = auto: the most that counting may add to an experiment's time, as
// a share of the rest. Enabling the profiler and its configurations costs about
// 5% more outside the counts, so the standard suite takes under a quarter longer.
inline constexpr double kAutoCountingShare = 0.2;

// Counts one more launch, outside the timed ones, with the counters the
// experiment declared (counters.hpp), when the context counts. Before it L2 is
// flushed as before a timed launch and then cleaned of the flush's dirty
// lines, so that the DRAM counters see what the kernel itself moves (as
// Nsight Compute's cache control does). Stores the values, the figures derived from them and the
// agreement with p.predicted (so set the predictions first) in the point. A
// counting failure is recorded in the result (Result::counter_errors), never
// fails the experiment; a failing launch does. With counters = auto a point is
// counted only while the experiment's counting so far stays within
// kAutoCountingShare of its other time (the rest are counted in
// Result::counter_points_skipped); with counters = on every point is counted.
void measure_counters(ContextState &ctx, const Launch &launch, const CounterSet &set, Point &p, Result &out);
// The same with the flush chosen by the experiment: false counts the launch in
// the cache state the previous launches left (a warm pointer chase).
void measure_counters(ContextState &ctx, const Launch &launch, const CounterSet &set, Point &p, Result &out, bool flush);
// The same with the experiment's own preparation before each counted pass
// (enqueued on the context's stream, not counted) in place of the L2 flush:
// for a launch that must find the caches in a state it sets up itself (lines
// just rewritten, so that no copy of them is left where the count would see it).
void measure_counters_prepared(ContextState &ctx, const Launch &launch, const Launch &prepare, const CounterSet &set,
                               Point &p, Result &out);

// The point protocol: how every point of a kernel is measured, in one place,
// so that no time is recorded for output that was not verified first.
//   1. poison: every output range set to 0xFF, a value no correct run leaves,
//      so that a kernel that skips part of its output cannot pass on what an
//      earlier launch wrote;
//   2. run once: the launch, on the context's stream;
//   3. download: the outputs copied to the host (or gathered on the device
//      first), then the stream waited for;
//   4. check: the experiment's comparison with its host reference, which
//      records Result::verified or throws through verification_failed;
//   5. time: the repetitions (time_launch) into the point's time_ms;
//   6. count: the counters the experiment declared, after its predictions
//      (so set p.predicted before).
struct DeviceRange {
    void *ptr = nullptr;
    std::size_t bytes = 0;
};

struct CheckedLaunch {
    Launch launch;
    std::vector<DeviceRange> poison;
    // Enqueues what the check reads on the host (GM_CUDA inside); the stream
    // is waited for before check runs. May be empty.
    std::function<void(cudaStream_t)> download;
    std::function<void()> check;
    // The launch reads DRAM and writes next to nothing (a sum, a partial per
    // block): timed from a clean L2 (L2Before::FlushedClean).
    bool reads_only = false;
};

// Steps 1 to 4: poisons, runs once, downloads and checks.
void run_checked(ContextState &ctx, const CheckedLaunch &point);

// Steps 1 to 6: run_checked, then times into p.time_ms and, with counters,
// counts (measure_counters).
void measure_checked(ContextState &ctx, const CheckedLaunch &point, Point &p, Result &out,
                     const CounterSet *counters = nullptr);

// Copies bytes of device memory to the host on the stream (for
// CheckedLaunch::download).
std::function<void(cudaStream_t)> download_to(void *host, const void *device, std::size_t bytes);

}  // namespace gmlab
