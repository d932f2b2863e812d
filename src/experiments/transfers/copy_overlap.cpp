// Experiment family "copy overlap": the guide's staged concurrent copy and
// execute. Pinned input is copied in, transformed by a kernel and copied back,
// once serially on one stream and once in chunks spread over several streams
// so that copies of one chunk overlap the kernel of another.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/device/host_memory.hpp"
#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "core/units.hpp"
#include "experiments/common/point_checks.hpp"
#include "experiments/common/transfer_common.hpp"
#include "experiments/transfers/streams.hpp"
#include "experiments/transfers/transfers.cuh"

namespace gmlab {

namespace {

constexpr std::uint32_t kSeed = 0x0e1a;

// The affine step applied k times is x -> a x + b (mod 2^32).
void affine_power(unsigned k, std::uint32_t *a, std::uint32_t *b) {
    std::uint32_t ra = 1, rb = 0;
    for (unsigned i = 0; i < k; ++i) {
        ra = ra * kernels::kAffineA;
        rb = rb * kernels::kAffineA + kernels::kAffineB;
    }
    *a = ra;
    *b = rb;
}

// Finish time of S equal chunks through three stages of times a, b, c (whole
// array), where each stage works on one chunk at a time and the stages run
// concurrently: the sum of one chunk's stages plus (S - 1) chunks of the slowest.
double pipeline_ms(double a, double b, double c, int chunks) {
    const double s = chunks;
    return (a + b + c) / s + (s - 1) * std::max({a, b, c}) / s;
}

// The headline figures.
const Figure kSpeedup{"speedup_{streams}_streams", "ratio", Better::Higher,
                      "time of copy in, kernel, copy out serially on one stream over the time of the same work in "
                      "{streams} chunks on {streams} streams"};
const Figure kIterations{"iterations", "count", Better::Neither, "affine steps per element the kernel ran"};
const Figure kH2dMs{"h2d_ms", "ms", Better::Lower, "time of one cudaMemcpyAsync of the whole pinned array, host to device"};
const Figure kKernelMs{"kernel_ms", "ms", Better::Neither,
                       "time of the kernel over the whole array (set by iterations, chosen to match h2d_ms when 0)"};
const Figure kD2hMs{"d2h_ms", "ms", Better::Lower, "time of one cudaMemcpyAsync of the whole pinned array, device to host"};
const Figure kIdealSpeedup{"ideal_speedup", "ratio", Better::Neither,
                           "the pipeline model's limit for many chunks: the three stages' summed time over the slowest's"};

// copy_overlap's arrays and streams: pinned input and output, their device
// copies, and a stream and join event per chunk, forked from the harness's stream.
class OverlapPipeline {
public:
    OverlapPipeline(ContextState &ctx, std::size_t n, long long max_streams)
        : n_(n), bytes_(n * 4), sms_(ctx.info().multiprocessors), hin_(bytes_, cudaHostAllocDefault, "copy_overlap input"),
          hout_(bytes_, cudaHostAllocDefault, "copy_overlap output"), din_(ctx, bytes_), dout_(ctx, bytes_), fork_(ctx.device()) {
        fill_pattern_host(hin_.get(), bytes_, kSeed);
        streams_.reserve(static_cast<std::size_t>(max_streams));
        joins_.reserve(static_cast<std::size_t>(max_streams));
        for (long long i = 0; i < max_streams; ++i) {
            streams_.emplace_back(ctx.device());
            joins_.emplace_back(ctx.device());
        }
    }

    // S = 1: everything in order on the harness's stream. S > 1: chunk i on
    // stream i, forked from and joined back into the harness's stream.
    Launch pipeline(int S, unsigned k) const {
        return [this, S, k](cudaStream_t s) -> cudaError_t {
            if (S == 1) return stage(0, n_, k, s);
            std::vector<Lane> lanes;
            for (int i = 0; i < S; ++i) lanes.push_back({streams_[i].get(), joins_[i].get()});
            const std::size_t chunk = (n_ + S - 1) / S;
            return fork_join(s, fork_.get(), lanes, [&]() -> cudaError_t {
                for (int i = 0; i < S; ++i) {
                    const std::size_t first = std::min(n_, i * chunk);
                    if (cudaError_t e = stage(first, std::min(chunk, n_ - first), k, lanes[i].stream); e != cudaSuccess)
                        return e;
                }
                return cudaSuccess;
            });
        };
    }
    Launch copy_in() const {
        return [this](cudaStream_t s) { return cudaMemcpyAsync(din_.get(), hin_.get(), bytes_, cudaMemcpyHostToDevice, s); };
    }
    Launch copy_out() const {
        return [this](cudaStream_t s) { return cudaMemcpyAsync(hout_.get(), dout_.get(), bytes_, cudaMemcpyDeviceToHost, s); };
    }
    Launch kernel(unsigned k) const {
        return [this, k](cudaStream_t s) {
            return kernels::launch_affine_loop(din_.as<std::uint32_t>(), dout_.as<std::uint32_t>(), n_, k, sms_, s);
        };
    }

