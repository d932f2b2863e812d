// Experiment family "peer to peer": copies between the memories of two GPUs
// of one host. For every ordered pair of the devices taken part: copy-engine
// bandwidth (cudaMemcpyPeerAsync), a kernel on the destination reading the
// source's memory directly, the latency of small copies, and both directions
// at once; for every device, all others copying to it at once and it copying
// to all others at once (nvbandwidth's all_to_one and one_to_all). With fewer
// than two devices the result says it is not applicable.
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "core/units.hpp"
#include "experiments/common/transfer_common.hpp"
#include "experiments/transfers/streams.hpp"
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
        DeviceGuard on(device);
        ptr_ = device_malloc(bytes);
        if (device == ctx.device()) ctx.note_alloc(bytes);
    }
    ~PeerArray() {
        if (!ptr_) return;
        release_on_device(device_, [this] { cudaFree(ptr_); });
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
        DeviceGuard on(from);
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
        release_on_device(from_, [this] { cudaDeviceDisablePeerAccess(to_); });
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
    DeviceGuard on(device);
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

// The headline figures: each series' extremes over its pairs (or, for the
// patterns of every device at once, over its devices), the pairs and who can
// access whom.
const Figure kDevices{"devices", "count", Better::Neither, "CUDA devices on this machine"};
const Figure kPairs{"pairs", "count", Better::Neither, "ordered pairs of devices measured"};
const Figure kPairsWithAccess{"pairs_with_peer_access", "count", Better::Neither,
                              "ordered pairs measured where either device can access the other's memory directly"};
const Figure kCanAccessPeer{"can_access_peer_{from}_{to}", "count", Better::Neither,
                            "1 where device {from}'s kernels can read device {to}'s memory (cudaDeviceCanAccessPeer), else 0"};
// The lowest and highest value of one series over its pairs (or devices):
// "{series}_min" and "{series}_max".
struct Extremes {
    Figure lo, hi;
};

Extremes extremes(const std::string &series, const std::string &unit, Better better, const std::string &what,
                  const char *lowest = "lowest", const char *highest = "highest") {
    return {{series + "_min", unit, better, std::string(lowest) + " " + what},
            {series + "_max", unit, better, std::string(highest) + " " + what}};
}

const Extremes kCopy = extremes("copy_gbs", "GB/s", Better::Higher,
                                "link bandwidth over the pairs of one cudaMemcpyPeerAsync from a GPU's memory to another's");
const Extremes kKernelRead = extremes("kernel_read_gbs", "GB/s", Better::Higher,
                                      "link bandwidth over the pairs of a kernel copying a peer GPU's memory into its own");
const Extremes kLatency = extremes("latency_us", "us", Better::Lower,
                                   "time per small back-to-back peer copy over the pairs (a latency)", "shortest", "longest");
const Extremes kBidirectional =
    extremes("bidirectional_gbs", "GB/s", Better::Higher,
             "link bandwidth over the pairs of a peer copy each way at once, both directions' bytes");
const Extremes kAllToOne = extremes("all_to_one_gbs", "GB/s", Better::Higher,
                                    "over the devices of the link bandwidth into one GPU while every other GPU copies to it "
                                    "at once (total bytes over the time from the first start to the last end)");
const Extremes kOneToAll = extremes("one_to_all_gbs", "GB/s", Better::Higher,
                                    "over the devices of the link bandwidth out of one GPU while it copies to every other GPU "
                                    "at once (total bytes over the time from the first start to the last end)");

void poison(int device, void *ptr, std::size_t bytes, cudaStream_t stream) {
    DeviceGuard on(device);
    GM_CUDA(cudaMemsetAsync(ptr, 0xA5, bytes, stream));
    GM_CUDA(cudaStreamSynchronize(stream));
}

void poison(const Side &s, std::size_t bytes) { poison(s.device, s.dst->get(), bytes, s.stream->get()); }

// The first `bytes` at `ptr` on `device` must be the pattern of device `from`.
void check_copy(int device, const void *ptr, int from, std::size_t bytes, const std::string &what, Result &out) {
    std::vector<unsigned char> got(bytes), want(bytes);
    {
        DeviceGuard on(device);
        GM_CUDA(cudaMemcpy(got.data(), ptr, bytes, cudaMemcpyDefault));
    }
    fill_pattern_host(want.data(), bytes, seed_of(from));
    check_same_bytes(got.data(), want.data(), bytes, what, out);
}

// The first `bytes` of dst on `to` must be the pattern of `from`.
void check_dst(const Side &to, const Side &from, std::size_t bytes, const std::string &what, Result &out) {
    check_copy(to.device, to.dst->get(), from.device, bytes, what, out);
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
        DeviceGuard on(s.device);
        GM_CUDA(kernels::launch_fill_pattern(static_cast<std::uint32_t *>(s.src->get()), bytes / 4, seed_of(s.device),
                                             s.stream->get()));
        GM_CUDA(cudaStreamSynchronize(s.stream->get()));
    }
    return sides;
}

