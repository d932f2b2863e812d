// One client connection of the transport (http_server.hpp): its request
// read under the limits and deadlines, handed to a worker whole, its answer
// written (at least at the minimum send rate), kept alive or lingered on and
// closed; and what the server and its connections share (TransportState).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "http/http_server.hpp"
#include "http/worker_pool.hpp"

namespace gmserver {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

class Connection;

// What a server and its connections share: the routes and limits, the
// workers, the connections counted (for the limits and for the drain to
// reach them) and the counters TransportStats reports.
struct TransportState {
    TransportState(const Router &router, TransportLimits limits)
        : router(router), limits(std::move(limits)), pool(this->limits.workers, this->limits.queue_capacity) {}

    void emit(const RequestRecord &r) const {
        if (observer) observer(r);
    }
    // Every answer's write: after the grace time from the answer's start,
    // `bytes` must go at min_send_rate at least.
    Clock::time_point send_deadline(Clock::time_point start, std::size_t bytes) const {
        const auto at_rate = std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(static_cast<double>(bytes) / limits.min_send_rate));
        return std::max(start + limits.send_grace, Clock::now() + at_rate);
    }
    // Counts n more bytes of bodies under way against max_pending_body_bytes;
    // false, with nothing counted, when they would pass it.
    bool reserve_body(std::size_t n) {
        std::size_t now = pending_bodies.load();
        do {
            if (limits.max_pending_body_bytes && now + n > limits.max_pending_body_bytes) return false;
        } while (!pending_bodies.compare_exchange_weak(now, now + n));
        return true;
    }
    void release_body(std::size_t n) { pending_bodies -= n; }
    // The same per client network (body_share_key): false, with nothing
    // counted, when the network's bodies would hold more than its share.
    bool reserve_share(const std::string &key, std::size_t n);
    void release_share(const std::string &key, std::size_t n);
    std::size_t share_limit() const;
    // A counted connection ends: its peer's count and the total go down.
    void release(const std::string &peer, Connection *c);

    const Router &router;
    const TransportLimits limits;
    WorkerPool pool;
    RequestObserver observer;
    std::function<void()> reopen;
    mutable std::mutex mu;
    std::unordered_map<std::string, std::size_t> per_client;
    // Counted connections, for the drain to reach them.
    std::unordered_map<Connection *, std::weak_ptr<Connection>> live;
    std::size_t open = 0;
    std::atomic<std::size_t> refused{0}, timed_out{0}, queue_full{0};
    std::atomic<std::size_t> pending_bodies{0};  // bytes counted by the bodies being received
    std::mutex share_mu;
    std::unordered_map<std::string, std::size_t> pending_by_network;  // the same per body_share_key
    std::atomic<bool> draining{false};
    std::atomic<bool> cancel_all{false};  // every running request stops at its next check (request_deadline.hpp)
};

// Every member is touched only on the connection's strand (its socket's
// executor); the worker that runs the handler hands the response back by
// posting to it.
class Connection : public std::enable_shared_from_this<Connection> {
public:
    Connection(TransportState &srv, tcp::socket socket, std::string peer, bool counted);
    ~Connection();

    void start() { read_header(); }
    auto executor() { return socket_.get_executor(); }

    // Answers at once and closes: the connection was not admitted.
    void refuse(int status, const std::string &code, const std::string &message);
    // The server drains: nothing more is read once the request under way
    // (if any) is answered.
    void drain();
    // At the drain deadline: a request still arriving is answered 503, any
    // other connection closed.
    void force_close();
    // Its address is at its connection cap and another connection of it
    // arrived: closed if it still waits for a request's first bytes.
    void evict_if_waiting();
    const std::string &peer() const { return peer_; }
    // Waiting for a request (read by the accept loop, without the strand):
    // since when, or nullopt.
    std::optional<Clock::time_point> waiting_since() const {
        if (!waiting_.load()) return std::nullopt;
        return Clock::time_point(Clock::duration(waiting_since_.load()));
    }

private:
    enum class Phase { Header, Body, Handling, Writing, Draining };
    void arm(Clock::time_point deadline);
    void disarm();
    void on_deadline();
    void read_header();
    void on_header(beast::error_code ec, std::size_t n);
    Clock::time_point body_deadline() const;
    void read_body();
    void on_body(beast::error_code ec, std::size_t n);
    static bool hung_up(const beast::error_code &ec);
    void abort_request();
    void refuse_slow_body();
    void refuse_stalled_body();
    void refuse_body_budget(std::size_t bytes);
    void refuse_body_share(std::size_t bytes);
    void on_request_deadline();
    void refuse_draining();
    void dispatch();
    void fail(int status, const std::string &code, const std::string &message, const char *retry_after = nullptr);
    void note(const HttpResponse &res);
    void emit(bool complete);
    bool keep(bool keep_alive, const HttpResponse &res) const;
    void respond(HttpResponse res, bool keep_alive);
    void respond_head(const HttpResponse &res, bool keep_alive);
    void stream_response(HttpResponse res, bool keep_alive, unsigned gen);
    bool on_strand_and_wait(Clock::time_point deadline, std::function<void(std::function<void(bool)>)> start);
    void linger();
    void drain_input();
    bool bytes_waiting();
    void close();
    void release_body();
    static std::string local_address(const tcp::socket &s);

    TransportState &srv_;
    tcp::socket socket_;
    asio::steady_timer timer_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    std::shared_ptr<http::response<http::string_body>> out_;
    std::unique_ptr<std::array<char, 16384>> drain_buffer_;
    const std::string peer_;
    const std::string local_;
    const bool counted_;
    Phase phase_ = Phase::Header;
    unsigned timer_gen_ = 0;
    bool timed_out_ = false;
    bool stalled_ = false;    // the timeout was body_idle's
    bool drain_cut_ = false;  // the drain's deadline came while the request arrived
    bool chunked_body_ = false;
    std::size_t reserved_ = 0;  // bytes this body counts against max_pending_body_bytes
    std::string share_key_;     // and against its network's share (body_share_key)
    std::size_t share_reserved_ = 0;
    // The request being handled: counted up at each dispatch, so that the
    // answer of a handler that the deadline answered for is dropped.
    unsigned handling_gen_ = 0;
    Clock::time_point handling_deadline_ = Clock::time_point::max();
    std::shared_ptr<std::atomic<bool>> cancelled_;
    bool first_request_ = true;
    std::atomic<bool> waiting_{false};
    std::atomic<Clock::rep> waiting_since_{0};
    bool draining_ = false;
    Clock::time_point header_deadline_;
    Clock::time_point body_start_, body_last_;
    std::size_t body_received_ = 0, drained_ = 0;
    // The request under way: its record, decoded path, start, and why its
    // answer was cut (if it was).
    RequestRecord rec_;
    std::string path_;
    Clock::time_point t0_;
    std::string cut_;
};

}  // namespace gmserver
