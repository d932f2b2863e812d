// What the transport records of requests: the metrics' text format, the
// access log's lines, and the route patterns both name requests by.
#include <gtest/gtest.h>

#include <string>

#include "http/access_log.hpp"
#include "http/metrics.hpp"
#include "http/request_metrics.hpp"
#include "http/router.hpp"

using namespace gmserver;

namespace {

HttpResponse handled(const Router &r, const std::string &method, const std::string &path) {
    HttpRequest req;
    req.method = method;
    req.path = path;
    HttpResponse res;
    r.handle(req, res);
    return res;
}

}  // namespace

TEST(Metrics, CountersHistogramsAndGaugesInTheTextFormat) {
    Metrics m;
    m.declare_counter("t_requests_total", "Requests.");
    m.declare_histogram("t_seconds", "Latency.", {0.5, 0.1, 1});
    m.declare_gauge("t_open", "Open.", [] { return std::vector<GaugeSample>{{{}, 3}}; });
    m.add("t_requests_total", {{"route", "/a/{}"}, {"status", "200"}});
    m.add("t_requests_total", {{"route", "/a/{}"}, {"status", "200"}}, 2);
    m.observe("t_seconds", {{"route", "/a"}}, 0.05);
    m.observe("t_seconds", {{"route", "/a"}}, 0.5);
    m.observe("t_seconds", {{"route", "/a"}}, 7);
    const std::string text = m.render();
    EXPECT_NE(text.find("# TYPE t_requests_total counter\nt_requests_total{route=\"/a/{}\",status=\"200\"} 3\n"),
              std::string::npos)
        << text;
    // Cumulative buckets, sorted bounds, +Inf = count, sum.
    EXPECT_NE(text.find("t_seconds_bucket{route=\"/a\",le=\"0.1\"} 1\n"), std::string::npos) << text;
    EXPECT_NE(text.find("t_seconds_bucket{route=\"/a\",le=\"0.5\"} 2\n"), std::string::npos) << text;
    EXPECT_NE(text.find("t_seconds_bucket{route=\"/a\",le=\"1\"} 2\n"), std::string::npos) << text;
    EXPECT_NE(text.find("t_seconds_bucket{route=\"/a\",le=\"+Inf\"} 3\n"), std::string::npos) << text;
    EXPECT_NE(text.find("t_seconds_sum{route=\"/a\"} 7.55\n"), std::string::npos) << text;
    EXPECT_NE(text.find("t_seconds_count{route=\"/a\"} 3\n"), std::string::npos) << text;
    EXPECT_NE(text.find("# TYPE t_open gauge\nt_open 3\n"), std::string::npos) << text;
    EXPECT_EQ(m.counter_value("t_requests_total", {{"route", "/a/{}"}, {"status", "200"}}), 3);
    EXPECT_THROW(m.add("t_seconds", {}), std::logic_error);
}

