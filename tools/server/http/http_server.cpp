// The server: the listener and its accept loop (admitting connections under
// the limits), the signals, the drain and the shutdown. One connection's
// work is in connection.cpp, the workers' in worker_pool.cpp.
#include "http/http_server.hpp"

#include <csignal>
#include <cstdlib>
#include <optional>
#include <cstdio>
#include <stdexcept>
#include <thread>
#include <vector>

#include "http/connection.hpp"

namespace gmserver {

// The state connections share (TransportState, destroyed last), and what
// only the accept loop touches.
class HttpServer::Impl : public TransportState {
public:
    Impl(const Router &router, TransportLimits limits)
        : TransportState(router, std::move(limits)), acceptor(accept_strand), accept_pause(accept_strand),
          drain_timer(accept_strand), signals(ioc) {}

    int listen(const std::string &host, int port);
    void run();
    void do_accept();
    void admit(tcp::socket socket);
    void wait_signal();
    // On accept_strand.
    void begin_drain(const char *why);
    void check_drain();

    Clock::time_point drain_started, drain_deadline;  // on accept_strand
    bool forced = false;                              // on accept_strand
    // Declared last, destroyed first: the connections its handlers still own
    // release their counts into TransportState.
    asio::io_context ioc;
    asio::strand<asio::io_context::executor_type> accept_strand{asio::make_strand(ioc)};
    tcp::acceptor acceptor;
    asio::steady_timer accept_pause, drain_timer;
    asio::signal_set signals;
};

int HttpServer::Impl::listen(const std::string &host, int port) {
    beast::error_code ec;
    tcp::resolver resolver(ioc);
    const auto endpoints = resolver.resolve(host, std::to_string(port), tcp::resolver::passive, ec);
    if (ec || endpoints.empty()) throw std::runtime_error("cannot resolve " + host + ": " + ec.message());
    const tcp::endpoint ep = endpoints.begin()->endpoint();
    acceptor.open(ep.protocol(), ec);
    if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor.bind(ep, ec);
    if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port) + ": " + ec.message());
    return acceptor.local_endpoint().port();
}

void HttpServer::Impl::do_accept() {
    acceptor.async_accept(asio::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
        // Accepted before a drain closed the listener: served like the rest.
        if (!ec) admit(std::move(socket));
        if (!acceptor.is_open() || draining) return;
        if (ec) {
            // Out of descriptors or memory: accepting again at once would spin.
            // Pause briefly; the connections being served will free some.
            if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space || ec == asio::error::no_memory) {
                accept_pause.expires_after(std::chrono::milliseconds(50));
                accept_pause.async_wait([this](beast::error_code) { do_accept(); });
                return;
            }
            return do_accept();
        }
        do_accept();
    });
}

void HttpServer::Impl::admit(tcp::socket socket) {
    beast::error_code ec;
    const auto remote = socket.remote_endpoint(ec);
    if (ec) return;  // already gone
    std::string peer = remote.address().to_string();
    // Responses go out as headers and body: without TCP_NODELAY the second
    // write waits for the client's delayed ACK of the first (~40 ms on Linux).
    socket.set_option(tcp::no_delay(true), ec);
    int status = 0;
    std::string code, message;
    std::shared_ptr<Connection> evicted;
    {
        std::lock_guard<std::mutex> lock(mu);
        std::size_t &mine = per_client[peer];
        const bool at_cap = mine >= limits.max_connections_per_client && !limits.exempt_clients.count(peer);
        // At its cap, the address's connection that has waited longest for
        // a request (half-open, or kept alive and idle) makes room, as long
        // as it has waited a second: one client of a shared address (NAT)
        // holding connections open does not lock the others out. Its count
        // goes down when it has closed.
        if (at_cap && open < limits.max_connections) {
            std::optional<Clock::time_point> oldest;
            for (auto &[p, w] : live) {
                if (p->peer() != peer) continue;
                const auto since = p->waiting_since();
                if (!since || *since > Clock::now() - std::chrono::seconds(1) || (oldest && *since >= *oldest)) continue;
                if (auto c = w.lock()) {
                    oldest = since;
                    evicted = std::move(c);
                }
            }
        }
        if (open >= limits.max_connections) {
            status = 503;
            code = "too_many_connections";
            message = "the server is at its limit of " + std::to_string(limits.max_connections) +
                      " connections; retry after 1 s";
        } else if (at_cap && !evicted) {
            status = 429;
            code = "too_many_connections";
            message = std::to_string(mine) + " connections from " + peer + " are open already (at most " +
                      std::to_string(limits.max_connections_per_client) + " per address)";
        } else {
            ++open;
            ++mine;
        }
        if (status && mine == 0) per_client.erase(peer);
    }
    if (evicted) asio::post(evicted->executor(), [evicted] { evicted->evict_if_waiting(); });
    if (status) {
        ++refused;
        std::make_shared<Connection>(*this, std::move(socket), peer, false)->refuse(status, code, message);
        return;
    }
    auto c = std::make_shared<Connection>(*this, std::move(socket), std::move(peer), true);
    {
        std::lock_guard<std::mutex> lock(mu);
        live[c.get()] = c;
    }
    c->start();
    if (draining) asio::post(c->executor(), [c] { c->drain(); });
}

void HttpServer::Impl::wait_signal() {
    signals.async_wait([this](beast::error_code ec, int sig) {
        if (ec) return;
        if (sig == SIGHUP) {
            if (reopen) reopen();
        } else {
            asio::post(accept_strand, [this, sig] { begin_drain(sig == SIGINT ? "SIGINT" : "SIGTERM"); });
        }
        wait_signal();
    });
}

