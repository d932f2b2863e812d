#include "server_flags.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <vector>

#include "ops/command_line.hpp"

namespace gmserver {

namespace {

const char *const kUsageLines =
    "usage: gmlab-server [--db URL] [--listen HOST:PORT] [options]\n"
    "       gmlab-server backup --db URL --to FILE      (gmlab-server backup --help)\n"
    "       gmlab-server restore --from FILE --db URL\n";

// Where an option's description starts in the help.
constexpr std::size_t kDescriptionColumn = 25;

// The help as gmlab-server has always printed it: the usage lines, then one
// entry per option, "--name VALUE" and its description from column 25 (on a
// line of its own when the name is longer), made from the options declared
// below so that the help and the parser cannot drift apart.
class HelpLayout : public CLI::Formatter {
public:
    std::string make_help(const CLI::App *app, std::string, CLI::AppFormatMode) const override {
        std::string out = kUsageLines;
        for (const CLI::Option *opt : app->get_options())
            if (opt != app->get_help_ptr()) out += entry(*opt);
        return out;
    }

private:
    static std::string entry(const CLI::Option &opt) {
        std::string head = "  " + opt.get_name() + " " + opt.get_type_name();
        if (head.size() + 2 <= kDescriptionColumn) head.resize(kDescriptionColumn, ' ');
        else head += "\n" + std::string(kDescriptionColumn, ' ');
        std::string description = opt.get_description();
        for (std::size_t at = description.find('\n'); at != std::string::npos; at = description.find('\n', at + 1))
            description.insert(at + 1, kDescriptionColumn, ' ');
        return head + description + "\n";
    }
};

CLI::Option *add_number(CLI::App &app, const std::string &name, const char *label, std::function<void(double)> set,
                        const std::string &description) {
    return app.add_option_function<double>(name, std::move(set), description)->type_name(label)->check(non_negative_number());
}

std::size_t at_least_one(double d) { return d < 1 ? 1 : static_cast<std::size_t>(d); }
std::chrono::milliseconds milliseconds(double ms) { return std::chrono::milliseconds(static_cast<long long>(ms)); }

void add_addresses_and_files(CLI::App &app, ServerFlags &f) {
    app.add_option("--db", f.db, "sqlite:PATH, a path, or postgres://... (default results.sqlite)")->type_name("URL");
    app.add_option("--listen", f.listen, "address to serve on (default 127.0.0.1:8080; port 0 picks a free one)")
        ->type_name("HOST:PORT");
    app.add_option("--metrics-listen", f.metrics_listen,
                   "serve GET /metrics (Prometheus), /healthz and /readyz on this address only; the\n"
                   "public address answers /metrics with 404 (default: no metrics)")
        ->type_name("HOST:PORT");
    app.add_option("--access-log", f.access_log_path,
                   "one JSON line per request to FILE; SIGHUP reopens it (default -: stderr; off: none)")
        ->type_name("FILE");
}

void add_operations(CLI::App &app, ServerFlags &f) {
    TransportLimits &l = f.limits;
    add_number(app, "--drain-seconds", "N", [&l](double d) { l.drain = milliseconds(d * 1000); },
               "on SIGTERM, answer what was received for at most N s, then exit 0 (default 30)");
    add_number(app, "--min-send-rate", "N", [&l](double d) { l.min_send_rate = d > 0 ? d : 1; },
               "bytes per second a client must read an answer at after the grace time; slower\n"
               "clients are cut off and their worker freed (default 16384)");
    add_number(app, "--send-grace-ms", "N", [&l](double d) { l.send_grace = milliseconds(d); },
               "time an answer may take before the minimum send rate applies (default 10000)");
    add_number(app, "--ready-max-backlog", "N", [&f](double d) { f.ready_max_backlog = d; },
               "/readyz answers 503 while more uploads than this wait for the aggregates'\n"
               "refresher (default 10000)");
}

void add_requests(CLI::App &app, ServerFlags &f) {
    ServerConfig &c = f.config;
    add_number(app, "--max-body-bytes", "N", [&c](double d) { c.max_body_bytes = static_cast<std::size_t>(d); },
               "largest request body, also after gzip decompression (default 16777216)");
    add_number(app, "--write-rate", "R", [&c](double d) { c.write_rate = d; },
               "POST/DELETE per second per client IP, 0 = unlimited (default 2)");
    add_number(app, "--write-burst", "N", [&c](double d) { c.write_burst = d; }, "burst of writes (default 20)");
    add_number(app, "--read-rate", "R", [&c](double d) { c.read_rate = d; },
               "cheap reads (pages, the API's reads) per second per client IP, 0 = unlimited\n"
               "(default 0: clients sharing an address are not locked out by one of them)");
    add_number(app, "--read-burst", "N", [&c](double d) { c.read_burst = d; }, "burst of reads (default 200)");
    add_number(app, "--expensive-rate", "R", [&c](double d) { c.expensive_rate = d; },
               "comparisons, exports and results as CSV per second per client IP, 0 = unlimited (default 2)");
    add_number(app, "--expensive-burst", "N", [&c](double d) { c.expensive_burst = d; }, "burst of those (default 30)");
    add_number(app, "--max-expensive-at-once", "N", [&c](double d) { c.max_expensive_at_once = static_cast<std::size_t>(d); },
               "comparisons that may run at once in the server, so that they never take every\n"
               "worker; beyond it 503 busy (default: half the workers, at least 1)");
    add_number(app, "--page-max-models", "N", [&c](double d) { c.page_max_models = d < 1 ? 1 : static_cast<std::size_t>(d); },
               "GPU models the home and experiment pages list, the most uploaded first (default 50)");
    app.add_option_function<std::vector<std::string>>(
           "--trusted-proxy", [&c](const std::vector<std::string> &ips) { c.trusted_proxies.insert(ips.begin(), ips.end()); },
           "believe X-Forwarded-For from this peer (repeatable)")
        ->type_name("IP")
        ->expected(1)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_option("--admin-token", c.admin_token, "a token that may delete any result (or GMLAB_ADMIN_TOKEN)")
        ->type_name("T")
        ->envname("GMLAB_ADMIN_TOKEN");
    app.add_option("--config", f.config_file,
                   "JSON settings kept off the command line: {\"moderator_token\": \"...\"} (mode 600)")
        ->type_name("FILE");
    app.add_option("--public-url", c.public_url,
                   "prefix of the result URLs handed out (default: http:// and the request's Host header\n"
                   "when it is a plain host[:port], else the address the request came in on)")
        ->type_name("URL");
}

void add_shapes(CLI::App &app, ServerFlags &f) {
    ShapeSettings &s = f.shape;
    auto count = [](double d) { return static_cast<std::size_t>(d < 1 ? 1 : d); };
    add_number(app, "--max-points-per-series", "N", [&s, count](double d) { s.max_points_per_series = count(d); },
               "points a series of an upload may have, whatever its experiment declares (default 4096)");
    add_number(app, "--min-points-allowance", "N", [&s, count](double d) { s.min_points_allowance = count(d); },
               "points any experiment's series may have, however few its x axis declares (default 256)");
    add_number(app, "--max-series-per-result", "N", [&s, count](double d) { s.max_series_per_result = count(d); },
               "series a result of an upload may have, whatever its experiment declares (default 512)");
    add_number(app, "--min-series-allowance", "N", [&s, count](double d) { s.min_series_allowance = count(d); },
               "series any experiment's result may have, however few its axes declare (default 64)");
    add_number(app, "--axis-slack", "F", [&s](double d) { s.axis_slack = d < 1 ? 1 : d; },
               "an experiment's series and points may be this multiple of what its axes declare\n"
               "(within the limits above; default 4)");
    add_number(app, "--max-results-per-upload", "N", [&s, count](double d) { s.max_results = count(d); },
               "results one upload may hold (default 256; at most 4 per declared experiment)");
    app.add_flag("--any-experiment", f.any_experiment,
                 "accept experiments this server's library does not declare, with no limit on series\n"
                 "and points but the size limits (default: refused, 422 unknown_experiment)");
}

void add_transport(CLI::App &app, TransportLimits &l) {
    add_number(app, "--request-deadline-ms", "N", [&l](double d) { l.request_deadline = milliseconds(d < 0 ? 0 : d); },
               "a request not answered within this of its arrival is answered 503 deadline and\n"
               "stopped; 0 = no deadline (default 20000)");
    add_number(app, "--max-pending-body-share", "F",
               [&l](double d) { l.max_pending_body_share = d <= 0 ? 0 : d; },
               "share of --max-pending-body-bytes that the bodies from one client network (/24,\n"
               "/64) may hold at once, at least one --max-body-bytes; beyond it 429; 1 = no share\n"
               "(default 0.125)");
    add_number(app, "--workers,--threads", "N", [&l](double d) { l.workers = at_least_one(d); },
               "threads that run requests once they have arrived whole (default 8; --threads is the same)");
    add_number(app, "--io-threads", "N", [&l](double d) { l.io_threads = at_least_one(d); },
               "threads that read and write sockets (default 1)");
    add_number(app, "--queue", "N", [&l](double d) { l.queue_capacity = at_least_one(d); },
               "complete requests that may wait for a worker; beyond it 503 (default 512)");
    add_number(app, "--max-connections", "N", [&l](double d) { l.max_connections = static_cast<std::size_t>(d); },
               "open connections in all; beyond it 503 (default 20000)");
    add_number(app, "--max-connections-per-client", "N",
               [&l](double d) { l.max_connections_per_client = static_cast<std::size_t>(d); },
               "open connections per peer address, trusted proxies exempt; at it, the address's\n"
               "connection that has waited longest (over 1 s) for a request is closed to make room,\n"
               "else 429 (default 256)");
    add_number(app, "--header-timeout-ms", "N", [&l](double d) { l.header_timeout = milliseconds(d); },
               "the request headers must arrive within this (default 10000); else 408");
    add_number(app, "--body-grace-ms", "N", [&l](double d) { l.body_grace = milliseconds(d); },
               "time a body may take before the minimum rate applies (default 10000)");
    add_number(app, "--min-body-rate", "N", [&l](double d) { l.min_body_rate = d > 0 ? d : 1; },
               "bytes per second a body must average after the grace time (default 16384); else 408");
    add_number(app, "--body-idle-ms", "N", [&l](double d) { l.body_idle = milliseconds(d < 1 ? 1 : d); },
               "the longest a body may stop arriving, whatever its average (default 5000); else 408");
    add_number(app, "--max-pending-body-bytes", "N",
               [&l](double d) { l.max_pending_body_bytes = static_cast<std::size_t>(d); },
               "bytes that the bodies being received at once may declare in all (a chunked body:\n"
               "what has arrived); beyond it 503; 0 = no bound (default 268435456)");
}

}  // namespace

int read_flags(int argc, char **argv, ServerFlags &f) {
    CLI::App app("gmlab-server", "gmlab-server");
    app.formatter(std::make_shared<HelpLayout>());
    // A flag given twice: the last one counts (--trusted-proxy keeps every one).
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    add_addresses_and_files(app, f);
    add_operations(app, f);
    add_requests(app, f);
    add_transport(app, f.limits);
    add_shapes(app, f);
    if (const int status = parse_command_line(app, argc, argv, "gmlab-server", app.help()); status >= 0) return status;
    if (app.count("--max-expensive-at-once") == 0) f.config.max_expensive_at_once = std::max<std::size_t>(1, f.limits.workers / 2);
    // A body the size limit allows must fit the budget on its own, or it
    // could never be received.
    if (f.limits.max_pending_body_bytes && f.limits.max_pending_body_bytes < f.config.max_body_bytes) {
        std::cerr << "gmlab-server: --max-pending-body-bytes (" << f.limits.max_pending_body_bytes
                  << ") is less than --max-body-bytes (" << f.config.max_body_bytes << "); raise it, or 0 for no bound\n";
        return 2;
    }
    return -1;
}

bool parse_address(const std::string &a, std::string *host, int *port) {
    const auto colon = a.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == a.size()) return false;
    *host = a.substr(0, colon);
    if (host->size() > 2 && host->front() == '[' && host->back() == ']') *host = host->substr(1, host->size() - 2);
    char *end = nullptr;
    const long p = std::strtol(a.c_str() + colon + 1, &end, 10);
    if (!end || *end != '\0' || p < 0 || p > 65535) return false;
    *port = static_cast<int>(p);
    return true;
}

}  // namespace gmserver
