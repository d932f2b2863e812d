// gmlab-server: stores uploaded gmlab.run/1 documents and serves them, their
// per-GPU distributions and web pages.
//
//   gmlab-server --db results.sqlite --listen 127.0.0.1:8080
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <malloc.h>
#include <string>

#include <sys/resource.h>

#include "web/api.hpp"
#include "config_file.hpp"
#include "crowd/crowd_store.hpp"
#include "http/http_server.hpp"
#include "http/router.hpp"
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
         "  --db URL               sqlite:PATH, a path, or postgres://... (default results.sqlite)\n"
         "  --listen HOST:PORT     address to serve on (default 127.0.0.1:8080; port 0 picks a free one)\n"
         "  --max-body-bytes N     largest request body, also after gzip decompression (default 16777216)\n"
         "  --write-rate R         POST/DELETE per second per client IP, 0 = unlimited (default 2)\n"
         "  --write-burst N        burst of writes (default 20)\n"
         "  --read-rate R          other requests per second per client IP, 0 = unlimited (default 50)\n"
         "  --read-burst N         burst of reads (default 200)\n"
         "  --trusted-proxy IP     believe X-Forwarded-For from this peer (repeatable)\n"
         "  --admin-token T        a token that may delete any result (or GMLAB_ADMIN_TOKEN)\n"
         "  --config FILE          JSON settings kept off the command line: {\"moderator_token\": \"...\"} (mode 600)\n"
         "  --public-url URL       prefix of the result URLs handed out (default: from the Host header)\n"
         "  --workers N            threads that run requests once they have arrived whole (default 8; --threads is the same)\n"
         "  --io-threads N         threads that read and write sockets (default 1)\n"
         "  --queue N              complete requests that may wait for a worker; beyond it 503 (default 512)\n"
         "  --max-connections N    open connections in all; beyond it 503 (default 20000)\n"
         "  --max-connections-per-client N\n"
         "                         open connections per peer address, trusted proxies exempt; beyond it 429 (default 256)\n"
         "  --header-timeout-ms N  the request headers must arrive within this (default 10000); else 408\n"
         "  --body-grace-ms N      time a body may take before the minimum rate applies (default 10000)\n"
         "  --min-body-rate N      bytes per second a body must average after the grace time (default 16384); else 408\n";
}

bool parse_number(const std::string &s, double *out) {
    char *end = nullptr;
    *out = std::strtod(s.c_str(), &end);
    return !s.empty() && end && *end == '\0' && *out >= 0;
}

}  // namespace

int main(int argc, char **argv) {
    // An upload's buffers (the body, its compressed copy) are hundreds of KiB:
    // above glibc's default threshold each would be a fresh mmap, its pages
    // faulted in and zeroed on every request and unmapped after. Kept in the
    // heap they are reused; the aggregates give memory back with malloc_trim.
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    std::string db = "results.sqlite", listen = "127.0.0.1:8080";
    gmserver::ServerConfig config;
    gmserver::TransportLimits limits;
    std::string config_file;
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
        else {
            std::cerr << "gmlab-server: unknown option " << a << "\n";
            usage(std::cerr);
            return 2;
        }
    }
    const auto colon = listen.rfind(':');
    if (colon == std::string::npos) {
        std::cerr << "gmlab-server: --listen wants HOST:PORT\n";
        return 2;
    }
    std::string host = listen.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    const int port = std::atoi(listen.c_str() + colon + 1);

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
    gmserver::HttpServer server(router, limits);
    int bound = -1;
    try {
        bound = server.listen(host, port);
    } catch (const std::exception &e) {
        std::cerr << "gmlab-server: " << e.what() << "\n";
        return 1;
    }
    // Tests and scripts read this line to learn the port.
    std::printf("gmlab-server: listening on http://%s:%d (%llu results stored)\n", host.c_str(), bound,
                static_cast<unsigned long long>(storage->count()));
    std::fflush(stdout);
    server.run();
    return 0;
}
