// Which kernels a pass of the injection library works on: the ones named
// (mangled), or, with none named, the first `max_kernels` distinct kernels
// launched whose demangled or mangled name matches `regex` ("" matches all),
// each decided at its first launch. A kernel at each of its call sites
// (call_sites.hpp) is a kernel of its own. Callers hold their pass's lock.
#pragma once

#include <cxxabi.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <utility>

namespace gmexplain {

inline std::string demangled(const std::string &mangled) {
    int status = 0;
    char *out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    std::string name = (status == 0 && out) ? out : mangled;
    std::free(out);
    return name;
}

// Kernels no pass touches: XLA's autotuning timer (DelayKernel spins until
// the host releases it: a replay waits for its time-out, seconds each) and the
// profiler's own kernels of a replay (WaitNs, tools_memcmp). Compared by the
// function's own name (no std::regex: its recursion overflows the stack of a
// callback thread on a name of thousands of characters).
inline bool never_counted(const std::string &mangled) {
    std::string name = demangled(mangled);
    for (auto at = name.find("(anonymous namespace)"); at != std::string::npos; at = name.find("(anonymous namespace)"))
        name.erase(at, 21);
    const std::string function = name.substr(0, name.find('('));
    const auto scope = function.rfind("::");
    const std::string base = scope == std::string::npos ? function : function.substr(scope + 2);
    return base == "DelayKernel" || base == "WaitNs" || base == "tools_memcmp";
}

class KernelChoice {
public:
    // by_name: only `named` is wanted; otherwise the first launched, as above.
    // `named`: mangled names, or "mangled<TAB>site key" for a kernel at one
    // call site only (site_key.hpp; then site_key_of names a launch's site).
    void choose(bool by_name, const std::set<std::string> &named, const std::string &regex, std::size_t max_kernels,
                std::string (*site_key_of)(std::uint32_t) = nullptr) {
        by_name_ = by_name;
        site_key_of_ = site_key_of;
        for (const auto &n : named) {
            const auto tab = n.find('\t');
            if (tab == std::string::npos) named_.insert(n);
            else named_sites_.insert({n.substr(0, tab), n.substr(tab + 1)});
        }
        regex_ = regex;
        max_kernels_ = max_kernels;
    }

    bool wanted(const std::string &mangled, std::uint32_t site = 0) {
        auto it = verdicts_.find({mangled, site});
        if (it != verdicts_.end()) return it->second;
        bool yes = !never_counted(mangled);
        if (yes && by_name_)
            yes = named_.count(mangled) > 0 ||
                  (site && site_key_of_ && named_sites_.count({mangled, site_key_of_(site)}) > 0);
        else if (yes) {
            yes = chosen_ < max_kernels_;
            if (yes && !regex_.empty()) {
                const std::regex re(regex_);
                yes = std::regex_search(demangled(mangled), re) || std::regex_search(mangled, re);
            }
            if (yes) ++chosen_;
        }
        return verdicts_[{mangled, site}] = yes;
    }

private:
    bool by_name_ = true;
    std::set<std::string> named_;
    std::set<std::pair<std::string, std::string>> named_sites_;
    std::string (*site_key_of_)(std::uint32_t) = nullptr;
    std::string regex_;
    std::size_t max_kernels_ = 0, chosen_ = 0;
    std::map<std::pair<std::string, std::uint32_t>, bool> verdicts_;
};

}  // namespace gmexplain
