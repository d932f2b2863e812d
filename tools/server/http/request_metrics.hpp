// The transport's metrics, made from each request's record and read from the
// transport's counts at each scrape:
//   gmlab_http_requests_total{route,method,status}
//   gmlab_http_request_duration_seconds{route}      (histogram)
//   gmlab_http_refusals_total{status,reason}        (408, 413, 429, 431, 503 answers; probes not counted)
//   gmlab_http_requests_aborted_total{route}        (the client hung up before its request had arrived)
//   gmlab_http_responses_cut_total{reason}          (answers not written to their end)
//   gmlab_http_open_connections, gmlab_http_requests_waiting, gmlab_http_pending_body_bytes,
//   gmlab_http_draining
#pragma once

#include <functional>

#include "http/http_server.hpp"
#include "http/metrics.hpp"
#include "http/request_record.hpp"

namespace gmserver {

class RequestMetrics {
public:
    // Declares the families in `m`; the gauges read `stats` when scraped.
    RequestMetrics(Metrics &m, std::function<TransportStats()> stats);
    void record(const RequestRecord &r);

private:
    Metrics &m_;
};

}  // namespace gmserver
