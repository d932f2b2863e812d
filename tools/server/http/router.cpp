#include "http/router.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "http/guards/request_deadline.hpp"

namespace gmserver {

// request_deadline.hpp's answer, here beside send_error (request_deadline.cpp
// stays free of the router: the page renderer's test compiles it alone).
void send_deadline(HttpResponse &res) {
    send_error(res, 503, "deadline", "the request was not answered within its deadline (--request-deadline-ms) and was stopped");
    res.set_header("Retry-After", "1");
    res.close = true;
}

std::string error_body(const std::string &code, const std::string &message) {
    // replace: a message quoting hostile input must not make serialising throw.
    return nlohmann::json{{"code", code}, {"message", message}}.dump(-1, ' ', false,
                                                                     nlohmann::json::error_handler_t::replace);
}

void send_error(HttpResponse &res, int status, const std::string &code, const std::string &message) {
    res.status = status;
    res.error = code;
    res.set_content(error_body(code, message), "application/json");
}

std::string Router::label_of(const std::string &pattern) {
    // Each top-level group, (...) with its nesting, becomes {}.
    std::string out;
    int depth = 0;
    bool escaped = false;
    for (char c : pattern) {
        if (escaped) {
            if (depth == 0) out += c;
            escaped = false;
            continue;
        }
        if (c == '\\') {
            escaped = true;
            if (depth == 0) out += c;
            continue;
        }
        if (c == '(') {
            if (depth++ == 0) out += "{}";
            continue;
        }
        if (c == ')' && depth > 0) {
            --depth;
            continue;
        }
        if (depth == 0) out += c;
    }
    return out;
}

void Router::add(const std::string &method, const std::string &pattern, Handler h, Filtering f) {
    routes_.push_back({method, std::regex(pattern, std::regex::ECMAScript | std::regex::optimize), std::move(h),
                       label_of(pattern), f});
}

std::string Router::route_of(const std::string &path) const {
    for (const Route &r : routes_)
        if (std::regex_match(path, r.pattern)) return r.label;
    return "unmatched";
}

std::string Router::allowed(const std::string &path) const {
    std::vector<std::string> methods;
    const auto add = [&](const std::string &m) {
        if (std::find(methods.begin(), methods.end(), m) == methods.end()) methods.push_back(m);
    };
    for (const Route &r : routes_) {
        if (!std::regex_match(path, r.pattern)) continue;
        add(r.method);
        if (r.method == "GET") add("HEAD");
    }
    if (methods.empty()) return "";
    add("OPTIONS");
    std::string out;
    for (const std::string &m : methods) out += (out.empty() ? "" : ", ") + m;
    return out;
}

void Router::handle(HttpRequest &req, HttpResponse &res) const noexcept {
    std::string label = "unmatched";
    try {
        const Route *found = nullptr;
        bool path_known = false;
        std::smatch m;
        // HEAD runs the GET route; the transport sends its headers only.
        const std::string method = req.method == "HEAD" ? "GET" : req.method;
        for (const Route &r : routes_) {
            if (!std::regex_match(req.path, m, r.pattern)) continue;
            if (!path_known) label = r.label;
            path_known = true;
            if (r.method != method) continue;
            found = &r;
            label = r.label;
            break;
        }
        const bool filtered = !found || found->filtering == Filtered;
        if (filtered && filter_ && !filter_(req, res)) {
            res.route = label;
            return;
        }
        if (found) {
            req.matches.assign(m.begin(), m.end());
            found->handler(req, res);
            res.route = label;
            return;
        }
        res.route = label;
        if (!path_known && fallback_) return fallback_(req, res);
        if (path_known) {
            res.set_header("Allow", allowed(req.path));
            if (req.method == "OPTIONS") {
                res.status = 204;
                return;
            }
            return send_error(res, 405, "method_not_allowed", req.method + " is not allowed on " + req.path);
        }
        send_error(res, 404, "not_found", "no such path: " + req.path);
    } catch (const RequestDeadlinePassed &) {
        res = HttpResponse{};
        send_deadline(res);
        res.route = label;
    } catch (const std::exception &e) {
        res = HttpResponse{};
        send_error(res, 500, "internal", e.what());
        res.route = label;
    } catch (...) {
        res = HttpResponse{};
        send_error(res, 500, "internal", "internal error");
        res.route = label;
    }
}

}  // namespace gmserver
