// Routes complete requests to handlers by method and path pattern. Knows
// nothing of sockets: the transport hands it a request and writes back the
// response it gets.
#pragma once

#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "http/http_message.hpp"

namespace gmserver {

// {"code": code, "message": message} as JSON text: every error the server
// answers, from the transport or a handler, has this shape.
std::string error_body(const std::string &code, const std::string &message);
void send_error(HttpResponse &res, int status, const std::string &code, const std::string &message);

class Router {
public:
    // Handlers may take the request's body (it is theirs to move).
    using Handler = std::function<void(HttpRequest &, HttpResponse &)>;
    // Runs before routing; returns false when it answered the request itself
    // (a rate limit, say) and the route must not run.
    using Filter = std::function<bool(const HttpRequest &, HttpResponse &)>;
    // Unfiltered routes skip the filter (health probes skip the rate limits).
    enum Filtering { Filtered, Unfiltered };

    // pattern: an ECMAScript regular expression matched against the whole
    // decoded path; its groups land in request.matches[1...]. Its label, the
    // pattern with each group written {} ("/api/v1/results/{}"), names the
    // route in the access log and the metrics.
    void get(const std::string &pattern, Handler h, Filtering f = Filtered) { add("GET", pattern, std::move(h), f); }
    void post(const std::string &pattern, Handler h, Filtering f = Filtered) { add("POST", pattern, std::move(h), f); }
    void del(const std::string &pattern, Handler h, Filtering f = Filtered) { add("DELETE", pattern, std::move(h), f); }
    void set_filter(Filter f) { filter_ = std::move(f); }
    // Answers what no route's pattern matches (default: 404 not_found).
    void set_fallback(Handler h) { fallback_ = std::move(h); }

    // Never throws: an exception from a handler becomes a 500 with its message;
    // unknown paths are 404, known paths with another method 405 with Allow.
    // HEAD runs the GET route (the transport leaves the body out); OPTIONS
    // on a known path is 204 with Allow. Sets res.route to the label of the
    // route that matched the path ("unmatched" when none did).
    void handle(HttpRequest &req, HttpResponse &res) const noexcept;

    // The label of the first route whose pattern matches the path, whatever
    // its method; "unmatched" when none does. For requests refused before
    // they reach handle() (a body too large, say).
    std::string route_of(const std::string &path) const;

    // "/api/v1/gpus/([^/]+)" -> "/api/v1/gpus/{}".
    static std::string label_of(const std::string &pattern);

    // The Allow header of a path: each method its routes answer once (a
    // path may have two GET routes, one taking the other's place), HEAD
    // beside GET, then OPTIONS; "" for an unknown path.
    std::string allowed(const std::string &path) const;

private:
    struct Route {
        std::string method;
        std::regex pattern;
        Handler handler;
        std::string label;
        Filtering filtering;
    };
    void add(const std::string &method, const std::string &pattern, Handler h, Filtering f);
    std::vector<Route> routes_;
    Filter filter_;
    Handler fallback_;
};

}  // namespace gmserver
