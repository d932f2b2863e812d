#include "http/connection.hpp"

#include <algorithm>
#include <future>
#include <stdexcept>

#include "http/body_decoding.hpp"
#include "http/client_address.hpp"
#include "http/guards/memory_release.hpp"
#include "http/guards/request_deadline.hpp"
#include "http/guards/security_headers.hpp"

namespace gmserver {

void TransportState::release(const std::string &peer, Connection *c) {
    std::lock_guard<std::mutex> lock(mu);
    --open;
    live.erase(c);
    auto it = per_client.find(peer);
    if (it != per_client.end() && --it->second == 0) per_client.erase(it);
}

std::size_t TransportState::share_limit() const {
    if (!limits.max_pending_body_bytes || limits.max_pending_body_share >= 1) return 0;
    const auto share = static_cast<std::size_t>(static_cast<double>(limits.max_pending_body_bytes) * limits.max_pending_body_share);
    return std::max(share, limits.max_body_bytes);
}

bool TransportState::reserve_share(const std::string &key, std::size_t n) {
    const std::size_t limit = share_limit();
    if (!limit || n == 0) return true;
    std::lock_guard<std::mutex> lock(share_mu);
    std::size_t &mine = pending_by_network[key];
    if (mine + n > limit) {
        if (mine == 0) pending_by_network.erase(key);
        return false;
    }
    mine += n;
    return true;
}

void TransportState::release_share(const std::string &key, std::size_t n) {
    if (n == 0) return;
    std::lock_guard<std::mutex> lock(share_mu);
    const auto it = pending_by_network.find(key);
    if (it == pending_by_network.end()) return;
    it->second = it->second > n ? it->second - n : 0;
    if (it->second == 0) pending_by_network.erase(it);
}

Connection::Connection(TransportState &srv, tcp::socket socket, std::string peer, bool counted)
    : srv_(srv), socket_(std::move(socket)), timer_(socket_.get_executor()), peer_(std::move(peer)),
      local_(local_address(socket_)), counted_(counted) {}
Connection::~Connection() {
    release_body();
    if (counted_) srv_.release(peer_, this);
}

// Answers at once and closes: the connection was not admitted.
void Connection::refuse(int status, const std::string &code, const std::string &message) {
    rec_ = RequestRecord{};
    rec_.client = peer_;
    t0_ = Clock::now();
    HttpResponse res;
    send_error(res, status, code, message);
    if (status == 503) res.set_header("Retry-After", "1");
    res.close = true;
    respond(std::move(res), false);
}

// The server drains: nothing more is read on this connection once its
// request (if one is under way) is answered. An idle kept-alive one ends
// now; one that has sent nothing yet has a second to send its request.
void Connection::drain() {
    if (draining_) return;
    draining_ = true;
    // A request being handled has kDrainRequestGrace more at most: the
    // drain does not wait out a long one (a comparison) to its deadline.
    if (phase_ == Phase::Handling) {
        const Clock::time_point cut = Clock::now() + kDrainRequestGrace;
        if (cut < handling_deadline_) {
            handling_deadline_ = cut;
            arm(cut);
        }
        return;
    }
    if (phase_ != Phase::Header || buffer_.size() != 0) return;
    if (!first_request_ && !bytes_waiting()) return close();
    const auto soon = Clock::now() + std::chrono::seconds(1);
    if (soon < header_deadline_) {
        header_deadline_ = soon;
        arm(soon);
    }
}

// At the drain deadline: a request still arriving is answered 503 (its
// pending read is cancelled, and its handler answers); any other
// connection is closed, whatever it was doing.
void Connection::force_close() {
    const bool arriving = phase_ == Phase::Body ||
                          (phase_ == Phase::Header && (buffer_.size() != 0 || (parser_ && parser_->got_some())));
    if (arriving && !drain_cut_) {
        drain_cut_ = true;
        disarm();
        beast::error_code ignored;
        socket_.cancel(ignored);
        return;
    }
    cut_ = "drain";
    close();
}

void Connection::evict_if_waiting() {
    if (phase_ != Phase::Header || buffer_.size() != 0 || (parser_ && parser_->got_some())) return;
    cut_ = "evicted";
    close();
}

void Connection::arm(Clock::time_point deadline) {
    const unsigned gen = ++timer_gen_;
    timer_.expires_at(deadline);
    timer_.async_wait([self = shared_from_this(), gen](beast::error_code ec) {
        if (!ec && gen == self->timer_gen_) self->on_deadline();
    });
}

void Connection::disarm() {
    ++timer_gen_;
    timer_.cancel();
}

void Connection::on_deadline() {
    // The body's deadline moves on with every byte; the timer is not set
    // again at each chunk that arrives (a 500 KiB upload comes in dozens)
    // but only here, when the deadline it was set to has come.
    if (phase_ == Phase::Body && body_deadline() > Clock::now()) return arm(body_deadline());
    if (phase_ == Phase::Header || phase_ == Phase::Body) {
        // The pending read ends with operation_aborted; its handler answers 408.
        timed_out_ = true;
        stalled_ = phase_ == Phase::Body && Clock::now() >= body_last_ + srv_.limits.body_idle;
        beast::error_code ignored;
        socket_.cancel(ignored);
    } else if (phase_ == Phase::Writing) {
        // The client does not read the answer fast enough.
        cut_ = "send_too_slow";
        close();
    } else if (phase_ == Phase::Draining) {
        close();
    } else if (phase_ == Phase::Handling) {
        on_request_deadline();
    }
}

// The handler has not answered by the request's deadline: the transport
// answers for it, and the handler stops at its next check
// (request_deadline.hpp); what it answers later is dropped.
void Connection::on_request_deadline() {
    if (cancelled_) cancelled_->store(true);
    ++handling_gen_;
    HttpResponse res;
    send_deadline(res);
    respond(std::move(res), false);
}

void Connection::read_header() {
    phase_ = Phase::Header;
    timed_out_ = false;
    stalled_ = false;
    rec_ = RequestRecord{};
    rec_.client = peer_;
    path_.clear();
    cut_.clear();
    t0_ = Clock::now();
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(srv_.limits.max_header_bytes));
    // No body limit while the headers are read, so that a declared length
    // beyond it is refused below with the request line known (for the
    // record); the limit is set once the headers are in.
    parser_->body_limit(boost::none);
    header_deadline_ = Clock::now() + srv_.limits.header_timeout;
    waiting_since_ = Clock::now().time_since_epoch().count();
    waiting_ = true;
    // Draining already: a request that is not under way is not waited for.
    if (draining_ && !first_request_ && buffer_.size() == 0 && !bytes_waiting()) return close();
    arm(header_deadline_);
    http::async_read_header(socket_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t n) {
        self->on_header(ec, n);
    });
}

