// gmlab-server: stores uploaded gmlab.run/1 documents and serves them, their
// per-GPU distributions and web pages.
//
//   gmlab-server --db results.sqlite --listen 127.0.0.1:8080 [--metrics-listen 127.0.0.1:9101]
//   gmlab-server backup --db URL --to FILE
//   gmlab-server restore --from FILE --db URL
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <malloc.h>
#include <memory>
#include <string>
#include <thread>

#include <sys/resource.h>

#include "web/api.hpp"
#include "config_file.hpp"
#include "crowd/crowd_store.hpp"
#include "http/access_log.hpp"
#include "http/http_server.hpp"
#include "http/metrics.hpp"
#include "http/request_metrics.hpp"
#include "http/router.hpp"
#include "ops/backup_command.hpp"
#include "ops/health.hpp"
#include "ops/metrics_port.hpp"
#include "ops/service_metrics.hpp"
#include "storage/storage.hpp"

namespace {

// Every connection is a descriptor: thousands of (possibly stalled) clients
// need more than the usual soft limit of 1024. Raise it to the hard limit.
void raise_descriptor_limit() {
    rlimit r{};
    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        setrlimit(RLIMIT_NOFILE, &r);
    }
}

void usage(std::ostream &o) {
    o << "usage: gmlab-server [--db URL] [--listen HOST:PORT] [options]\n"
         "       gmlab-server backup --db URL --to FILE      (gmlab-server backup --help)\n"
         "       gmlab-server restore --from FILE --db URL\n"
         "  --db URL               sqlite:PATH, a path, or postgres://... (default results.sqlite)\n"
         "  --listen HOST:PORT     address to serve on (default 127.0.0.1:8080; port 0 picks a free one)\n"
         "  --metrics-listen HOST:PORT\n"
         "                         serve GET /metrics (Prometheus), /healthz and /readyz on this address only; the\n"
         "                         public address answers /metrics with 404 (default: no metrics)\n"
         "  --access-log FILE      one JSON line per request to FILE; SIGHUP reopens it (default -: stderr; off: none)\n"
         "  --drain-seconds N      on SIGTERM, answer what was received for at most N s, then exit 0 (default 30)\n"
         "  --min-send-rate N      bytes per second a client must read an answer at after the grace time; slower\n"
         "                         clients are cut off and their worker freed (default 16384)\n"
         "  --send-grace-ms N      time an answer may take before the minimum send rate applies (default 10000)\n"
         "  --ready-max-backlog N  /readyz answers 503 while more uploads than this wait for the aggregates'\n"
         "                         refresher (default 10000)\n"
         "  --max-body-bytes N     largest request body, also after gzip decompression (default 16777216)\n"
         "  --write-rate R         POST/DELETE per second per client IP, 0 = unlimited (default 2)\n"
         "  --write-burst N        burst of writes (default 20)\n"
         "  --read-rate R          other requests per second per client IP, 0 = unlimited (default 50)\n"
         "  --read-burst N         burst of reads (default 200)\n"
         "  --trusted-proxy IP     believe X-Forwarded-For from this peer (repeatable)\n"
         "  --admin-token T        a token that may delete any result (or GMLAB_ADMIN_TOKEN)\n"
         "  --config FILE          JSON settings kept off the command line: {\"moderator_token\": \"...\"} (mode 600)\n"
         "  --public-url URL       prefix of the result URLs handed out (default: http:// and the request's Host header\n"
         "                         when it is a plain host[:port], else the address the request came in on)\n"
         "  --workers N            threads that run requests once they have arrived whole (default 8; --threads is the same)\n"
         "  --io-threads N         threads that read and write sockets (default 1)\n"
         "  --queue N              complete requests that may wait for a worker; beyond it 503 (default 512)\n"
         "  --max-connections N    open connections in all; beyond it 503 (default 20000)\n"
         "  --max-connections-per-client N\n"
         "                         open connections per peer address, trusted proxies exempt; beyond it 429 (default 256)\n"
         "  --header-timeout-ms N  the request headers must arrive within this (default 10000); else 408\n"
         "  --body-grace-ms N      time a body may take before the minimum rate applies (default 10000)\n"
         "  --min-body-rate N      bytes per second a body must average after the grace time (default 16384); else 408\n"
         "  --body-idle-ms N       the longest a body may stop arriving, whatever its average (default 5000); else 408\n"
         "  --max-pending-body-bytes N\n"
         "                         bytes that the bodies being received at once may declare in all (a chunked body:\n"
         "                         what has arrived); beyond it 503; 0 = no bound (default 268435456)\n";
}