void HttpServer::Impl::begin_drain(const char *why) {
    const auto now = Clock::now();
    if (draining) {
        std::size_t n;
        {
            std::lock_guard<std::mutex> lock(mu);
            n = open;
        }
        const double left = std::chrono::duration<double>(drain_deadline - now).count();
        std::fprintf(stderr,
                     "gmlab-server: %s again: the drain goes on (%zu connections open, at most %.0f s more); SIGKILL "
                     "stops at once, losing no upload that was answered\n",
                     why, n, left > 0 ? left : 0.0);
        return;
    }
    draining = true;
    drain_started = now;
    drain_deadline = now + limits.drain;
    // What the kernel has accepted already is taken (closing the listener
    // would reset those connections), then the listener is closed: new
    // connections are refused, and a load balancer goes to another replica.
    beast::error_code ec;
    acceptor.cancel(ec);
    acceptor.non_blocking(true, ec);
    while (acceptor.is_open()) {
        tcp::socket s(asio::make_strand(ioc));
        acceptor.accept(s, ec);
        if (ec) break;
        admit(std::move(s));
    }
    acceptor.close(ec);
    std::vector<std::shared_ptr<Connection>> conns;
    {
        std::lock_guard<std::mutex> lock(mu);
        for (auto &[p, w] : live)
            if (auto c = w.lock()) conns.push_back(std::move(c));
    }
    std::fprintf(stderr,
                 "gmlab-server: %s: draining: no new connections; answering what %zu open connections have sent, for at "
                 "most %lld s\n",
                 why, conns.size(), static_cast<long long>(limits.drain.count() / 1000));
    for (auto &c : conns) asio::post(c->executor(), [c] { c->drain(); });
    check_drain();
}

void HttpServer::Impl::check_drain() {
    std::size_t n;
    std::vector<std::shared_ptr<Connection>> conns;
    {
        std::lock_guard<std::mutex> lock(mu);
        n = open;
        if (n && Clock::now() >= drain_deadline && !forced)
            for (auto &[p, w] : live)
                if (auto c = w.lock()) conns.push_back(std::move(c));
    }
    const double took = std::chrono::duration<double>(Clock::now() - drain_started).count();
    // Every connection answered and gone: a worker still busy then runs a
    // request whose answer nobody waits for (its deadline answered it, or
    // its client left); run() gives it worker_stop_grace to stop.
    if (n == 0 && pool.queued() == 0) {
        std::fprintf(stderr, "gmlab-server: drained in %.1f s: every request received was answered\n", took);
        ioc.stop();
        return;
    }
    if (!conns.empty()) {
        forced = true;
        // Handlers still running stop at their next check, and answer 503.
        cancel_all = true;
        std::fprintf(stderr,
                     "gmlab-server: %zu connections still open at the drain deadline (%lld s): closing them (a request "
                     "still arriving is answered 503 first)\n",
                     n, static_cast<long long>(limits.drain.count() / 1000));
        for (auto &c : conns) asio::post(c->executor(), [c] { c->force_close(); });
        drain_deadline = Clock::now() + std::chrono::seconds(2);
    } else if (forced && Clock::now() >= drain_deadline) {
        std::fprintf(stderr, "gmlab-server: stopping with %zu connections still open\n", n);
        ioc.stop();
        return;
    }
    drain_timer.expires_after(std::chrono::milliseconds(20));
    drain_timer.async_wait([this](beast::error_code ec) {
        if (!ec) check_drain();
    });
}

void HttpServer::Impl::run() {
    if (limits.handle_signals) {
        signals.add(SIGINT);
        signals.add(SIGTERM);
        signals.add(SIGHUP);
        wait_signal();
    }
    asio::post(accept_strand, [this] { do_accept(); });
    std::vector<std::thread> extra;
    for (std::size_t i = 1; i < limits.io_threads; ++i) extra.emplace_back([this] { ioc.run(); });
    ioc.run();
    for (std::thread &t : extra) t.join();
    // Nothing is answered any more: a handler still running stops at its
    // next check. One that does not is not waited for: the process ends.
    cancel_all = true;
    if (!pool.stop_within(limits.worker_stop_grace)) {
        std::fprintf(stderr,
                     "gmlab-server: %zu requests still running %lld ms after the end of the drain did not stop; exiting "
                     "without them (every answered upload is stored)\n",
                     pool.busy(), static_cast<long long>(limits.worker_stop_grace.count()));
        std::fflush(stderr);
        std::_Exit(0);
    }
}

HttpServer::HttpServer(const Router &router, TransportLimits limits)
    : impl_(std::make_unique<Impl>(router, std::move(limits))) {}
HttpServer::~HttpServer() = default;
int HttpServer::listen(const std::string &host, int port) { return impl_->listen(host, port); }
void HttpServer::set_observer(RequestObserver observer) { impl_->observer = std::move(observer); }
void HttpServer::set_reopen(std::function<void()> reopen) { impl_->reopen = std::move(reopen); }
void HttpServer::run() { impl_->run(); }
void HttpServer::stop() { impl_->ioc.stop(); }
void HttpServer::drain() {
    asio::post(impl_->accept_strand, [impl = impl_.get()] { impl->begin_drain("drain requested"); });
}
bool HttpServer::draining() const { return impl_->draining.load(); }

TransportStats HttpServer::stats() const {
    TransportStats s;
    {
        std::lock_guard<std::mutex> lock(impl_->mu);
        s.open_connections = impl_->open;
    }
    s.queued = impl_->pool.queued();
    s.busy_workers = impl_->pool.busy();
    s.draining = impl_->draining.load();
    s.refused_connections = impl_->refused;
    s.timed_out = impl_->timed_out;
    s.queue_full = impl_->queue_full;
    s.pending_body_bytes = impl_->pending_bodies.load();
    return s;
}

}  // namespace gmserver
