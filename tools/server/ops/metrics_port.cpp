#include "ops/metrics_port.hpp"

namespace gmserver {

void install_metrics_routes(Router &router, const Metrics &metrics, Health &health) {
    router.get(
        "/metrics",
        [&metrics](const HttpRequest &, HttpResponse &res) {
            res.set_content(metrics.render(), "text/plain; version=0.0.4; charset=utf-8");
        },
        Router::Unfiltered);
    health.install(router);
    router.set_fallback([](const HttpRequest &req, HttpResponse &res) {
        send_error(res, 404, "wrong_port",
                   "this is the metrics address: it serves GET /metrics, /healthz and /readyz only; " + req.path +
                       " is served on the public address (--listen)");
    });
}

// The public address's /metrics names no other address: where the metrics
// address listens is the operator's to know, not every client's.
void install_metrics_elsewhere(Router &router, const std::string &metrics_listen) {
    router.get(
        "/metrics",
        [with_metrics = !metrics_listen.empty()](const HttpRequest &, HttpResponse &res) {
            send_error(res, 404, "wrong_port",
                       with_metrics ? "metrics are not served on the public address"
                                    : "metrics are not served on the public address; start gmlab-server with "
                                      "--metrics-listen ADDRESS to serve them there");
        },
        Router::Unfiltered);
}

}  // namespace gmserver