Lane lane_of(const Side &s) { return {s.stream->get(), s.join->get()}; }

Series make_series(const std::string &name, const std::string &variant) {
    Series s;
    s.name = name;
    s.variant = variant;
    s.x_name = "pair";
    s.x_unit = "index";
    s.quantity = Quantity::LinkBandwidth;  // NVLink or PCIe between the GPUs
    return s;
}

// Everything one run holds: the devices' arrays and streams, peer access in
// both directions of every pair (enabled for the whole run, disabled again
// where this run enabled it when the guards go), and the series it fills.
class PeerRun {
public:
    PeerRun(ContextState &ctx, const std::vector<int> &devs, std::size_t bytes, std::size_t lat_bytes, int lat_copies)
        : ctx_(ctx), bytes_(bytes), lat_bytes_(lat_bytes), lat_copies_(lat_copies), sides_(open_sides(ctx, devs, bytes)),
          fork_(ctx.device()) {
        for (std::size_t a = 0; a < sides_.size(); ++a)
            for (std::size_t b = 0; b < sides_.size(); ++b)
                access_.push_back(a == b ? nullptr : std::make_unique<PeerAccess>(sides_[a].device, sides_[b].device));
        lat_.name = "latency of " + size_text(lat_bytes) + " copies";
        lat_.quantity = Quantity::Latency;
        lat_.y_field = "latency_us";
        lat_.y_name = "time per copy";
        lat_.y_unit = "us";
        for (Series *s : {&all_to_one_, &one_to_all_}) {
            s->x_name = "device";
            s->x_unit = "index";
        }
    }

    bool can(std::size_t from, std::size_t to) const {
        const auto &a = access_[from * sides_.size() + to];
        return a && a->possible();
    }

    void measure_pair(std::size_t a, std::size_t b, Result &out);
    void measure_all_to_one(std::size_t d, Result &out);
    void measure_one_to_all(std::size_t d, Result &out);
    void finish(Result &out);

private:
    // Work on other devices' streams, timed on the context's stream: forked
    // from it and joined back into it (the harness's hold kernel keeps all of
    // it queued), so that the time runs from the first start to the last end.
    template <class Body>
    Launch forked(std::vector<Lane> lanes, Body body) const {
        cudaEvent_t fork = fork_.get();
        return [fork, lanes, body](cudaStream_t s) { return fork_join(s, fork, lanes, body); };
    }
    static cudaError_t copy(const Side &from, void *to_ptr, int to_device, std::size_t n, cudaStream_t on) {
        return cudaMemcpyPeerAsync(to_ptr, to_device, from.src->get(), from.device, n, on);
    }
    static cudaError_t copy(const Side &from, const Side &to, std::size_t n, cudaStream_t on) {
        return copy(from, to.dst->get(), to.device, n, on);
    }
    // The core's point protocol with the destinations poisoned beforehand on
    // their own devices (the harness poisons on the context's stream, which
    // cannot reach another GPU's memory without peer access): run once, check,
    // then time into a point of `series` with `moved` bytes (0: a latency).
    Point &measure(const Launch &l, const std::function<void()> &check, double moved, Series &series,
                   const std::function<void(Point &)> &describe) {
        CheckedLaunch c;
        c.launch = l;
        c.check = check;
        Point p;
        describe(p);
        p.bytes = moved;
        measure_checked(ctx_, c, p, *out_);
        series.points.push_back(std::move(p));
        return series.points.back();
    }
    void measure_kernel_read(const Side &A, const Side &B, const std::string &pair,
                             const std::function<void(Point &)> &describe);
    std::string pair_text(int from, int to) const { return std::to_string(from) + "->" + std::to_string(to); }
    void record_extremes(const Series &s, const Extremes &figures, bool latency);

