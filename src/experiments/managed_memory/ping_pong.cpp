#include "experiments/managed_memory/ping_pong.hpp"

#include <chrono>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "experiments/managed_memory/managed_memory.cuh"
#include "experiments/common/point_checks.hpp"
#include "experiments/common/transfer_common.hpp"

namespace gmlab {

namespace {

constexpr std::size_t kPage = 4096;

// After `rounds` rounds every word holds 2 x rounds.
void check_rounds(const std::uint32_t *w, std::size_t words, std::uint64_t rounds, const std::string &what, Result &out) {
    const std::uint32_t want = static_cast<std::uint32_t>(2 * rounds);
    verify_equal(w, words, [want](std::uint64_t) { return want; }, what,
                 "every word after the ping-pong's rounds equals 2 x rounds (one increment on each side)", out);
}

}  // namespace

Series measure_ping_pong(ContextState &ctx, const std::vector<long long> &pages, const UnifiedMemoryCounting &counting,
                         Result &out) {
    Series s;
    s.name = "ping-pong: the device, then the host, increments every word";
    s.variant = "ping_pong";
    s.x_name = "array";
    s.x_unit = "bytes";
    s.y_field = "us_per_round_trip";
    s.y_name = "one round trip (device turn + host turn)";
    s.y_unit = "us";
    s.quantity = Quantity::Time;
    s.attributes = {{"managed", true}, {"timed_on", "host"}};
    cudaStream_t st = ctx.stream();
    const int sms = ctx.info().multiprocessors;
    for (long long n_pages : pages) {
        const std::size_t bytes = static_cast<std::size_t>(n_pages) * kPage, words = bytes / 4;
        const std::string what = "managed_memory ping-pong of " + size_text(bytes);
        ManagedBuffer m(ctx, bytes, what);
        auto *w = m.as<std::uint32_t>();
        std::memset(w, 0, bytes);  // first touch on the host
        std::uint64_t rounds = 0;
        auto round = [&] {
            GM_CUDA(kernels::launch_managed_increment(w, bytes / 16, sms, st));
            GM_CUDA(cudaStreamSynchronize(st));
            for (std::size_t i = 0; i < words; ++i) ++w[i];
            ++rounds;
        };
        // The first round trip, before the driver has seen the pages bounce:
        // later ones run under its thrashing mitigation (throttling, then
        // pinning the pages on one side and mapping them remotely).
        const auto t0 = std::chrono::steady_clock::now();
        round();
        const double first_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
        check_rounds(w, words, rounds, what + " (first round)", out);
        Point p;
        p.values["first_round_trip_us"] = first_us;
        p.x = static_cast<double>(bytes);
        p.bytes = 2.0 * static_cast<double>(bytes);  // the array crosses the link once each way
        p.time_ms = time_host(ctx, round);
        p.values["us_per_round_trip"] = p.time_ms.median * 1e3;
        count_unified_memory_point(ctx, counting, {}, round, p, out);
        check_rounds(w, words, rounds, what, out);
        out.record(kPingPongUs, p.values["us_per_round_trip"], {{"size", std::to_string(bytes / 1024) + "KiB"}});
        s.points.push_back(std::move(p));
    }
    return s;
}

}  // namespace gmlab
