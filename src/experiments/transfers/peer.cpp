// Experiment family "peer to peer": copies between the memories of two GPUs
// of one host. For every ordered pair of the devices taken part: copy-engine
// bandwidth (cudaMemcpyPeerAsync), a kernel on the destination reading the
// source's memory directly, the latency of small copies, and both directions
// at once. With fewer than two devices the result says it is not applicable.
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/registry.hpp"
#include "core/units.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "experiments/transfers/streams.hpp"
#include "experiments/common/transfer_common.hpp"
#include "experiments/transfers/transfers.cuh"
#include "shared_kernels/fill_pattern.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

constexpr std::uint32_t kSeed = 0x9ee7;

std::uint32_t seed_of(int device) { return kSeed + static_cast<std::uint32_t>(device) * 7919u; }

// Device memory on any device, freed with that device current; counted against
// the context's peak when it is the context's own device.
class PeerArray {
public:
    PeerArray(ContextState &ctx, int device, std::size_t bytes) : ctx_(&ctx), device_(device), bytes_(bytes) {
        DeviceGuard g;
        GM_CUDA(cudaSetDevice(device));
        ptr_ = device_malloc(bytes);
        if (device == ctx.device()) ctx.note_alloc(bytes);
    }
    ~PeerArray() {
        if (!ptr_) return;
        int cur = 0;
        cudaGetDevice(&cur);
        cudaSetDevice(device_);
        cudaFree(ptr_);
        cudaSetDevice(cur);
        if (device_ == ctx_->device()) ctx_->note_free(bytes_);
    }
    PeerArray(const PeerArray &) = delete;
    PeerArray &operator=(const PeerArray &) = delete;
    void *get() const { return ptr_; }

private:
    ContextState *ctx_;
    int device_;
    void *ptr_ = nullptr;
    std::size_t bytes_;
};

// Enables access from `from` to the memory of `to` where the hardware allows,
// and disables it again on destruction, but only if this object enabled it:
// the device state is left as it was found.
class PeerAccess {
public:
    PeerAccess(int from, int to) : from_(from), to_(to) {
        int can = 0;
        GM_CUDA(cudaDeviceCanAccessPeer(&can, from, to));
        possible_ = can != 0;
        if (!possible_) return;
        DeviceGuard g;
        GM_CUDA(cudaSetDevice(from));
        cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled) {
            (void)cudaGetLastError();
            return;
        }
        GM_CUDA(e);
        enabled_here_ = true;
    }
    ~PeerAccess() {
        if (!enabled_here_) return;
        int cur = 0;
        cudaGetDevice(&cur);
        cudaSetDevice(from_);
        cudaDeviceDisablePeerAccess(to_);
        cudaSetDevice(cur);
    }
    PeerAccess(const PeerAccess &) = delete;
    PeerAccess &operator=(const PeerAccess &) = delete;
    bool possible() const { return possible_; }

private:
    int from_, to_;
    bool possible_ = false, enabled_here_ = false;
};

// What each device taking part holds: a source filled with its pattern, a
// destination, a stream and an event to join the context's stream with.
struct Side {
    int device;
    int multiprocessors = 0;
    std::unique_ptr<PeerArray> src, dst;
    std::unique_ptr<OwnedStream> stream;
    std::unique_ptr<SyncEvent> join;
};

void require_memory_on(ContextState &ctx, int device, std::size_t bytes) {
    if (device == ctx.device()) {
        require_memory(ctx, bytes, "peer (source and destination on device " + std::to_string(device) + ")");
        return;
    }
    DeviceGuard g;
    GM_CUDA(cudaSetDevice(device));
    std::size_t free_b = 0, total_b = 0;
    GM_CUDA(cudaMemGetInfo(&free_b, &total_b));
    const auto budget = static_cast<std::size_t>(ctx.settings.memory_fraction * static_cast<double>(free_b));
    if (bytes > budget)
        fail(GM_ERROR_OUT_OF_MEMORY, "peer needs " + std::to_string(bytes) + " bytes on device " + std::to_string(device) +
                                         ", more than its budget of " + std::to_string(budget) + " bytes (memory_fraction " +
                                         std::to_string(ctx.settings.memory_fraction) + " of " + std::to_string(free_b) +
                                         " bytes free); ask for less");
}

