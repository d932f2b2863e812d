#include "explain/replay_join.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "explain/names/kernel_name.hpp"

namespace gmexplain {

namespace {

// One counted launch, placed: its process (by the order of the run's process
// ids), kernel and launch ordinal are the key the runs are joined on.
struct Placed {
    int process = 0;
    std::string kernel;
    std::uint64_t launch = 0;
    const CounterRecord *record = nullptr;
    std::tuple<int, std::string, std::uint64_t> key() const { return {process, kernel, launch}; }
};

std::string run_name(std::size_t index) { return "run " + std::to_string(index + 1); }

std::string dimensions(const std::int64_t (&d)[3]) {
    return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

bool same_dimensions(const std::int64_t (&a)[3], const std::int64_t (&b)[3]) {
    return std::equal(std::begin(a), std::end(a), std::begin(b));
}

int process_ordinal(const PassRecords &r, int pid) {
    std::vector<int> pids = r.pids;
    for (const auto &c : r.counters) pids.push_back(c.pid);
    std::sort(pids.begin(), pids.end());
    pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
    return static_cast<int>(std::lower_bound(pids.begin(), pids.end(), pid) - pids.begin());
}

// The run's counted launches in the order they ran, process by process.
std::vector<Placed> placed_launches(const PassRecords &r) {
    std::vector<Placed> out;
    for (const auto &c : r.counters) out.push_back({process_ordinal(r, c.pid), c.mangled, c.launch, &c});
    std::stable_sort(out.begin(), out.end(), [](const Placed &a, const Placed &b) { return a.process < b.process; });
    return out;
}

// The trace's launches of one kernel in one process, in launch (correlation) order;
// kernels launched through a CUDA graph are not seen by the counting runs' callbacks.
std::vector<const KernelRecord *> traced_launches(const PassRecords &trace, const std::string &kernel, int process) {
    std::vector<int> pids = trace.pids;
    for (const auto &k : trace.kernels) pids.push_back(k.pid);
    std::sort(pids.begin(), pids.end());
    pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
    std::vector<const KernelRecord *> out;
    for (const auto &k : trace.kernels) {
        const int ordinal = static_cast<int>(std::lower_bound(pids.begin(), pids.end(), k.pid) - pids.begin());
        if (k.mangled == kernel && k.graph == 0 && ordinal == process) out.push_back(&k);
    }
    std::sort(out.begin(), out.end(), [](const KernelRecord *a, const KernelRecord *b) { return a->correlation < b->correlation; });
    return out;
}

std::uint64_t traced_count(const PassRecords &trace, const std::string &kernel) {
    return std::count_if(trace.kernels.begin(), trace.kernels.end(),
                         [&](const KernelRecord &k) { return k.mangled == kernel && k.graph == 0; });
}

std::uint64_t launched(const PassRecords &r, const std::string &kernel) {
    auto it = r.launches.find(kernel);
    return it == r.launches.end() ? 0 : it->second;
}

// Why every kernel is refused, or "": the runs (and the trace run) ended alike.
std::string exit_difference(const std::vector<ApplicationRun> &runs, const PassRecords *trace, int trace_exit) {
    if (trace && runs.front().exit_status != trace_exit)
        return run_name(0) + " exited with " + std::to_string(runs.front().exit_status) + " where the trace run exited with " +
               std::to_string(trace_exit);
    for (std::size_t r = 1; r < runs.size(); ++r)
        if (runs[r].exit_status != runs.front().exit_status)
            return run_name(r) + " exited with " + std::to_string(runs[r].exit_status) + " where " + run_name(0) +
                   " exited with " + std::to_string(runs.front().exit_status);
    return "";
}

// Why the runs disagree on how often the kernel was launched, or "".
std::string count_difference(const std::vector<ApplicationRun> &runs, const PassRecords *trace, const std::string &kernel) {
    const std::uint64_t first = launched(runs.front().records, kernel);
    if (trace && traced_count(*trace, kernel) != first)
        return run_name(0) + " launched it " + std::to_string(first) + " time(s) where the trace run launched it " +
               std::to_string(traced_count(*trace, kernel));
    for (std::size_t r = 1; r < runs.size(); ++r)
        if (launched(runs[r].records, kernel) != first)
            return run_name(r) + " launched it " + std::to_string(launched(runs[r].records, kernel)) + " time(s) where " +
                   run_name(0) + " launched it " + std::to_string(first);
    return "";
}

std::string launch_text(const Placed &p) {
    return "launch " + std::to_string(p.launch) + " with grid " + dimensions(p.record->grid) + ", block " +
           dimensions(p.record->block);
}

// Why the kernel's counted launches differ between runs (which launches,
// their grid or block), or from the trace's launches of the same ordinals; or "".
std::string launch_difference(const std::vector<std::vector<Placed>> &placed, const PassRecords *trace,
                              const std::string &kernel) {
    auto of_kernel = [&](const std::vector<Placed> &all) {
        std::vector<Placed> out;
        for (const auto &p : all)
            if (p.kernel == kernel) out.push_back(p);
        return out;
    };
    const auto first = of_kernel(placed.front());
    for (std::size_t r = 1; r < placed.size(); ++r) {
        const auto mine = of_kernel(placed[r]);
        for (std::size_t i = 0; i < std::max(first.size(), mine.size()); ++i) {
            if (i >= mine.size()) return run_name(r) + " did not count " + launch_text(first[i]) + ", which " + run_name(0) + " counted";
            if (i >= first.size()) return run_name(r) + " counted " + launch_text(mine[i]) + ", which " + run_name(0) + " did not";
            if (mine[i].key() != first[i].key() || !same_dimensions(mine[i].record->grid, first[i].record->grid) ||
                !same_dimensions(mine[i].record->block, first[i].record->block))
                return run_name(r) + " counted " + launch_text(mine[i]) + " where " + run_name(0) + " counted " + launch_text(first[i]);
        }
    }
    if (!trace) return "";
    for (const auto &p : first) {
        const auto traced = traced_launches(*trace, kernel, p.process);
        if (p.launch >= traced.size()) continue;  // the count check says so
        const KernelRecord &t = *traced[p.launch];
        if (!same_dimensions(t.grid, p.record->grid) || !same_dimensions(t.block, p.record->block))
            return run_name(0) + " counted " + launch_text(p) + " where the trace run's launch " + std::to_string(p.launch) +
                   " had grid " + dimensions(t.grid) + ", block " + dimensions(t.block);
    }
    return "";
}

// The kernels whose counted launches ran in another order than in run 1
// (each launch key at another place in the sequence), with the reason.
std::map<std::string, std::string> order_differences(const std::vector<std::vector<Placed>> &placed) {
    std::map<std::string, std::string> out;
    for (std::size_t r = 1; r < placed.size(); ++r) {
        const std::size_t n = std::min(placed[r].size(), placed.front().size());
        for (std::size_t i = 0; i < n; ++i) {
            const Placed &a = placed.front()[i], &b = placed[r][i];
            if (a.key() == b.key()) continue;
            const std::string why = "the counted launches ran in another order: " + run_name(r) + "'s launch #" +
                                    std::to_string(i + 1) + " was " + short_kernel_name(b.record->name) + " launch " +
                                    std::to_string(b.launch) + " where " + run_name(0) + "'s was " +
                                    short_kernel_name(a.record->name) + " launch " + std::to_string(a.launch);
            out.emplace(a.kernel, why);
            out.emplace(b.kernel, why);
            break;
        }
    }
    return out;
}

// Why nothing can be joined, or "": a run that could not count, or runs
// that split the metrics differently.
std::string join_failure(const std::vector<ApplicationRun> &runs) {
    for (std::size_t r = 0; r < runs.size(); ++r)
        if (!runs[r].records.counters_unavailable.empty()) return run_name(r) + ": " + runs[r].records.counters_unavailable;
    const auto &groups = runs.front().records.metric_groups;
    for (std::size_t r = 1; r < runs.size(); ++r)
        if (!runs[r].records.metric_groups.empty() && runs[r].records.metric_groups != groups)
            return run_name(r) + " split the metrics into other groups than " + run_name(0);
    if (!groups.empty() && groups.size() != runs.size())
        return "the metrics need " + std::to_string(groups.size()) + " run(s), " + std::to_string(runs.size()) + " ran";
    return "";
}

// Each kernel's refusal, in the order the kernels were chosen.
std::vector<ReplayRefusal> refusals(const std::vector<ApplicationRun> &runs, const PassRecords *trace, int trace_exit,
                                    const std::vector<std::string> &chosen, const std::vector<std::vector<Placed>> &placed) {
    std::vector<ReplayRefusal> out;
    const std::string exit_why = exit_difference(runs, trace, trace_exit);
    const auto order = order_differences(placed);
    for (const auto &kernel : chosen) {
        std::string why = exit_why;
        if (why.empty()) why = count_difference(runs, trace, kernel);
        if (why.empty()) why = launch_difference(placed, trace, kernel);
        if (why.empty() && order.count(kernel)) why = order.at(kernel);
        if (!why.empty()) out.push_back({kernel, why});
    }
    return out;
}

// Run 1's counted launches of the kernels not refused, each with the metrics of every run.
void join_counters(const std::vector<std::vector<Placed>> &placed, const std::set<std::string> &refused, PassRecords &out) {
    std::vector<std::map<std::tuple<int, std::string, std::uint64_t>, const CounterRecord *>> by_key(placed.size());
    for (std::size_t r = 0; r < placed.size(); ++r)
        for (const auto &p : placed[r]) by_key[r].emplace(p.key(), p.record);
    for (const auto &p : placed.front()) {
        if (refused.count(p.kernel)) continue;
        CounterRecord joined = *p.record;
        joined.metrics.clear();
        joined.passes = placed.size();
        joined.replay = "application";
        for (const auto &run : by_key) {
            auto it = run.find(p.key());
            if (it != run.end()) joined.metrics.insert(it->second->metrics.begin(), it->second->metrics.end());
        }
        out.counters.push_back(joined);
    }
}

}  // namespace

ApplicationJoin join_application_runs(const std::vector<ApplicationRun> &runs, const PassRecords *trace, int trace_exit_status,
                                      const std::vector<std::string> &chosen) {
    ApplicationJoin out;
    if (runs.empty()) {
        out.failure = "the program was not run for application replay";
        return out;
    }
    out.groups = runs.front().records.metric_groups;
    out.counting.launches = runs.front().records.launches;
    for (const auto &run : runs)
        for (const auto &n : run.records.notes)
            if (std::find(out.counting.notes.begin(), out.counting.notes.end(), n) == out.counting.notes.end())
                out.counting.notes.push_back(n);
    out.failure = join_failure(runs);
    if (!out.failure.empty()) {
        out.counting.counters_unavailable = out.failure;
        return out;
    }
    std::vector<std::vector<Placed>> placed;
    for (const auto &run : runs) placed.push_back(placed_launches(run.records));
    out.refused = refusals(runs, trace, trace_exit_status, chosen, placed);
    std::set<std::string> refused;
    for (const auto &r : out.refused) refused.insert(r.mangled);
    join_counters(placed, refused, out.counting);
    return out;
}

std::string refusal_note(const ReplayRefusal &refusal, const std::string &instead) {
    return "application replay refused for " + short_kernel_name(refusal.mangled) + ": " + refusal.reason +
           " (the program is not deterministic); " + instead;
}

}  // namespace gmexplain