void Connection::on_header(beast::error_code ec, std::size_t n) {
    waiting_ = false;
    rec_.bytes_in += n;
    if (parser_->is_header_done()) {
        // Known from here on, for the record of whatever answer follows.
        const auto &h = parser_->get();
        rec_.method = std::string(h.method_string());
        const std::string target(h.target());
        path_ = percent_decode(target.substr(0, target.find('?')), false);
        const auto xff = h.find("X-Forwarded-For");
        rec_.client = client_address(peer_, xff == h.end() ? std::string() : std::string(xff->value()),
                                     srv_.limits.trusted_proxies);
        t0_ = Clock::now();
    }
    if (drain_cut_) return refuse_draining();
    if (timed_out_) {
        // A kept-alive connection that stayed silent just ends; one that
        // started a request (or never sent one) hears why.
        if (!first_request_ && buffer_.size() == 0) return close();
        return fail(408, "header_timeout",
                    "the request headers did not arrive within " +
                        std::to_string(srv_.limits.header_timeout.count()) + " ms");
    }
    if (ec == http::error::header_limit)
        return fail(431, "headers_too_large",
                    "the request headers exceed " + std::to_string(srv_.limits.max_header_bytes) + " bytes");
    // The client hung up (partial_message: within the headers).
    if (hung_up(ec)) return close();
    if (ec) return fail(400, "bad_request", "malformed HTTP request: " + ec.message());
    first_request_ = false;
    parser_->body_limit(srv_.limits.max_body_bytes);
    const auto &h = parser_->get();
    if (h.version() != 10 && h.version() != 11)
        return fail(505, "http_version", "only HTTP/1.0 and HTTP/1.1 are served");
    const auto length = parser_->content_length();
    if (length && *length > srv_.limits.max_body_bytes)
        return fail(413, "too_large",
                    "the body is larger than " + std::to_string(srv_.limits.max_body_bytes) + " bytes");
    if (parser_->is_done()) return dispatch();
    // Counted from here until the body has arrived or the connection
    // ends; a chunked body counts what arrives, as it arrives.
    const std::size_t declared = length ? static_cast<std::size_t>(*length) : 0;
    // The client's network first: one that trickles many bodies at once
    // fills its own share, not the budget every other client needs.
    share_key_ = client_network(rec_.client.empty() ? peer_ : rec_.client);
    if (!srv_.reserve_share(share_key_, declared)) return refuse_body_share(declared);
    share_reserved_ = declared;
    if (!srv_.reserve_body(declared)) return refuse_body_budget(declared);
    reserved_ = declared;
    chunked_body_ = !length;
    body_start_ = Clock::now();
    body_received_ = 0;
    const auto expect = h.find(http::field::expect);
    if (expect != h.end() && beast::iequals(expect->value(), "100-continue")) {
        // curl and others wait for this before sending a large body.
        static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
        phase_ = Phase::Writing;
        arm(srv_.send_deadline(Clock::now(), kContinue.size()));
        return asio::async_write(socket_, asio::buffer(kContinue),
                                 [self = shared_from_this()](beast::error_code e, std::size_t) {
                                     if (e) return self->close();
                                     self->read_body();
                                 });
    }
    read_body();
}

