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

#include <httplib.h>

#include "api.hpp"
#include "storage.hpp"

namespace {

httplib::Server *g_server = nullptr;

void on_signal(int) {
    if (g_server) g_server->stop();
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
         "  --public-url URL       prefix of the result URLs handed out (default: from the Host header)\n"
         "  --threads N            worker threads (default 8)\n";
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
    double threads = 8;
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
        else if (!num) {
            std::cerr << "gmlab-server: " << a << ": not a number or an unknown option: " << v << "\n";
            return 2;
        } else if (a == "--max-body-bytes") config.max_body_bytes = static_cast<std::size_t>(d);
        else if (a == "--write-rate") config.write_rate = d;
        else if (a == "--write-burst") config.write_burst = d;
        else if (a == "--read-rate") config.read_rate = d;
        else if (a == "--read-burst") config.read_burst = d;
        else if (a == "--threads") threads = d;
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

    std::unique_ptr<gmserver::Storage> storage;
    try {
        storage = gmserver::open_storage(db);
    } catch (const std::exception &e) {
        std::cerr << "gmlab-server: " << e.what() << "\n";
        return 1;
    }

    httplib::Server server;
    const std::size_t nthreads = threads < 1 ? 1 : static_cast<std::size_t>(threads);
    server.new_task_queue = [nthreads] { return new httplib::ThreadPool(nthreads); };
    server.set_read_timeout(30, 0);
    server.set_write_timeout(30, 0);
    // A response goes out as two writes (headers, then body): with Nagle's
    // algorithm the second waits for the client's delayed ACK of the first,
    // about 40 ms on Linux. Measured: every upload took 47 ms at p50 with the
    // CPUs 40% idle; with TCP_NODELAY that wait is gone.
    server.set_tcp_nodelay(true);
    gmserver::install_routes(server, *storage, config);

    const int bound = port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
    if (bound < 0) {
        std::cerr << "gmlab-server: cannot listen on " << listen << "\n";
        return 1;
    }
    g_server = &server;
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    // Tests and scripts read this line to learn the port.
    std::printf("gmlab-server: listening on http://%s:%d (%llu results stored)\n", host.c_str(), bound,
                static_cast<unsigned long long>(storage->count()));
    std::fflush(stdout);
    server.listen_after_bind();
    return 0;
}
