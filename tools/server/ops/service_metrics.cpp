#include "ops/service_metrics.hpp"

#include <string>

#include "storage/database_errors.hpp"
#include "storage/schema_version.hpp"

namespace gmserver {

ServiceMetrics::ServiceMetrics(Metrics &m, Health &health) : m_(m) {
    m.declare_counter("gmlab_uploads_total",
                      "Uploads answered 2xx, by outcome: stored (counted), held (stored, left out of the aggregates), "
                      "duplicate (its submission id was stored before).");
    m.declare_counter("gmlab_uploads_refused_total", "Uploads refused, by status and the answer's code.");
    m.declare_gauge("gmlab_refresher_backlog", "Uploads queued for the aggregates, by every process on the database.",
                    [&health] { return std::vector<GaugeSample>{{{}, double(health.readiness().backlog)}}; });
    m.declare_gauge("gmlab_refresher_lag_seconds", "Age of the oldest upload queued for the aggregates (0: none).",
                    [&health] { return std::vector<GaugeSample>{{{}, health.readiness().lag_seconds}}; });
    m.declare_gauge("gmlab_ready", "1 when /readyz would answer 200, else 0.",
                    [&health] { return std::vector<GaugeSample>{{{}, health.readiness().ready ? 1.0 : 0.0}}; });
    m.declare_read_counter("gmlab_database_errors_total", "Errors the database returned to this process.",
                           [] { return std::vector<GaugeSample>{{{}, double(database_errors())}}; });
    m.declare_gauge("gmlab_schema_version", "The database schema version this server writes.",
                    [] { return std::vector<GaugeSample>{{{}, double(kSchemaVersion)}}; });
}

void ServiceMetrics::record(const RequestRecord &r) {
    // An aborted upload was neither refused nor stored: the transport's
    // gmlab_http_requests_aborted_total counts it.
    if (r.aborted || r.method != "POST" || r.route != "/api/v1/results") return;
    if (r.status == 201) m_.add("gmlab_uploads_total", {{"outcome", r.outcome == "held" ? "held" : "stored"}});
    else if (r.status == 200) m_.add("gmlab_uploads_total", {{"outcome", "duplicate"}});
    else
        m_.add("gmlab_uploads_refused_total",
               {{"status", std::to_string(r.status)}, {"reason", r.error.empty() ? "none" : r.error}});
}

}  // namespace gmserver
