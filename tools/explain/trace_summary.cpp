#include "explain/trace_summary.hpp"

#include <algorithm>
#include <limits>
#include <queue>

#include "explain/names/kernel_name.hpp"

namespace gmexplain {

namespace {

// Launches counted in the single pass ran under the profiler, replayed: their
// time is the profiler's own measure of one execution (gpu__time_duration),
// not the traced span.
// (A counted graph launch gives each of its kernels one: the same correlation, by name.)
std::map<std::pair<std::uint32_t, std::string>, double> counted_durations_us(const PassRecords &r) {
    std::map<std::pair<std::uint32_t, std::string>, double> out;
    for (const auto &c : r.counters) {
        if (!c.correlation) continue;
        auto d = c.metrics.find("gpu__time_duration.sum");
        out[{c.correlation, c.mangled}] = d != c.metrics.end() ? d->second / 1e3 : 0.0;
    }
    return out;
}

}  // namespace

std::vector<KernelSummary> summarize_kernels(const PassRecords &trace) {
    std::map<std::pair<std::string, std::string>, KernelSummary> by_name;  // (mangled, site)
    const auto counted = counted_durations_us(trace);
    double all_ms = 0;
    for (const auto &k : trace.kernels) {
        auto [it, fresh] = by_name.try_emplace({k.mangled, k.site});
        KernelSummary &s = it->second;
        const auto replayed = k.correlation ? counted.find({k.correlation, k.mangled}) : counted.end();
        const double us = replayed != counted.end() ? replayed->second : (k.end > k.start ? k.end - k.start : 0) / 1e3;
        if (fresh) {
            s.mangled = k.mangled;
            s.name = k.name;
            s.site = k.site;
            if (auto site = trace.sites.find(k.site); site != trace.sites.end()) s.call_site = site->second;
            std::copy(k.grid, k.grid + 3, s.grid);
            std::copy(k.block, k.block + 3, s.block);
            s.registers = k.registers;
            s.static_shared = k.static_shared;
            s.dynamic_shared = k.dynamic_shared;
            s.local_per_thread = k.local_per_thread;
            s.device = k.device;
            s.min_us = us;
        }
        ++s.launches;
        if (k.graph) ++s.graph_launches;
        if (k.start != 0 && k.end > k.start && (s.first_start == 0 || k.start < s.first_start)) s.first_start = k.start;
        s.total_ms += us / 1e3;
        s.min_us = std::min(s.min_us, us);
        all_ms += us / 1e3;
    }
    std::vector<KernelSummary> out;
    for (auto &[name, s] : by_name) {
        s.mean_us = s.launches ? s.total_ms * 1e3 / s.launches : 0;
        s.share_of_gpu_time = all_ms > 0 ? s.total_ms / all_ms : 0;
        out.push_back(s);
    }
    std::sort(out.begin(), out.end(), [](const KernelSummary &a, const KernelSummary &b) {
        return a.total_ms != b.total_ms ? a.total_ms > b.total_ms : a.name < b.name;
    });
    // Named in rank order, so that of two kernels that would share a short
    // name the longer-running one keeps the plainer; one kernel at several
    // call sites keeps one name (its sites tell them apart).
    std::vector<std::string> demangled;
    for (const auto &s : out)
        if (std::find(demangled.begin(), demangled.end(), s.name) == demangled.end()) demangled.push_back(s.name);
    const auto short_names = distinct_short_names(demangled);
    for (auto &s : out)
        s.short_name = short_names[std::find(demangled.begin(), demangled.end(), s.name) - demangled.begin()];
    return out;
}

namespace {

bool host_copy(const CopyRecord &c) { return c.kind == "HtoD" || c.kind == "DtoH"; }

// Total time the copies spent while some kernel ran on the same device.
double overlap_ms(const std::vector<const CopyRecord *> &copies, const std::vector<KernelRecord> &kernels) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> busy;
    for (const auto &k : kernels)
        if (k.start != 0 && k.end > k.start) busy.emplace_back(k.start, k.end);
    std::sort(busy.begin(), busy.end());
    std::vector<std::pair<std::uint64_t, std::uint64_t>> merged;
    for (const auto &b : busy) {
        if (!merged.empty() && b.first <= merged.back().second) merged.back().second = std::max(merged.back().second, b.second);
        else merged.push_back(b);
    }
    double ns = 0;
    for (const auto *c : copies) {
        auto it = std::upper_bound(merged.begin(), merged.end(), std::make_pair(c->start, std::numeric_limits<std::uint64_t>::max()));
        if (it != merged.begin()) --it;
        for (; it != merged.end() && it->first < c->end; ++it) {
            const std::uint64_t lo = std::max(it->first, c->start), hi = std::min(it->second, c->end);
            if (hi > lo) ns += double(hi - lo);
        }
    }
    return ns / 1e6;
}

void add_copy_figures(const PassRecords &trace, std::map<std::string, double> &f) {
    std::vector<const CopyRecord *> host;
    for (const auto &c : trace.copies) {
        if (!host_copy(c)) continue;
        host.push_back(&c);
        const double ms = (c.end - c.start) / 1e6;
        f["copies"] += 1;
        f["copy_ms"] += ms;
        f["copy_bytes"] += double(c.bytes);
        const bool pageable = (c.kind == "HtoD" ? c.src : c.dst) == "pageable";
        if (pageable) {
            f["pageable_copies"] += 1;
            f["pageable_bytes"] += double(c.bytes);
            f["pageable_ms"] += ms;
            // By direction: the lab times each direction's pageable and pinned copies apart.
            const std::string dir = c.kind == "HtoD" ? "h2d" : "d2h";
            f["pageable_" + dir + "_copies"] += 1;
            f["pageable_" + dir + "_bytes"] += double(c.bytes);
        }
        if (c.bytes < kSmallCopyBytes) {
            f["small_copies"] += 1;
            f["small_copy_ms"] += ms;
            f["small_copy_bytes"] += double(c.bytes);
        }
    }
    const double overlapped = overlap_ms(host, trace.kernels);
    f["copy_kernel_overlap_ms"] = overlapped;
    f["copy_kernel_overlap_share"] = f["copy_ms"] > 0 ? overlapped / f["copy_ms"] : 0;
}

// Data moved between two GPUs through the host: a copy from GPU a to the host
// followed by a copy of the same size from the host to GPU b (b != a), the
// way a program without peer access stages it (peer's staged path).
// staged_peer_copies counts the pairs, staged_peer_bytes the bytes that
// reached the second GPU, staged_peer_ms both copies' time.
void add_staged_peer_figures(const PassRecords &trace, std::map<std::string, double> &f) {
    std::vector<const CopyRecord *> host;
    for (const auto &c : trace.copies)
        if (host_copy(c) && c.end > c.start) host.push_back(&c);
    std::stable_sort(host.begin(), host.end(), [](const CopyRecord *a, const CopyRecord *b) { return a->start < b->start; });
    // One pass in start order: copies to the host wait in `pending` until
    // they have ended, then in `ended` by size, the latest last; a copy to a
    // GPU pairs with the latest ended one of its size (a program with many
    // copies is read once, not once per copy).
    auto later_end = [](const CopyRecord *a, const CopyRecord *b) { return a->end > b->end; };
    std::priority_queue<const CopyRecord *, std::vector<const CopyRecord *>, decltype(later_end)> pending(later_end);
    std::map<std::uint64_t, std::vector<const CopyRecord *>> ended;
    f["staged_peer_copies"] = f["staged_peer_bytes"] = f["staged_peer_ms"] = 0;
    for (const CopyRecord *c : host) {
        for (; !pending.empty() && pending.top()->end <= c->start; pending.pop()) ended[pending.top()->bytes].push_back(pending.top());
        if (c->kind == "DtoH") {
            pending.push(c);
            continue;
        }
        auto it = ended.find(c->bytes);
        if (it == ended.end() || it->second.empty()) continue;
        const CopyRecord &down = *it->second.back();
        if (down.device == c->device) continue;  // the latest such copy came from this GPU: a round trip, not a move
        it->second.pop_back();
        f["staged_peer_copies"] += 1;
        f["staged_peer_bytes"] += double(c->bytes);
        f["staged_peer_ms"] += (c->end - c->start + down.end - down.start) / 1e6;
    }
}

// What overlapping copies with kernels (over several streams) can take off
// the GPU's busy time: at best the busy time falls to the longest of the
// three engines' serial work after the first kernel (copies to the device,
// copies to the host, kernels), plus the copies made before any kernel ran,
// which the kernels that need them cannot run beside (removable_busy_ms).
void add_overlap_bound(const PassRecords &trace, std::map<std::string, double> &f) {
    std::uint64_t first_kernel = std::numeric_limits<std::uint64_t>::max();
    for (const auto &k : trace.kernels)
        if (k.start != 0 && k.end > k.start) first_kernel = std::min(first_kernel, k.start);
    double before = 0, h2d = 0, d2h = 0;
    for (const auto &c : trace.copies) {
        if (!host_copy(c) || c.end <= c.start) continue;
        const double ms = (c.end - c.start) / 1e6;
        if (c.end <= first_kernel) before += ms;
        else (c.kind == "HtoD" ? h2d : d2h) += ms;
    }
    f["copy_before_kernels_ms"] = before;
    const double floor_ms = before + std::max({h2d, d2h, f["kernel_ms"]});
    f["removable_busy_ms"] = std::max(0.0, f["gpu_busy_ms"] - floor_ms);
}

// The time the GPU stood idle between two kernels while the host allocated
// or freed device memory between them (cudaFree waits for the device, so the
// next launch comes only after): the median of those gaps times their
// number, so that the few gaps a counted launch's replays stretch do not
// count. What taking the allocations out of the loop can give back.
double allocation_gap_ms(const PassRecords &trace) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;  // (start, end) of the timed kernels
    for (const auto &k : trace.kernels)
        if (k.start != 0 && k.end > k.start) spans.emplace_back(k.start, k.end);
    std::sort(spans.begin(), spans.end());
    std::vector<std::uint64_t> calls;
    for (const auto &m : trace.memory)
        if (m.memory == "device" && !m.pool && (m.op == "alloc" || m.op == "free")) calls.push_back(m.time);
    std::sort(calls.begin(), calls.end());
    std::vector<double> gaps;
    for (std::size_t i = 1; i < spans.size(); ++i) {
        const std::uint64_t from = spans[i - 1].second, to = spans[i].first;
        if (to <= from) continue;
        const auto it = std::upper_bound(calls.begin(), calls.end(), from);
        if (it != calls.end() && *it < to) gaps.push_back((to - from) / 1e6);
    }
    if (gaps.empty()) return 0;
    std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
    return gaps[gaps.size() / 2] * gaps.size();
}

