#include "ops/health.hpp"

#include <chrono>
#include <ctime>
#include <exception>

#include <nlohmann/json.hpp>

namespace gmserver {

Health::Health(Storage &storage, std::function<bool()> draining, std::uint64_t max_backlog)
    : storage_(storage), draining_(std::move(draining)), max_backlog_(max_backlog) {}

namespace {

// "2025-03-01T12:00:00Z" as seconds since the epoch (0 when it is not that).
double epoch_of(const std::string &utc) {
    std::tm tm{};
    if (!strptime(utc.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return 0;
    return static_cast<double>(timegm(&tm));
}

}  // namespace

Readiness Health::read() {
    Readiness r;
    try {
        const QueueState q = storage_.queue_state();
        r.backlog = q.backlog;
        if (q.backlog > 0 && !q.oldest.empty()) {
            const double wall = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
            const double oldest = epoch_of(q.oldest);
            r.lag_seconds = oldest > 0 && wall > oldest ? wall - oldest : 0;
        }
        if (q.backlog > max_backlog_)
            r.reason = "the aggregates' refresher is behind: " + std::to_string(q.backlog) +
                       " uploads queued, more than the bound of " + std::to_string(max_backlog_) + " (--ready-max-backlog)";
    } catch (const std::exception &e) {
        r.reason = std::string("the database does not answer: ") + e.what();
    }
    r.ready = r.reason.empty();
    return r;
}

Readiness Health::readiness() {
    Readiness r;
    bool mine = false;
    {
        std::lock_guard<std::mutex> lock(mu_);
        // Fresh enough, or being read by another thread (which may wait for
        // a database that does not answer): the last answer.
        if (reading_ || std::chrono::steady_clock::now() - read_at_ < std::chrono::milliseconds(100)) r = last_;
        else mine = reading_ = true;
    }
    if (mine) {
        r = read();
        std::lock_guard<std::mutex> lock(mu_);
        last_ = r;
        read_at_ = std::chrono::steady_clock::now();
        reading_ = false;
    }
    if (draining_ && draining_()) {
        r.ready = false;
        r.reason = "draining: the server is shutting down (SIGTERM) and takes no new connections";
    }
    return r;
}

void Health::install(Router &router) {
    router.get(
        "/healthz",
        [](const HttpRequest &, HttpResponse &res) {
            res.probe = true;
            res.set_content(R"({"status":"alive"})", "application/json");
        },
        Router::Unfiltered);
    router.get(
        "/readyz",
        [this](const HttpRequest &, HttpResponse &res) {
            res.probe = true;
            const Readiness r = readiness();
            nlohmann::json body = {{"backlog", r.backlog}, {"lag_seconds", r.lag_seconds}};
            if (r.ready) {
                body["status"] = "ready";
            } else {
                res.status = 503;
                res.error = "not_ready";
                body["code"] = "not_ready";
                body["message"] = r.reason;
            }
            res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "application/json");
        },
        Router::Unfiltered);
}

}  // namespace gmserver