bool parse_number(const std::string &s, double *out) {
    char *end = nullptr;
    *out = std::strtod(s.c_str(), &end);
    return !s.empty() && end && *end == '\0' && *out >= 0;
}

// "HOST:PORT" or "[V6]:PORT"; false when it is not one.
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

// What the command line sets: the addresses, the files and the limits.
struct ServerFlags {
    std::string db = "results.sqlite", listen = "127.0.0.1:8080", metrics_listen, access_log_path = "-";
    double ready_max_backlog = 10000;
    gmserver::ServerConfig config;
    gmserver::TransportLimits limits;
    std::string config_file;
};

// Reads the flags (and GMLAB_ADMIN_TOKEN) into f: -1 to go on, else the exit
// status (0 after --help, 2 for a flag that is unknown, lacks its value or
// contradicts another).
int read_flags(int argc, char **argv, ServerFlags &f) {
    std::string &db = f.db, &listen = f.listen, &metrics_listen = f.metrics_listen, &access_log_path = f.access_log_path,
                &config_file = f.config_file;
    double &ready_max_backlog = f.ready_max_backlog;
    gmserver::ServerConfig &config = f.config;
    gmserver::TransportLimits &limits = f.limits;
    if (const char *t = std::getenv("GMLAB_ADMIN_TOKEN")) config.admin_token = t;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            usage(std::cout);
            return 0;
        }
        if (i + 1 >= argc) {
            std::cerr << "gmlab-server: " << a << " needs a value (or is unknown)\n";
            usage(std::cerr);
            return 2;
        }
        const std::string v = argv[++i];
        double d = 0;
        const bool num = parse_number(v, &d);
        if (a == "--db") db = v;
        else if (a == "--listen") listen = v;
        else if (a == "--trusted-proxy") config.trusted_proxies.insert(v);
        else if (a == "--admin-token") config.admin_token = v;
        else if (a == "--public-url") config.public_url = v;
        else if (a == "--config") config_file = v;
        else if (a == "--metrics-listen") metrics_listen = v;
        else if (a == "--access-log") access_log_path = v;
        else if (!num) {
            std::cerr << "gmlab-server: " << a << ": not a number or an unknown option: " << v << "\n";
            return 2;
        } else if (a == "--max-body-bytes") config.max_body_bytes = static_cast<std::size_t>(d);
        else if (a == "--write-rate") config.write_rate = d;
        else if (a == "--write-burst") config.write_burst = d;
        else if (a == "--read-rate") config.read_rate = d;
        else if (a == "--read-burst") config.read_burst = d;
        else if (a == "--threads" || a == "--workers") limits.workers = d < 1 ? 1 : static_cast<std::size_t>(d);
        else if (a == "--io-threads") limits.io_threads = d < 1 ? 1 : static_cast<std::size_t>(d);
        else if (a == "--queue") limits.queue_capacity = d < 1 ? 1 : static_cast<std::size_t>(d);
        else if (a == "--max-connections") limits.max_connections = static_cast<std::size_t>(d);
        else if (a == "--max-connections-per-client") limits.max_connections_per_client = static_cast<std::size_t>(d);
        else if (a == "--header-timeout-ms") limits.header_timeout = std::chrono::milliseconds(static_cast<long long>(d));
        else if (a == "--body-grace-ms") limits.body_grace = std::chrono::milliseconds(static_cast<long long>(d));
        else if (a == "--min-body-rate") limits.min_body_rate = d > 0 ? d : 1;
        else if (a == "--body-idle-ms") limits.body_idle = std::chrono::milliseconds(static_cast<long long>(d < 1 ? 1 : d));
        else if (a == "--max-pending-body-bytes") limits.max_pending_body_bytes = static_cast<std::size_t>(d);
        else if (a == "--drain-seconds") limits.drain = std::chrono::milliseconds(static_cast<long long>(d * 1000));
        else if (a == "--min-send-rate") limits.min_send_rate = d > 0 ? d : 1;
        else if (a == "--send-grace-ms") limits.send_grace = std::chrono::milliseconds(static_cast<long long>(d));
        else if (a == "--ready-max-backlog") ready_max_backlog = d;
        else {
            std::cerr << "gmlab-server: unknown option " << a << "\n";
            usage(std::cerr);
            return 2;
        }
    }
    // A body the size limit allows must fit the budget on its own, or it
    // could never be received.
    if (limits.max_pending_body_bytes && limits.max_pending_body_bytes < config.max_body_bytes) {
        std::cerr << "gmlab-server: --max-pending-body-bytes (" << limits.max_pending_body_bytes
                  << ") is less than --max-body-bytes (" << config.max_body_bytes << "); raise it, or 0 for no bound\n";
        return 2;
    }
    return -1;
}

}  // namespace

