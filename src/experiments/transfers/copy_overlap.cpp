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
#include "core/experiment/registry.hpp"
#include "core/units.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "experiments/transfers/streams.hpp"
#include "experiments/common/transfer_common.hpp"
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
    PinnedHostBuffer hin(bytes, cudaHostAllocDefault, "copy_overlap input");
    PinnedHostBuffer hout(bytes, cudaHostAllocDefault, "copy_overlap output");
    DeviceArray din(ctx, bytes), dout(ctx, bytes);
    fill_pattern_host(hin.get(), bytes, kSeed);
    std::vector<OwnedStream> streams;
    std::vector<SyncEvent> joins;
    streams.reserve(static_cast<std::size_t>(max_streams));
    joins.reserve(static_cast<std::size_t>(max_streams));
    for (long long i = 0; i < max_streams; ++i) {
        streams.emplace_back(ctx.device());
        joins.emplace_back(ctx.device());
    }
    SyncEvent fork(ctx.device());
    const int sms = ctx.info().multiprocessors;
    cudaStream_t st = ctx.stream();
    const auto *in_p = hin.as<std::uint32_t>();
    auto *out_p = hout.as<std::uint32_t>();
    auto *dev_in = din.as<std::uint32_t>();
    auto *dev_out = dout.as<std::uint32_t>();

    // One chunk through all three stages on one stream.
    auto stage = [&](std::size_t first, std::size_t count, unsigned k, cudaStream_t s) -> cudaError_t {
        if (count == 0) return cudaSuccess;
        if (cudaError_t e = cudaMemcpyAsync(dev_in + first, in_p + first, count * 4, cudaMemcpyHostToDevice, s); e != cudaSuccess)
            return e;
        if (cudaError_t e = kernels::launch_affine_loop(dev_in + first, dev_out + first, count, k, sms, s); e != cudaSuccess)
            return e;
        return cudaMemcpyAsync(out_p + first, dev_out + first, count * 4, cudaMemcpyDeviceToHost, s);
    };
    // S = 1: everything in order on the harness's stream. S > 1: chunk i on
    // stream i, forked from and joined back into the harness's stream.
    auto pipeline = [&](int S, unsigned k) {
        return [&, S, k](cudaStream_t s) -> cudaError_t {
            if (S == 1) return stage(0, n, k, s);
            if (cudaError_t e = cudaEventRecord(fork.get(), s); e != cudaSuccess) return e;
            const std::size_t chunk = (n + S - 1) / S;
            for (int i = 0; i < S; ++i) {
                cudaStream_t si = streams[i].get();
                if (cudaError_t e = cudaStreamWaitEvent(si, fork.get(), 0); e != cudaSuccess) return e;
                const std::size_t first = std::min(n, i * chunk);
                if (cudaError_t e = stage(first, std::min(chunk, n - first), k, si); e != cudaSuccess) return e;
                if (cudaError_t e = order_after(s, si, joins[i].get()); e != cudaSuccess) return e;
            }
            return cudaSuccess;
        };
    };

    // The three stages alone, whole array, to size the kernel and for the model.
    const double h2d_ms = time_launch(ctx, [&](cudaStream_t s) {
                              return cudaMemcpyAsync(dev_in, in_p, bytes, cudaMemcpyHostToDevice, s);
                          }).median;
    const double d2h_ms = time_launch(ctx, [&](cudaStream_t s) {
                              return cudaMemcpyAsync(out_p, dev_out, bytes, cudaMemcpyDeviceToHost, s);
                          }).median;
    auto kernel_ms = [&](unsigned k) {
        return time_launch(ctx, [&, k](cudaStream_t s) { return kernels::launch_affine_loop(dev_in, dev_out, n, k, sms, s); })
            .median;
    };
    unsigned k = static_cast<unsigned>(params.integer("iterations"));
    if (k == 0) {
        // Kernel time is close to linear in k: two points give the k whose
        // kernel takes as long as the host-to-device copy.
        const unsigned k1 = 64, k2 = 512;
        const double t1 = kernel_ms(k1), t2 = kernel_ms(k2);
        const double slope = (t2 - t1) / (k2 - k1), base = t1 - slope * k1;
        double want = slope > 0 ? (h2d_ms - base) / slope : k2 * h2d_ms / t2;
        want = std::min(std::max(want, 1.0), static_cast<double>(1 << 20));
        k = static_cast<unsigned>(want + 0.5);
    }
    const double k_ms = kernel_ms(k);
    std::uint32_t a = 1, b = 0;
    affine_power(k, &a, &b);

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
    s.attributes = {{"bytes", bytes}, {"iterations", k}};
    double serial_ms = 0;
    for (long long S_ll : counts) {
        const int S = static_cast<int>(S_ll);
        auto launch = pipeline(S, k);
        std::memset(out_p, 0, bytes);
        GM_CUDA(cudaMemsetAsync(dout.get(), 0, bytes, st));
        GM_CUDA(launch(st));
        GM_CUDA(cudaStreamSynchronize(st));
        const std::uint64_t bad = first_mismatch(n, [&](std::uint64_t i) { return out_p[i] == a * in_p[i] + b; });
        if (bad < n)
            verification_failed("copy_overlap with " + std::to_string(S) + " streams", bad, std::to_string(a * in_p[bad] + b),
                                std::to_string(out_p[bad]));
        out.verified(n, "every output word compared with the host's closed form of the kernel's affine loop");
        Point p;
        p.x = S;
        p.bytes = 2.0 * static_cast<double>(bytes);  // copied in and copied out
        p.time_ms = time_launch(ctx, launch);
        if (S == 1) serial_ms = p.time_ms.median;
        p.values["speedup_over_serial"] = serial_ms / p.time_ms.median;
        p.predicted["speedup_over_serial"] = (h2d_ms + k_ms + d2h_ms) / pipeline_ms(h2d_ms, k_ms, d2h_ms, S);
        out.summary_values["speedup_" + std::to_string(S) + "_streams"] = p.values["speedup_over_serial"];
        s.points.push_back(std::move(p));
    }
    out.series.push_back(std::move(s));
    out.summary_values["iterations"] = k;
    out.summary_values["h2d_ms"] = h2d_ms;
    out.summary_values["kernel_ms"] = k_ms;
    out.summary_values["d2h_ms"] = d2h_ms;
    out.summary_values["ideal_speedup"] = (h2d_ms + k_ms + d2h_ms) / std::max({h2d_ms, k_ms, d2h_ms});
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
    e.run = run_copy_overlap;
    e.quick = {{"bytes", 16 * kMiB}, {"streams", {1, 2}}};
    e.figures = {
        {"speedup_4_streams", "ratio", Better::Neither, "speed-up over serial, 4 streams"},
    };
    e.compared = {
        {"speedup_4_streams", "speed-up over serial, 4 streams"},
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