// The body must keep up min_body_rate on average once body_grace has
// passed: the next byte is due by start + grace + (received + 1) / rate.
// And whatever the average, by body_idle after the last bytes: a body
// sent fast and then stopped would otherwise be waited for as long as
// its fast start had earned.
Clock::time_point Connection::body_deadline() const {
    const double due_s = (static_cast<double>(body_received_) + 1) / srv_.limits.min_body_rate;
    const Clock::time_point by_rate =
        body_start_ + srv_.limits.body_grace + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(due_s));
    return std::min(by_rate, body_last_ + srv_.limits.body_idle);
}

void Connection::read_body() {
    if (phase_ != Phase::Body) {
        phase_ = Phase::Body;
        body_last_ = Clock::now();
        arm(body_deadline());
    }
    http::async_read_some(socket_, buffer_, *parser_,
                          [self = shared_from_this()](beast::error_code ec, std::size_t n) { self->on_body(ec, n); });
}

void Connection::on_body(beast::error_code ec, std::size_t n) {
    body_received_ += n;
    rec_.bytes_in += n;
    if (drain_cut_) return refuse_draining();
    if (timed_out_) return stalled_ ? refuse_stalled_body() : refuse_slow_body();
    if (n) body_last_ = Clock::now();
    if (ec == http::error::body_limit)
        return fail(413, "too_large",
                    "the body is larger than " + std::to_string(srv_.limits.max_body_bytes) + " bytes");
    // Not a malformed request, and no answer: nobody is left to read one.
    if (hung_up(ec)) return abort_request();
    if (ec) return fail(400, "bad_request", "malformed request body: " + ec.message());
    if (chunked_body_ && n) {
        if (!srv_.reserve_share(share_key_, n)) return refuse_body_share(body_received_);
        share_reserved_ += n;
        if (!srv_.reserve_body(n)) return refuse_body_budget(body_received_);
        reserved_ += n;
    }
    if (parser_->is_done()) return dispatch();
    read_body();
}