int main(int argc, char **argv) {
    // An upload's buffers (the body, its compressed copy) are hundreds of KiB:
    // above glibc's default threshold each would be a fresh mmap, its pages
    // faulted in and zeroed on every request and unmapped after. Kept in the
    // heap they are reused; the aggregates give memory back with malloc_trim.
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    if (argc > 1 && std::string(argv[1]) == "backup") return gmserver::backup_command(argc - 1, argv + 1);
    if (argc > 1 && std::string(argv[1]) == "restore") return gmserver::restore_command(argc - 1, argv + 1);
    ServerFlags flags;
    if (const int status = read_flags(argc, argv, flags); status >= 0) return status;
    const std::string &db = flags.db, &listen = flags.listen, &metrics_listen = flags.metrics_listen,
                      &access_log_path = flags.access_log_path, &config_file = flags.config_file;
    const double ready_max_backlog = flags.ready_max_backlog;
    gmserver::ServerConfig &config = flags.config;
    gmserver::TransportLimits &limits = flags.limits;
    std::string host, metrics_host;
    int port = 0, metrics_port = 0;
    if (!parse_address(listen, &host, &port)) {
        std::cerr << "gmlab-server: --listen wants HOST:PORT, not " << listen << "\n";
        return 2;
    }
    if (!metrics_listen.empty() && !parse_address(metrics_listen, &metrics_host, &metrics_port)) {
        std::cerr << "gmlab-server: --metrics-listen wants HOST:PORT, not " << metrics_listen << "\n";
        return 2;
    }
    // Opened before the database, so that a path that cannot be written is
    // said at once.
    std::unique_ptr<gmserver::AccessLog> access_log;
    if (access_log_path != "off") {
        try {
            access_log = std::make_unique<gmserver::AccessLog>(access_log_path);
        } catch (const std::exception &e) {
            std::cerr << "gmlab-server: " << e.what() << "\n";
            return 2;
        }
    }

    if (!config_file.empty()) {
        std::string why;
        if (!gmserver::read_config_file(config_file, &config, &why)) {
            std::cerr << "gmlab-server: " << config_file << ": " << why << "\n";
            return 2;
        }
    }

    std::unique_ptr<gmserver::Storage> storage;
    std::unique_ptr<gmserver::CrowdStore> crowd;
    try {
        storage = gmserver::open_storage(db);
        crowd = gmserver::open_crowd_store(db);
    } catch (const std::exception &e) {
        std::cerr << "gmlab-server: " << e.what() << "\n";
        return 1;
    }

    raise_descriptor_limit();
    gmserver::Router router;
    gmserver::install_routes(router, *storage, config, crowd.get());
    limits.max_body_bytes = config.max_body_bytes;
    limits.exempt_clients = config.trusted_proxies;
    limits.trusted_proxies = config.trusted_proxies;
    gmserver::HttpServer server(router, limits);

    // Health on both addresses; metrics only on the metrics address.
    gmserver::Health health(*storage, [&server] { return server.draining(); },
                            static_cast<std::uint64_t>(ready_max_backlog));
    health.install(router);
    gmserver::install_metrics_elsewhere(router, metrics_listen);
    gmserver::Metrics metrics;
    std::unique_ptr<gmserver::RequestMetrics> request_metrics;
    std::unique_ptr<gmserver::ServiceMetrics> service_metrics;
    if (!metrics_listen.empty()) {
        request_metrics = std::make_unique<gmserver::RequestMetrics>(metrics, [&server] { return server.stats(); });
        service_metrics = std::make_unique<gmserver::ServiceMetrics>(metrics, health);
    }
    if (access_log || request_metrics)
        server.set_observer([&](const gmserver::RequestRecord &r) {
            if (access_log) access_log->write(r);
            if (request_metrics) {
                request_metrics->record(r);
                service_metrics->record(r);
            }
        });
    server.set_reopen([&access_log] {
        if (!access_log || access_log->path().empty()) return;
        std::string why;
        if (access_log->reopen(&why))
            std::fprintf(stderr, "gmlab-server: SIGHUP: reopened the access log %s\n", access_log->path().c_str());
        else
            std::fprintf(stderr, "gmlab-server: SIGHUP: cannot reopen the access log %s: %s\n", access_log->path().c_str(),
                         why.c_str());
    });

    // The metrics address: a listener, a worker and limits of its own.
    gmserver::Router metrics_router;
    std::unique_ptr<gmserver::HttpServer> metrics_server;
    int metrics_bound = -1;
    if (!metrics_listen.empty()) {
        gmserver::install_metrics_routes(metrics_router, metrics, health);
        gmserver::TransportLimits m;
        m.workers = 1;
        m.queue_capacity = 16;
        m.max_connections = 64;
        m.max_connections_per_client = 16;
        m.header_timeout = std::chrono::milliseconds(5000);
        m.max_body_bytes = 4096;
        m.handle_signals = false;
        metrics_server = std::make_unique<gmserver::HttpServer>(metrics_router, m);
        try {
            metrics_bound = metrics_server->listen(metrics_host, metrics_port);
        } catch (const std::exception &e) {
            std::cerr << "gmlab-server: --metrics-listen: " << e.what() << "\n";
            return 1;
        }
    }
    int bound = -1;
    try {
        bound = server.listen(host, port);
    } catch (const std::exception &e) {
        std::cerr << "gmlab-server: " << e.what() << "\n";
        return 1;
    }
    std::thread metrics_thread;
    if (metrics_server) metrics_thread = std::thread([&] { metrics_server->run(); });
    // Tests and scripts read this line to learn the ports.
    std::string metrics_note;
    if (metrics_server) metrics_note = "; metrics on http://" + metrics_host + ":" + std::to_string(metrics_bound) + "/metrics";
    std::printf("gmlab-server: listening on http://%s:%d (%llu results stored)%s\n", host.c_str(), bound,
                static_cast<unsigned long long>(storage->count()), metrics_note.c_str());
    std::fflush(stdout);
    server.run();  // until SIGTERM or SIGINT has drained it
    if (metrics_server) {
        metrics_server->stop();
        metrics_thread.join();
    }
    // The refresher finishes the batch it is folding; SQLite checkpoints.
    crowd.reset();
    storage.reset();
    std::fprintf(stderr, "gmlab-server: stopped\n");
    return 0;
}
