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
#include "server_flags.hpp"
#include "storage/storage.hpp"
#include "web/declared_shapes.hpp"

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

// The addresses --listen and --metrics-listen name.
struct Addresses {
    std::string host, metrics_host;
    int port = 0, metrics_port = 0;
};

// -1 to go on, else the exit status (the reason is on stderr).
int read_addresses(const gmserver::ServerFlags &flags, Addresses *a) {
    if (!gmserver::parse_address(flags.listen, &a->host, &a->port)) {
        std::cerr << "gmlab-server: --listen wants HOST:PORT, not " << flags.listen << "\n";
        return 2;
    }
    if (!flags.metrics_listen.empty() && !gmserver::parse_address(flags.metrics_listen, &a->metrics_host, &a->metrics_port)) {
        std::cerr << "gmlab-server: --metrics-listen wants HOST:PORT, not " << flags.metrics_listen << "\n";
        return 2;
    }
    return -1;
}

// The access log (none for "off") and the configuration file, read before
// the database is opened, so that a path that cannot be written or a file
// that cannot be read is said at once. -1 to go on, else the exit status.
int open_files(gmserver::ServerFlags &flags, std::unique_ptr<gmserver::AccessLog> *access_log) {
    if (flags.access_log_path != "off") {
        try {
            *access_log = std::make_unique<gmserver::AccessLog>(flags.access_log_path);
        } catch (const std::exception &e) {
            std::cerr << "gmlab-server: " << e.what() << "\n";
            return 2;
        }
    }
    if (!flags.config_file.empty()) {
        std::string why;
        if (!gmserver::read_config_file(flags.config_file, &flags.config, &why)) {
            std::cerr << "gmlab-server: " << flags.config_file << ": " << why << "\n";
            return 2;
        }
    }
    return -1;
}

// SIGHUP opens the access log again (logrotate's convention).
void reopen_on_sighup(gmserver::HttpServer &server, gmserver::AccessLog *access_log) {
    server.set_reopen([access_log] {
        if (!access_log || access_log->path().empty()) return;
        std::string why;
        if (access_log->reopen(&why))
            std::fprintf(stderr, "gmlab-server: SIGHUP: reopened the access log %s\n", access_log->path().c_str());
        else
            std::fprintf(stderr, "gmlab-server: SIGHUP: cannot reopen the access log %s: %s\n", access_log->path().c_str(),
                         why.c_str());
    });
}

// The metrics address's own limits: one worker, few connections, small bodies.
gmserver::TransportLimits metrics_limits() {
    gmserver::TransportLimits m;
    m.workers = 1;
    m.queue_capacity = 16;
    m.max_connections = 64;
    m.max_connections_per_client = 16;
    m.header_timeout = std::chrono::milliseconds(5000);
    m.max_body_bytes = 4096;
    m.handle_signals = false;
    return m;
}

// What each request's record goes to: the access log, and with a metrics
// address the request and service metrics.
struct Observers {
    gmserver::Metrics metrics;
    std::unique_ptr<gmserver::RequestMetrics> requests;
    std::unique_ptr<gmserver::ServiceMetrics> service;
};

void observe(gmserver::HttpServer &server, gmserver::AccessLog *access_log, Observers &o, gmserver::Health &health,
             bool with_metrics) {
    if (with_metrics) {
        o.requests = std::make_unique<gmserver::RequestMetrics>(o.metrics, [&server] { return server.stats(); });
        o.service = std::make_unique<gmserver::ServiceMetrics>(o.metrics, health);
    }
    if (access_log || o.requests)
        server.set_observer([access_log, &o](const gmserver::RequestRecord &r) {
            if (access_log) access_log->write(r);
            if (o.requests) {
                o.requests->record(r);
                o.service->record(r);
            }
        });
    reopen_on_sighup(server, access_log);
}

// The public server and, with --metrics-listen, the metrics address (a
// listener, a worker and limits of its own), served until SIGTERM or SIGINT
// has drained the public one.
int serve(gmserver::ServerFlags &flags, const Addresses &at, gmserver::AccessLog *access_log, gmserver::Storage &storage,
          gmserver::CrowdStore *crowd) {
    raise_descriptor_limit();
    gmserver::Router router;
    flags.config.shapes = flags.any_experiment ? nullptr : gmserver::declared_shapes(flags.shape);
    gmserver::install_routes(router, storage, flags.config, crowd);
    gmserver::TransportLimits &limits = flags.limits;
    limits.max_body_bytes = flags.config.max_body_bytes;
    limits.exempt_clients = flags.config.trusted_proxies;
    limits.trusted_proxies = flags.config.trusted_proxies;
    gmserver::HttpServer server(router, limits);

    // Health on both addresses; metrics only on the metrics address.
    const bool with_metrics = !flags.metrics_listen.empty();
    gmserver::Health health(storage, [&server] { return server.draining(); },
                            static_cast<std::uint64_t>(flags.ready_max_backlog));
    health.install(router);
    gmserver::install_metrics_elsewhere(router, flags.metrics_listen);
    Observers observers;
    observe(server, access_log, observers, health, with_metrics);

    gmserver::Router metrics_router;
    std::unique_ptr<gmserver::HttpServer> metrics_server;
    int metrics_bound = -1;
    if (with_metrics) {
        gmserver::install_metrics_routes(metrics_router, observers.metrics, health);
        metrics_server = std::make_unique<gmserver::HttpServer>(metrics_router, metrics_limits());
        try {
            metrics_bound = metrics_server->listen(at.metrics_host, at.metrics_port);
        } catch (const std::exception &e) {
            std::cerr << "gmlab-server: --metrics-listen: " << e.what() << "\n";
            return 1;
        }
    }
    int bound = -1;
    try {
        bound = server.listen(at.host, at.port);
    } catch (const std::exception &e) {
        std::cerr << "gmlab-server: " << e.what() << "\n";
        return 1;
    }
    std::thread metrics_thread;
    if (metrics_server) metrics_thread = std::thread([&] { metrics_server->run(); });
    // Tests and scripts read this line to learn the ports.
    std::string metrics_note;
    if (metrics_server) metrics_note = "; metrics on http://" + at.metrics_host + ":" + std::to_string(metrics_bound) + "/metrics";
    std::printf("gmlab-server: listening on http://%s:%d (%llu results stored)%s\n", at.host.c_str(), bound,
                static_cast<unsigned long long>(storage.count()), metrics_note.c_str());
    std::fflush(stdout);
    server.run();  // until SIGTERM or SIGINT has drained it
    if (metrics_server) {
        metrics_server->stop();
        metrics_thread.join();
    }
    return 0;
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
    gmserver::ServerFlags flags;
    if (const int status = gmserver::read_flags(argc, argv, flags); status >= 0) return status;
    Addresses at;
    if (const int status = read_addresses(flags, &at); status >= 0) return status;
    std::unique_ptr<gmserver::AccessLog> access_log;
    if (const int status = open_files(flags, &access_log); status >= 0) return status;

    std::unique_ptr<gmserver::Storage> storage;
    std::unique_ptr<gmserver::CrowdStore> crowd;
    try {
        storage = gmserver::open_storage(flags.db);
        crowd = gmserver::open_crowd_store(flags.db);
    } catch (const std::exception &e) {
        std::cerr << "gmlab-server: " << e.what() << "\n";
        return 1;
    }
    if (const int status = serve(flags, at, access_log.get(), *storage, crowd.get()); status != 0) return status;
    // The refresher finishes the batch it is folding; SQLite checkpoints.
    crowd.reset();
    storage.reset();
    std::fprintf(stderr, "gmlab-server: stopped\n");
    return 0;
}