    ContextState &ctx_;
    std::size_t bytes_, lat_bytes_;
    int lat_copies_;
    std::vector<Side> sides_;
    SyncEvent fork_;
    std::vector<std::unique_ptr<PeerAccess>> access_;
    Result *out_ = nullptr;
    nlohmann::json labels_ = nlohmann::json::array();
    int pairs_with_access_ = 0;
    Series ce_ = make_series("copy engine, cudaMemcpyPeerAsync", "copy");
    Series kr_ = make_series("kernel on the destination reading the source's memory", "kernel_read");
    Series lat_ = make_series("latency", "latency");
    Series bi_ = make_series("both directions at once, copy engine", "bidirectional");
    Series all_to_one_ = make_series("every other GPU copying to one at once, copy engine", "all_to_one");
    Series one_to_all_ = make_series("one GPU copying to every other at once, copy engine", "one_to_all");
};

// B's kernel copies A's memory into B's through the peer mapping.
void PeerRun::measure_kernel_read(const Side &A, const Side &B, const std::string &pair,
                                  const std::function<void(Point &)> &describe) {
    const std::size_t bytes = bytes_;
    Launch l = forked({lane_of(B)}, [&A, &B, bytes]() -> cudaError_t {
        int cur = 0;
        if (cudaError_t e = cudaGetDevice(&cur); e != cudaSuccess) return e;
        if (cudaError_t e = cudaSetDevice(B.device); e != cudaSuccess) return e;
        cudaError_t e = kernels::launch_copy_words(A.src->get(), B.dst->get(), bytes / 16, B.multiprocessors, B.stream->get());
        cudaSetDevice(cur);
        return e;
    });
    poison(B, bytes_);
    measure(l, [&] { check_dst(B, A, bytes_, "peer kernel read " + pair, *out_); }, static_cast<double>(bytes_), kr_,
            describe);
}

