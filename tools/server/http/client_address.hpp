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