// The context's device first, then the chosen peers (every other device by default).
std::vector<int> devices_taking_part(ContextState &ctx, const Params &params, int count) {
    const std::vector<long long> peers = params.integers("peers");
    const int self = ctx.device();
    std::vector<int> out = {self};
    const bool all = peers.size() == 1 && peers[0] == -1;
    for (long long p : peers) {
        if (p == -1 && !all) invalid("peers: -1 (every other device) cannot be combined with device numbers");
        if (p == -1) continue;
        if (p == self)
            invalid("peers must not include the context's own device " + std::to_string(self) +
                    ": a pair needs two different devices");
        if (p < 0 || p >= count)
            invalid("peers must be devices in 0.." + std::to_string(count - 1) + " other than the context's device " +
                    std::to_string(self) + ", got " + std::to_string(p) + " (this machine has " + std::to_string(count) +
                    " CUDA device" + (count == 1 ? "" : "s") + ")");
        out.push_back(static_cast<int>(p));
    }
    if (all)
        for (int d = 0; d < count; ++d)
            if (d != self) out.push_back(d);
    return out;
}

void poison(const Side &s, std::size_t bytes) {
    DeviceGuard g;
    GM_CUDA(cudaSetDevice(s.device));
    GM_CUDA(cudaMemsetAsync(s.dst->get(), 0xA5, bytes, s.stream->get()));
    GM_CUDA(cudaStreamSynchronize(s.stream->get()));
}

// The first `bytes` of dst on `to` must be the pattern of `from`.
void check_dst(const Side &to, const Side &from, std::size_t bytes, const std::string &what, Result &out) {
    std::vector<unsigned char> got(bytes), want(bytes);
    {
        DeviceGuard g;
        GM_CUDA(cudaSetDevice(to.device));
        GM_CUDA(cudaMemcpy(got.data(), to.dst->get(), bytes, cudaMemcpyDefault));
    }
    fill_pattern_host(want.data(), bytes, seed_of(from.device));
    check_same_bytes(got.data(), want.data(), bytes, what, out);
}

// Each device's arrays (the source filled with its pattern), stream and
// event.
std::vector<Side> open_sides(ContextState &ctx, const std::vector<int> &devs, std::size_t bytes) {
    std::vector<Side> sides(devs.size());
    for (std::size_t i = 0; i < devs.size(); ++i) {
        Side &s = sides[i];
        s.device = devs[i];
        GM_CUDA(cudaDeviceGetAttribute(&s.multiprocessors, cudaDevAttrMultiProcessorCount, s.device));
        s.src = std::make_unique<PeerArray>(ctx, s.device, bytes);
        s.dst = std::make_unique<PeerArray>(ctx, s.device, bytes);
        s.stream = std::make_unique<OwnedStream>(s.device);
        s.join = std::make_unique<SyncEvent>(s.device);
        DeviceGuard g;
        GM_CUDA(cudaSetDevice(s.device));
        GM_CUDA(kernels::launch_fill_pattern(static_cast<std::uint32_t *>(s.src->get()), bytes / 4, seed_of(s.device),
                                             s.stream->get()));
        GM_CUDA(cudaStreamSynchronize(s.stream->get()));
    }
    return sides;
}

