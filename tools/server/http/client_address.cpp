#include "http/client_address.hpp"

#include <sstream>
#include <vector>

namespace gmserver {

namespace {

std::string trim(const std::string &s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    const auto e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

}  // namespace

std::string client_address(const std::string &peer, const std::string &forwarded_for,
                           const std::set<std::string> &trusted_proxies) {
    if (forwarded_for.empty() || !trusted_proxies.count(peer)) return peer;
    // Each proxy appends the address it received from; walk from the right and
    // stop at the first hop that is not one of ours.
    std::vector<std::string> hops;
    std::stringstream in(forwarded_for);
    std::string part;
    while (std::getline(in, part, ',')) {
        part = trim(part);
        if (!part.empty()) hops.push_back(part);
    }
    for (auto it = hops.rbegin(); it != hops.rend(); ++it)
        if (!trusted_proxies.count(*it)) return *it;
    return hops.empty() ? peer : hops.front();
}

}  // namespace gmserver
