// What the trace says kernels waited on: unified-memory faults and migrations
// (the run's figures), and launches far slower than the kernel's counted
// launch with what overlapped them (declared in trace_summary.hpp).
#include <algorithm>
#include <set>

#include "explain/trace_summary.hpp"

namespace gmexplain {

namespace {

bool has_span(const KernelRecord &k) { return k.start != 0 && k.end > k.start; }

// A transfer to the device the program did not ask for: faults served, or
// the driver's own prefetch around them (records without a cause, written
// before it was kept, count here too).
bool on_demand_htod(const UnifiedMemoryRecord &u) { return u.counter == "bytes_htod" && u.cause != "user"; }

// The driver gave up migrating pages both sides keep touching.
bool driver_event(const UnifiedMemoryRecord &u) {
    return u.counter == "thrashing" || u.counter == "throttling" || u.counter == "remote_map";
}

// What a kernel may wait on while it runs: GPU faults, on-demand migrations to
// the device, and the driver's thrashing responses (CPU faults and transfers
// to the host are the host's side).
bool served_for_gpu(const UnifiedMemoryRecord &u) {
    return u.counter == "gpu_page_faults" || on_demand_htod(u) || driver_event(u);
}

// A GPU fault record is one faulting page; its value, the fault groups the
// driver served for it (at least the one that made the record).
double fault_groups(const UnifiedMemoryRecord &u) { return double(std::max<std::uint64_t>(u.value, 1)); }

// Intervals sorted by start, searched for those overlapping [lo, hi): the
// longest interval bounds how far back one may start.
template <class T> class Intervals {
public:
    void add(std::uint64_t start, std::uint64_t end, const T *item) {
        end = std::max(end, start + 1);  // a point in time (a thrashing event) still overlaps
        items_.push_back({start, end, item});
        longest_ = std::max(longest_, end - start);
    }
    void sort() {
        std::sort(items_.begin(), items_.end(), [](const Item &a, const Item &b) { return a.start < b.start; });
    }
    template <class F> void visit(std::uint64_t lo, std::uint64_t hi, F &&f) const {
        const std::uint64_t from = lo > longest_ ? lo - longest_ : 0;
        auto it = std::lower_bound(items_.begin(), items_.end(), from, [](const Item &a, std::uint64_t v) { return a.start < v; });
        for (; it != items_.end() && it->start < hi; ++it)
            if (it->end > lo) f(*it->item, std::min(it->end, hi) - std::max(it->start, lo));
    }

private:
    struct Item {
        std::uint64_t start, end;
        const T *item;
    };
    std::vector<Item> items_;
    std::uint64_t longest_ = 0;
};

Intervals<UnifiedMemoryRecord> gpu_side_events(const PassRecords &trace) {
    Intervals<UnifiedMemoryRecord> out;
    for (const auto &u : trace.unified_memory)
        if (served_for_gpu(u) && u.start != 0) out.add(u.start, u.end, &u);
    out.sort();
    return out;
}

Intervals<KernelRecord> traced_launches(const PassRecords &trace) {
    Intervals<KernelRecord> out;
    for (const auto &k : trace.kernels)
        if (has_span(k)) out.add(k.start, k.end, &k);
    out.sort();
    return out;
}

// The managed memory allocated at each moment (allocations and frees matched
// by address): the driver can lose unified-memory records before CUPTI sees
// them (docs/counters.md), and a slow launch with managed memory live and no
// other cause is then most likely waiting on faults nobody recorded.
class ManagedMemory {
public:
    explicit ManagedMemory(const PassRecords &trace) {
        std::vector<const MemoryRecord *> ops;
        for (const auto &m : trace.memory)
            if (m.memory == "managed") ops.push_back(&m);
        std::stable_sort(ops.begin(), ops.end(), [](const MemoryRecord *a, const MemoryRecord *b) { return a->time < b->time; });
        std::map<std::uint64_t, double> live;
        double total = 0;
        for (const auto *m : ops) {
            if (m->op == "alloc") {
                live[m->address] = double(m->bytes);
                total += double(m->bytes);
            } else if (m->op == "free" && live.count(m->address)) {
                total -= live[m->address];
                live.erase(m->address);
            }
            steps_.emplace_back(m->time, total);
            peak_ = std::max(peak_, total);
        }
    }
    double live_at(std::uint64_t t) const {
        auto it = std::upper_bound(steps_.begin(), steps_.end(), std::make_pair(t, 1e300));
        return it == steps_.begin() ? 0 : std::prev(it)->second;
    }
    double peak() const { return peak_; }

private:
    std::vector<std::pair<std::uint64_t, double>> steps_;  // from this time on, this many bytes live
    double peak_ = 0;
};

bool slow_launch(double us, double counted_us) {
    return counted_us > 0 && us > kSlowRatio * counted_us && us - counted_us >= kSlowMinExcessUs;
}

// Time other kernels of the launch's device ran beside it.
double concurrent_ms(const KernelRecord &launch, const Intervals<KernelRecord> &kernels) {
    double ms = 0;
    kernels.visit(launch.start, launch.end, [&](const KernelRecord &other, std::uint64_t ns) {
        if (&other != &launch && other.device == launch.device) ms += ns / 1e6;
    });
    return ms;
}

// The traced time of launches that waited on unified memory, and of it the
// part above the kernel's counted time (all of it where none was counted). A
// launch waited when a GPU-side record overlaps it, or, with no record, when
// it ran far slower than counted while managed memory was allocated and no
// other kernel shared its device (unrecorded_wait_ms).
void add_waiting_launches(const PassRecords &trace, const std::map<std::string, double> &counted_us,
                          std::map<std::string, double> &f) {
    const auto events = gpu_side_events(trace);
    const auto busy = traced_launches(trace);
    const ManagedMemory managed(trace);
    f["um_managed_bytes"] = managed.peak();
    for (const auto &k : trace.kernels) {
        if (!has_span(k)) continue;
        bool recorded = false;
        events.visit(k.start, k.end, [&](const UnifiedMemoryRecord &, std::uint64_t) { recorded = true; });
        const double ms = (k.end - k.start) / 1e6;
        const auto counted = counted_us.find(k.mangled);
        const double counted_ms = counted == counted_us.end() ? 0 : counted->second / 1e3;
        const bool unrecorded = !recorded && slow_launch(ms * 1e3, counted_ms * 1e3) && managed.live_at(k.start) > 0 &&
                                concurrent_ms(k, busy) < 0.5 * ms;
        if (!recorded && !unrecorded) continue;
        f["fault_kernel_ms"] += ms;
        f["fault_excess_ms"] += std::max(0.0, ms - counted_ms);
        if (unrecorded) f["unrecorded_wait_ms"] += ms;
    }
    // Each on-demand transfer once, however many kernels it ran beside.
    for (const auto &u : trace.unified_memory) {
        if (!on_demand_htod(u) || u.start == 0) continue;
        bool beside = false;
        busy.visit(u.start, std::max(u.end, u.start + 1), [&](const KernelRecord &, std::uint64_t) { beside = true; });
        if (beside) f["um_bytes_htod_in_kernels"] += double(u.value);
    }
}

}  // namespace

void add_unified_memory_figures(const PassRecords &trace, const std::map<std::string, double> &counted_us,
                                std::map<std::string, double> &f) {
    for (const char *k : {"um_gpu_page_faults", "um_gpu_fault_groups", "um_cpu_page_faults", "um_bytes_htod",
                          "um_bytes_htod_on_demand", "um_bytes_htod_in_kernels", "um_bytes_dtoh", "um_thrashing",
                          "um_throttling", "um_remote_map", "um_managed_bytes", "fault_kernel_ms", "fault_excess_ms",
                          "unrecorded_wait_ms"})
        f[k] = 0;
    for (const auto &u : trace.unified_memory) {
        if (u.counter == "gpu_page_faults") {
            f["um_gpu_page_faults"] += 1;
            f["um_gpu_fault_groups"] += fault_groups(u);
        } else if (u.counter == "cpu_page_faults") {
            f["um_cpu_page_faults"] += 1;  // value is the faulting instruction's address, not a count
        } else if (u.counter == "bytes_htod") {
            f["um_bytes_htod"] += double(u.value);
            if (on_demand_htod(u)) f["um_bytes_htod_on_demand"] += double(u.value);
        } else if (u.counter == "bytes_dtoh") {
            f["um_bytes_dtoh"] += double(u.value);
        } else if (driver_event(u)) {
            f["um_" + u.counter] += 1;
        }
    }
    add_waiting_launches(trace, counted_us, f);
}

namespace {

// One slow launch: the unified-memory records and the other kernels of its
// device that overlapped it, and whether managed memory was allocated.
void attribute(const KernelRecord &launch, const Intervals<UnifiedMemoryRecord> &events,
               const Intervals<KernelRecord> &kernels, const ManagedMemory &managed,
               std::set<const UnifiedMemoryRecord *> &seen, Slowdown &s) {
    events.visit(launch.start, launch.end, [&](const UnifiedMemoryRecord &u, std::uint64_t) {
        if (!seen.insert(&u).second) return;
        if (u.counter == "gpu_page_faults") {
            s.gpu_page_faults += 1;
            s.gpu_fault_groups += fault_groups(u);
        } else if (on_demand_htod(u)) {
            s.migrated_bytes += double(u.value);
        } else {
            s.driver_events += 1;
        }
    });
    s.concurrent_ms += concurrent_ms(launch, kernels);
    s.managed_bytes = std::max(s.managed_bytes, managed.live_at(launch.start));
}

std::string cause_of(const Slowdown &s) {
    if (s.gpu_page_faults > 0 || s.migrated_bytes > 0 || s.driver_events > 0) return "unified_memory";
    if (s.concurrent_ms >= 0.5 * s.slow_ms) return "concurrent_kernels";
    if (s.managed_bytes > 0) return "managed_memory";
    if (s.first_only) return "first_launch";
    return "unexplained";
}

}  // namespace

std::map<std::string, double> counted_times_us(const PassRecords &counted) {
    std::map<std::string, double> sum, n;
    for (const auto &c : counted.counters) {
        const auto d = c.metrics.find("gpu__time_duration.sum");
        if (d == c.metrics.end() || d->second <= 0) continue;
        sum[c.mangled] += d->second / 1e3;
        n[c.mangled] += 1;
    }
    for (auto &[name, us] : sum) us /= n[name];
    return sum;
}

Slowdown kernel_slowdown(const PassRecords &trace, const std::string &mangled, double counted_us) {
    Slowdown s;
    s.counted_us = counted_us;
    if (counted_us <= 0) return s;
    std::vector<const KernelRecord *> mine;
    for (const auto &k : trace.kernels)
        if (has_span(k) && k.mangled == mangled) mine.push_back(&k);
    std::sort(mine.begin(), mine.end(), [](const KernelRecord *a, const KernelRecord *b) { return a->start < b->start; });
    const auto kernels = traced_launches(trace);
    const auto events = gpu_side_events(trace);
    const ManagedMemory managed(trace);
    std::set<const UnifiedMemoryRecord *> seen;
    double total_us = 0;
    bool first_slow = false;
    for (const auto *k : mine) {
        const double us = (k->end - k->start) / 1e3;
        ++s.traced_launches;
        total_us += us;
        s.traced_max_us = std::max(s.traced_max_us, us);
        if (!slow_launch(us, counted_us)) continue;
        ++s.slow_launches;
        s.slow_ms += us / 1e3;
        s.excess_ms += (us - counted_us) / 1e3;
        first_slow = first_slow || k == mine.front();
        attribute(*k, events, kernels, managed, seen, s);
    }
    s.first_only = first_slow && s.slow_launches == 1 && mine.size() > 1;
    s.traced_mean_us = s.traced_launches ? total_us / s.traced_launches : 0;
    if (s.slow_launches) s.cause = cause_of(s);
    return s;
}

}  // namespace gmexplain
