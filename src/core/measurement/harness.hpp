// The measurement harness: the one place where anything is timed.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include <cuda_runtime_api.h>

#include "core/device/context.hpp"
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

// cudaMemcpy device-to-device bandwidth on the context (bytes read + written
// per second), measured once and kept in ctx.memcpy_gbs.
double memcpy_peak_gbs(ContextState &ctx);

// Effective bandwidth as the guide defines it: bytes / time, in GB/s (1e9 B/s).
inline double bandwidth_gbs(double bytes, double milliseconds) {
    return milliseconds > 0 ? bytes / (milliseconds * 1e-3) / 1e9 : 0.0;
}

}  // namespace gmlab