void add_allocation_figures(const PassRecords &trace, std::map<std::string, double> &f) {
    std::uint64_t first_kernel = std::numeric_limits<std::uint64_t>::max(), last_kernel = 0;
    for (const auto &k : trace.kernels) {
        if (k.start == 0 || k.end <= k.start) continue;
        first_kernel = std::min(first_kernel, k.start);
        last_kernel = std::max(last_kernel, k.end);
    }
    double bytes = 0;
    for (const auto &m : trace.memory) {
        if (m.memory != "device" || m.pool) continue;
        if (m.op == "alloc") {
            f["device_allocs"] += 1;
            bytes += double(m.bytes);
            // Allocations after the first kernel and before the last one are
            // inside the program's work, not its setup.
            if (m.time > first_kernel && m.time < last_kernel) f["allocs_between_kernels"] += 1;
        } else if (m.op == "free") {
            f["device_frees"] += 1;
            if (m.time > first_kernel && m.time < last_kernel) f["frees_between_kernels"] += 1;
        }
    }
    f["mean_alloc_bytes"] = f["device_allocs"] > 0 ? bytes / f["device_allocs"] : 0;
    f["alloc_gap_ms"] = allocation_gap_ms(trace);
}

}  // namespace

namespace {
// A launch counted in the single pass has no traced time (CUPTI reports start
// and end 0 for the replayed launch): the span and the overlaps leave it out.
bool timed(const KernelRecord &k) { return k.start != 0 && k.end > k.start; }
}  // namespace

