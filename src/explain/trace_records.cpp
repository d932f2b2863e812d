#include "explain/trace_records.hpp"

#include <cxxabi.h>
#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

namespace gmexplain {

using nlohmann::json;

std::string demangle(const std::string &mangled) {
    int status = 0;
    char *out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    if (status != 0 || !out) return mangled;
    std::string name(out);
    std::free(out);
    return name;
}

namespace {

template <class T> T num(const json &j, const char *key) { return j.contains(key) && j[key].is_number() ? j[key].get<T>() : T{}; }
std::string str(const json &j, const char *key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : ""; }

void add_kernel(PassRecords &out, const json &j, int pid) {
    KernelRecord k;
    k.mangled = str(j, "name");
    k.name = demangle(k.mangled);
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
    c.name = demangle(c.mangled);
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
    s.backward = str(j, "backward");
    s.address = num<std::uint64_t>(j, "address");
    const std::string key = s.key();
    out.sites.emplace(key, s);
    out.site_keys[{pid, num<std::uint64_t>(j, "site")}] = key;
}

}  // namespace

std::string CallSiteRecord::key() const {
    return file + ":" + std::to_string(line) + "|" + function + "|" + op + "|" + backward +
           (address ? "|" + std::to_string(address) : "");
}

void resolve_call_sites(PassRecords &r) {
    auto key_of = [&](int pid, std::uint64_t number) -> std::string {
        auto it = r.site_keys.find({pid, number});
        return it != r.site_keys.end() ? it->second : "";
    };
    // A node's site: its own, or its original's (an executable graph's nodes are clones).
    auto node_site = [&](int pid, std::uint64_t node) -> std::string {
        for (int hops = 0; node && hops < 8; ++hops) {
            if (auto it = r.node_sites.find({pid, node}); it != r.node_sites.end()) return key_of(pid, it->second);
            auto up = r.node_originals.find({pid, node});
            node = up != r.node_originals.end() ? up->second : 0;
        }
        return "";
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
    if (type == "process") out.pids.push_back(pid);
    else if (type == "exit") ++out.exits;
    else if (type == "signal") out.signals.push_back(num<int>(j, "signal"));
    else if (type == "note") out.notes.push_back(str(j, "text"));
    else if (type == "trace_unavailable") out.trace_unavailable = str(j, "reason");
    else if (type == "counters_unavailable") out.counters_unavailable = str(j, "reason");
    else if (type == "dropped") out.dropped = std::max(out.dropped, num<std::uint64_t>(j, "count"));
    else if (type == "kernel") add_kernel(out, j, pid);
    else if (type == "memcpy") add_copy(out, j, false);
    else if (type == "memset") add_copy(out, j, true);
    else if (type == "memory")
        out.memory.push_back({str(j, "op"), str(j, "memory"), num<std::uint64_t>(j, "bytes"), num<std::uint64_t>(j, "time"),
                              num<int>(j, "pool") != 0, num<std::uint64_t>(j, "address"), num<int>(j, "device")});
    else if (type == "um")
        out.unified_memory.push_back({str(j, "counter"), num<std::uint64_t>(j, "value"), num<std::uint64_t>(j, "start"),
                                      num<std::uint64_t>(j, "end"), num<int>(j, "device"), str(j, "cause")});
    else if (type == "device") {
        DeviceRecord d;
        d.id = num<int>(j, "id");
        d.name = str(j, "name");
        d.sm_count = num<int>(j, "sm_count");
        d.compute_capability = num<int>(j, "compute_capability");
        d.memory_bytes = num<std::uint64_t>(j, "memory_bytes");
        d.memory_bandwidth_kbs = num<std::uint64_t>(j, "memory_bandwidth_kbs");
        d.l2_bytes = num<std::uint64_t>(j, "l2_bytes");
        if (std::none_of(out.devices.begin(), out.devices.end(), [&](const DeviceRecord &e) { return e.id == d.id; }))
            out.devices.push_back(d);
    } else if (type == "counters") add_counters(out, j, pid);
    else if (type == "metric_groups" && out.metric_groups.empty() && j.contains("groups") && j["groups"].is_array())
        out.metric_groups = j["groups"].get<std::vector<std::vector<std::string>>>();
    else if (type == "launches") out.launches[str(j, "name")] += num<std::uint64_t>(j, "count");
    else if (type == "callsite") add_call_site(out, j, pid);
    else if (type == "node_site") out.node_sites[{pid, num<std::uint64_t>(j, "node")}] = num<std::uint64_t>(j, "site");
    else if (type == "node_clone") out.node_originals[{pid, num<std::uint64_t>(j, "node")}] = num<std::uint64_t>(j, "original");
    else if (type == "launch_site") out.launch_sites[{pid, num<std::uint64_t>(j, "correlation")}] = num<std::uint64_t>(j, "site");
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
    return out;
}

}  // namespace gmexplain
