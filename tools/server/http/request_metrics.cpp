#include "http/request_metrics.hpp"

#include <string>

namespace gmserver {

namespace {

// A label value from a small set: a method a client made up is "other".
const char *method_label(const std::string &m) {
    for (const char *known : {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"})
        if (m == known) return known;
    return m.empty() ? "none" : "other";
}

bool is_refusal(int status) {
    return status == 408 || status == 413 || status == 429 || status == 431 || status == 503;
}

}  // namespace

RequestMetrics::RequestMetrics(Metrics &m, std::function<TransportStats()> stats) : m_(m) {
    m.declare_counter("gmlab_http_requests_total", "Requests answered, by route pattern, method and status.");
    m.declare_histogram("gmlab_http_request_duration_seconds",
                        "Time from the end of the request headers to the answer's last byte, by route pattern.",
                        {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30});
    m.declare_counter("gmlab_http_refusals_total",
                      "Requests refused (408, 413, 429, 431, 503), by status and the answer's code.");
    m.declare_counter("gmlab_http_requests_aborted_total",
                      "Requests whose client hung up before they had arrived in full (no answer was sent), by route "
                      "pattern.");
    m.declare_counter("gmlab_http_responses_cut_total",
                      "Answers not written to their end: send_too_slow (the client read too slowly), closed (the "
                      "client went away), drain (still open at the drain deadline).");
    auto read = [stats](auto field) {
        return [stats, field]() { return std::vector<GaugeSample>{{{}, static_cast<double>(field(stats()))}}; };
    };
    m.declare_gauge("gmlab_http_open_connections", "Client connections open now.",
                    read([](const TransportStats &s) { return s.open_connections; }));
    m.declare_gauge("gmlab_http_requests_waiting", "Complete requests waiting for a worker now.",
                    read([](const TransportStats &s) { return s.queued; }));
    m.declare_gauge("gmlab_http_workers_busy", "Workers running a request now.",
                    read([](const TransportStats &s) { return s.busy_workers; }));
    m.declare_gauge("gmlab_http_pending_body_bytes",
                    "Bytes the request bodies being received count against --max-pending-body-bytes now.",
                    read([](const TransportStats &s) { return s.pending_body_bytes; }));
    m.declare_gauge("gmlab_http_draining", "1 while the server drains after SIGTERM, else 0.",
                    read([](const TransportStats &s) { return s.draining ? 1 : 0; }));
}

void RequestMetrics::record(const RequestRecord &r) {
    const std::string route = r.route.empty() ? "none" : r.route;
    // No answer was sent: not a request answered, nor a refusal.
    if (r.aborted) return m_.add("gmlab_http_requests_aborted_total", {{"route", route}});
    m_.add("gmlab_http_requests_total", {{"route", route}, {"method", method_label(r.method)}, {"status", std::to_string(r.status)}});
    if (!r.method.empty()) m_.observe("gmlab_http_request_duration_seconds", {{"route", route}}, r.seconds);
    if (is_refusal(r.status) && !r.probe)
        m_.add("gmlab_http_refusals_total", {{"status", std::to_string(r.status)}, {"reason", r.error.empty() ? "none" : r.error}});
    if (!r.complete) m_.add("gmlab_http_responses_cut_total", {{"reason", r.cut.empty() ? "closed" : r.cut}});
}

}  // namespace gmserver