// The pair a -> b: the copy, the kernel read where b can access a, the small
// copies' latency, and (once per unordered pair) both directions at once.
void PeerRun::measure_pair(std::size_t a, std::size_t b, Result &out) {
    out_ = &out;
    const Side &A = sides_[a], &B = sides_[b];
    const std::string pair = pair_text(A.device, B.device);
    const double x = static_cast<double>(labels_.size());
    labels_.push_back(pair);
    pairs_with_access_ += can(a, b) || can(b, a) ? 1 : 0;
    const int peer_access = can(b, a) || can(a, b) ? 1 : 0;
    auto describe = [&](Point &p) {
        p.x = x;
        p.values["src"] = A.device;
        p.values["dst"] = B.device;
        p.values["peer_access"] = peer_access;
    };
    const std::size_t bytes = bytes_, lat_bytes = lat_bytes_;
    const int lat_copies = lat_copies_;

    poison(B, bytes_);
    measure(forked({lane_of(A)}, [&A, &B, bytes] { return copy(A, B, bytes, A.stream->get()); }),
            [&] { check_dst(B, A, bytes_, "peer copy " + pair, out); }, static_cast<double>(bytes_), ce_, describe);
    if (can(b, a)) measure_kernel_read(A, B, pair, describe);
    poison(B, bytes_);
    Point &lp = measure(forked({lane_of(A)},
                               [&A, &B, lat_bytes, lat_copies]() -> cudaError_t {
                                   for (int i = 0; i < lat_copies; ++i)
                                       if (cudaError_t e = copy(A, B, lat_bytes, A.stream->get()); e != cudaSuccess) return e;
                                   return cudaSuccess;
                               }),
                        [&] { check_dst(B, A, lat_bytes_, "peer latency copies " + pair, out); }, 0.0, lat_, describe);
    lp.values["latency_us"] = lp.time_ms.median * 1e3 / lat_copies_;
    if (a < b) {
        poison(A, bytes_);
        poison(B, bytes_);
        measure(forked({lane_of(A), lane_of(B)},
                       [&A, &B, bytes]() -> cudaError_t {
                           if (cudaError_t e = copy(A, B, bytes, A.stream->get()); e != cudaSuccess) return e;
                           return copy(B, A, bytes, B.stream->get());
                       }),
                [&] {
                    check_dst(B, A, bytes_, "peer bidirectional " + pair, out);
                    check_dst(A, B, bytes_, "peer bidirectional " + pair_text(B.device, A.device), out);
                },
                2.0 * static_cast<double>(bytes_), bi_, describe);
    }
}

// Every other device copies its source to d at once, each on its own stream,
// into a slot of its own on d (the first into d's destination, the others
// into a gather array), so that every copy can be checked.
void PeerRun::measure_all_to_one(std::size_t d, Result &out) {
    out_ = &out;
    const Side &D = sides_[d];
    const std::size_t n = sides_.size();
    std::unique_ptr<PeerArray> gather;
    if (n > 2) gather = std::make_unique<PeerArray>(ctx_, D.device, (n - 2) * bytes_);
    struct Inbound {
        const Side *from;
        void *slot;
    };
    std::vector<Inbound> copies;
    std::vector<Lane> lanes;
    for (std::size_t s = 0; s < n; ++s) {
        if (s == d) continue;
        void *slot = copies.empty() ? D.dst->get() : static_cast<char *>(gather->get()) + (copies.size() - 1) * bytes_;
        copies.push_back({&sides_[s], slot});
        lanes.push_back(lane_of(sides_[s]));
    }
    const std::size_t bytes = bytes_;
    const int to_device = D.device;
    Launch l = forked(lanes, [copies, bytes, to_device]() -> cudaError_t {
        for (const Inbound &c : copies)
            if (cudaError_t e = copy(*c.from, c.slot, to_device, bytes, c.from->stream->get()); e != cudaSuccess) return e;
        return cudaSuccess;
    });
    for (const Inbound &c : copies) poison(D.device, c.slot, bytes_, D.stream->get());
    measure(
        l,
        [&] {
            for (const Inbound &c : copies)
                check_copy(D.device, c.slot, c.from->device, bytes_, "peer all_to_one " + pair_text(c.from->device, D.device),
                           out);
        },
        static_cast<double>(copies.size() * bytes_), all_to_one_,
        [&](Point &p) {
            p.x = D.device;
            p.values["device"] = D.device;
            p.values["peers"] = static_cast<double>(copies.size());
        });
}