// The client closed (or reset) its connection, or the read was
// cancelled; partial_message is Beast's word for an end of stream within
// a request.
bool Connection::hung_up(const beast::error_code &ec) {
    return ec == http::error::end_of_stream || ec == http::error::partial_message || ec == asio::error::eof ||
           ec == asio::error::connection_reset || ec == asio::error::operation_aborted;
}

// A request its client gave up on: recorded as aborted (the transport's
// metrics count it), not as an answer, since none was sent.
void Connection::abort_request() {
    rec_.aborted = true;
    rec_.route = srv_.router.route_of(path_);
    emit(false);
    close();
}

void Connection::refuse_slow_body() {
    const double seconds = std::chrono::duration<double>(Clock::now() - body_start_).count();
    fail(408, "body_too_slow",
         "the body arrived too slowly: " + std::to_string(body_received_) + " bytes in " +
             std::to_string(static_cast<long long>(seconds)) + " s; at least " +
             std::to_string(static_cast<long long>(srv_.limits.min_body_rate)) + " bytes/s are needed after the first " +
             std::to_string(srv_.limits.body_grace.count() / 1000) + " s");
}

void Connection::refuse_stalled_body() {
    boost::optional<std::uint64_t> length;
    if (parser_) length = parser_->content_length();
    fail(408, "body_stalled",
         "the body stopped arriving: no bytes for " + std::to_string(srv_.limits.body_idle.count()) + " ms, after " +
             std::to_string(body_received_) + (length ? " of " + std::to_string(*length) : std::string()) + " bytes");
}

void Connection::refuse_body_budget(std::size_t bytes) {
    fail(503, "body_budget",
         "the server is receiving " + std::to_string(srv_.pending_bodies.load()) +
             " bytes of request bodies already; this body's " + std::to_string(bytes) + " bytes would pass its limit of " +
             std::to_string(srv_.limits.max_pending_body_bytes) + " (--max-pending-body-bytes); retry after 1 s",
         "1");
}

void Connection::refuse_body_share(std::size_t bytes) {
    fail(429, "body_budget_share",
         "bodies from " + share_key_ + " being received already hold its share of the server's body budget (" +
             std::to_string(srv_.share_limit()) + " of " + std::to_string(srv_.limits.max_pending_body_bytes) +
             " bytes, --max-pending-body-share); this body's " + std::to_string(bytes) +
             " bytes must wait until one of them has arrived; retry after 1 s",
         "1");
}

void Connection::refuse_draining() {
    fail(503, "draining",
         "the server is shutting down and the request had not arrived in full by the end of its drain (" +
             std::to_string(srv_.limits.drain.count() / 1000) + " s); send it again, to another replica if there is one",
         "1");
}

