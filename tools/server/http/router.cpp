#include "http/router.hpp"

#include <nlohmann/json.hpp>

namespace gmserver {

std::string error_body(const std::string &code, const std::string &message) {
    // replace: a message quoting hostile input must not make serialising throw.
    return nlohmann::json{{"code", code}, {"message", message}}.dump(-1, ' ', false,
                                                                     nlohmann::json::error_handler_t::replace);
}

void send_error(HttpResponse &res, int status, const std::string &code, const std::string &message) {
    res.status = status;
    res.set_content(error_body(code, message), "application/json");
}

void Router::add(const std::string &method, const std::string &pattern, Handler h) {
    routes_.push_back({method, std::regex(pattern, std::regex::ECMAScript | std::regex::optimize), std::move(h)});
}

void Router::handle(HttpRequest &req, HttpResponse &res) const noexcept {
    try {
        if (filter_ && !filter_(req, res)) return;
        bool path_known = false;
        for (const Route &r : routes_) {
            std::smatch m;
            if (!std::regex_match(req.path, m, r.pattern)) continue;
            path_known = true;
            if (r.method != req.method) continue;
            req.matches.assign(m.begin(), m.end());
            r.handler(req, res);
            return;
        }
        if (path_known) {
            res.set_header("Allow", [&] {
                std::string allow;
                for (const Route &r : routes_)
                    if (std::regex_match(req.path, r.pattern)) allow += (allow.empty() ? "" : ", ") + r.method;
                return allow;
            }());
            return send_error(res, 405, "method_not_allowed", req.method + " is not allowed on " + req.path);
        }
        send_error(res, 404, "not_found", "no such path: " + req.path);
    } catch (const std::exception &e) {
        res = HttpResponse{};
        send_error(res, 500, "internal", e.what());
    } catch (...) {
        res = HttpResponse{};
        send_error(res, 500, "internal", "internal error");
    }
}

}  // namespace gmserver