    // The pipeline with S streams, checked against the host's closed form of
    // k affine steps: the device output poisoned by the harness, the host
    // output here.
    CheckedLaunch checked(int S, unsigned k, Result &out) {
        std::uint32_t a = 1, b = 0;
        affine_power(k, &a, &b);
        CheckedLaunch c;
        c.launch = pipeline(S, k);
        c.poison = {{dout_.get(), bytes_}};
        c.check = [this, S, a, b, &out] {
            const auto *in = hin_.as<std::uint32_t>();
            const auto *got = hout_.as<std::uint32_t>();
            verify_equal(got, n_, [&](std::uint64_t i) { return a * in[i] + b; },
                         "copy_overlap with " + std::to_string(S) + " streams",
                         "every output word compared with the host's closed form of the kernel's affine loop", out);
        };
        std::memset(hout_.get(), 0, bytes_);
        return c;
    }
    std::size_t bytes() const { return bytes_; }

private:
    // One chunk through all three stages on one stream.
    cudaError_t stage(std::size_t first, std::size_t count, unsigned k, cudaStream_t s) const {
        if (count == 0) return cudaSuccess;
        const auto *in = hin_.as<std::uint32_t>();
        auto *out = hout_.as<std::uint32_t>();
        auto *dev_in = din_.as<std::uint32_t>();
        auto *dev_out = dout_.as<std::uint32_t>();
        if (cudaError_t e = cudaMemcpyAsync(dev_in + first, in + first, count * 4, cudaMemcpyHostToDevice, s); e != cudaSuccess)
            return e;
        if (cudaError_t e = kernels::launch_affine_loop(dev_in + first, dev_out + first, count, k, sms_, s); e != cudaSuccess)
            return e;
        return cudaMemcpyAsync(out + first, dev_out + first, count * 4, cudaMemcpyDeviceToHost, s);
    }

