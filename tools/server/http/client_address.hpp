// The address a request is accounted to (rate limits, the access log, the
// export's one-per-address rule): the peer, or, when the peer is a trusted
// proxy, the right-most address in X-Forwarded-For that is not one.
#pragma once

#include <set>
#include <string>

namespace gmserver {

std::string client_address(const std::string &peer, const std::string &forwarded_for,
                           const std::set<std::string> &trusted_proxies);

}  // namespace gmserver

namespace gmserver {

// The network an address is counted in where one client may hold several
// addresses: its /24 for IPv4 ("192.0.2.0/24"), its /64 for IPv6 (an
// IPv4-mapped IPv6 address counts as IPv4); anything else as it is.
std::string client_network(const std::string &address);

}  // namespace gmserver
