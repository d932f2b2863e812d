#include "core/measurement/harness.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "core/units.hpp"

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

double memcpy_peak_gbs(ContextState &ctx) {
    if (ctx.memcpy_gbs > 0) return ctx.memcpy_gbs;
    // Large enough to leave L2 far behind, small enough for any budget.
    std::size_t bytes = std::max<std::size_t>(4 * ctx.info().l2_bytes, 256 * kMiB);
    bytes = std::min(bytes, ctx.memory_budget() / 2);
    bytes = bytes / 256 * 256;
    if (bytes == 0) fail(GM_ERROR_OUT_OF_MEMORY, "no device memory left to measure the copy peak");
    DeviceArray src(ctx, bytes), dst(ctx, bytes);
    GM_CUDA(cudaMemsetAsync(src.get(), 1, bytes, ctx.stream()));
    Stats t = time_launch(ctx, [&](cudaStream_t s) {
        return cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s);
    });
    ctx.memcpy_gbs = bandwidth_gbs(2.0 * static_cast<double>(bytes), t.median);
    return ctx.memcpy_gbs;
}

}  // namespace gmlab
