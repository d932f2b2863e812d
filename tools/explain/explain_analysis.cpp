// From the passes' records to the document: per chosen kernel its counters,
// figures and findings; the run-scope findings; the notes that say what was
// not collected and why.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <limits>
#include <set>

#include "explain/explain_document.hpp"
#include "explain/explain_session.hpp"
#include "explain/lab_figures.hpp"
#include "explain/measure_now.hpp"
#include "explain/rule_book.hpp"
#include "inject/kernel_choice.hpp"

namespace gmexplain {

using nlohmann::json;

namespace {

std::string now_iso() {
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

// The figure every kernel rule may compare with: stream's copy bandwidth on this GPU.
constexpr const char *kAttainable = "attainable_dram_gbs";

json device_json(const PassRecords &r, int id) {
    for (const auto &d : r.devices)
        if (d.id == id)
            return {{"id", d.id},
                    {"name", d.name},
                    {"multiprocessors", d.sm_count},
                    {"compute_capability", d.compute_capability},
                    {"memory_bytes", d.memory_bytes},
                    {"l2_bytes", d.l2_bytes},
                    {"theoretical_bandwidth_gbs", d.memory_bandwidth_kbs / 1e6}};
    return {{"id", id}, {"name", "unknown"}};
}

// The counters of a kernel's counted launches, each metric averaged over them.
std::map<std::string, double> averaged(const std::vector<const CounterRecord *> &records) {
    std::map<std::string, double> out;
    for (const auto *r : records)
        for (const auto &[k, v] : r->metrics) out[k] += v / records.size();
    return out;
}

std::map<std::string, double> kernel_base(const KernelSummary &k, const std::map<std::string, double> &counters,
                                          const std::optional<double> &attainable, const PassRecords &trace) {
    std::map<std::string, double> base = counters;
    for (const auto &[name, v] : kernel_memory_figures(trace, k)) base[name] = v;
    for (const auto &[name, v] : kernel_occupancy_figures(trace, k)) base[name] = v;
    base["time_ms"] = k.total_ms;
    base["mean_us"] = k.mean_us;
    base["launches"] = double(k.launches);
    base["registers"] = k.registers;
    base["local_per_thread"] = k.local_per_thread;
    base["threads_per_block"] = double(k.block[0] * k.block[1] * k.block[2]);
    base["blocks"] = double(k.grid[0] * k.grid[1] * k.grid[2]);
    // Rows of a 2D array: a launch with more than one block row or thread row.
    base["two_dimensional"] = k.grid[1] > 1 || k.block[1] > 1 ? 1 : 0;
    base["shared_bytes_per_block"] = k.static_shared + k.dynamic_shared;
    if (attainable) base[kAttainable] = *attainable;
    return base;
}

struct Context {
    const Options &o;
    const RuleBook &book;
    const PassRecords &trace;
    const LabRun *lab;
    std::string lab_missing;
    std::optional<double> attainable;
    bool awaits_attainable = false;  // a kernel rule's condition waits only on the attainable bandwidth
    json notes = json::array();
    int findings = 0;
    double gain_ms = 0;
    bool any_gain = false;
};

// The findings into the document and the summary. A kernel's gains count
// together at most its own time (`limit_ms`); the document says where the
// limit applied (gain_limited_to_ms).
void add_verdicts(Context &c, json &into, const Verdicts &v, double limit_ms = std::numeric_limits<double>::infinity()) {
    into["findings"] = json::array();
    double sum = 0;
    for (const auto &f : v.findings) {
        into["findings"].push_back(finding_json(f));
        if (f.limiting) ++c.findings;  // present but not limiting: listed, not counted
        sum += f.gain_ms.value_or(0);
    }
    if (const auto gain = combined_gain_ms(v.findings, limit_ms)) {
        c.gain_ms += *gain;
        c.any_gain = true;
        if (*gain < sum) into["gain_limited_to_ms"] = *gain;
    }
    into["not_evaluated"] = v.not_evaluated;
}

// The rules applied to each counted launch; a rule named on several launches
// keeps the launch with the largest gain, and says on how many it was named.
Verdicts judge_launches(Context &c, const KernelSummary &k, const std::vector<const CounterRecord *> &launches) {
    Verdicts out;
    std::map<std::string, int> named;
    for (const auto *r : launches) {
        Figures figures(c.book, kernel_base(k, r->metrics, c.attainable, c.trace));
        const Verdicts v = apply_rules(c.book, "kernel", figures, c.lab, c.lab_missing);
        if (r == launches.front()) out.not_evaluated = v.not_evaluated;
        for (const auto &f : v.findings) {
            ++named[f.rule];
            auto it = std::find_if(out.findings.begin(), out.findings.end(), [&](const Finding &g) { return g.rule == f.rule; });
            if (it == out.findings.end()) out.findings.push_back(f);
            else if (f.gain_ms.value_or(0) > it->gain_ms.value_or(0)) *it = f;
        }
    }
    for (auto &f : out.findings)
        f.launches = std::to_string(named[f.rule]) + " of " + std::to_string(launches.size()) + " counted launches";
    return out;
}

// Whether a kernel rule's condition is unknown only for want of the
// attainable bandwidth and could hold once it is known: with a probe in its
// place (a bandwidth of 1 GB/s or 10^12, never printed) the condition holds.
// A condition that some other missing figure keeps unknown, or that fails
// whatever the bandwidth, is not worth measuring stream for.
bool awaits_attainable(const RuleBook &book, std::map<std::string, double> base) {
    Figures without(book, base);
    std::vector<Figures> probes;
    probes.reserve(2);  // each keeps its place: a lookup refers to its Figures
    for (double gbs : {1.0, 1e12}) {
        base[kAttainable] = gbs;
        probes.emplace_back(book, base);
    }
    for (const auto &rule : book.rules) {
        if (rule.scope != "kernel" || evaluate(rule.when, without.lookup())) continue;
        for (const auto &probe : probes)
            if (const auto v = evaluate(rule.when, probe.lookup()); v && *v != 0) return true;
    }
    return false;
}

json explain_kernel(Context &c, const KernelSummary &k, int rank, bool chosen, const PassRun *counting) {
    json kj = kernel_json(k, rank);
    kj["counted"] = false;
    if (!chosen) {
        kj["not_counted"] = never_counted(k.mangled)
                                ? "a framework's or the profiler's own kernel (XLA's autotuning timer, a replay's "
                                  "memory check), never counted: replaying it would wait for its time-out"
                                : "not among the " + std::to_string(c.o.kernels) + " kernels chosen (--kernels, --kernel-regex)";
        return kj;
    }
    if (!counting) {
        kj["not_counted"] = "--counters off";
        return kj;
    }
    std::vector<const CounterRecord *> mine;
    for (const auto &r : counting->records.counters)
        if (counts_for(r, k)) mine.push_back(&r);
    const bool left = std::any_of(counting->not_worth_a_run.begin(), counting->not_worth_a_run.end(),
                                  [&](const auto &x) { return x.first == k.mangled && x.second == k.site; });
    if (mine.empty() && left) {
        char share[32];
        std::snprintf(share, sizeof share, "%.1f", 100 * counting->not_worth_share);
        kj["not_counted"] = std::string("not counted in the single pass") + (k.launches == 1 ? " (launched once)" : "") +
                            ", and the kernels left so took " + share +
                            " % of the kernels' time together: not worth another run of the program (--passes 2 counts it)";
        return kj;
    }
    if (mine.empty()) {
        std::string why = !counting->records.counters_unavailable.empty() ? counting->records.counters_unavailable
                          : k.graph_launches == k.launches
                              ? "every launch of this kernel came from a CUDA graph, and no counted graph launch ran it (see the notes)"
                          : k.launches <= c.o.launch_skip
                              ? "--launch-skip " + std::to_string(c.o.launch_skip) + " skips all of its " + std::to_string(k.launches) + " launches"
                              : "the counting run did not launch it (the program is not deterministic)";
        kj["not_counted"] = why;
        return kj;
    }
    const auto counters = averaged(mine);
    kj["counted"] = true;
    kj["counted_launches"] = mine.size();
    kj["replay_passes"] = mine.front()->passes;
    kj["counters"] = counters;
    Figures figures(c.book, kernel_base(k, counters, c.attainable, c.trace));
    add_lab_figures(c.book, figures, c.lab);
    json derived = json::object();
    for (const auto &[name, expr] : c.book.derived)
        if (const auto v = figures.get(name)) derived[name] = *v;
    for (const auto &[name, spec] : c.book.lab)
        if (const auto v = figures.get(name)) derived[name] = *v;
    kj["figures"] = derived;
    json shown = json::object();
    for (const auto &name : c.book.report)
        if (const auto v = figures.get(name)) shown[name] = *v;
    kj["reported"] = shown;
    // The counted launch ran under the profiler: where its traced launches took
    // far longer, the document says so and what overlapped them.
    const auto duration = counters.find("gpu__time_duration.sum");
    if (duration != counters.end()) {
        const Slowdown slow = kernel_slowdown(c.trace, k.mangled, duration->second / 1e3);
        if (slow.traced_launches) kj["traced_vs_counted"] = slowdown_json(slow, k.device);
    }
    // Each counted launch is judged on its own counters: launches of one kernel
    // may differ (a kernel called on a contiguous and on a strided view).
    const Verdicts v = judge_launches(c, k, mine);
    add_verdicts(c, kj, v, k.total_ms);
    if (!c.attainable)
        for (const auto *r : mine)
            c.awaits_attainable = c.awaits_attainable || awaits_attainable(c.book, kernel_base(k, r->metrics, std::nullopt, c.trace));
    return kj;
}

void add_pass_notes(Context &c, const PassRun &trace, const PassRun *counting) {
    const auto &t = trace.records;
    if (t.pids.size() > 1)
        c.notes.push_back("the program ran CUDA in " + std::to_string(t.pids.size()) +
                          " processes (children were followed through the injection library); their records are merged");
    if (trace.exit.signal) c.notes.push_back("the program was ended by signal " + std::to_string(trace.exit.signal) +
                                             ": the records written before it are explained" +
                                             (t.crash_stack.empty() ? "" : "; the crashing thread's stack: " + t.crash_stack));
    else if (trace.exit.status) c.notes.push_back("the program exited with status " + std::to_string(trace.exit.status) +
                                                  ": what it did before is explained, and gmlab explain exits with its status");
    if (t.dropped) c.notes.push_back(std::to_string(t.dropped) + " trace records were dropped by CUPTI: figures are lower bounds");
    std::set<int> devices;
    for (const auto &k : t.kernels) devices.insert(k.device);
    if (devices.size() > 1) c.notes.push_back("kernels ran on " + std::to_string(devices.size()) + " devices; costs are read for device " + std::to_string(*devices.begin()) + "'s model");
    for (const auto &n : t.notes) c.notes.push_back("trace: " + n);
    if (!counting) return;
    const auto &k = counting->records;
    if (!k.counters_unavailable.empty()) {
        std::string n = "counters not available: " + k.counters_unavailable;
        if (k.counters_unavailable.find("ERR_NVGPUCTRPERM") != std::string::npos)
            n += ". The driver lets only administrators read GPU performance counters: run as root, or set the nvidia "
                 "module option NVreg_RestrictProfilingToAdminUsers=0 (a file in /etc/modprobe.d, then reload the driver). "
                 "Pass 1 (the trace) ran and its findings stand";
        c.notes.push_back(n);
    }
    for (const auto &n : k.notes) c.notes.push_back("counters: " + n);
    if (counting->exit.status != trace.exit.status)
        c.notes.push_back("the counting run exited with " + std::to_string(counting->exit.status) + ", the trace run with " +
                          std::to_string(trace.exit.status));
}


// The document of one explanation, with costs from `lab` (null: none, for `lab_missing`).
json build_document(const Options &o, const RuleBook &book, const PassRun &trace, const PassRun *counting,
                    double counting_seconds, const LabRun *lab, const std::string &lab_missing, bool *awaits) {
    const auto kernels = summarize_kernels(trace.records);
    const auto chosen = choose_kernels(kernels, o);
    const json dev = device_json(trace.records, chosen.empty() ? 0 : chosen.front().device);
    Context c{o, book, trace.records, lab, lab_missing, std::nullopt};
    if (lab) c.attainable = lab_summary(*lab, "stream", "copy_gbs");

    json doc;
    doc["schema"] = kExplainSchema;
    doc["created_at"] = now_iso();
    doc["command"] = o.argv;
    doc["options"] = {{"kernels", o.kernels}, {"kernel_regex", o.kernel_regex}, {"launch_skip", o.launch_skip},
                      {"launch_count", o.launch_count}, {"replay", o.replay}, {"counters", o.counters}, {"lines", o.lines},
                      {"measure", o.measure == kMeasureAlways ? "always" : o.measure == kMeasureNever ? "never" : "where no run"}};
    doc["device"] = dev;
    doc["program"] = {{"exit_status", trace.exit.status}, {"signal", trace.exit.signal},
                      {"processes", int(trace.records.pids.size())}};
    doc["lab"] = {{"run", lab ? json(lab->path) : json(nullptr)}, {"missing", lab ? "" : lab_missing},
                  {"attainable_dram_gbs", c.attainable ? json(*c.attainable) : json(nullptr)}, {"measured", json::array()}};
    if (lab && lab->measured) {
        for (const auto &[experiment, m] : lab->measurements) doc["lab"]["measured"].push_back(m);
        doc["lab"]["results"] = lab->doc["results"];  // what was measured, for the page's charts and for checking
    }
    const bool single = std::any_of(trace.records.counters.begin(), trace.records.counters.end(),
                                    [](const CounterRecord &r) { return r.correlation != 0; }) ||
                        !trace.records.counters_unavailable.empty();
    doc["passes"] = {{"mode", single ? "single" : "two"},
                     {"trace", {{"seconds", trace.exit.seconds}, {"processes", trace.records.pids.size()}}},
                     {"counters", {{"seconds", counting_seconds}, {"ran", counting != nullptr},
                                   {"available", counting && counting->records.counters_unavailable.empty()},
                                   {"reason", counting ? counting->records.counters_unavailable : "--counters off"},
                                   {"launches_counted", counting ? counting->records.counters.size() : 0}}}};
    // Where the program's time under the injection went (phase_times.hpp).
    if (!trace.records.phase_seconds.empty()) doc["passes"]["trace"]["in_program"] = trace.records.phase_seconds;
    if (counting && !counting->records.phase_seconds.empty())
        doc["passes"]["counters"]["in_program"] = counting->records.phase_seconds;
    doc["kernels_total"] = int(kernels.size());
    doc["kernels"] = json::array();
    int rank = 0;
    for (const auto &k : kernels) {
        ++rank;
        const bool is_chosen = std::any_of(chosen.begin(), chosen.end(), [&](const KernelSummary &x) { return x.mangled == k.mangled && x.site == k.site; });
        if (!is_chosen && rank > std::max(o.kernels, 10)) continue;  // the document lists the chosen and the top ten
        doc["kernels"].push_back(explain_kernel(c, k, rank, is_chosen, counting));
    }
    const auto figures_map = run_figures(trace.records, counted_times_us(counting ? counting->records : trace.records));
    Figures run_figs(book, figures_map);
    doc["run"]["figures"] = figures_map;
    add_verdicts(c, doc["run"], apply_rules(book, "run", run_figs, c.lab, c.lab_missing));
    for (const auto &[name, spec] : book.lab)  // the lab's figures found for the run, as its gains saw them
        if (const auto v = run_figs.get(name)) doc["run"]["figures"][name] = *v;
    add_pass_notes(c, trace, counting);
    doc["notes"] = c.notes;
    doc["summary"] = {{"findings", c.findings}, {"estimated_gain_ms", c.any_gain ? json(c.gain_ms) : json(nullptr)}};
    *awaits = c.awaits_attainable;
    return doc;
}

// What to measure for `doc`'s costs: each finding's request, and stream's
// copy bandwidth where a kernel rule waits on it (measured as the rule that
// reads stream's copy_gbs as its cost asks, if one does).
std::vector<json> measurement_requests(const RuleBook &book, const json &doc, bool awaits) {
    std::vector<json> requests = requests_in(doc);
    if (!awaits) return requests;
    CostSpec attainable;
    attainable.experiment = "stream";
    attainable.summary = "copy_gbs";
    for (const auto &r : book.rules)
        if (r.cost.experiment == attainable.experiment && r.cost.summary == attainable.summary) attainable = r.cost;
    json request = measurement_request(attainable, [](const std::string &) { return std::nullopt; });
    request["rules"] = json::array({kAttainable});
    requests.push_back(request);
    return requests;
}

// Runs the experiments the findings need, and the lab their results make.
std::optional<LabRun> measure_costs(const Options &o, const std::vector<json> &requests, int device,
                                    const std::string &gpu_name, std::vector<std::string> *notes) {
    const auto plan = plan_measurements(requests, registry_quick_parameters);
    if (plan.empty()) return std::nullopt;
    const MeasuredSession session = o.measurer ? o.measurer(device, plan) : measure_with_libgmlab(device, plan);
    return lab_from_measurements(gpu_name, plan, session, notes);
}

}  // namespace

Outcome analyse(const Options &o, const PassRun &trace, const PassRun *counting, double counting_seconds) {
    const RuleBook book = load_rules(o.rules_dir);
    const auto chosen = choose_kernels(summarize_kernels(trace.records), o);
    const int device = chosen.empty() ? 0 : chosen.front().device;
    const std::string gpu_name = device_json(trace.records, device).value("name", "");
    std::string lab_missing = "--measure: costs are measured now, not read from a run document";
    std::optional<LabRun> lab;
    if (o.measure != kMeasureAlways) lab = find_lab_run(o.lab_run, gpu_name, &lab_missing);
    bool awaits = false;
    json doc = build_document(o, book, trace, counting, counting_seconds, lab ? &*lab : nullptr, lab_missing, &awaits);
    // Records explained again run nothing unless --measure asks for it.
    const bool measure = o.measure == kMeasureAlways || (o.measure == kMeasureWhereNoRun && o.from_records.empty());
    if (!lab && measure) {
        std::vector<std::string> notes;
        const auto measured = measure_costs(o, measurement_requests(book, doc, awaits), device, gpu_name, &notes);
        if (measured) doc = build_document(o, book, trace, counting, counting_seconds, &*measured, "", &awaits);
        else if (!notes.empty())  // each cost says why it was not measured now
            doc = build_document(o, book, trace, counting, counting_seconds, nullptr, notes.front(), &awaits);
        for (const auto &n : notes) doc["notes"].push_back(n);
    }
    Outcome out;
    out.document = doc;
    out.exit_code = trace.exit.status;
    return out;
}

}  // namespace gmexplain
