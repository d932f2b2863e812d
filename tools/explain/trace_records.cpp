#include "explain/trace_records.hpp"

#include "explain/program/crash_stack.hpp"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "inject/kernel_choice.hpp"
#include "inject/site_key.hpp"
#include "inject/record_types.hpp"

namespace gmexplain {

using nlohmann::json;

namespace {

template <class T> T num(const json &j, const char *key) { return j.contains(key) && j[key].is_number() ? j[key].get<T>() : T{}; }
std::string str(const json &j, const char *key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : ""; }

void add_kernel(PassRecords &out, const json &j, int pid) {
    KernelRecord k;
    k.mangled = str(j, "name");
    k.name = demangled(k.mangled);
    k.pid = pid;
    k.device = num<int>(j, "device");
    k.stream = num<std::uint32_t>(j, "stream");
    k.graph = num<std::uint32_t>(j, "graph");
    k.graph_node = num<std::uint64_t>(j, "graph_node");
    for (int d = 0; d < 3; ++d) {
        if (j.contains("grid") && j["grid"].size() == 3) k.grid[d] = j["grid"][d].get<std::int64_t>();
        if (j.contains("block") && j["block"].size() == 3) k.block[d] = j["block"][d].get<std::int64_t>();
    }
    k.registers = num<int>(j, "registers");
    k.static_shared = num<int>(j, "static_shared");
    k.dynamic_shared = num<int>(j, "dynamic_shared");
    k.local_per_thread = num<int>(j, "local_per_thread");
    k.start = num<std::uint64_t>(j, "start");
    k.end = num<std::uint64_t>(j, "end");
    k.correlation = num<std::uint32_t>(j, "correlation");
    out.kernels.push_back(k);
}

void add_copy(PassRecords &out, const json &j, bool memset) {
    CopyRecord c;
    c.kind = memset ? "memset" : str(j, "kind");
    c.src = memset ? str(j, "memory") : str(j, "src");
    c.dst = memset ? str(j, "memory") : str(j, "dst");
    c.bytes = num<std::uint64_t>(j, "bytes");
    c.start = num<std::uint64_t>(j, "start");
    c.end = num<std::uint64_t>(j, "end");
    c.device = num<int>(j, "device");
    c.stream = num<std::uint32_t>(j, "stream");
    out.copies.push_back(c);
}

void dimensions(const json &j, const char *key, std::int64_t (&out)[3]) {
    if (!j.contains(key) || !j[key].is_array()) return;
    for (std::size_t i = 0; i < 3 && i < j[key].size(); ++i)
        if (j[key][i].is_number()) out[i] = j[key][i].get<std::int64_t>();
}

void add_counters(PassRecords &out, const json &j, int pid) {
    CounterRecord c;
    c.pid = pid;
    dimensions(j, "grid", c.grid);
    dimensions(j, "block", c.block);
    c.replay = str(j, "replay");
    c.mangled = str(j, "name");
    c.name = demangled(c.mangled);
    c.chip = str(j, "chip");
    c.launch = num<std::uint64_t>(j, "launch");
    c.passes = num<std::uint64_t>(j, "passes");
    c.correlation = num<std::uint32_t>(j, "correlation");
    c.graph = j.contains("graph_range");
    out.counter_sites.emplace_back(pid, num<std::uint64_t>(j, "site"));
    if (j.contains("metrics") && j["metrics"].is_object())
        for (const auto &[k, v] : j["metrics"].items())
            if (v.is_number()) c.metrics[k] = v.get<double>();
    out.counters.push_back(c);
}

void add_call_site(PassRecords &out, const json &j, int pid) {
    CallSiteRecord s;
    s.file = str(j, "file");
    s.line = num<int>(j, "line");
    s.function = str(j, "function");
    s.op = str(j, "op");
    s.inner_op = str(j, "inner_op");
    s.backward = str(j, "backward");
    if (j.contains("addresses") && j["addresses"].is_array()) {
        for (const auto &a : j["addresses"])
            if (a.is_number_unsigned()) s.addresses.push_back(a.get<std::uint64_t>());
    } else if (const auto one = num<std::uint64_t>(j, "address")) {  // records of the first version: one frame
        s.addresses.push_back(one);
    }
    const std::string key = s.key();
    out.sites.emplace(key, s);
    out.site_keys[{pid, num<std::uint64_t>(j, "site")}] = key;
}

}  // namespace

std::string CallSiteRecord::key() const { return site_key(file, line, function, op, inner_op, backward, addresses); }

namespace {

// A counted graph launch is replayed by the profiler: the trace holds each of
// its kernels once per replay pass, and the profiler's own kernels, all with
// the launch's correlation id. One record is kept of each kernel the graph
// runs (known from its other launches); where the profiler gave the graph
// one range, not named by kernel, and the graph runs one kernel, the range is
// that kernel's.
void tidy_counted_graph_launches(PassRecords &r) {
    std::set<std::pair<int, std::uint32_t>> counted;
    for (const auto &c : r.counters)
        if (c.graph) counted.insert({c.pid, c.correlation});
    if (counted.empty()) return;
    std::map<std::pair<int, std::uint32_t>, std::set<std::string>> runs;  // (pid, graph) -> its kernels
    std::map<std::pair<int, std::uint32_t>, std::uint32_t> graph_of;      // (pid, correlation) -> graph
    for (const auto &k : r.kernels) {
        if (!k.graph) continue;
        graph_of[{k.pid, k.correlation}] = k.graph;
        if (!counted.count({k.pid, k.correlation})) runs[{k.pid, k.graph}].insert(k.mangled);
    }
    std::set<std::tuple<int, std::uint32_t, std::string>> kept;
    r.kernels.erase(std::remove_if(r.kernels.begin(), r.kernels.end(), [&](const KernelRecord &k) {
                        if (!counted.count({k.pid, k.correlation})) return false;
                        const auto &runs_of = runs[{k.pid, k.graph}];
                        // A graph launched only this once: its kernels are all but the profiler's.
                        const bool graphs = runs_of.empty() ? !never_counted(k.mangled) : runs_of.count(k.mangled) > 0;
                        return !graphs || !kept.insert({k.pid, k.correlation, k.mangled}).second;
                    }), r.kernels.end());
    for (auto &c : r.counters) {
        if (!c.graph) continue;
        const auto &runs_of = runs[{c.pid, graph_of[{c.pid, c.correlation}]}];
        const bool named = std::any_of(runs_of.begin(), runs_of.end(),
                                       [&](const std::string &m) { return m == c.mangled || demangled(m) == c.mangled; });
        if (!named && runs_of.size() == 1) c.mangled = *runs_of.begin();
    }
}

}  // namespace

void resolve_call_sites(PassRecords &r) {
    tidy_counted_graph_launches(r);
    auto key_of = [&](int pid, std::uint64_t number) -> std::string {
        auto it = r.site_keys.find({pid, number});
        return it != r.site_keys.end() ? it->second : "";
    };
    // A node's site: its first original's (an executable graph's nodes are
    // clones, created with the line that instantiated them), else its own.
    auto node_site = [&](int pid, std::uint64_t node) -> std::string {
        for (int hops = 0; hops < 8; ++hops) {
            auto up = r.node_originals.find({pid, node});
            if (up == r.node_originals.end()) break;
            node = up->second;
        }
        auto it = r.node_sites.find({pid, node});
        return it != r.node_sites.end() ? key_of(pid, it->second) : "";
    };
    for (auto &k : r.kernels) {
        if (k.graph_node) k.site = node_site(k.pid, k.graph_node);
        if (!k.site.empty()) continue;
        auto it = r.launch_sites.find({k.pid, k.correlation});
        if (it != r.launch_sites.end()) k.site = key_of(k.pid, it->second);
    }
    for (std::size_t i = 0; i < r.counters.size() && i < r.counter_sites.size(); ++i)
        r.counters[i].site = key_of(r.counter_sites[i].first, r.counter_sites[i].second);
    // A counted graph launch's ranges name its kernels: each takes the name
    // and site of the kernel of that launch it counted.
    for (auto &c : r.counters) {
        if (!c.graph) continue;
        for (const auto &k : r.kernels)
            if (k.pid == c.pid && k.correlation == c.correlation && (k.mangled == c.mangled || k.name == c.mangled)) {
                c.mangled = k.mangled;
                c.name = k.name;
                c.site = k.site;
                break;
            }
    }
}

void add_record(PassRecords &out, const std::string &line, int pid) {
    json j = json::parse(line);
    const std::string type = str(j, "type");
    if (type == records::kProcess) out.pids.push_back(pid);
    else if (type == records::kExit) ++out.exits;
    else if (type == records::kSignal) {
        out.signals.push_back(num<int>(j, "signal"));
        out.signal_pids.push_back(pid);
    }
    else if (type == records::kNote) out.notes.push_back(str(j, "text"));
    else if (type == records::kTraceUnavailable) out.trace_unavailable = str(j, "reason");
    else if (type == records::kCountersUnavailable) out.counters_unavailable = str(j, "reason");
    else if (type == records::kDropped) out.dropped = std::max(out.dropped, num<std::uint64_t>(j, "count"));
    else if (type == records::kKernel) add_kernel(out, j, pid);
    else if (type == records::kMemcpy) add_copy(out, j, false);
    else if (type == records::kMemset) add_copy(out, j, true);
    else if (type == records::kMemory)
        out.memory.push_back({str(j, "op"), str(j, "memory"), num<std::uint64_t>(j, "bytes"), num<std::uint64_t>(j, "time"),
                              num<int>(j, "pool") != 0, num<std::uint64_t>(j, "address"), num<int>(j, "device")});
    else if (type == records::kUm)
        out.unified_memory.push_back({str(j, "counter"), num<std::uint64_t>(j, "value"), num<std::uint64_t>(j, "start"),
                                      num<std::uint64_t>(j, "end"), num<int>(j, "device"), str(j, "cause")});
    else if (type == records::kDevice) {
        DeviceRecord d;
        d.id = num<int>(j, "id");
        d.name = str(j, "name");
        d.sm_count = num<int>(j, "sm_count");
        d.compute_capability = num<int>(j, "compute_capability");
        d.memory_bytes = num<std::uint64_t>(j, "memory_bytes");
        d.memory_bandwidth_kbs = num<std::uint64_t>(j, "memory_bandwidth_kbs");
        d.l2_bytes = num<std::uint64_t>(j, "l2_bytes");
        d.max_warps_per_sm = num<int>(j, "max_warps_per_sm");
        d.max_blocks_per_sm = num<int>(j, "max_blocks_per_sm");
        d.registers_per_sm = num<int>(j, "registers_per_sm");
        d.shared_per_sm = num<int>(j, "shared_per_sm");
        if (std::none_of(out.devices.begin(), out.devices.end(), [&](const DeviceRecord &e) { return e.id == d.id; }))
            out.devices.push_back(d);
    } else if (type == records::kCounters) add_counters(out, j, pid);
    else if (type == records::kMetricGroups && out.metric_groups.empty() && j.contains("groups") && j["groups"].is_array())
        out.metric_groups = j["groups"].get<std::vector<std::vector<std::string>>>();
    else if (type == records::kLaunches) out.launches[str(j, "name")] += num<std::uint64_t>(j, "count");
    else if (type == records::kCallsite) add_call_site(out, j, pid);
    else if (type == records::kNodeSite) out.node_sites[{pid, num<std::uint64_t>(j, "node")}] = num<std::uint64_t>(j, "site");
    else if (type == records::kNodeClone) out.node_originals[{pid, num<std::uint64_t>(j, "node")}] = num<std::uint64_t>(j, "original");
    else if (type == records::kPhaseTimes) {
        for (const auto &[key, value] : j.items())
            if (key.size() > 2 && key.compare(key.size() - 2, 2, "_s") == 0 && value.is_number())
                out.phase_seconds[key] += value.get<double>();
    } else if (type == records::kLaunchSite) out.launch_sites[{pid, num<std::uint64_t>(j, "correlation")}] = num<std::uint64_t>(j, "site");
}

void read_record_files(const std::string &folder, const std::string &pass,
                       const std::function<void(const std::string &line, int pid)> &add, std::vector<std::string> &notes) {
    DIR *dir = opendir(folder.c_str());
    if (!dir) return;
    std::vector<std::string> files;
    while (dirent *e = readdir(dir)) {
        const std::string name = e->d_name;
        if (name.rfind(pass + "-", 0) == 0 && name.size() > 6 && name.substr(name.size() - 6) == ".jsonl") files.push_back(name);
    }
    closedir(dir);
    std::sort(files.begin(), files.end());
    for (const auto &f : files) {
        const int pid = std::atoi(f.substr(pass.size() + 1).c_str());
        std::ifstream in(folder + "/" + f);
        int bad = 0;
        for (std::string line; std::getline(in, line);) {
            if (line.empty()) continue;
            try {
                add(line, pid);
            } catch (const std::exception &) {
                ++bad;
            }
        }
        if (bad) notes.push_back(std::to_string(bad) + " unreadable record(s) from process " + std::to_string(pid));
    }
}

PassRecords read_pass(const std::string &folder, const std::string &pass) {
    PassRecords out;
    read_record_files(folder, pass, [&](const std::string &line, int pid) { add_record(out, line, pid); }, out.notes);
    resolve_call_sites(out);
    if (!out.signal_pids.empty()) out.crash_stack = crash_stack_summary(read_crash_stack(folder, pass, out.signal_pids.front()));
    return out;
}

}  // namespace gmexplain