TEST(Metrics, LabelValuesAreEscaped) {
    EXPECT_EQ(metric_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

TEST(AccessLog, OneJsonObjectPerLineWithNullsForWhatIsNotKnown) {
    RequestRecord r;
    r.at = std::chrono::system_clock::time_point(std::chrono::milliseconds(1700000000123));
    r.client = "203.0.113.9";
    r.method = "POST";
    r.route = "/api/v1/results";
    r.status = 201;
    r.bytes_in = 68745;
    r.bytes_out = 312;
    r.seconds = 0.008214;
    r.submission_id = "abc";
    EXPECT_EQ(AccessLog::line(r),
              "{\"time\":\"2023-11-14T22:13:20.123Z\",\"client\":\"203.0.113.9\",\"method\":\"POST\","
              "\"route\":\"/api/v1/results\",\"status\":201,\"bytes_in\":68745,\"bytes_out\":312,\"ms\":8.214,"
              "\"submission_id\":\"abc\",\"error\":null}\n");
    RequestRecord refused;
    refused.client = "198.51.100.1\"\n";
    refused.status = 503;
    refused.error = "too_many_connections";
    refused.complete = false;
    refused.cut = "closed";
    const std::string line = AccessLog::line(refused);
    EXPECT_NE(line.find("\"client\":\"198.51.100.1\\\"\\u000a\""), std::string::npos) << line;
    EXPECT_NE(line.find("\"method\":null,\"route\":null"), std::string::npos) << line;
    EXPECT_NE(line.find("\"cut\":\"closed\"}\n"), std::string::npos) << line;
    EXPECT_EQ(line.find('\n'), line.size() - 1);
}

TEST(AccessLog, AnAbortedRequestHasStatusZeroAndSaysSo) {
    RequestRecord r;
    r.client = "198.51.100.7";
    r.method = "POST";
    r.route = "/api/v1/results";
    r.bytes_in = 4000;
    r.aborted = true;
    r.complete = false;
    const std::string line = AccessLog::line(r);
    EXPECT_NE(line.find("\"status\":0,"), std::string::npos) << line;
    EXPECT_NE(line.find("\"aborted\":true}\n"), std::string::npos) << line;
    EXPECT_EQ(line.find("\"cut\""), std::string::npos) << line;
}

TEST(RequestMetrics, AnAbortedRequestIsNeitherAnsweredNorRefused) {
    Metrics m;
    RequestMetrics rm(m, [] { return TransportStats{}; });
    RequestRecord r;
    r.method = "POST";
    r.route = "/api/v1/results";
    r.aborted = true;
    r.complete = false;
    rm.record(r);
    rm.record(r);
    EXPECT_EQ(m.counter_value("gmlab_http_requests_aborted_total", {{"route", "/api/v1/results"}}), 2);
    const std::string text = m.render();
    EXPECT_EQ(text.find("gmlab_http_requests_total{"), std::string::npos) << text;
    EXPECT_EQ(text.find("gmlab_http_refusals_total{"), std::string::npos) << text;
    EXPECT_EQ(text.find("gmlab_http_responses_cut_total{"), std::string::npos) << text;
    EXPECT_NE(text.find("gmlab_http_pending_body_bytes 0\n"), std::string::npos) << text;
}

TEST(Router, RoutesAreNamedByTheirPatternWithGroupsAsBraces) {
    EXPECT_EQ(Router::label_of("/api/v1/gpus/([^/]+)/experiments/([^/]+)"), "/api/v1/gpus/{}/experiments/{}");
    EXPECT_EQ(Router::label_of("/result/((a|b)+)"), "/result/{}");
    EXPECT_EQ(Router::label_of("/plain"), "/plain");
    Router r;
    r.get("/api/v1/results/([^/]+)", [](HttpRequest &, HttpResponse &) {});
    EXPECT_EQ(r.route_of("/api/v1/results/0123"), "/api/v1/results/{}");
    EXPECT_EQ(r.route_of("/nothing/here"), "unmatched");
}

TEST(Router, UnfilteredRoutesSkipTheFilterAndEveryAnswerNamesItsRoute) {
    Router r;
    int filtered = 0;
    r.set_filter([&](const HttpRequest &, HttpResponse &res) {
        ++filtered;
        send_error(res, 429, "rate_limited", "no");
        return false;
    });
    r.get("/healthz", [](HttpRequest &, HttpResponse &res) { res.set_content("ok", "text/plain"); }, Router::Unfiltered);
    r.get("/api/([^/]+)", [](HttpRequest &, HttpResponse &res) { res.set_content("x", "text/plain"); });
    HttpResponse res = handled(r, "GET", "/healthz");
    EXPECT_EQ(res.status, 200);
    EXPECT_EQ(res.route, "/healthz");
    EXPECT_EQ(filtered, 0);
    res = handled(r, "GET", "/api/x");
    EXPECT_EQ(res.status, 429);
    EXPECT_EQ(res.error, "rate_limited");
    EXPECT_EQ(res.route, "/api/{}");
    EXPECT_EQ(filtered, 1);
}

TEST(Router, AFallbackAnswersUnknownPaths) {
    Router r;
    r.get("/metrics", [](HttpRequest &, HttpResponse &) {});
    r.set_fallback([](HttpRequest &, HttpResponse &res) { send_error(res, 404, "wrong_port", "not here"); });
    HttpResponse res = handled(r, "POST", "/api/v1/results");
    EXPECT_EQ(res.status, 404);
    EXPECT_EQ(res.error, "wrong_port");
    EXPECT_EQ(res.route, "unmatched");
    EXPECT_EQ(handled(r, "POST", "/metrics").status, 405);  // a known path with another method
}