std::map<std::string, double> run_figures(const PassRecords &trace, std::map<std::string, double> counted_us) {
    std::map<std::string, double> f;
    for (const char *k : {"copies", "copy_ms", "copy_bytes", "pageable_copies", "pageable_bytes", "pageable_ms",
                          "pageable_h2d_copies", "pageable_h2d_bytes", "pageable_d2h_copies", "pageable_d2h_bytes",
                          "small_copies", "small_copy_ms", "small_copy_bytes", "device_allocs", "device_frees",
                          "allocs_between_kernels", "frees_between_kernels", "kernel_ms", "kernel_launches"})
        f[k] = 0;
    std::uint64_t lo = std::numeric_limits<std::uint64_t>::max(), hi = 0;
    const auto counted = counted_durations_us(trace);
    for (const auto &k : trace.kernels) {
        f["kernel_launches"] += 1;
        if (!timed(k)) {
            const auto it = counted.find({k.correlation, k.mangled});
            if (it != counted.end()) f["kernel_ms"] += it->second / 1e3;
            continue;
        }
        f["kernel_ms"] += (k.end - k.start) / 1e6;
        lo = std::min(lo, k.start);
        hi = std::max(hi, k.end);
    }
    for (const auto &c : trace.copies) {
        if (c.start == 0 || c.end < c.start) continue;
        lo = std::min(lo, c.start);
        hi = std::max(hi, c.end);
    }
    f["gpu_span_ms"] = hi > lo ? (hi - lo) / 1e6 : 0;
    add_copy_figures(trace, f);
    add_staged_peer_figures(trace, f);
    // Time the GPU was busy with kernels or host copies: the span would count
    // the profiler's own pauses in the single pass.
    f["gpu_busy_ms"] = f["kernel_ms"] + f["copy_ms"] - f["copy_kernel_overlap_ms"];
    add_overlap_bound(trace, f);
    add_allocation_figures(trace, f);
    if (counted_us.empty()) counted_us = counted_times_us(trace);
    add_unified_memory_figures(trace, counted_us, f);
    return f;
}

