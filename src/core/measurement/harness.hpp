// The measurement harness: the one place where anything is timed.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include <cuda_runtime_api.h>

#include "core/counters/counters.hpp"
#include "core/device/context.hpp"
#include "core/experiment/result.hpp"
#include "core/measurement/statistics.hpp"

namespace gmlab {

// Enqueues the work to time on the given stream and returns the launch status.
using Launch = std::function<cudaError_t(cudaStream_t)>;

// Times `launch` with CUDA events on the context's stream: settings.warmup
// untimed launches first, then timed launches until both min_repetitions and
// min_time_ms are reached (or max_repetitions). Before each timed launch L2 is
// flushed (settings.flush_l2) or the stream is held by a short busy kernel, so
// that the host's enqueue never falls inside the interval. Milliseconds.
Stats time_launch(ContextState &ctx, const Launch &launch);

// Puts the state a launch starts from back in place (pages back on the host
// before a launch that migrates them); runs before every launch, warm-ups
// included, outside the timed interval, with the context's stream idle, and
// waits for what it enqueues.
using Prepare = std::function<void()>;

// time_launch with `prepare` before each launch, for launches that change the
// state they are measured in (managed memory that migrates as it is read).
Stats time_launch(ContextState &ctx, const Launch &launch, const Prepare &prepare);

// What L2 holds when a timed launch starts, with settings.flush_l2 on.
enum class L2Before {
    // The flush's lines, dirty: their write-back falls into the launch, about
    // as many bytes as a launch that writes leaves of its own in L2 when it
    // ends, so that the two roughly cancel.
    Flushed,
    // Flushed, then cleaned by a read of the same buffer (as before a counted
    // launch): for launches that only read, which leave nothing of their own
    // to write back and would otherwise pay for the flush's dirty lines.
    FlushedClean,
};

// time_launch with `prepare` (may be empty) and the L2 state each timed launch starts from.
Stats time_launch(ContextState &ctx, const Launch &launch, const Prepare &prepare, L2Before before);

// Times `work`, host code that waits for everything it enqueues, with the
// host's steady clock: for what CUDA events cannot time, calls whose cost is
// on the host (cudaMalloc, cudaHostRegister, first touch of pages) and work
// that alternates host and device (a managed-memory ping-pong). The same
// repetition rule as time_launch (settings.warmup untimed calls, then until
// min_repetitions and min_time_ms, or max_repetitions); `prepare` (may be
// empty) runs before each call, untimed. No L2 flush. Milliseconds.
Stats time_host(ContextState &ctx, const std::function<void()> &work, const Prepare &prepare = {});

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

// Effective bandwidth as the guide defines it: bytes / time, in GB/s (1e9 B/s).
inline double bandwidth_gbs(double bytes, double milliseconds) {
    return milliseconds > 0 ? bytes / (milliseconds * 1e-3) / 1e9 : 0.0;
}

}  // namespace gmlab