    std::size_t n_, bytes_;
    int sms_;
    PinnedHostBuffer hin_, hout_;
    DeviceArray din_, dout_;
    std::vector<OwnedStream> streams_;
    std::vector<SyncEvent> joins_;
    SyncEvent fork_;
};

// The stages alone, whole array: for the kernel's length and for the model.
struct StageTimes {
    double h2d_ms, kernel_ms, d2h_ms;
    unsigned k;
};

StageTimes time_stages(ContextState &ctx, const OverlapPipeline &pipe, unsigned iterations) {
    StageTimes t{};
    t.h2d_ms = time_launch(ctx, pipe.copy_in()).median;
    t.d2h_ms = time_launch(ctx, pipe.copy_out()).median;
    auto kernel_ms = [&](unsigned k) { return time_launch(ctx, pipe.kernel(k)).median; };
    t.k = iterations;
    if (t.k == 0) {
        // Kernel time is close to linear in k: two points give the k whose
        // kernel takes as long as the host-to-device copy.
        const unsigned k1 = 64, k2 = 512;
        const double t1 = kernel_ms(k1), t2 = kernel_ms(k2);
        const double slope = (t2 - t1) / (k2 - k1), base = t1 - slope * k1;
        double want = slope > 0 ? (t.h2d_ms - base) / slope : k2 * t.h2d_ms / t2;
        want = std::min(std::max(want, 1.0), static_cast<double>(1 << 20));
        t.k = static_cast<unsigned>(want + 0.5);
    }
    t.kernel_ms = kernel_ms(t.k);
    return t;
}

void run_copy_overlap(ContextState &ctx, const Params &params, Result &out) {
    use_host_link_reference(ctx.info(), 2, out);
    std::vector<long long> counts = params.integers("streams");
    if (std::find(counts.begin(), counts.end(), 1) == counts.end()) counts.insert(counts.begin(), 1);  // the baseline
    std::sort(counts.begin(), counts.end());
    const std::size_t n = params.size("bytes") / 4;
    const long long max_streams = counts.back();
    if (n < static_cast<std::size_t>(max_streams))
        invalid("bytes must hold at least one 4-byte word per stream (" + std::to_string(max_streams) + "), got " +
                std::to_string(params.size("bytes")));
    const std::size_t bytes = n * 4;
    require_memory(ctx, 2 * bytes, "copy_overlap (device input and output)");
    require_host_memory(2 * bytes, ctx.settings.memory_fraction, "copy_overlap (pinned input and output)");
    OverlapPipeline pipe(ctx, n, max_streams);
    const StageTimes t = time_stages(ctx, pipe, static_cast<unsigned>(params.integer("iterations")));

    Series s;
    s.name = "copy in, kernel, copy out over N streams";
    s.variant = "streams";
    s.x_name = "streams";
    s.x_unit = "streams";
    s.y_field = "speedup_over_serial";
    s.y_name = "speed-up over one stream";
    s.y_unit = "x";
    // The bytes cross the host link both ways; the speed-up is the headline.
    s.quantity = Quantity::LinkBandwidth;
    s.attributes = {{"bytes", bytes}, {"iterations", t.k}};
    double serial_ms = 0;
    for (long long S_ll : counts) {
        const int S = static_cast<int>(S_ll);
        Point p;
        p.x = S;
        p.bytes = 2.0 * static_cast<double>(bytes);  // copied in and copied out
        measure_checked(ctx, pipe.checked(S, t.k, out), p, out);
        if (S == 1) serial_ms = p.time_ms.median;
        p.values["speedup_over_serial"] = serial_ms / p.time_ms.median;
        p.predicted["speedup_over_serial"] =
            (t.h2d_ms + t.kernel_ms + t.d2h_ms) / pipeline_ms(t.h2d_ms, t.kernel_ms, t.d2h_ms, S);
        out.record(kSpeedup, p.values["speedup_over_serial"], {{"streams", std::to_string(S)}});
        s.points.push_back(std::move(p));
    }
    out.series.push_back(std::move(s));
    out.record(kIterations, t.k);
    out.record(kH2dMs, t.h2d_ms);
    out.record(kKernelMs, t.kernel_ms);
    out.record(kD2hMs, t.d2h_ms);
    out.record(kIdealSpeedup, (t.h2d_ms + t.kernel_ms + t.d2h_ms) / std::max({t.h2d_ms, t.kernel_ms, t.d2h_ms}));
    out.notes.push_back("Serial (1 stream): the whole array is copied in, transformed and copied back in order on one stream. "
                        "N streams: the array is cut into N chunks and chunk i goes through the same three steps on stream i, "
                        "so the copy of one chunk overlaps the kernel of another (the guide's staged concurrent copy and "
                        "execute). Host memory is pinned: asynchronous copies need it to overlap.");
    out.notes.push_back("The kernel applies x <- 1664525 x + 1013904223 (mod 2^32) `iterations` times per element; with "
                        "iterations = 0 it is chosen so that the kernel takes about as long as the host-to-device copy "
                        "(summary: iterations, h2d_ms, kernel_ms, d2h_ms). predicted.speedup_over_serial is the pipeline model "
                        "(sum of one chunk's stages + (N - 1) x the slowest stage's chunk), which assumes separate copy engines "
                        "for the two directions; ideal_speedup is its limit for many chunks.");
}

Chart copy_overlap_chart() {
    Chart c;
    c.kind = "line";
    c.x_title = "streams (chunks)";
    c.prediction = "predicted.speedup_over_serial";
    c.prediction_relative = false;
    c.prediction_label = "pipeline model";
    c.explanation = "Copy in, kernel, copy out on pinned memory, serially on one stream or in chunks over N streams so that "
                    "the copies of one chunk overlap the kernel of another (the guide's staged concurrent copy and execute). "
                    "With the three steps about equally long the speed-up approaches 3; the dashed line is the pipeline model.";
    return c;
}

}  // namespace

void add_copy_overlap_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "copy_overlap";
    e.guide_section = "Best Practices Guide: Asynchronous and Overlapping Transfers with Computation";
    e.summary = "Copy in, kernel, copy out on pinned memory: serial on one stream against chunks pipelined over 2, 4, 8 streams.";
    e.params = {
        size_param("bytes", 256LL << 20, 4, 1LL << 36, "bytes copied in (and out)"),
        int_list_param("streams", {1, 2, 4, 8}, 1, 64, "numbers of streams (and chunks); 1 is always measured as the baseline",
                       "streams"),
        int_param("iterations", 0, 0, 1 << 20, "affine steps per element in the kernel; 0: as long as the host-to-device copy"),
    };
    e.axes = {{}, "streams"};  // Its series runs along the stream counts (with 1, sorted).
    e.run = run_copy_overlap;
    e.quick = {{"bytes", 16 * kMiB}, {"streams", {1, 2}}};
    e.figures = {kSpeedup, kIterations, kH2dMs, kKernelMs, kD2hMs, kIdealSpeedup, host_link_figure()};
    e.compared = {
        {"speedup_4_streams", "speed-up over serial, 4 streams"},
    };
    e.chart = copy_overlap_chart();
    out.push_back(std::move(e));
}

}  // namespace gmlab