std::map<std::string, double> kernel_memory_figures(const PassRecords &trace, const KernelSummary &kernel) {
    std::map<std::string, double> f;
    std::uint64_t l2 = 0;
    for (const auto &d : trace.devices)
        if (d.id == kernel.device) l2 = d.l2_bytes;
    if (kernel.first_start == 0 || l2 == 0) return f;
    std::vector<const MemoryRecord *> before;
    for (const auto &m : trace.memory)
        if (m.memory == "device" && m.device == kernel.device && m.time < kernel.first_start) before.push_back(&m);
    std::stable_sort(before.begin(), before.end(), [](const MemoryRecord *a, const MemoryRecord *b) { return a->time < b->time; });
    std::map<std::uint64_t, std::uint64_t> live;  // address -> bytes
    for (const auto *m : before) {
        if (m->op == "alloc") live[m->address] = m->bytes;
        else if (m->op == "free") live.erase(m->address);
    }
    double total = 0, fitting = 0;
    for (const auto &[address, bytes] : live) {
        total += double(bytes);
        if (bytes <= l2) fitting = std::max(fitting, double(bytes));
    }
    f["live_device_bytes"] = total;
    f["largest_fitting_alloc_bytes"] = fitting;
    f["l2_bytes"] = double(l2);
    return f;
}

std::map<std::string, double> kernel_occupancy_figures(const PassRecords &trace, const KernelSummary &kernel) {
    std::map<std::string, double> f;
    const DeviceRecord *device = nullptr;
    for (const auto &d : trace.devices)
        if (d.id == kernel.device) device = &d;
    if (device) f["compute_capability"] = device->compute_capability;
    const std::int64_t threads = kernel.block[0] * kernel.block[1] * kernel.block[2];
    if (!device || device->max_warps_per_sm <= 0 || device->max_blocks_per_sm <= 0 || device->registers_per_sm <= 0 ||
        device->shared_per_sm <= 0 || threads <= 0)
        return f;
    const std::int64_t warps = (threads + 31) / 32, unlimited = std::numeric_limits<std::int64_t>::max();
    // Registers are allocated per warp in units of 256; from compute
    // capability 8.0 on, every block also takes 1 KiB of shared memory for the system.
    const std::int64_t registers_per_warp = (std::int64_t(kernel.registers) * 32 + 255) / 256 * 256;
    const std::int64_t shared = std::int64_t(kernel.static_shared) + kernel.dynamic_shared;
    const std::int64_t reserved = device->compute_capability >= 80 ? 1024 : 0;
    const std::int64_t by_warps = device->max_warps_per_sm / warps, by_blocks = device->max_blocks_per_sm;
    const std::int64_t by_registers = registers_per_warp > 0 ? device->registers_per_sm / (registers_per_warp * warps) : unlimited;
    const std::int64_t by_shared = shared > 0 ? device->shared_per_sm / (shared + reserved) : unlimited;
    const std::int64_t others = std::min(by_warps, by_blocks);
    const std::int64_t blocks = std::min({others, by_registers, by_shared});
    f["blocks_per_sm"] = double(blocks);
    f["theoretical_occupancy"] = double(blocks * warps) / device->max_warps_per_sm;
    f["occupancy_limited_by_registers"] = by_registers < others && by_registers <= by_shared ? 1 : 0;
    f["occupancy_limited_by_shared"] = by_shared < others && by_shared < by_registers ? 1 : 0;
    return f;
}

}  // namespace gmexplain