// d copies its source to every other device at once, one stream of d's per
// destination.
void PeerRun::measure_one_to_all(std::size_t d, Result &out) {
    out_ = &out;
    const Side &D = sides_[d];
    std::vector<std::unique_ptr<OwnedStream>> streams;
    std::vector<std::unique_ptr<SyncEvent>> joins;
    std::vector<Lane> lanes;
    std::vector<const Side *> targets;
    for (std::size_t t = 0; t < sides_.size(); ++t) {
        if (t == d) continue;
        streams.push_back(std::make_unique<OwnedStream>(D.device));
        joins.push_back(std::make_unique<SyncEvent>(D.device));
        lanes.push_back({streams.back()->get(), joins.back()->get()});
        targets.push_back(&sides_[t]);
    }
    const Side *from = &D;
    const std::size_t bytes = bytes_;
    Launch l = forked(lanes, [from, targets, lanes, bytes]() -> cudaError_t {
        for (std::size_t i = 0; i < targets.size(); ++i)
            if (cudaError_t e = copy(*from, *targets[i], bytes, lanes[i].stream); e != cudaSuccess) return e;
        return cudaSuccess;
    });
    for (const Side *t : targets) poison(*t, bytes_);
    measure(
        l,
        [&] {
            for (const Side *t : targets)
                check_dst(*t, D, bytes_, "peer one_to_all " + pair_text(D.device, t->device), out);
        },
        static_cast<double>(targets.size() * bytes_), one_to_all_,
        [&](Point &p) {
            p.x = D.device;
            p.values["device"] = D.device;
            p.values["peers"] = static_cast<double>(targets.size());
        });
}

void PeerRun::record_extremes(const Series &s, const Extremes &figures, bool latency) {
    if (s.points.empty()) return;
    double lo = 1e300, hi = 0;
    for (const Point &p : s.points) {
        const double v = latency ? p.values.at("latency_us") : bandwidth_gbs(p.bytes, p.time_ms.median);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    out_->record(figures.lo, lo);
    out_->record(figures.hi, hi);
}

// Once every pair and device is measured: each series' extremes, the pairs
// and who can access whom in the summary, the series into the result, and
// the notes.
void PeerRun::finish(Result &out) {
    out_ = &out;
    record_extremes(ce_, kCopy, false);
    record_extremes(kr_, kKernelRead, false);
    record_extremes(lat_, kLatency, true);
    record_extremes(bi_, kBidirectional, false);
    record_extremes(all_to_one_, kAllToOne, false);
    record_extremes(one_to_all_, kOneToAll, false);
    nlohmann::json devices = nlohmann::json::array();
    for (const Side &s : sides_) devices.push_back(s.device);
    for (Series *s : {&ce_, &kr_, &lat_, &bi_}) s->attributes = {{"pairs", labels_}, {"bytes", bytes_}};
    for (Series *s : {&all_to_one_, &one_to_all_}) s->attributes = {{"devices", devices}, {"bytes", bytes_}};
    for (Series *s : {&ce_, &kr_, &lat_, &bi_, &all_to_one_, &one_to_all_})
        if (!s->points.empty()) out.series.push_back(std::move(*s));
    out.record(kPairs, static_cast<double>(labels_.size()));
    out.record(kPairsWithAccess, pairs_with_access_);
    for (std::size_t a = 0; a < sides_.size(); ++a)
        for (std::size_t b = 0; b < sides_.size(); ++b)
            if (a != b)
                out.record(kCanAccessPeer, can(a, b) ? 1 : 0,
                           {{"from", std::to_string(sides_[a].device)}, {"to", std::to_string(sides_[b].device)}});
    out.notes.push_back("Pairs are ordered (source->destination) and listed in each series' attributes.pairs; x is the index "
                        "into that list. The context's device is " + std::to_string(ctx_.device()) + "; the peers are the "
                        "other devices taking part. can_access_peer_A_B is cudaDeviceCanAccessPeer(A, B): A's kernels can "
                        "read B's memory.");
    out.notes.push_back("copy: cudaMemcpyPeerAsync of `bytes` on a stream of the source device; where peer access is not "
                        "possible the driver stages the copy through host memory. kernel_read: a kernel on the destination "
                        "copies the source's memory into its own through the peer mapping (only where access is possible). "
                        "latency: latency_copies back-to-back copies of latency_bytes, time per copy. bidirectional: a copy in "
                        "each direction at once, bytes counted for both. Peer access is enabled for the run and disabled "
                        "afterwards where this run enabled it.");
    out.notes.push_back("all_to_one and one_to_all (x is the device, listed in attributes.devices): every other device copies "
                        "`bytes` to device x at once, each with cudaMemcpyPeerAsync on a stream of its own (all_to_one), and "
                        "device x copies `bytes` to every other device at once, one stream of x's per destination "
                        "(one_to_all); all started together, timed from the first start to the last end, bandwidth = all "
                        "copies' bytes over that time: the link bandwidth into (out of) device x, as nvbandwidth reports it.");
    if (sides_.size() == 2)
        out.notes.push_back("With two devices taking part, all_to_one and one_to_all are each the pair's single copy: they "
                            "were measured anyway and match the copy series within noise.");
}

void run_peer(ContextState &ctx, const Params &params, Result &out) {
    DeviceGuard restore;  // whatever happens, the context's device is current again afterwards
    int count = 0;
    GM_CUDA(cudaGetDeviceCount(&count));
    const std::vector<int> devs = devices_taking_part(ctx, params, count);
    out.record(kDevices, count);
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
    // Each device holds a source and a destination, and while every other
    // device copies to it at once, one more copy's bytes per source past the first.
    const std::size_t arrays = std::max<std::size_t>(2, devs.size());
    for (int d : devs) require_memory_on(ctx, d, arrays * bytes);

    PeerRun run(ctx, devs, bytes, lat_bytes, lat_copies);
    for (std::size_t a = 0; a < devs.size(); ++a)
        for (std::size_t b = 0; b < devs.size(); ++b)
            if (a != b && (all_pairs || a == 0 || b == 0)) run.measure_pair(a, b, out);
    for (std::size_t d = 0; d < devs.size(); ++d) {
        run.measure_all_to_one(d, out);
        run.measure_one_to_all(d, out);
    }
    run.finish(out);
}

Chart peer_chart() {
    Chart c;
    c.kind = "line";
    c.x_title = "pair (index into attributes.pairs, source->destination; src and dst in the table)";
    // latency: microseconds, not GB/s; all_to_one, one_to_all: x is a device, not a pair; in the table only
    c.leave_out = {"latency", "all_to_one", "one_to_all"};
    c.explanation = "Copies between two GPUs of one host, for each ordered pair: the copy engine, a "
                    "kernel reading the peer's memory directly, both directions at once, and (in the table) the latency of small copies "
                    "and, for each GPU, every other copying to it at once and it copying to every other at once. "
                    "Pairs without peer access are staged through the host and are much slower. With one GPU the "
                    "experiment is not applicable and nothing is drawn.";
    return c;
}

}  // namespace

