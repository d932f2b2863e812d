#include "core/measurement/harness.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "core/error.hpp"

namespace gmlab {

namespace {

// Two events, destroyed on every path.
class EventPair {
public:
    EventPair() {
        GM_CUDA(cudaEventCreate(&start));
        if (cudaError_t err = cudaEventCreate(&stop); err != cudaSuccess) {
            cudaEventDestroy(start);
            GM_CUDA(err);
        }
    }
    ~EventPair() {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
    }
    EventPair(const EventPair &) = delete;
    EventPair &operator=(const EventPair &) = delete;
    cudaEvent_t start = nullptr, stop = nullptr;
};

void checked_launch(const Launch &launch, cudaStream_t stream) {
    GM_CUDA(launch(stream));
}

}  // namespace

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

Stats time_launch(ContextState &ctx, const Launch &launch) { return time_launch(ctx, launch, Prepare()); }

Stats time_launch(ContextState &ctx, const Launch &launch, const Prepare &prepare) {
    return time_launch(ctx, launch, prepare, L2Before::Flushed);
}

Stats time_launch(ContextState &ctx, const Launch &launch, const Prepare &prepare, L2Before before) {
    const Settings &s = ctx.settings;
    cudaStream_t stream = ctx.stream();
    for (int i = 0; i < s.warmup; ++i) {
        if (prepare) {
            GM_CUDA(cudaStreamSynchronize(stream));
            prepare();
        }
        checked_launch(launch, stream);
    }
    GM_CUDA(cudaStreamSynchronize(stream));

    EventPair ev;
    std::vector<double> samples;
    double total_ms = 0;
    while (true) {
        const bool enough = static_cast<int>(samples.size()) >= s.min_repetitions &&
                            total_ms >= s.min_time_ms;
        if (enough || static_cast<int>(samples.size()) >= s.max_repetitions) break;
        if (prepare) {
            GM_CUDA(cudaStreamSynchronize(stream));
            prepare();
        }
        if (s.flush_l2 && before == L2Before::FlushedClean)
            ctx.flush_and_clean_l2();
        else if (s.flush_l2)
            ctx.flush_l2();
        else
            ctx.hold_stream();
        GM_CUDA(cudaEventRecord(ev.start, stream));
        checked_launch(launch, stream);
        GM_CUDA(cudaEventRecord(ev.stop, stream));
        GM_CUDA(cudaEventSynchronize(ev.stop));
        float ms = 0;
        GM_CUDA(cudaEventElapsedTime(&ms, ev.start, ev.stop));
        samples.push_back(ms);
        total_ms += ms;
    }
    return summarize(std::move(samples));
}

Stats time_host(ContextState &ctx, const std::function<void()> &work, const Prepare &prepare) {
    using Clock = std::chrono::steady_clock;
    const Settings &s = ctx.settings;
    for (int i = 0; i < s.warmup; ++i) {
        if (prepare) prepare();
        work();
    }
    std::vector<double> samples;
    double total_ms = 0;
    while (true) {
        const bool enough = static_cast<int>(samples.size()) >= s.min_repetitions && total_ms >= s.min_time_ms;
        if (enough || static_cast<int>(samples.size()) >= s.max_repetitions) break;
        if (prepare) prepare();
        const Clock::time_point t0 = Clock::now();
        work();
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        // A statistic of zero would read as an infinite rate: the clock's
        // resolution is the least a call can have taken.
        samples.push_back(std::max(ms, 1e-6));
        total_ms += ms;
    }
    return summarize(std::move(samples));
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
