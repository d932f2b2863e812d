#include "inject/phase_times.hpp"

#include <time.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "inject/record_sink.hpp"
#include "inject/record_types.hpp"

namespace gmexplain {
namespace {

std::mutex g_mutex;
std::array<double, static_cast<std::size_t>(Phase::count)> g_seconds{};
double g_before_cuda = -1;

// Seconds since this process started: its start time in clock ticks after
// boot (field 22 of /proc/self/stat) against CLOCK_BOOTTIME; -1 where unknown.
double seconds_since_start() {
    std::FILE *f = std::fopen("/proc/self/stat", "r");
    if (!f) return -1;
    char buf[1024] = {};
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = '\0';
    const char *p = std::strrchr(buf, ')');  // the command name may hold spaces
    if (!p) return -1;
    unsigned long long start = 0;
    // After ")": field 3 (state) to field 22 (starttime).
    if (std::sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &start) != 1)
        return -1;
    const long ticks = sysconf(_SC_CLK_TCK);
    timespec now {};
    if (ticks <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -1;
    return double(now.tv_sec) + double(now.tv_nsec) * 1e-9 - double(start) / double(ticks);
}

}  // namespace

void phase_add(Phase phase, double seconds) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_seconds[static_cast<std::size_t>(phase)] += seconds;
}

void phase_mark_loaded() {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_before_cuda < 0) g_before_cuda = seconds_since_start();
}

void phase_reset() {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_seconds.fill(0);
}

void phase_write_record() {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto s = [](Phase p) { return g_seconds[static_cast<std::size_t>(p)]; };
    Line line;
    line.field("type", records::kPhaseTimes).field("pid", std::int64_t(getpid()));
    if (g_before_cuda >= 0) line.field("before_cuda_s", g_before_cuda);
    sink_write(line.field("initialize_s", s(Phase::initialize)).field("profiler_setup_s", s(Phase::profiler_setup))
                   .field("counting_s", s(Phase::counting)).field("exit_s", s(Phase::exit))
                   .field("host_config_s", s(Phase::host_config)).field("evaluate_s", s(Phase::evaluate))
                   .field("profiler_init_s", s(Phase::profiler_init)).field("availability_s", s(Phase::availability))
                   .field("enable_s", s(Phase::enable)));
}

}  // namespace gmexplain
