// Hardware counters: the one module that talks to CUPTI.
//
// libcupti and libnvperf_host are loaded at run time (dlopen), so libgmlab
// loads and measures without them; when they are missing, too old, not
// permitted or busy, every result says why. Counting uses the CUPTI Range
// Profiler (CUDA 12.6 and later) with one user range and user replay: the
// harness hands over "count this launch" once per point, outside the timed
// launches, and the session re-runs the launch only when the counters asked for
// need more than one pass.
//
// Experiments never call CUPTI: they declare a CounterSet (which counters
// explain them and which of their predictions each derived figure should
// equal) next to their predictions, and call measure_counters() (core/experiment/point_protocol.hpp).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmlab {

// ---------------------------------------------------------------------------
// What experiments declare.

// name = numerator / denominator of two counters (for example sectors per
// request), or numerator / divisor when denominator is empty (per record), or,
// where `rest` names a counter, numerator / (numerator + rest): a share of
// lookups of one range, such as hits / (hits + misses).
struct DerivedCounter {
    std::string name, numerator, denominator;
    double divisor = 0;
    std::string rest{};  // a default initializer: the declarations that end at divisor stay complete
};

// The figure `counter` (a counter or a derived figure) should equal the point's
// prediction `predicted` within `tolerance` (relative; 0 means exactly, up to
// rounding of the counter's evaluation).
struct CounterAgreement {
    std::string counter, predicted;
    double tolerance = 0;
};

struct CounterSet {
    std::vector<std::string> metrics;
    std::vector<DerivedCounter> derived;
    std::vector<CounterAgreement> agreements;

    CounterSet &operator+=(const CounterSet &o);
    CounterSet operator+(const CounterSet &o) const {
        CounterSet s = *this;
        s += o;
        return s;
    }
    // A copy with one more agreement rule.
    CounterSet agree(const std::string &counter, const std::string &predicted, double tolerance = 0) const;
    bool empty() const { return metrics.empty(); }
};

// The counter families of docs/experiments.md, names as Nsight Compute uses them.
namespace counter_sets {
CounterSet global_sectors();  // L1 sectors and requests of global loads and stores, sectors per request
CounterSet dram();            // DRAM bytes read and written, L2 sector hits and misses and the share that hit
CounterSet shared_banks();    // shared-memory bank conflicts and wavefronts, loads and stores
CounterSet local_sectors();   // local-memory sectors loaded and stored
CounterSet global_load_instructions();  // warp-level global load instructions executed
CounterSet occupancy();       // achieved occupancy
CounterSet l2_fabric();       // L2 sectors and requests that arrived over the fabric between L2 partitions
CounterSet l2_read_hits();    // L2 sectors the SMs read and those that hit, and the share that hit
CounterSet l1_global_hits();  // L1 sectors of global loads and those that hit, and the hit rate
}  // namespace counter_sets

// ---------------------------------------------------------------------------
// The CUPTI functions used, as a table: filled by dlsym, or by a test.

struct CuptiApi;          // defined in cupti_api.hpp (it needs the CUPTI headers)
struct CuptiActivityApi;  // the activity API's table, likewise

// What loading libcupti gave: the tables, or why there are none. The
// activity API (unified-memory counters) needs libcupti only, so it can be
// there where the range profiler is not.
struct CuptiLoad {
    std::shared_ptr<const CuptiApi> api;
    std::shared_ptr<const CuptiActivityApi> activity;
    std::string library;          // the path or name that was loaded
    std::string reason;           // empty when api is set
    std::string activity_reason;  // why activity is not set (empty when it is)
};

// Loads libcupti and libnvperf_host once per process: libcupti as
// gmcupti::open_libcupti finds it (GM_CUPTI_LIBRARY's file, else one the
// process already has, else the loader's path and the toolkit's folders).
const CuptiLoad &load_cupti();

// For tests: replaces the loader (nullptr restores dlopen). Sessions created
// afterwards use what the replacement returns.
using CuptiLoader = std::function<CuptiLoad()>;
void set_cupti_loader_for_testing(CuptiLoader loader);

// A fake table for tests in which every call succeeds except the one named
// `failing_call` (e.g. "cuptiRangeProfilerEnable"), which returns the CUptiResult
// `status`; evaluation returns `value` for every metric.
std::shared_ptr<const CuptiApi> fake_cupti_api(const std::string &failing_call, int status, double value);
// The same, with the values of the metrics named in `values` (the others get `value`).
std::shared_ptr<const CuptiApi> fake_cupti_api(const std::string &failing_call, int status, double value,
                                               const std::map<std::string, double> &values);

// ---------------------------------------------------------------------------
// One device context's counter session.

enum class CounterMode { Off = 0, On = 1, Auto = 2 };
const char *counter_mode_name(CounterMode m);

struct CounterAvailability {
    bool checked = false, available = false;
    std::string reason;  // why not, and how to enable them
    std::string chip;
};

class CounterSession {
public:
    // `cu_context` is the CUcontext to profile, `device` its ordinal.
    CounterSession(void *cu_context, int device);
    ~CounterSession();
    CounterSession(const CounterSession &) = delete;
    CounterSession &operator=(const CounterSession &) = delete;

    // Whether counters can be collected: the library loads, the device is
    // supported, and one trial count of `probe` (a short launch followed by a
    // synchronisation) succeeds. Checked once; never throws.
    const CounterAvailability &availability(const std::function<int()> &probe);

    // Counts the work `run` enqueues and waits for (it returns a cudaError_t
    // as int). Runs it once per pass the metrics need, each time after
    // `prepare` (not counted; may be empty), e.g. an L2 flush. Returns each
    // metric's value; throws Error(GM_ERROR_NOT_SUPPORTED, why) when counting
    // fails and Error(GM_ERROR_CUDA) when `run` or `prepare` fails.
    std::map<std::string, double> count(const std::vector<std::string> &metrics, const std::function<int()> &run,
                                        const std::function<int()> &prepare = {});

    // Passes the last count needed, the seconds spent counting so far, and of
    // those the seconds in `run` and `prepare` (the rest is the profiler's own).
    std::size_t last_passes() const { return last_passes_; }
    double seconds() const { return seconds_; }
    double launch_seconds() const { return launch_seconds_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    CounterAvailability availability_;
    std::size_t last_passes_ = 0;
    double seconds_ = 0, launch_seconds_ = 0;
};

// The counters of one point: the metrics, the derived figures, and whether
// each declared figure equals its prediction.
struct AgreementCheck {
    std::string counter, predicted;
    double tolerance = 0, measured = 0, model = 0;
    bool agrees = false;
};

// Whether a counter figure lies in the range its name gives it: a share (a
// name ending in "_share") in 0..1, a percentage (Nsight Compute's ".pct" and
// ".pct_of_..." names, or one ending in "_pct") in 0..100, every figure at
// least 0 (counts and ratios of counts) and finite. Where it does not, `why`
// (if given) says so, with the value.
bool counter_in_range(const std::string &name, double value, std::string *why = nullptr);

// Adds the derived figures to `values`, leaves out every figure outside its
// range (counter_in_range), naming each such figure once in `errors` where
// given, and checks the agreements against `predicted`.
std::vector<AgreementCheck> evaluate_counter_set(const CounterSet &set, std::map<std::string, double> &values,
                                                 const std::map<std::string, double> &predicted,
                                                 std::vector<std::string> *errors = nullptr);

// Why counters are off: the text shown where a result has none.
std::string counters_off_reason();

}  // namespace gmlab