void Connection::dispatch() {
    disarm();
    release_body();
    phase_ = Phase::Handling;
    auto msg = parser_->release();
    parser_.reset();
    const bool keep_alive = msg.keep_alive();
    HttpRequest req;
    req.method = std::string(msg.method_string());
    const std::string target(msg.target());
    const std::size_t q = target.find('?');
    req.path = path_;
    if (q != std::string::npos) req.params = parse_query(target.substr(q + 1));
    for (const auto &f : msg) {
        auto [it, fresh] = req.headers.emplace(std::string(f.name_string()), std::string(f.value()));
        if (!fresh) it->second += ", " + std::string(f.value());  // repeated headers form one list
    }
    req.body = std::move(msg.body());
    req.remote_addr = peer_;
    req.local_addr = local_;
    req.client = rec_.client;
    TransportState &srv = srv_;
    const bool head = req.method == "HEAD";
    // The request's deadline runs from here: the queue's wait counts.
    const unsigned gen = ++handling_gen_;
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    cancelled_ = cancelled;
    const auto deadline = Clock::now() + srv_.limits.request_deadline;
    handling_deadline_ = srv_.limits.request_deadline.count() > 0 ? deadline : Clock::time_point::max();
    if (srv_.limits.request_deadline.count() > 0) arm(deadline);
    if (draining_) {  // arrived whole during the drain: its grace too
        handling_deadline_ = std::min(handling_deadline_, Clock::now() + kDrainRequestGrace);
        arm(handling_deadline_);
    }
    const bool queued = srv_.pool.submit([self = shared_from_this(), &srv, req = std::move(req), keep_alive, head, gen, cancelled,
                                          deadline]() mutable {
        HttpResponse res;
        // The bytes the request handled (its body as sent and decoded, its
        // answer): what decides whether its memory is given back.
        std::size_t handled = req.body.size();
        {
            RequestDeadlineScope scope(srv.limits.request_deadline.count() > 0 ? deadline : Clock::time_point::max(), cancelled,
                                       &srv.cancel_all);
            try {
                check_request_deadline();  // waited in the queue past it
                std::string why;
                switch (decode_body(req.header("Content-Encoding"), &req.body, srv.limits.max_body_bytes, &why, &req.compressed_body)) {
                case DecodeOutcome::Ok:
                    handled = std::max(handled, req.body.size());
                    req.headers.erase("Content-Encoding");
                    srv.router.handle(req, res);
                    break;
                case DecodeOutcome::TooLarge:
                    handled = std::max(handled, srv.limits.max_body_bytes);  // decoded that far before it stopped
                    send_error(res, 413, "too_large", why);
                    break;
                case DecodeOutcome::UnsupportedEncoding: send_error(res, 415, "unsupported_encoding", why); break;
                case DecodeOutcome::Corrupt: send_error(res, 400, "bad_encoding", why); break;
                }
            } catch (const RequestDeadlinePassed &) {
                res = HttpResponse{};
                send_deadline(res);
            }
        }
        // What the request's buffers held goes back to the system (a large
        // body, its decompressed form and its parse are freed by now).
        handled = std::max(handled, res.body.size());
        req = HttpRequest{};
        release_request_memory(handled);
        if (cancelled->load()) return;  // answered by the deadline already
        if (res.stream && !head) return self->stream_response(std::move(res), keep_alive, gen);
        asio::post(self->socket_.get_executor(), [self, res = std::move(res), keep_alive, gen]() mutable {
            if (gen != self->handling_gen_ || self->phase_ != Phase::Handling) return;
            self->respond(std::move(res), keep_alive);
        });
    });
    if (!queued) {
        ++srv_.queue_full;
        HttpResponse res;
        send_error(res, 503, "busy",
                   "the server is busy: its queue of " + std::to_string(srv_.pool.capacity()) +
                       " requests is full; retry after 1 s");
        res.set_header("Retry-After", "1");
        respond(std::move(res), keep_alive);
    }
}

void Connection::fail(int status, const std::string &code, const std::string &message, const char *retry_after) {
    if (status == 408) ++srv_.timed_out;
    HttpResponse res;
    send_error(res, status, code, message);
    if (retry_after) res.set_header("Retry-After", retry_after);
    res.close = true;
    respond(std::move(res), false);
}

// What the record says of the answer (before its body is moved away).
void Connection::note(const HttpResponse &res) {
    rec_.status = res.status;
    rec_.error = res.error;
    rec_.route = !res.route.empty() ? res.route : rec_.method.empty() ? std::string() : srv_.router.route_of(path_);
    rec_.submission_id = res.submission_id;
    rec_.outcome = res.outcome;
    rec_.probe = res.probe;
}

void Connection::emit(bool complete) {
    rec_.at = std::chrono::system_clock::now();
    rec_.seconds = std::chrono::duration<double>(Clock::now() - t0_).count();
    rec_.complete = complete;
    if (!complete && !rec_.aborted) rec_.cut = cut_.empty() ? "closed" : cut_;
    srv_.emit(rec_);
}

// Keep-alive, unless the answer or the drain says otherwise.
bool Connection::keep(bool keep_alive, const HttpResponse &res) const {
    return keep_alive && !res.close && !draining_ && !srv_.draining.load();
}

