#include "inject/sites/call_sites.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <tuple>

#include "inject/sites/host_frames.hpp"
#include "inject/sites/nvtx_ranges.hpp"
#include "inject/sites/python_frames.hpp"
#include "inject/record_sink.hpp"
#include "inject/site_key.hpp"
#include "inject/variables.hpp"
#include "inject/record_types.hpp"

namespace gmexplain {

namespace {

using SiteKey = std::tuple<std::string, int, std::string, std::string, std::string, std::string, std::vector<std::uint64_t>>;

struct SiteTable {
    std::mutex mutex;
    std::map<SiteKey, std::uint32_t> numbers;
    std::map<std::uint32_t, std::string> keys;  // site_key.hpp's, by number
    // The forward operator's site per autograd sequence number, for its backward.
    std::map<long long, CallSite> forward_by_seq;
};

SiteTable &sites() {
    static SiteTable *table = new SiteTable;  // never destroyed: launches may come during exit
    return *table;
}

constexpr std::size_t kForwardSitesKept = 1u << 16;

// The launch's site, before it is numbered.
CallSite site_of_launch(SiteTable &t) {
    const OperatorContext op = operator_context(nvtx_open_ranges());
    const PythonLine py = python_user_line();
    CallSite s;
    s.op = op.op;
    if (op.inner_op != op.op) s.inner_op = op.inner_op;
    if (py.line > 0) {
        s.file = py.file;
        s.line = py.line;
        s.function = py.function;
        if (op.forward_seq >= 0) {
            std::lock_guard<std::mutex> lock(t.mutex);
            if (t.forward_by_seq.size() >= kForwardSitesKept) t.forward_by_seq.erase(t.forward_by_seq.begin());
            t.forward_by_seq.emplace(op.forward_seq, s);
        }
    } else if (op.backward_seq >= 0) {
        std::lock_guard<std::mutex> lock(t.mutex);
        auto it = t.forward_by_seq.find(op.backward_seq);
        if (it != t.forward_by_seq.end()) {
            s.file = it->second.file;
            s.line = it->second.line;
            s.function = it->second.function;
        }
        s.backward = op.backward_node;
    } else if (!python_running()) {
        const HostFrame host = program_frame();
        s.file = host.module;
        s.addresses = host.addresses;
    }
    return s;
}

}  // namespace

bool call_sites_wanted() {
    static const bool wanted = [] {
        const char *v = std::getenv(vars::kCallSites);
        return !(v && std::string(v) == "0");
    }();
    return wanted;
}

namespace {

std::string address_list(const std::vector<std::uint64_t> &addresses) {
    std::string out;
    for (auto a : addresses) out += (out.empty() ? "" : ",") + std::to_string(a);
    return "[" + out + "]";
}

// The site's number, its record written the first time it is seen.
std::uint32_t number_site(SiteTable &t, const CallSite &s) {
    std::lock_guard<std::mutex> lock(t.mutex);
    auto [it, fresh] = t.numbers.try_emplace(SiteKey{s.file, s.line, s.function, s.op, s.inner_op, s.backward, s.addresses},
                                             std::uint32_t(t.numbers.size() + 1));
    if (fresh) {
        t.keys[it->second] = site_key(s.file, s.line, s.function, s.op, s.inner_op, s.backward, s.addresses);
        sink_write(Line().field("type", records::kCallsite).field("site", std::uint64_t(it->second)).field("file", s.file)
                       .field("line", s.line).field("function", s.function).field("op", s.op).field("inner_op", s.inner_op)
                       .field("backward", s.backward).raw("addresses", address_list(s.addresses)));
    }
    return it->second;
}

// The calling thread's site now, numbered; 0 for none.
std::uint32_t current_site() {
    if (!call_sites_wanted()) return 0;
    SiteTable &t = sites();
    const CallSite s = site_of_launch(t);
    if (s.line == 0 && s.op.empty() && s.addresses.empty()) return 0;
    return number_site(t, s);
}

}  // namespace

std::string site_key_of(std::uint32_t number) {
    SiteTable &t = sites();
    std::lock_guard<std::mutex> lock(t.mutex);
    auto it = t.keys.find(number);
    return it != t.keys.end() ? it->second : "";
}

std::uint32_t note_launch_site(std::uint32_t correlation) {
    const std::uint32_t number = current_site();
    if (number)
        sink_write(Line().field("type", records::kLaunchSite).field("correlation", std::uint64_t(correlation))
                       .field("site", std::uint64_t(number)));
    return number;
}

void note_graph_node(std::uint64_t node_id) {
    if (const std::uint32_t number = current_site())
        sink_write(Line().field("type", records::kNodeSite).field("node", node_id).field("site", std::uint64_t(number)));
}

void note_graph_node_clone(std::uint64_t node_id, std::uint64_t original_id) {
    if (call_sites_wanted())
        sink_write(Line().field("type", records::kNodeClone).field("node", node_id).field("original", original_id));
}

}  // namespace gmexplain
