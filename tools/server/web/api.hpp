// The HTTP API v1 (and the web pages, where built in), as routes of a Router.
#pragma once

#include <cstddef>
#include <set>
#include <string>

#include "crowd/crowd_store.hpp"
#include "http/client_address.hpp"
#include "http/router.hpp"
#include "storage/storage.hpp"
#include "upload/validate.hpp"


namespace gmserver {

struct ServerConfig {
    std::size_t max_body_bytes = 16u << 20;  // after decompression too
    double write_rate = 2, write_burst = 20;  // POST/DELETE per client IP per second
    double read_rate = 50, read_burst = 200;  // everything else
    std::set<std::string> trusted_proxies;    // peers whose X-Forwarded-For is believed
    std::string admin_token;                  // may delete any result ("" = none)
    std::string moderator_token;              // may accept, hide or delete any result; from the config file only ("" = none)
    std::string public_url;                   // prefix of result URLs ("" = from a valid Host header, else the local address)
    ValidationLimits limits;
};

// crowd: the figures, moderation and export tables (null: those routes are
// not installed and every upload counts as accepted).
void install_routes(Router &router, Storage &storage, const ServerConfig &config, CrowdStore *crowd = nullptr);

// client_address (http/client_address.hpp): the address a request is
// accounted to; the transport sets HttpRequest::client with it.

}  // namespace gmserver
