// The server's transport: event-driven HTTP/1.1 I/O (Boost.Asio and
// Boost.Beast) that slow or idle clients cannot exhaust.
//
// Sockets are read and written by a few I/O threads that never block; a
// request reaches a worker thread only once its headers and its whole body
// have arrived. A client that trickles its bytes therefore holds a socket and
// a few KiB of buffer, never a worker. What it may hold is bounded:
//   - the headers must be complete within header_timeout of the connection's
//     start (or of the previous response, on a kept-alive connection);
//   - the body must keep up min_body_rate bytes/s on average after
//     body_grace (so a 100 KB body declared and then trickled is cut off),
//     and no read of it may wait longer than body_idle (so a fast start
//     cannot buy a long stall: the average alone would let 16 MiB sent at
//     once sit for 1024 s);
//   - the bodies being received at once may declare max_pending_body_bytes
//     in all: each body counts its Content-Length (a chunked one, what has
//     arrived) from its headers until it has arrived or its connection
//     ends, so the memory unfinished bodies hold is bounded;
//   - max_connections in all, max_connections_per_client per peer address
//     (trusted proxies are exempt: they carry many clients);
//   - complete requests wait for a worker in a queue of queue_capacity.
//   - an answer must be read by the client: after send_grace, at least
//     min_send_rate bytes/s (a write of n bytes must end within n /
//     min_send_rate), or the connection is closed and a streamed answer's
//     worker freed, as nginx's send_timeout does.
// Each refusal is an answer that says why: 408 (too slow), 413 (too large),
// 429 (too many connections from this address), 431 (headers too large),
// 503 (server full, queue full or the bodies' budget spent, with
// Retry-After). A client that hangs up before its request has arrived gets
// no answer; its record says aborted.
//
// SIGTERM (or SIGINT, or drain()) drains: the listener is closed (what the
// kernel had already accepted is taken first), idle kept-alive connections
// are closed, every request already received is answered with
// Connection: close, and run() returns once no connection is left, or at
// the drain deadline, when the rest are closed: a request still arriving
// then is answered 503 draining with Connection: close first. A second
// SIGTERM says the drain goes on. SIGHUP calls the reopen callback (the access log).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "http/request_record.hpp"
#include "http/router.hpp"

namespace gmserver {

// From a drain's start (SIGTERM), a request being handled has at most this
// much longer (and its deadline at most) before it is answered 503 deadline
// and stopped.
constexpr std::chrono::milliseconds kDrainRequestGrace{5000};

struct TransportLimits {
    std::chrono::milliseconds header_timeout{10000};
    std::chrono::milliseconds body_grace{10000};
    double min_body_rate = 16384;  // bytes per second, averaged from the end of the headers
    std::chrono::milliseconds body_idle{5000};  // the longest wait for the next bytes of a body
    std::size_t max_pending_body_bytes = 256u << 20;  // bodies being received, by what they declare; 0: no bound
    double min_send_rate = 16384;  // bytes per second a client must read an answer at, after send_grace
    std::chrono::milliseconds send_grace{10000};
    std::chrono::milliseconds drain{30000};  // the longest a drain waits for connections to finish
    std::size_t max_connections = 20000;
    std::size_t max_connections_per_client = 256;
    std::size_t queue_capacity = 512;
    std::size_t workers = 8;
    std::size_t io_threads = 1;
    std::size_t max_header_bytes = 16 << 10;
    std::size_t max_body_bytes = 16u << 20;  // as sent and after Content-Encoding is undone
    // A request must be answered within this of its arrival, or the
    // transport answers 503 `deadline` and the handler stops at its next
    // check (request_deadline.hpp); 0: no deadline.
    std::chrono::milliseconds request_deadline{20000};
    // The share of max_pending_body_bytes that the bodies of one client's
    // network (its /24, or /64 for IPv6; trusted proxies' clients by their
    // forwarded address) may hold at once, at least one max_body_bytes;
    // beyond it 429 `body_budget_share`. 1: no share of its own.
    double max_pending_body_share = 0.125;
    // After a drain, the longest the workers are waited for: a request that
    // does not stop at its checks is abandoned (the process exits).
    std::chrono::milliseconds worker_stop_grace{3000};
    std::set<std::string> exempt_clients;    // no per-client connection cap (trusted proxies)
    std::set<std::string> trusted_proxies;   // peers whose X-Forwarded-For names the client (HttpRequest::client)
    bool handle_signals = true;              // SIGTERM/SIGINT drain, SIGHUP reopens; off for a second listener
};

// Counters of what the transport did, for tests and the stats endpoint.
struct TransportStats {
    std::size_t open_connections = 0;
    std::size_t queued = 0;
    std::size_t busy_workers = 0;         // workers running a request
    bool draining = false;
    std::size_t refused_connections = 0;  // 429 and 503 at accept
    std::size_t timed_out = 0;            // 408
    std::size_t queue_full = 0;           // 503 from the queue
    std::size_t pending_body_bytes = 0;   // counted against max_pending_body_bytes now
};

class HttpServer {
public:
    HttpServer(const Router &router, TransportLimits limits);
    ~HttpServer();
    HttpServer(const HttpServer &) = delete;
    HttpServer &operator=(const HttpServer &) = delete;

    // Binds and listens; returns the port (port 0 picks a free one). Throws
    // std::runtime_error with the reason.
    int listen(const std::string &host, int port);
    // Called with every request's record once its answer is written (set
    // before run()).
    void set_observer(RequestObserver observer);
    // Called on SIGHUP (set before run()).
    void set_reopen(std::function<void()> reopen);
    // Serves until stop(), or until a drain (SIGTERM, SIGINT, drain()) ends.
    void run();
    // Both safe from any thread. stop(): at once, dropping what runs.
    void stop();
    void drain();
    bool draining() const;
    TransportStats stats() const;

    class Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace gmserver