void Connection::respond(HttpResponse res, bool keep_alive) {
    add_security_headers(res);
    phase_ = Phase::Writing;
    release_body();
    keep_alive = keep(keep_alive, res);
    note(res);
    if (rec_.method == "HEAD") return respond_head(res, keep_alive);
    out_ = std::make_shared<http::response<http::string_body>>();
    out_->version(11);
    out_->result(static_cast<unsigned>(res.status));
    for (const auto &h : res.headers) out_->set(h.first, h.second);
    out_->body() = std::move(res.body);
    out_->keep_alive(keep_alive);
    out_->prepare_payload();
    arm(srv_.send_deadline(Clock::now(), out_->body().size() + 512));
    http::async_write(socket_, *out_, [self = shared_from_this(), keep_alive](beast::error_code ec, std::size_t n) {
        self->out_.reset();
        self->rec_.bytes_out = n;
        self->emit(!ec);
        if (ec) return self->close();
        if (keep_alive) return self->read_header();
        self->linger();
    });
}

// The answer to HEAD: the headers a GET would get (its Content-Length,
// or Transfer-Encoding: chunked for a streamed answer, whose producer is
// never run), and no body.
void Connection::respond_head(const HttpResponse &res, bool keep_alive) {
    auto head = std::make_shared<http::response<http::empty_body>>();
    head->version(11);
    head->result(static_cast<unsigned>(res.status));
    for (const auto &h : res.headers) head->set(h.first, h.second);
    head->keep_alive(keep_alive);
    const bool no_body_status = res.status < 200 || res.status == 204 || res.status == 304;
    if (res.stream) head->chunked(true);
    else if (!no_body_status) head->content_length(res.body.size());
    auto serializer = std::make_shared<http::response_serializer<http::empty_body>>(*head);
    arm(srv_.send_deadline(Clock::now(), 1024));
    http::async_write_header(socket_, *serializer,
                             [self = shared_from_this(), head, serializer, keep_alive](beast::error_code ec, std::size_t n) {
                                 self->rec_.bytes_out = n;
                                 self->emit(!ec);
                                 if (ec) return self->close();
                                 if (keep_alive) return self->read_header();
                                 self->linger();
                             });
}

// A streamed response (HttpResponse::stream), driven from the worker that
// ran the handler: each chunk is handed to the strand and written before
// the next is made, so the worker holds one chunk at a time. The worker
// is taken for as long as the client reads at the minimum send rate (the
// handler limits how many such responses run at once).
void Connection::stream_response(HttpResponse res, bool keep_alive, unsigned gen) {
    add_security_headers(res);
    auto self = shared_from_this();
    keep_alive = keep(keep_alive, res);
    auto head = std::make_shared<http::response<http::empty_body>>();
    head->version(11);
    head->result(static_cast<unsigned>(res.status));
    for (const auto &h : res.headers) head->set(h.first, h.second);
    head->keep_alive(keep_alive);
    head->chunked(true);
    auto serializer = std::make_shared<http::response_serializer<http::empty_body>>(*head);
    const Clock::time_point start = Clock::now();
    // The record's fields, set on the strand before the first write.
    auto noted = std::make_shared<HttpResponse>();
    noted->status = res.status;
    noted->error = res.error;
    noted->route = res.route;
    noted->submission_id = res.submission_id;
    noted->outcome = res.outcome;
    noted->probe = res.probe;
    bool ok = on_strand_and_wait(srv_.send_deadline(start, 1024), [self, head, serializer, noted, start, gen](std::function<void(bool)> done) {
        if (gen != self->handling_gen_ || self->phase_ != Phase::Handling) return done(false);  // the deadline answered
        self->phase_ = Phase::Writing;
        self->note(*noted);
        self->arm(self->srv_.send_deadline(start, 1024));
        http::async_write_header(self->socket_, *serializer,
                                 [self, head, serializer, done](beast::error_code ec, std::size_t n) {
                                     self->rec_.bytes_out += n;
                                     done(!ec);
                                 });
    });
    bool finished = false;
    if (ok) {
        const HttpResponse::Writer writer = [&](std::string_view data) {
            if (!ok || data.empty()) return ok;
            // A copy that the write owns: it outlives this call if the wait gives up.
            auto chunk = std::make_shared<std::string>(data);
            const Clock::time_point deadline = srv_.send_deadline(start, chunk->size());
            ok = on_strand_and_wait(deadline, [self, chunk, deadline](std::function<void(bool)> done) {
                self->arm(deadline);
                asio::async_write(self->socket_, http::make_chunk(asio::buffer(*chunk)),
                                  [self, chunk, done](beast::error_code ec, std::size_t n) {
                                      self->rec_.bytes_out += n;
                                      done(!ec);
                                  });
            });
            return ok;
        };
        try {
            res.stream(writer);
            finished = ok;
        } catch (const std::exception &) {
            finished = false;
        }
    }
    asio::post(socket_.get_executor(), [self, finished, keep_alive, start] {
        if (!finished) {
            self->emit(false);
            return self->close();
        }
        auto last = std::make_shared<http::chunk_last<http::chunk_crlf>>(http::make_chunk_last());
        self->arm(self->srv_.send_deadline(start, 16));
        asio::async_write(self->socket_, *last, [self, last, keep_alive](beast::error_code ec, std::size_t n) {
            self->rec_.bytes_out += n;
            self->emit(!ec);
            if (ec) return self->close();
            if (keep_alive) return self->read_header();
            self->linger();
        });
    });
}

