#include "experiments/common/chase.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/statistics.hpp"
#include "core/measurement/verify.hpp"

namespace gmlab {

namespace {

int kept_repetitions(const Settings &s) { return std::max(1, std::min(s.min_repetitions, s.max_repetitions)); }

}  // namespace

ChaseRunner::ChaseRunner(ContextState &ctx)
    : ctx_(ctx),
      warmup_(std::max(0, ctx.settings.warmup)),
      repetitions_(kept_repetitions(ctx.settings)),
      slots_(ctx, static_cast<std::size_t>(warmup_ + repetitions_) * sizeof(kernels::ChaseSample)) {}

std::vector<kernels::ChaseSample> ChaseRunner::run(const ChaseLaunch &launch, bool cold, const ChaseEnd &expected_last,
                                                   const std::string &what, Result &out) {
    auto *slots = slots_.as<kernels::ChaseSample>();
    const int total = warmup_ + repetitions_;
    std::vector<kernels::ChaseSample> all(static_cast<std::size_t>(total));
    const std::size_t bytes = all.size() * sizeof(kernels::ChaseSample);
    // The point protocol over every launch at once: the kernels time
    // themselves, so each launch's sample is both checked and kept. The slots
    // are poisoned, every launch (with cold, after an L2 flush) writes its own,
    // and each one's final node is compared with the host's walk.
    auto launch_all = [&](cudaStream_t st) -> cudaError_t {
        for (int i = 0; i < total; ++i) {
            if (cold) ctx_.flush_l2();
            if (cudaError_t e = launch(i, slots + i, st); e != cudaSuccess) return e;
        }
        return cudaSuccess;
    };
    auto check = [&] {
        for (int i = 0; i < total; ++i)
            if (all[i].last != expected_last(i))
                verification_failed(what + " (launch " + std::to_string(i) + ")", i, std::to_string(expected_last(i)),
                                    std::to_string(all[i].last));
        out.verified(static_cast<std::uint64_t>(total), "every chase's final node compared with the host's walk of the same ring");
    };
    run_checked(ctx_, {launch_all, {{slots, bytes}}, download_to(all.data(), slots, bytes), check});
    std::vector<kernels::ChaseSample> kept(all.begin() + warmup_, all.end());
    for (const auto &s : kept) {
        cycles_ += static_cast<double>(s.cycles);
        ns_ += static_cast<double>(s.ns);
    }
    return kept;
}

double ChaseRunner::clock_ghz(double fallback) const { return ns_ > 0 && cycles_ > 0 ? cycles_ / ns_ : fallback; }

Point chase_point(double x, unsigned hops, const std::vector<kernels::ChaseSample> &samples, double clock_ghz) {
    std::vector<double> per_hop, ms;
    double cycles = 0, ns = 0;
    for (const auto &s : samples) {
        per_hop.push_back(static_cast<double>(s.cycles) / hops);
        ms.push_back(static_cast<double>(s.cycles) / clock_ghz * 1e-6);
        cycles += static_cast<double>(s.cycles);
        ns += static_cast<double>(s.ns);
    }
    Point p;
    p.x = x;
    p.time_ms = summarize(std::move(ms));
    const double median = summarize(std::move(per_hop)).median;
    p.values["latency_cycles"] = median;
    p.values["latency_ns"] = median / clock_ghz;
    if (ns > 0) p.values["clock_mhz"] = cycles / ns * 1e3;
    p.values["hops"] = hops;
    return p;
}

Series chase_latency_series(const std::string &name, const std::string &variant, const std::string &x_name,
                            const std::string &x_unit, const std::string &y_name) {
    Series s;
    s.name = name;
    s.variant = variant;
    s.x_name = x_name;
    s.x_unit = x_unit;
    s.y_field = "latency_cycles";
    s.y_name = y_name;
    s.y_unit = "cycles";
    s.quantity = Quantity::Latency;
    return s;
}

void record_latency(Result &out, const Figure &cycles, const Figure &ns, double value_cycles, double clock_ghz,
                    const FigureAt &at) {
    out.record(cycles, value_cycles, at);
    out.record(ns, value_cycles / clock_ghz, at);
}

}  // namespace gmlab
