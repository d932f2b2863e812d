// The metrics address (--metrics-listen): a listener of its own, apart from
// the public one, so that metrics are never served to the internet and a
// scrape still answers when the public workers are all busy.
#pragma once

#include <string>

#include "http/metrics.hpp"
#include "http/router.hpp"
#include "ops/health.hpp"

namespace gmserver {

// The metrics address's routes: GET /metrics (text format 0.0.4), /healthz
// and /readyz; any other path is 404 saying that the API and the pages are on
// the public address.
void install_metrics_routes(Router &router, const Metrics &metrics, Health &health);

// On the public router: GET /metrics is 404 saying where metrics are served
// (or that this server serves none, without --metrics-listen).
void install_metrics_elsewhere(Router &router, const std::string &metrics_listen);

}  // namespace gmserver
