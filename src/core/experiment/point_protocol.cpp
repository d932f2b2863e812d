#include "core/experiment/point_protocol.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <string>

#include "core/error.hpp"

namespace gmlab {

void run_checked(ContextState &ctx, const CheckedLaunch &point) {
    cudaStream_t st = ctx.stream();
    for (const DeviceRange &r : point.poison) GM_CUDA(cudaMemsetAsync(r.ptr, 0xFF, r.bytes, st));
    GM_CUDA(point.launch(st));
    if (point.download) point.download(st);
    GM_CUDA(cudaStreamSynchronize(st));
    if (point.check) point.check();
}

void measure_checked(ContextState &ctx, const CheckedLaunch &point, Point &p, Result &out, const CounterSet *counters) {
    run_checked(ctx, point);
    p.time_ms = time_launch(ctx, point.launch, Prepare(), point.reads_only ? L2Before::FlushedClean : L2Before::Flushed);
    if (counters) measure_counters(ctx, point.launch, *counters, p, out);
}

std::function<void(cudaStream_t)> download_to(void *host, const void *device, std::size_t bytes) {
    return [=](cudaStream_t st) { GM_CUDA(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, st)); };
}

void measure_counters(ContextState &ctx, const Launch &launch, const CounterSet &set, Point &p, Result &out) {
    measure_counters(ctx, launch, set, p, out, ctx.settings.flush_l2);
}

namespace {

// One counted launch (harness.hpp), `prepare` before each pass: it enqueues
// and waits, returning a cudaError_t as int.
void count_point(ContextState &ctx, const Launch &launch, const std::function<int()> &prepare, const CounterSet &set,
                 Point &p, Result &out) {
    if (set.empty()) return;
    CounterSession *session = ctx.counter_session();
    if (!session) return;
    // auto: counting takes at most kAutoCountingShare of the time the
    // experiment spends otherwise (a count replays the kernel once per pass and
    // costs 8..80 ms, more than timing most points). The points counted spread
    // over the sweep; the first is always counted. on: every point.
    if (ctx.settings.counters == CounterMode::Auto) {
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - out.measuring_since).count();
        const double counting = session->seconds() - out.counter_seconds_before;
        if (counting > kAutoCountingShare * (elapsed - counting)) {
            ++out.counter_points_skipped;
            return;
        }
    }
    cudaStream_t stream = ctx.stream();
    std::map<std::string, double> values;
    try {
        values = session->count(
            set.metrics,
            [&]() -> int {
                if (cudaError_t err = launch(stream); err != cudaSuccess) return static_cast<int>(err);
                return static_cast<int>(cudaStreamSynchronize(stream));
            },
            prepare);
    } catch (const Error &e) {
        if (e.status() != GM_ERROR_NOT_SUPPORTED) {
            (void)cudaGetLastError();
            throw;
        }
        out.counter_errors.push_back(e.what());
        return;
    }
    // A metric the profiler could not evaluate comes back as NaN: left out of
    // the point (a document holds numbers only) and named once in the result.
    for (auto it = values.begin(); it != values.end();) {
        if (std::isfinite(it->second)) {
            ++it;
            continue;
        }
        const std::string why = "no value for " + it->first + " (the range profiler did not collect it)";
        if (std::find(out.counter_errors.begin(), out.counter_errors.end(), why) == out.counter_errors.end())
            out.counter_errors.push_back(why);
        it = values.erase(it);
    }
    p.counters = std::move(values);
    p.counter_checks = evaluate_counter_set(set, p.counters, p.predicted, &out.counter_errors);
    out.counter_passes = std::max(out.counter_passes, static_cast<int>(session->last_passes()));
}

}  // namespace

void measure_counters(ContextState &ctx, const Launch &launch, const CounterSet &set, Point &p, Result &out, bool flush) {
    count_point(ctx, launch,
                [&]() -> int {
                    if (flush) {
                        try {
                            ctx.flush_and_clean_l2();
                        } catch (const Error &) {
                            return static_cast<int>(cudaErrorLaunchFailure);
                        }
                    }
                    return static_cast<int>(cudaStreamSynchronize(ctx.stream()));
                },
                set, p, out);
}

void measure_counters_prepared(ContextState &ctx, const Launch &launch, const Launch &prepare, const CounterSet &set,
                               Point &p, Result &out) {
    count_point(ctx, launch,
                [&]() -> int {
                    if (cudaError_t err = prepare(ctx.stream()); err != cudaSuccess) return static_cast<int>(err);
                    return static_cast<int>(cudaStreamSynchronize(ctx.stream()));
                },
                set, p, out);
}

}  // namespace gmlab
