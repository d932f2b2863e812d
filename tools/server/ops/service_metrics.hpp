// The service's own metrics, beside the transport's (http/request_metrics.hpp):
//   gmlab_uploads_total{outcome}            stored (counted), held, duplicate (a submission stored before)
//   gmlab_uploads_refused_total{status,reason}
//   gmlab_refresher_backlog                 uploads queued for the aggregates (all processes on the database)
//   gmlab_refresher_lag_seconds             age of the oldest of them
//   gmlab_ready                             1 when /readyz would answer 200
//   gmlab_database_errors_total             errors the database returned to this process
//   gmlab_schema_version                    the schema version this server writes
// Uploads are counted from each request's record (the handler names what it
// did); the refresher's figures are read when scraped, through Health's
// readiness (one short statement, at most every 100 ms).
#pragma once

#include "http/metrics.hpp"
#include "http/request_record.hpp"
#include "ops/health.hpp"

namespace gmserver {

class ServiceMetrics {
public:
    ServiceMetrics(Metrics &m, Health &health);
    void record(const RequestRecord &r);

private:
    Metrics &m_;
};

}  // namespace gmserver