void add_peer_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "peer";
    e.guide_section = "Programming Guide: Peer-to-Peer Memory Access and Copy";
    e.summary = "Between every ordered pair of GPUs: peer copy bandwidth (copy engine and a kernel reading the peer), "
                "small-copy latency, both directions at once; for each GPU, every other copying to it at once and it "
                "copying to every other at once; not applicable with one GPU.";
    e.params = {
        size_param("bytes", 64LL << 20, 16, 1LL << 36, "bytes per bandwidth copy (rounded down to a multiple of 16)"),
        size_param("latency_bytes", 4, 1, 1LL << 20, "bytes per latency copy"),
        int_param("latency_copies", 100, 1, 10000, "back-to-back copies per latency measurement", "copies"),
        int_list_param("peers", {-1}, -1, 1023, "peer devices (other than the context's); -1: every other device"),
        bool_param("all_pairs", true, "every ordered pair of the devices taking part; false: only pairs with the context's device"),
    };
    e.run = run_peer;
    e.quick = {{"bytes", kMiB}, {"latency_copies", 10}};
    e.figures = {kDevices, kPairs, kPairsWithAccess, kCanAccessPeer};
    for (const Extremes *x : {&kCopy, &kKernelRead, &kLatency, &kBidirectional, &kAllToOne, &kOneToAll}) {
        e.figures.push_back(x->lo);
        e.figures.push_back(x->hi);
    }
    e.chart = peer_chart();
    out.push_back(std::move(e));
}

}  // namespace gmlab
