// Where a pass's time inside the program goes: the injection library's own
// set-up, the profiler's configuration, the counted launches (kernel replay
// included) and the work at exit, each summed over the process, and the time
// from the process's start to the driver's initialisation. Written as one
// "phase_times" record at exit, for the document's passes (docs/explain.md,
// "What explain costs"): what the program spent beyond these is its own.
#pragma once

#include <chrono>

namespace gmexplain {

// Within profiler_setup: profiler_init (cuptiProfilerInitialize), host_config
// (the host object, its metrics and configuration image), availability (the
// chip's name and counter availability) and enable (the range profiler on the
// context). Within counting: evaluate (decoding the counter data and
// evaluating the metrics).
enum class Phase { initialize, profiler_setup, counting, exit, host_config, evaluate, profiler_init, availability, enable, count };

// Adds `seconds` to a phase of this process (thread-safe).
void phase_add(Phase phase, double seconds);

// Times a scope into a phase (from `start` where the phase began earlier).
class PhaseTimer {
public:
    explicit PhaseTimer(Phase phase, std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now())
        : phase_(phase), start_(start) {}
    ~PhaseTimer() { phase_add(phase_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count()); }
    PhaseTimer(const PhaseTimer &) = delete;
    PhaseTimer &operator=(const PhaseTimer &) = delete;

private:
    Phase phase_;
    std::chrono::steady_clock::time_point start_;
};

// Notes the moment the driver called the injection library: the time since
// the process started (from /proc/self/stat) is its "before_cuda" figure.
void phase_mark_loaded();

// Starts the sums again (an in-process session's attach: each session's
// record is its own).
void phase_reset();

// Writes the record: {"type":"phase_times","pid":N,"before_cuda_s":..,
// "initialize_s":..,"profiler_setup_s":..,"counting_s":..,"exit_s":..,
// "host_config_s":..,"evaluate_s":..,"profiler_init_s":..,"availability_s":..,"enable_s":..}.
void phase_write_record();

}  // namespace gmexplain
