// The HTTP API v1 (and the web pages, where built in), as routes of a Router.
#pragma once

#include <cstddef>
#include <set>
#include <string>

#include "storage.hpp"
#include "router.hpp"
#include "validate.hpp"


namespace gmserver {

struct ServerConfig {
    std::size_t max_body_bytes = 16u << 20;  // after decompression too
    double write_rate = 2, write_burst = 20;  // POST/DELETE per client IP per second
    double read_rate = 50, read_burst = 200;  // everything else
    std::set<std::string> trusted_proxies;    // peers whose X-Forwarded-For is believed
    std::string admin_token;                  // may delete any result ("" = none)
    std::string public_url;                   // prefix of result URLs ("" = from the Host header)
    ValidationLimits limits;
};

void install_routes(Router &router, Storage &storage, const ServerConfig &config);

// The address a request is accounted to: the peer, or, when the peer is a
// trusted proxy, the right-most address in X-Forwarded-For that is not one.
std::string client_address(const std::string &peer, const std::string &forwarded_for,
                           const std::set<std::string> &trusted_proxies);

}  // namespace gmserver
