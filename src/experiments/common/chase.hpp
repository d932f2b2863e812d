// Running pointer chases for the latency and memory_spaces experiments: the
// launches, the check of where each chase ended, the SM clock measured
// during the run, and the resulting points.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/device/context.hpp"
#include "core/experiment/figure.hpp"
#include "core/experiment/result.hpp"
#include "shared_kernels/chase_sample.hpp"

namespace gmlab {

// Enqueues launch number `index` (warm-up launches included) of a chase that
// writes its sample to `out`; ChaseEnd gives the line that launch must end on.
using ChaseLaunch = std::function<cudaError_t(int index, kernels::ChaseSample *out, cudaStream_t stream)>;
using ChaseEnd = std::function<std::uint64_t(int index)>;

// The chase kernels time themselves with clock64 inside the kernel: the
// quantity is cycles per dependent load, not a kernel's duration, so they do
// not go through the event harness and need no minimum time. The settings
// still apply: `warmup` launches first (not kept), then min_repetitions
// (at least 1, at most max_repetitions) kept.
class ChaseRunner {
public:
    explicit ChaseRunner(ContextState &ctx);

    // Runs the chase; with cold, L2 is flushed before every launch. Each
    // sample's `last` must equal expected_last(index) (else
    // GM_ERROR_VERIFICATION_FAILED naming `what`); the checks are counted into
    // `out`'s verification. The one-argument form: every launch ends on the same line.
    std::vector<kernels::ChaseSample> run(const ChaseLaunch &launch, bool cold, const ChaseEnd &expected_last,
                                          const std::string &what, Result &out);
    std::vector<kernels::ChaseSample> run(const std::function<cudaError_t(kernels::ChaseSample *, cudaStream_t)> &launch,
                                          bool cold, std::uint64_t expected_last, const std::string &what, Result &out) {
        return run([&](int, kernels::ChaseSample *o, cudaStream_t s) { return launch(o, s); }, cold,
                   [expected_last](int) { return expected_last; }, what, out);
    }

    // The SM clock during the chases so far: clock64 cycles over %globaltimer
    // nanoseconds, summed over every kept launch. `fallback` (the reported
    // clock) where nothing was timed.
    double clock_ghz(double fallback) const;

private:
    ContextState &ctx_;
    int warmup_ = 0, repetitions_ = 1;
    DeviceArray slots_;
    double cycles_ = 0, ns_ = 0;
};

// A point of `hops`-long chases at x: time_ms holds the timed section of each
// launch (its cycles at the measured clock), values latency_cycles (median
// cycles per hop), latency_ns and clock_mhz (this point's own cycles / ns).
Point chase_point(double x, unsigned hops, const std::vector<kernels::ChaseSample> &samples, double clock_ghz);

// The empty series of a chase: latency_cycles (chase_point's value, cycles)
// against x, the quantity a latency.
Series chase_latency_series(const std::string &name, const std::string &variant, const std::string &x_name,
                            const std::string &x_unit, const std::string &y_name = "latency per dependent load");

// The SM clock the chases ran at (ChaseRunner::clock_ghz), and the one the
// device reports, as headline figures of every experiment that converts a
// chase's cycles to nanoseconds.
inline const Figure kChaseClockMeasured{"sm_clock_mhz_measured", "MHz", Better::Neither,
                                        "the SM clock during the chases: clock64 cycles over %globaltimer nanoseconds "
                                        "of the same launches, the clock their nanoseconds use"};
inline const Figure kChaseClockReported{"sm_clock_mhz_reported", "MHz", Better::Neither,
                                        "the SM clock the device reports (its maximum)"};

// A latency written as its two figures: `cycles` in SM cycles and `ns` in
// nanoseconds at the measured clock.
void record_latency(Result &out, const Figure &cycles, const Figure &ns, double value_cycles, double clock_ghz,
                    const FigureAt &at = {});

}  // namespace gmlab
