// Health and readiness, for a load balancer's probes and the operator:
//   GET /healthz  200 while the process answers at all;
//   GET /readyz   200 when the database answers and the aggregates'
//                 refresher is keeping up (its backlog is at most
//                 max_backlog uploads), else 503 with the reason; 503
//                 "draining" from SIGTERM on.
// /readyz reads the aggregates' queue in one short statement, which is also
// how it learns that the database answers; its answer is reused for 100 ms,
// so that probes (and the metrics' gauges, which read the same) cost at most
// ten statements a second however many arrive, and while one thread waits
// for a database that does not answer, the others get the last answer
// instead of waiting too. Both skip the rate limits and
// are not written to the access log (they are counted in the metrics).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "http/router.hpp"
#include "storage/storage.hpp"

namespace gmserver {

struct Readiness {
    bool ready = false;
    std::string reason;          // why not ("" when ready)
    std::uint64_t backlog = 0;   // uploads queued for the aggregates
    double lag_seconds = 0;      // age of the oldest of them
};

class Health {
public:
    // draining: whether the server has begun to shut down.
    Health(Storage &storage, std::function<bool()> draining, std::uint64_t max_backlog);
    Readiness readiness();
    // /healthz and /readyz, exempt from the router's filter (the rate limits).
    void install(Router &router);

private:
    Readiness read();
    Storage &storage_;
    std::function<bool()> draining_;
    const std::uint64_t max_backlog_;
    std::mutex mu_;
    std::chrono::steady_clock::time_point read_at_;
    bool reading_ = false;
    Readiness last_{false, "the database has not been asked yet", 0, 0};  // as read at read_at_ (draining is not kept)
};

}  // namespace gmserver