// Runs start(done) on the connection's strand and waits (on a worker) for
// done(result); false when it does not come by the write's deadline and a
// margin (the I/O thread has stopped, say). The strand's timer closes the
// socket at the deadline, which ends the write with an error.
bool Connection::on_strand_and_wait(Clock::time_point deadline, std::function<void(std::function<void(bool)>)> start) {
    auto promise = std::make_shared<std::promise<bool>>();
    std::future<bool> result = promise->get_future();
    asio::post(socket_.get_executor(), [start = std::move(start), promise]() {
        start([promise](bool v) { promise->set_value(v); });
    });
    if (result.wait_until(deadline + std::chrono::seconds(2)) != std::future_status::ready) return false;
    return result.get();
}

// Closing a socket with unread request bytes makes the kernel send a
// reset, which can destroy the answer before the client reads it (a 413
// to a client still sending its body). So: stop sending, then read and
// drop what still comes, for a short while and up to a cap, then close.
void Connection::linger() {
    phase_ = Phase::Draining;
    beast::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    arm(Clock::now() + std::chrono::seconds(2));
    drain_input();
}

void Connection::drain_input() {
    if (!drain_buffer_) drain_buffer_ = std::make_unique<std::array<char, 16384>>();
    socket_.async_read_some(asio::buffer(*drain_buffer_), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
        self->drained_ += n;
        if (ec || self->drained_ > (4u << 20)) return self->close();
        self->drain_input();
    });
}

// Whether the client's next request has reached the socket but not yet the
// parser: a kept-alive connection closed then would reset the client's
// request (the kernel answers unread bytes with RST), so it is read and
// answered instead.
bool Connection::bytes_waiting() {
    beast::error_code ec;
    const std::size_t n = socket_.available(ec);
    return !ec && n > 0;
}

void Connection::close() {
    disarm();
    release_body();
    beast::error_code ignored;
    socket_.close(ignored);
}

// Gives back what this connection's body counted against the budget.
void Connection::release_body() {
    if (share_reserved_) {
        srv_.release_share(share_key_, share_reserved_);
        share_reserved_ = 0;
    }
    if (reserved_ == 0) return;
    srv_.release_body(reserved_);
    reserved_ = 0;
}

// "HOST:PORT" ("[V6]:PORT") of the address the connection came in on.
std::string Connection::local_address(const tcp::socket &s) {
    beast::error_code ec;
    const tcp::endpoint ep = s.local_endpoint(ec);
    if (ec) return "";
    const std::string host = ep.address().to_string();
    return (ep.address().is_v6() ? "[" + host + "]" : host) + ":" + std::to_string(ep.port());
}

}  // namespace gmserver