// Once every pair is measured: each series' extremes, the pairs and who can
// access whom in the summary, the series into the result, and the notes.
void finish_peer(Result &out, int context_device, const std::vector<Side> &sides,
                 const std::function<bool(std::size_t, std::size_t)> &can, const nlohmann::json &labels, std::size_t bytes,
                 int pairs_with_access, Series &ce, Series &kr, Series &lat, Series &bi) {
    auto finish = [&](Series &s) {
        s.attributes = {{"pairs", labels}, {"bytes", bytes}};
        if (!s.points.empty()) out.series.push_back(std::move(s));
    };
    const double n_pairs = static_cast<double>(labels.size());
    auto extremes = [&](const Series &s, const std::string &key, bool latency) {
        if (s.points.empty()) return;
        double lo = 1e300, hi = 0;
        for (const Point &p : s.points) {
            const double v = latency ? p.values.at("latency_us") : bandwidth_gbs(p.bytes, p.time_ms.median);
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        out.summary_values[key + "_min"] = lo;
        out.summary_values[key + "_max"] = hi;
    };
    extremes(ce, "copy_gbs", false);
    extremes(kr, "kernel_read_gbs", false);
    extremes(lat, "latency_us", true);
    extremes(bi, "bidirectional_gbs", false);
    finish(ce);
    finish(kr);
    finish(lat);
    finish(bi);
    out.summary_values["pairs"] = n_pairs;
    out.summary_values["pairs_with_peer_access"] = pairs_with_access;
    for (std::size_t a = 0; a < sides.size(); ++a)
        for (std::size_t b = 0; b < sides.size(); ++b)
            if (a != b)
                out.summary_values["can_access_peer_" + std::to_string(sides[a].device) + "_" + std::to_string(sides[b].device)] =
                    can(a, b) ? 1 : 0;
    out.notes.push_back("Pairs are ordered (source->destination) and listed in each series' attributes.pairs; x is the index "
                        "into that list. The context's device is " + std::to_string(context_device) + "; the peers are the "
                        "other devices taking part. can_access_peer_A_B is cudaDeviceCanAccessPeer(A, B): A's kernels can "
                        "read B's memory.");
    out.notes.push_back("copy: cudaMemcpyPeerAsync of `bytes` on a stream of the source device; where peer access is not "
                        "possible the driver stages the copy through host memory. kernel_read: a kernel on the destination "
                        "copies the source's memory into its own through the peer mapping (only where access is possible). "
                        "latency: latency_copies back-to-back copies of latency_bytes, time per copy. bidirectional: a copy in "
                        "each direction at once, bytes counted for both. Peer access is enabled for the run and disabled "
                        "afterwards where this run enabled it.");
}

void run_peer(ContextState &ctx, const Params &params, Result &out) {
    DeviceGuard restore;  // whatever happens, the context's device is current again afterwards
    int count = 0;
    GM_CUDA(cudaGetDeviceCount(&count));
    const std::vector<int> devs = devices_taking_part(ctx, params, count);
    out.summary_values["devices"] = count;
    if (devs.size() < 2) {
        out.not_applicable("peer needs two or more CUDA devices; this machine has " + std::to_string(count) +
                           ", so there is no pair to measure. The result is empty on purpose: not applicable, not a failure.");
        return;
    }
    std::size_t bytes = params.size("bytes") / 16 * 16;
    if (bytes == 0) invalid("bytes must be at least 16, got " + std::to_string(params.size("bytes")));
    const std::size_t lat_bytes = params.size("latency_bytes");
    if (lat_bytes > bytes)
        invalid("latency_bytes (" + std::to_string(lat_bytes) + ") must not exceed bytes (" + std::to_string(bytes) + ")");
    const int lat_copies = static_cast<int>(params.integer("latency_copies"));
    const bool all_pairs = params.flag("all_pairs");
    for (int d : devs) require_memory_on(ctx, d, 2 * bytes);

    std::vector<Side> sides = open_sides(ctx, devs, bytes);
    GM_CUDA(cudaSetDevice(ctx.device()));
    SyncEvent fork(ctx.device());
    // Access in both directions of every pair, enabled for the whole run and
    // disabled (where this run enabled it) when these guards go.
    std::vector<std::unique_ptr<PeerAccess>> access;
    auto can = [&](std::size_t from, std::size_t to) {
        return access[from * sides.size() + to] && access[from * sides.size() + to]->possible();
    };
    for (std::size_t a = 0; a < sides.size(); ++a)
        for (std::size_t b = 0; b < sides.size(); ++b)
            access.push_back(a == b ? nullptr : std::make_unique<PeerAccess>(sides[a].device, sides[b].device));

    // Work on other devices' streams, timed on the context's stream: fork from
    // it, join back into it (the harness's hold kernel keeps all of it queued).
    auto forked = [&](std::vector<const Side *> on, auto body) {
        return [&, on, body](cudaStream_t s) -> cudaError_t {
            if (cudaError_t e = cudaEventRecord(fork.get(), s); e != cudaSuccess) return e;
            for (const Side *x : on)
                if (cudaError_t e = cudaStreamWaitEvent(x->stream->get(), fork.get(), 0); e != cudaSuccess) return e;
            if (cudaError_t e = body(); e != cudaSuccess) return e;
            for (const Side *x : on)
                if (cudaError_t e = order_after(s, x->stream->get(), x->join->get()); e != cudaSuccess) return e;
            return cudaSuccess;
        };
    };
    auto copy = [&](const Side &from, const Side &to, std::size_t n, cudaStream_t on) {
        return cudaMemcpyPeerAsync(to.dst->get(), to.device, from.src->get(), from.device, n, on);
    };
    cudaStream_t st = ctx.stream();
    auto run_once = [&](const Launch &launch) {
        GM_CUDA(launch(st));
        GM_CUDA(cudaStreamSynchronize(st));
    };

    auto make_series = [](const std::string &name, const std::string &variant) {
        Series s;
        s.name = name;
        s.variant = variant;
        s.x_name = "pair";
        s.x_unit = "index";
        s.quantity = Quantity::LinkBandwidth;  // NVLink or PCIe between the GPUs
        return s;
    };
    Series ce = make_series("copy engine, cudaMemcpyPeerAsync", "copy");
    Series kr = make_series("kernel on the destination reading the source's memory", "kernel_read");
    Series lat = make_series("latency of " + size_text(lat_bytes) + " copies", "latency");
    lat.quantity = Quantity::Latency;
    lat.y_field = "latency_us";
    lat.y_name = "time per copy";
    lat.y_unit = "us";
    Series bi = make_series("both directions at once, copy engine", "bidirectional");
    nlohmann::json labels = nlohmann::json::array();
    int pairs_with_access = 0;
    for (std::size_t a = 0; a < sides.size(); ++a) {
        for (std::size_t b = 0; b < sides.size(); ++b) {
            if (a == b || (!all_pairs && a != 0 && b != 0)) continue;
            const Side &A = sides[a], &B = sides[b];
            const std::string pair = std::to_string(A.device) + "->" + std::to_string(B.device);
            const double x = static_cast<double>(labels.size());
            labels.push_back(pair);
            auto values = [&](Point &p) {
                p.x = x;
                p.values["src"] = A.device;
                p.values["dst"] = B.device;
                p.values["peer_access"] = can(b, a) || can(a, b) ? 1 : 0;
            };
            pairs_with_access += can(a, b) || can(b, a) ? 1 : 0;
            // Runs l once untimed, checks what it wrote with `check`, then times it
            // into a point of `series` with `moved` bytes (0: a latency, no bandwidth).
            auto measure = [&](const Launch &l, const std::function<void()> &check, double moved, Series &series) -> Point & {
                run_once(l);
                check();
                Point p;
                values(p);
                p.bytes = moved;
                p.time_ms = time_launch(ctx, l);
                series.points.push_back(std::move(p));
                return series.points.back();
            };
            {
                Launch l = forked({&A}, [&] { return copy(A, B, bytes, A.stream->get()); });
                poison(B, bytes);
                measure(l, [&] { check_dst(B, A, bytes, "peer copy " + pair, out); }, static_cast<double>(bytes), ce);
            }
            if (can(b, a)) {  // B's kernel reads A's memory
                Launch l = forked({&B}, [&]() -> cudaError_t {
                    int cur = 0;
                    if (cudaError_t e = cudaGetDevice(&cur); e != cudaSuccess) return e;
                    if (cudaError_t e = cudaSetDevice(B.device); e != cudaSuccess) return e;
                    cudaError_t e = kernels::launch_copy_words(A.src->get(), B.dst->get(), bytes / 16, B.multiprocessors,
                                                               B.stream->get());
                    cudaSetDevice(cur);
                    return e;
                });
                poison(B, bytes);
                measure(l, [&] { check_dst(B, A, bytes, "peer kernel read " + pair, out); }, static_cast<double>(bytes), kr);
            }
            {
                Launch l = forked({&A}, [&]() -> cudaError_t {
                    for (int i = 0; i < lat_copies; ++i)
                        if (cudaError_t e = copy(A, B, lat_bytes, A.stream->get()); e != cudaSuccess) return e;
                    return cudaSuccess;
                });
                poison(B, bytes);
                Point &p = measure(l, [&] { check_dst(B, A, lat_bytes, "peer latency copies " + pair, out); }, 0.0, lat);
                p.values["latency_us"] = p.time_ms.median * 1e3 / lat_copies;
            }
            if (a < b) {
                Launch l = forked({&A, &B}, [&]() -> cudaError_t {
                    if (cudaError_t e = copy(A, B, bytes, A.stream->get()); e != cudaSuccess) return e;
                    return copy(B, A, bytes, B.stream->get());
                });
                poison(A, bytes);
                poison(B, bytes);
                measure(l, [&] {
                    check_dst(B, A, bytes, "peer bidirectional " + pair, out);
                    check_dst(A, B, bytes, "peer bidirectional " + std::to_string(B.device) + "->" + std::to_string(A.device), out);
                }, 2.0 * static_cast<double>(bytes), bi);
            }
        }
    }
    finish_peer(out, ctx.device(), sides, can, labels, bytes, pairs_with_access, ce, kr, lat, bi);
}

}  // namespace

void add_peer_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "peer";
    e.guide_section = "Programming Guide: Peer-to-Peer Memory Access and Copy";
    e.summary = "Between every ordered pair of GPUs: peer copy bandwidth (copy engine and a kernel reading the peer), "
                "small-copy latency, both directions at once; not applicable with one GPU.";
    e.params = {
        size_param("bytes", 64LL << 20, 16, 1LL << 36, "bytes per bandwidth copy (rounded down to a multiple of 16)"),
        size_param("latency_bytes", 4, 1, 1LL << 20, "bytes per latency copy"),
        int_param("latency_copies", 100, 1, 10000, "back-to-back copies per latency measurement", "copies"),
        int_list_param("peers", {-1}, -1, 1023, "peer devices (other than the context's); -1: every other device"),
        bool_param("all_pairs", true, "every ordered pair of the devices taking part; false: only pairs with the context's device"),
    };
    e.run = run_peer;
    e.quick = {{"bytes", kMiB}, {"latency_copies", 10}};
    out.push_back(std::move(e));
}

}  // namespace gmlab
