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

    // pattern: an ECMAScript regular expression matched against the whole
    // decoded path; its groups land in request.matches[1...].
    void get(const std::string &pattern, Handler h) { add("GET", pattern, std::move(h)); }
    void post(const std::string &pattern, Handler h) { add("POST", pattern, std::move(h)); }
    void del(const std::string &pattern, Handler h) { add("DELETE", pattern, std::move(h)); }
    void set_filter(Filter f) { filter_ = std::move(f); }

    // Never throws: an exception from a handler becomes a 500 with its message;
    // unknown paths are 404, known paths with another method 405.
    void handle(HttpRequest &req, HttpResponse &res) const noexcept;

private:
    struct Route {
        std::string method;
        std::regex pattern;
        Handler handler;
    };
    void add(const std::string &method, const std::string &pattern, Handler h);
    std::vector<Route> routes_;
    Filter filter_;
};

}  // namespace gmserver
