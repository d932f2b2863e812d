// The HTTP API v1 (and the web pages, where built in), as routes of a Router.
#pragma once

#include <cstddef>
#include <memory>
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
    // Cheap reads (pages, the JSON API's reads): no bucket of their own by
    // default, so that one client flooding from a shared address (NAT) does
    // not lock out the others there; the workers and the queue bound them.
    double read_rate = 0, read_burst = 200;
    // Expensive reads: comparisons, exports, a result as CSV.
    double expensive_rate = 2, expensive_burst = 30;
    // The experiments accepted and the shape of their results
    // (upload/shape_limits.hpp), also what a page renders of one model's
    // experiment; null: any.
    std::shared_ptr<const ShapeTable> shapes;
    std::size_t page_max_models = 50;  // models a page lists, the most uploaded first
    std::size_t max_expensive_at_once = 0;  // comparisons running at once (web/expensive_gate.hpp); 0: none
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
